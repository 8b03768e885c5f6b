package vulkan

import (
	"errors"
	"strings"
	"testing"
)

func fakeDevices() []*physical {
	mk := func(i int, name string, typ DeviceType, usable bool) *physical {
		p := &physical{info: DeviceInfo{Index: i, Name: name, Type: typ, Usable: usable}}
		if !usable {
			p.info.Unusable = "supports Vulkan 1.1.0; forma needs 1.2.0"
		}
		return p
	}
	return []*physical{
		mk(0, "llvmpipe (LLVM 15)", TypeCPU, true),
		mk(1, "Intel(R) UHD Graphics 630", TypeIntegratedGPU, true),
		mk(2, "NVIDIA GeForce RTX 4090", TypeDiscreteGPU, true),
		mk(3, "Old Discrete", TypeDiscreteGPU, false),
	}
}

func TestSelectDevice(t *testing.T) {
	pds := fakeDevices()
	for _, tc := range []struct {
		selector, want, err string
	}{
		{"", "NVIDIA GeForce RTX 4090", ""},
		{"0", "llvmpipe (LLVM 15)", ""},
		{"intel", "Intel(R) UHD Graphics 630", ""},
		{"RTX", "NVIDIA GeForce RTX 4090", ""},
		{"7", "", "there are 4 devices"},
		{"-1", "", "there are 4 devices"},
		{"radeon", "", `no device name contains "radeon"`},
		{"old", "", "needs 1.2.0"},
	} {
		p, err := selectDevice(pds, tc.selector)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: error %v, want %q", tc.selector, err, tc.err)
		case tc.err == "" && (err != nil || p.info.Name != tc.want):
			t.Errorf("%q: got %v, %v; want %s", tc.selector, p, err, tc.want)
		}
	}
	if _, err := selectDevice(nil, ""); !errors.Is(err, ErrNoDevice) {
		t.Errorf("no devices: %v", err)
	}
	if _, err := selectDevice(pds[3:], ""); !errors.Is(err, ErrNoDevice) || !strings.Contains(err.Error(), "Old Discrete") {
		t.Errorf("only unusable devices: %v", err)
	}
}
