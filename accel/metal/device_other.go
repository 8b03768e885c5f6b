//go:build !darwin

package metal

// Metal exists only on macOS: elsewhere the backend reports why, in one line.

func openGPU() (gpu, error) { return nil, ErrNeedsMacOS }

func listDevices() ([]Info, error) { return nil, ErrNeedsMacOS }
