package cpu

import (
	"fmt"
	"sync"

	"github.com/forma-llm/forma/accel"
)

// sharedArena is the one arena of the programs compiled with an accel.Scratch: each program's intermediates
// and workspace lie at the start of it, so it is as large as the largest program needs. A program that needs
// more than it has replaces it with a larger one and binds every program to that. Programs that share it
// never run at the same time (CompileOptions.Scratch), and none runs while another is compiled.
type sharedArena struct {
	mu    sync.Mutex
	b     *Backend
	mem   []byte
	progs map[*program]struct{}
}

// shareArena gives p (whose steps have reported their workspace) the first need bytes of s's arena, growing it
// if need be, and binds p's scratch nodes and steps to it.
func (b *Backend) shareArena(p *program, s *accel.Scratch, need int) error {
	sa, _ := s.State().(*sharedArena)
	if sa == nil {
		if s.State() != nil {
			return fmt.Errorf("cpu: the scratch belongs to another backend (%T)", s.State())
		}
		sa = &sharedArena{b: b, progs: map[*program]struct{}{}}
		s.SetState(sa)
	}
	if sa.b != b {
		return fmt.Errorf("cpu: the scratch belongs to another backend")
	}
	sa.mu.Lock()
	defer sa.mu.Unlock()
	if need > len(sa.mem) {
		mem, err := allocNative(need)
		if err != nil {
			return err
		}
		old := sa.mem
		sa.mem = mem
		for q := range sa.progs {
			q.arena = mem[:len(q.arena)]
			q.bindMemory()
		}
		if err := freeNative(old); err != nil {
			return err
		}
	}
	p.arena, p.shared = sa.mem[:need], sa
	sa.progs[p] = struct{}{}
	return nil
}

// release takes p out of the arena's programs and frees the arena with the last of them.
func (sa *sharedArena) release(p *program) error {
	sa.mu.Lock()
	defer sa.mu.Unlock()
	delete(sa.progs, p)
	if len(sa.progs) > 0 {
		return nil
	}
	err := freeNative(sa.mem)
	sa.mem = nil
	return err
}
