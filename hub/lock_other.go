//go:build !unix && !windows

package hub

import "os"

// tryLock: no file locks on this system (wasm, plan9); pulls of one model must not run at once.
func tryLock(f *os.File) (bool, error) { return true, nil }

func unlock(f *os.File) {}
