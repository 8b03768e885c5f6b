package model_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/cpu"
	"github.com/forma-llm/forma/gguf"
	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/synth"
	"github.com/forma-llm/forma/model"
)

// TestSWACacheApart runs a tiny gpt-oss (a window of 8 on alternate layers) over 43 tokens in passes of 1 to 7 twice: once with
// one paged cache for every layer, once with the sliding-window layers' caches apart (Inputs.SWASlots,
// SWAPages) in a ring of 4 pages of 4 rows whose pages behind the window are released (-1) and reused. The
// logits must be the same bits: a windowed layer needs only its window's cells.
func TestSWACacheApart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.gguf")
	if err := synth.Write(path, synth.Options{Preset: "tiny-gpt-oss", Type: quant.F16, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	be, err := cpu.New(cpu.Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	m, err := model.Load(f, be, model.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hp := m.HParams()
	const page, maxPages, ring = 4, 12, 4
	window := hp.MaxWindow()
	if window != 8 {
		t.Fatalf("largest window %d, want 8", window)
	}
	passes := []int{5, 1, 1, 7, 1, 1, 1, 1, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	run := func(apart bool) [][]float32 {
		swaRows := maxPages * page
		if apart {
			swaRows = ring * page
		}
		bufs, err := model.NewKVCacheSWA(be, hp, maxPages*page, swaRows, accel.F32)
		if err != nil {
			t.Fatal(err)
		}
		defer model.CloseKV(bufs)
		var out [][]float32
		pos := 0
		for _, n := range passes {
			b := accel.NewBuilder()
			tokT, posT, slotT, seqT := b.Input("tokens", accel.I32, n), b.Input("pos", accel.I32, n), b.Input("slots", accel.I32, n), b.Input("seq", accel.I32, n)
			pagesT := b.Input("pages", accel.I32, 1, maxPages)
			in := model.Inputs{Tokens: tokT, Pos: posT, Slots: slotT, Seq: seqT, Pages: pagesT, PageSize: page,
				KV: model.BindKV(b, bufs), NCtx: maxPages * page}
			var swaSlotT, swaPagesT accel.Tensor
			if apart {
				swaSlotT, swaPagesT = b.Input("swa_slots", accel.I32, n), b.Input("swa_pages", accel.I32, 1, maxPages)
				in.SWASlots, in.SWAPages = swaSlotT, swaPagesT
			}
			logits := b.Output(m.Forward(b, in))
			g, err := b.Build()
			if err != nil {
				t.Fatal(err)
			}
			p, err := be.Compile(g, accel.CompileOptions{})
			if err != nil {
				t.Fatal(err)
			}
			tok, ps, slot, seq := make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n)
			swaSlot, table, swaTable := make([]int32, n), make([]int32, maxPages), make([]int32, maxPages)
			for i := range n {
				c := pos + i
				tok[i], ps[i], slot[i] = int32((c*37+5)%hp.Vocab), int32(c), int32(c)
				swaSlot[i] = int32(c/page%ring*page + c%page)
			}
			first := max(0, pos-window+1) / page // the oldest page the pass's first token sees
			for j := range table {
				table[j], swaTable[j] = int32(j), -1
				if j >= first {
					swaTable[j] = int32(j % ring)
				}
			}
			for _, set := range []struct {
				t accel.Tensor
				v []int32
			}{{tokT, tok}, {posT, ps}, {slotT, slot}, {seqT, seq}, {pagesT, table}, {swaSlotT, swaSlot}, {swaPagesT, swaTable}} {
				if set.t.Valid() {
					if err := p.SetInt32(set.t, set.v); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := p.Run(); err != nil {
				t.Fatal(err)
			}
			l := make([]float32, n*hp.Vocab)
			if err := p.Read(logits, l); err != nil {
				t.Fatal(err)
			}
			p.Close()
			for i := range n {
				out = append(out, l[i*hp.Vocab:(i+1)*hp.Vocab])
			}
			pos += n
		}
		return out
	}
	shared, apart := run(false), run(true)
	for i := range shared {
		for j := range shared[i] {
			if math.Float32bits(shared[i][j]) != math.Float32bits(apart[i][j]) {
				t.Fatalf("position %d, logit %d: %g with one cache, %g with the sliding-window layers' apart", i, j, shared[i][j], apart[i][j])
			}
		}
	}
}
