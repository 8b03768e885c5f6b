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

// NewBackend opens the system's default Metal device and returns a backend that owns it. Errors wrap
// ErrNeedsMacOS or ErrNoDevice when Metal cannot be used, so callers can fall back.
func NewBackend(opt Options) (*Backend, error) {
	g, err := openGPU()
	if err != nil {
		return nil, err
	}
	b, err := newBackendOn(g, opt, os.Getenv(NoCopyEnv))
	if err != nil {
		g.close()
		return nil, err
	}
	b.ownGPU = true
	return b, nil
}

// Devices lists the Metal devices (on other systems, an error wrapping ErrNeedsMacOS).
func Devices() ([]Info, error) { return listDevices() }

func (i Info) String() string {
	return fmt.Sprintf("%s (macOS %s)", i.Name, i.OS)
}
