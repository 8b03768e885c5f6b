package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/metal"
)

// The Metal backend: --backend metal opens the system's default Metal device; off macOS it fails with "Metal
// needs macOS", and --backend auto passes over it silently there (on a Mac it says why it passed over).
func init() {
	backendOpeners["metal"] = func(int) (accel.Backend, error) { return metal.NewBackend(metal.Options{}) }
	autoOpeners["metal"] = func(int) (accel.Backend, error) {
		be, err := metal.NewBackend(metal.Options{})
		if errors.Is(err, metal.ErrNeedsMacOS) {
			return nil, notHere(err)
		}
		return be, err
	}
	selftestDevices["metal"] = func() (*selftestDevice, error) {
		d, err := metal.OpenDevice()
		if errors.Is(err, metal.ErrNeedsMacOS) {
			return nil, notHere(err)
		}
		if err != nil {
			return nil, err
		}
		inf := d.Info()
		desc := fmt.Sprintf("%s, macOS %s, families %v, unified memory %s, SIMD width %d", inf.Name, inf.OS, inf.Families,
			yes(inf.UnifiedMemory), inf.ThreadsPerSIMD)
		return &selftestDevice{desc: desc, close: d.Close,
			newBackend: func() (accel.Backend, error) { return metal.NewBackendOn(d, metal.Options{}) }}, nil
	}
}

// writeMetalDevices prints every Metal device, or why there are none, and the default device's probes.
func writeMetalDevices(w io.Writer) {
	devs, err := metal.Devices()
	if err != nil {
		fmt.Fprintf(w, "metal: unavailable: %v\n", err)
		return
	}
	if len(devs) == 0 {
		fmt.Fprintln(w, "metal: no devices")
		return
	}
	var probed metal.Info
	d, perr := metal.OpenDevice()
	if perr == nil {
		probed = d.Info()
		d.Close()
	}
	for i, inf := range devs {
		fmt.Fprintf(w, "metal %d: %s, macOS %s\n", i, inf.Name, inf.OS)
		mem := fmt.Sprintf("working set %s, largest buffer %s", mib(uint64(inf.WorkingSet)), mib(uint64(inf.MaxBuffer)))
		if inf.UnifiedMemory {
			mem += "; unified with the host"
		}
		fmt.Fprintf(w, "  memory: %s\n", mem)
		fmt.Fprintf(w, "  families: %v\n", inf.Families)
		switch {
		case perr != nil && i == 0:
			fmt.Fprintf(w, "  unusable: %v\n", perr)
		case probed.Registry == inf.Registry && probed.Name == inf.Name:
			fmt.Fprintf(w, "  default device: SIMD width %d, SIMD-group reductions %s\n", probed.ThreadsPerSIMD, works(probed.Simdgroup))
		}
	}
}

func works(ok bool) string {
	if ok {
		return "work"
	}
	return "do not work (unusable)"
}
