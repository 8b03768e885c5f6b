package hub

import (
	"context"
	"os"
	"time"
)

// lockPoll is how often a pull waiting for another one's lock tries again.
const lockPoll = 100 * time.Millisecond

// lockFile takes an exclusive lock on the file at p (created if need be), waiting until it is free or ctx
// ends; waiting is called once if it must wait. Locks are the operating system's (flock, LockFileEx), so they
// hold between processes and between goroutines alike, and vanish with a process that dies. The returned
// function removes the file and releases the lock. A lock taken on a file that another holder removed
// meanwhile is dropped and taken again on the new file, so that removing lock files is safe.
func lockFile(ctx context.Context, p string, waiting func()) (func(), error) {
	told := false
	for {
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, err
		}
		if ok {
			fi, ferr := f.Stat()
			pi, perr := os.Stat(p)
			if ferr == nil && perr == nil && os.SameFile(fi, pi) {
				return func() {
					os.Remove(p) // fails on Windows while open: the file then stays, harmless
					unlock(f)
					f.Close()
				}, nil
			}
			unlock(f)
		}
		f.Close()
		if !ok && !told && waiting != nil {
			waiting()
			told = true
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(lockPoll):
		}
	}
}
