package metal

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// Errors that say Metal cannot be used here; callers fall back to another backend and print the error.
var (
	// ErrNeedsMacOS: this build is not for macOS, where Metal is.
	ErrNeedsMacOS = errors.New("Metal needs macOS")
	// ErrNoDevice: macOS gave no usable Metal device (wraps the reason).
	ErrNoDevice = errors.New("metal: no usable Metal device")
)

// WeightMode says how weights reach the GPU.
type WeightMode uint8

const (
	// WeightsAuto maps weights that need no conversion in place (no copy) when the device shares the host's
	// memory, unless it is the paravirtual device of macOS 14 and earlier, whose no-copy file mappings read
	// stale data; everything else is copied. FORMA_METAL_NOCOPY=1 or 0 overrides the choice.
	WeightsAuto WeightMode = iota
	// WeightsNoCopy maps them in place wherever the device shares memory with the host.
	WeightsNoCopy
	// WeightsCopy copies every weight into Metal buffers.
	WeightsCopy
)

// NoCopyEnv names the environment variable that overrides WeightsAuto: 1 maps in place, 0 copies.
const NoCopyEnv = "FORMA_METAL_NOCOPY"

// Options configure NewBackend.
type Options struct {
	Weights WeightMode
}

// Info describes a Metal device.
type Info struct {
	Name string
	// Families lists the GPU families the device reports (supportsFamily): "Apple9", "Mac2", "Metal3", …
	// Virtual machines may under-report, so nothing is decided by them.
	Families      []string
	UnifiedMemory bool  // hasUnifiedMemory: the GPU reads host memory directly
	MaxBuffer     int64 // maxBufferLength
	WorkingSet    int64 // recommendedMaxWorkingSetSize
	Registry      uint64
	OS            string // the macOS version ("15.1")
	// Found by a probe kernel at start: SIMD-group reductions work and give exact results, and the threads
	// of a SIMD group (threadExecutionWidth).
	Simdgroup      bool
	ThreadsPerSIMD int
}

// Paravirtual reports whether the device is the paravirtual GPU of a macOS virtual machine (GitHub's hosted
// Mac runners, UTM).
func (i Info) Paravirtual() bool { return strings.Contains(strings.ToLower(i.Name), "paravirtual") }

// noCopy decides whether weights are mapped in place.
func noCopy(mode WeightMode, info Info, env string) bool {
	if !info.UnifiedMemory || mode == WeightsCopy {
		return false
	}
	if mode == WeightsNoCopy {
		return true
	}
	switch env {
	case "1":
		return true
	case "0":
		return false
	}
	return !(info.Paravirtual() && osMajor(info.OS) < 15)
}

// osMajor is the major version of a macOS version string, 0 if unknown.
func osMajor(v string) int {
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			break
		}
		n = 10*n + int(c-'0')
	}
	return n
}

// Device is an open Metal device (the system's default). Several backends may share one: pipelines are
// compiled once per device.
type Device struct{ g gpu }

// OpenDevice opens the system's default Metal device and probes it. Errors wrap ErrNeedsMacOS or ErrNoDevice
// when Metal cannot be used, so callers can fall back.
func OpenDevice() (*Device, error) {
	g, err := openGPU()
	if err != nil {
		return nil, err
	}
	return &Device{g: g}, nil
}

// Info describes the device, with the probes' results.
func (d *Device) Info() Info { return d.g.info() }

// Close releases the device. Backends on it must be closed first.
func (d *Device) Close() error { return d.g.close() }

// NewBackend opens the system's default Metal device and returns a backend that owns it: closing the backend
// closes the device.
func NewBackend(opt Options) (*Backend, error) {
	d, err := OpenDevice()
	if err != nil {
		return nil, err
	}
	b, err := NewBackendOn(d, opt)
	if err != nil {
		d.Close()
		return nil, err
	}
	b.ownGPU = true
	return b, nil
}

// NewBackendOn returns a backend on an open device, which it shares: closing the backend frees what the backend
// made but leaves the device open.
func NewBackendOn(d *Device, opt Options) (*Backend, error) {
	return newBackendOn(d.g, opt, os.Getenv(NoCopyEnv))
}

// Devices lists the Metal devices (on other systems, an error wrapping ErrNeedsMacOS).
func Devices() ([]Info, error) { return listDevices() }

func (i Info) String() string {
	return fmt.Sprintf("%s (macOS %s)", i.Name, i.OS)
}
