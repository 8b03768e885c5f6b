package modelinfo

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText prints the summary and the memory estimate as aligned "label  value" lines.
func (in *Info) WriteText(w io.Writer, mem Memory) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	line := func(label, format string, args ...any) {
		fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{label}, args...)...)
	}
	line("model", "%s", strings.Join(in.Paths, ", "))
	line("architecture", "%s", in.Architecture)
	if in.Name != "" {
		line("name", "%s", in.Name)
	}
	line("parameters", "%s (%d)", FormatCount(in.Params), in.Params)
	if in.Experts > 0 {
		line("active per token", "%s (%d): %d of %d experts", FormatCount(in.ActiveParams), in.ActiveParams, in.ExpertsUsed, in.Experts)
	}
	line("file size", "%s (%d bytes), GGUF v%d", FormatBytes(uint64(in.FileSize)), in.FileSize, in.Version)
	line("tensors", "%d, %s of weights", in.TensorCount, FormatBytes(in.WeightBytes))
	for i, c := range in.TypeMix {
		label := ""
		if i == 0 {
			label = "type mix"
		}
		line(label, "%-8s %4d tensors  %s", c.Name, c.Count, FormatBytes(c.Bytes))
	}
	line("context length", "%d", in.ContextLength)
	line("embedding", "%d", in.Embedding)
	line("layers", "%d", in.Layers)
	if in.FeedForward > 0 {
		line("feed forward", "%d", in.FeedForward)
	}
	line("heads", "%d, KV heads %d%s", in.Heads, in.KVHeads, perLayerNote(in.KVHeadsLayer))
	if in.HeadDimV != in.HeadDim {
		line("head dim", "%d (K), %d (V)", in.HeadDim, in.HeadDimV)
	} else {
		line("head dim", "%d", in.HeadDim)
	}
	r := in.RoPE
	factors := ""
	if r.FreqFactors {
		factors = ", frequency factors (rope_freqs.weight)"
	}
	line("rope", "freq base %g, freq scale %g, dims %d, scaling %s%s", r.FreqBase, r.FreqScale, r.Dims,
		r.ScalingType, factors)
	line("vocab", "%d (from %s)", in.VocabSize, orDash(in.VocabSource))
	line("tokenizer", "%s, pre-tokenizer %s", orDash(in.TokenizerModel), orDash(in.TokenizerPre))
	line("BOS / EOS", "%s / %s", tokenID(in.BOS), tokenID(in.EOS))
	line("chat template", "%s", yesNo(in.HasChatTemplate))
	line(fmt.Sprintf("memory @ ctx %d", mem.Context), "%s total", FormatBytes(mem.Total))
	line("", "weights   %s", FormatBytes(mem.Weights))
	line("", "KV cache  %s (F16 K and V)", FormatBytes(mem.KVCache))
	line("", "compute   %s (estimate, one batch of %d)", FormatBytes(mem.Compute), min(Ubatch, mem.Context))
	return tw.Flush()
}

// WriteTensors prints one line per tensor: name, type, dims (ggml order) and bytes.
func (in *Info) WriteTensors(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "name\ttype\tdims\tbytes")
	for _, t := range in.Tensors {
		fmt.Fprintf(tw, "%s\t%s\t%v\t%d\n", t.Name, t.Type, t.Dims, t.Size)
	}
	return tw.Flush()
}

func perLayerNote(xs []int) string {
	if xs == nil {
		return ""
	}
	return fmt.Sprintf(" (per layer %v)", xs)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func tokenID(id int64) string {
	if id < 0 {
		return "-"
	}
	return fmt.Sprint(id)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
