package osmem

import (
	"fmt"
	"os"
)

// MapAlign is the alignment MapFileAt needs of an offset on every platform: Windows maps views at multiples of
// 64 KiB, and page sizes elsewhere (4 KiB, 16 KiB on Apple silicon, 64 KiB on some arm64 Linux kernels) divide it.
const MapAlign = 64 << 10

// checkMap checks a mapping's offset and size before the system call, so that a bad one gets an error naming it.
func checkMap(f *os.File, off, size int64) error {
	switch {
	case size < 0 || int64(int(size)) != size:
		return fmt.Errorf("cannot map %d bytes of %s", size, f.Name())
	case off < 0 || off%MapAlign != 0:
		return fmt.Errorf("cannot map %s at offset %d: not a multiple of %d", f.Name(), off, MapAlign)
	}
	return nil
}
