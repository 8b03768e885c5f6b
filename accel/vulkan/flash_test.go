package vulkan

import (
	"strings"
	"testing"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// TestRefusesFlashAttention: the backend has no flash-attention shader, so it says so (Caps), refuses a
// quantized cache buffer naming its type, and fails to compile flash attention naming it — never a silent
// non-flash result.
func TestRefusesFlashAttention(t *testing.T) {
	b := newTestBackend(t, openTest(t))
	defer b.Close()
	if b.Caps().FlashAttention {
		t.Fatal("Caps.FlashAttention set without a kernel")
	}
	if _, err := b.NewBuffer(accel.TensorDesc{Name: "k", Type: quant.Q8_0, Shape: []int{16, 2, 64}}); err == nil ||
		!strings.Contains(err.Error(), "Q8_0") {
		t.Errorf("Q8_0 cache buffer: err = %v, want one naming Q8_0", err)
	}
	k, err := b.NewBuffer(accel.TensorDesc{Name: "k", Type: quant.F16, Shape: []int{16, 2, 64}})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	v, err := b.NewBuffer(accel.TensorDesc{Name: "v", Type: quant.F16, Shape: []int{16, 2, 64}})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	bd := accel.NewBuilder()
	q := bd.Input("q", accel.F32, 1, 4, 64)
	pos := bd.Input("pos", accel.I32, 1)
	bd.Output(bd.Attention(q, bd.Buffer(k), bd.Buffer(v), pos, accel.AttentionParams{Scale: 0.125, Flash: true}))
	g, err := bd.Build()
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.Compile(g, accel.CompileOptions{})
	if err == nil {
		p.Close()
		t.Fatal("flash attention compiled")
	}
	if !strings.Contains(err.Error(), "flash attention") {
		t.Errorf("err = %v, want one naming flash attention", err)
	}
}
