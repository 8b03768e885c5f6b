//go:build !linux && !darwin && !freebsd && !windows

package hub

import "errors"

// diskFree is unknown on this system: the check is skipped.
func diskFree(dir string) (uint64, error) { return 0, errors.ErrUnsupported }
