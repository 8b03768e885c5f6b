package cpu

import (
	"slices"
	"strings"
	"testing"

	"github.com/forma-llm/forma/accel"
)

// TestSharedScratch runs a prompt program and a decode program that share a Scratch, the decode one compiled
// first so that the prompt one grows the arena and moves it, and checks their logits against the same programs
// with their own arenas, bit for bit; the arena outlives the first program closed, and another backend refuses it.
func TestSharedScratch(t *testing.T) {
	b := newTestBackend(t, 2)
	defer b.Close()
	m := newLlama(t, b, smallLlama)
	const n = 8
	type pass struct {
		g             *accel.Graph
		tok, pos, out accel.Tensor
		ids, at       []int32
	}
	passes := [2]pass{}
	passes[0].g, passes[0].tok, passes[0].pos, passes[0].out = m.graph(t, n)
	passes[1].g, passes[1].tok, passes[1].pos, passes[1].out = m.graph(t, 1)
	passes[0].ids, passes[0].at = []int32{1, 5, 9, 13, 17, 21, 25, 29}, []int32{0, 1, 2, 3, 4, 5, 6, 7}
	passes[1].ids, passes[1].at = []int32{33}, []int32{n}
	run := func(progs [2]accel.Program) [2][]float32 {
		var logits [2][]float32
		for i, ps := range passes {
			if err := progs[i].SetInt32(ps.tok, ps.ids); err != nil {
				t.Fatal(err)
			}
			if err := progs[i].SetInt32(ps.pos, ps.at); err != nil {
				t.Fatal(err)
			}
			if err := progs[i].Run(); err != nil {
				t.Fatal(err)
			}
			logits[i] = make([]float32, len(ps.ids)*smallLlama.vocab)
			if err := progs[i].Read(ps.out, logits[i]); err != nil {
				t.Fatal(err)
			}
		}
		return logits
	}
	compile := func(i int, opt accel.CompileOptions) accel.Program {
		p, err := b.Compile(passes[i].g, opt)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	own := [2]accel.Program{compile(0, accel.CompileOptions{}), compile(1, accel.CompileOptions{})}
	want := run(own)

	var s accel.Scratch
	var shared [2]accel.Program
	shared[1] = compile(1, accel.CompileOptions{Scratch: &s}) // the smaller first: the larger moves the arena
	shared[0] = compile(0, accel.CompileOptions{Scratch: &s})
	if shared[1].ScratchBytes() >= shared[0].ScratchBytes() {
		t.Fatalf("decode scratch %d ≥ prompt scratch %d", shared[1].ScratchBytes(), shared[0].ScratchBytes())
	}
	sa := s.State().(*sharedArena)
	if &shared[0].(*program).arena[0] != &sa.mem[0] || &shared[1].(*program).arena[0] != &sa.mem[0] {
		t.Fatal("the programs do not share the arena")
	}
	for round := 0; round < 2; round++ {
		got := run(shared)
		for i := range got {
			if !slices.Equal(got[i], want[i]) {
				t.Fatalf("round %d, program %d: logits differ from the program with its own arena", round, i)
			}
		}
	}
	if err := shared[0].Close(); err != nil {
		t.Fatal(err)
	}
	ps := passes[1]
	if err := shared[1].SetInt32(ps.tok, ps.ids); err != nil {
		t.Fatal(err)
	}
	if err := shared[1].SetInt32(ps.pos, ps.at); err != nil {
		t.Fatal(err)
	}
	if err := shared[1].Run(); err != nil || sa.mem == nil {
		t.Fatalf("after the first program closed: Run %v, arena %d bytes", err, len(sa.mem))
	}
	if err := shared[1].Close(); err != nil {
		t.Fatal(err)
	}
	if sa.mem != nil {
		t.Error("the arena outlived its last program")
	}

	other := newTestBackend(t, 1)
	defer other.Close()
	om := newLlama(t, other, smallLlama)
	g, _, _, _ := om.graph(t, 1)
	if _, err := other.Compile(g, accel.CompileOptions{Scratch: &s}); err == nil || !strings.Contains(err.Error(), "another backend") {
		t.Errorf("another backend's scratch: %v", err)
	}
}
