package synth

import (
	"fmt"
	"slices"
	"sort"
)

// Arch is a model architecture synth can write, named as in GGUF's general.architecture.
type Arch string

// The architectures synth writes, with the tensor names and metadata keys llama.cpp expects for each.
const (
	Llama  Arch = "llama"
	Qwen2  Arch = "qwen2"
	Qwen3  Arch = "qwen3"
	Gemma3 Arch = "gemma3"
	Phi3   Arch = "phi3"
	// Encoders (embedding models and rerankers).
	Bert      Arch = "bert"
	NomicBert Arch = "nomic-bert"
	// Mixtures of experts.
	Qwen3MoE  Arch = "qwen3moe"
	GPTOSS    Arch = "gpt-oss"
	DeepSeek2 Arch = "deepseek2"
	// Dense families on the llama block.
	Mistral3 Arch = "mistral3"
	Granite  Arch = "granite"
	OLMo2    Arch = "olmo2"
	SmolLM3  Arch = "smollm3"
	Gemma2   Arch = "gemma2"
	// Short convolutions mixed with attention.
	LFM2 Arch = "lfm2"
)

// encoder reports whether a is a BERT-style encoder (no output head, post-norm blocks with layer norms).
func (a Arch) encoder() bool { return a == Bert || a == NomicBert }

// Vocab is the kind of vocabulary a preset carries.
type Vocab int

const (
	// SPM is a SentencePiece vocabulary (tokenizer.ggml.model "llama"): <unk>, <s>, </s>, 256 byte tokens
	// <0x00>…<0xFF>, then scored pieces.
	SPM Vocab = iota
	// BPE is a GPT-2 style byte-level BPE vocabulary (tokenizer.ggml.model "gpt2") with merges.
	BPE
	// WPM is a WordPiece vocabulary (tokenizer.ggml.model "bert") as convert_hf_to_gguf writes BERT's: [PAD],
	// [unusedN], [UNK] 100, [CLS] 101, [SEP] 102, [MASK] 103, then word starts "▁x" and continuations "x".
	WPM
)

// Preset is the shape of a model family.
type Preset struct {
	Name          string
	Arch          Arch
	Embd          int // n_embd
	Layers        int
	Heads         int
	KVHeads       int
	HeadDim       int // written as attention.key_length/value_length when WriteHeadDim; else Embd/Heads
	WriteHeadDim  bool
	FFN           int
	VocabSize     int // tokens, and rows of token_embd
	ContextLength int
	RopeBase      float64
	RMSEps        float64
	Tied          bool // no output.weight: the output projection uses token_embd
	Vocab         Vocab
	Pre           string   // tokenizer.ggml.pre for BPE
	Specials      []string // control tokens at the end of the vocabulary (SPM: after the pieces)
	BOS, EOS      string   // texts of the BOS and EOS tokens
	AddBOS        bool
	Llama3Rope    bool    // write rope_freqs.weight with Llama 3's frequency factors
	SlidingWindow int     // gemma3, gpt-oss: attention.sliding_window
	SWAPattern    int     // gemma3: attention.sliding_window_pattern
	RopeBaseSWA   float64 // gemma3: rope.freq_base_swa
	AddEOS        bool    // tokenizer.ggml.add_eos_token (Qwen3-Embedding ends each text with <|endoftext|>)

	// Embedding models.
	Pooling    string  // ARCH.pooling_type: "none", "mean", "cls", "last" or "rank"; "" writes no key
	NormEps    float64 // encoders: attention.layer_norm_epsilon
	TokenTypes int     // encoders: rows of token_types.weight (tokenizer.ggml.token_type_count)
	RankHead   bool    // a reranker's classifier: cls.weight/bias [embd, embd] and cls.output [1, embd]

	// Mixture of experts: Experts matrices of ExpertFF hidden units per layer, ExpertsUsed chosen per token;
	// deepseek2 adds SharedExperts every token goes through and keeps a dense FFN in the first DenseLead layers.
	Experts, ExpertsUsed, ExpertFF int
	SharedExperts, DenseLead       int
	ExpertWeightsScale             float64 // deepseek2: expert_weights_scale
	ExpertWeightsNorm              bool    // deepseek2: expert_weights_norm

	// YaRN context extension (gpt-oss, deepseek2): rope.scaling.* keys when YaRNFactor > 0.
	YaRNFactor  float64
	YaRNOrigCtx int
	YaRNLogMul  float64 // deepseek2: rope.scaling.yarn_log_multiplier

	// Multi-head latent attention (deepseek2): q is projected directly (V2-Lite has no q compression), keys
	// and values come from a KVLoraRank-wide compressed row plus QKRope rotated dimensions shared by all heads;
	// per head QKNope unrotated key dimensions and VHead value dimensions.
	KVLoraRank, QKNope, QKRope, VHead int

	// granite's multipliers: embedding_scale, residual_scale, attention.scale, logit_scale (written when > 0).
	EmbeddingScale, ResidualScale, AttentionScale, LogitScale float64
	// gemma2: attn_logit_softcapping and final_logit_softcapping (written when > 0).
	AttnSoftCap, FinalSoftCap float64
	// mistral3: attention.temperature_scale (written when > 0; its floor scale is YaRNOrigCtx).
	TemperatureScale float64
	// lfm2: the layers with attention (head_count_kv is written per layer, 0 for the others, which are short
	// convolutions of ConvTaps taps: shortconv.l_cache).
	AttnLayers []int
	ConvTaps   int
}

// convLayer reports whether layer l is a short convolution (lfm2's layers without attention).
func (p Preset) convLayer(l int) bool { return p.Arch == LFM2 && !slices.Contains(p.AttnLayers, l) }

// phi3Specials are Phi-3's added tokens (ids 32000…32010 in the real model); llama.cpp looks some of them up by
// text when loading a vocabulary whose model name says phi3.
var phi3Specials = []string{"<|endoftext|>", "<|assistant|>", "<|placeholder1|>", "<|placeholder2|>",
	"<|placeholder3|>", "<|placeholder4|>", "<|system|>", "<|end|>", "<|placeholder5|>", "<|placeholder6|>", "<|user|>"}

var qwenSpecials = []string{"<|endoftext|>", "<|im_start|>", "<|im_end|>"}

var llama3Specials = []string{"<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>",
	"<|eot_id|>"}

var presets = map[string]Preset{}

func add(p Preset) {
	if p.Arch == DeepSeek2 {
		p.HeadDim = p.QKNope + p.QKRope
	}
	if p.HeadDim == 0 {
		p.HeadDim = p.Embd / p.Heads
	}
	if p.Vocab == WPM {
		p.BOS, p.EOS = "[CLS]", "[SEP]"
	}
	if p.Vocab == SPM {
		p.AddBOS = true
		if p.BOS == "" {
			p.BOS, p.EOS = "<s>", "</s>"
		}
	}
	presets[p.Name] = p
}

func init() {
	add(Preset{Name: "tinyllama-1.1b", Arch: Llama, Embd: 2048, Layers: 22, Heads: 32, KVHeads: 4, FFN: 5632,
		VocabSize: 32000, ContextLength: 2048, RopeBase: 10000, RMSEps: 1e-5})
	add(Preset{Name: "llama-3.2-1b", Arch: Llama, Embd: 2048, Layers: 16, Heads: 32, KVHeads: 8, FFN: 8192,
		VocabSize: 128256, ContextLength: 131072, RopeBase: 500000, RMSEps: 1e-5, Tied: true, Llama3Rope: true,
		Vocab: BPE, Pre: "llama-bpe", Specials: llama3Specials, BOS: "<|begin_of_text|>", EOS: "<|end_of_text|>",
		AddBOS: true})
	add(Preset{Name: "qwen2-0.5b", Arch: Qwen2, Embd: 896, Layers: 24, Heads: 14, KVHeads: 2, FFN: 4864,
		VocabSize: 151936, ContextLength: 32768, RopeBase: 1e6, RMSEps: 1e-6, Tied: true, Vocab: BPE, Pre: "qwen2",
		Specials: qwenSpecials, BOS: "<|endoftext|>", EOS: "<|im_end|>"})
	add(Preset{Name: "qwen3-0.6b", Arch: Qwen3, Embd: 1024, Layers: 28, Heads: 16, KVHeads: 8, HeadDim: 128,
		WriteHeadDim: true, FFN: 3072, VocabSize: 151936, ContextLength: 40960, RopeBase: 1e6, RMSEps: 1e-6,
		Tied: true, Vocab: BPE, Pre: "qwen2", Specials: qwenSpecials, BOS: "<|endoftext|>", EOS: "<|im_end|>"})
	add(Preset{Name: "gemma3-1b", Arch: Gemma3, Embd: 1152, Layers: 26, Heads: 4, KVHeads: 1, HeadDim: 256,
		WriteHeadDim: true, FFN: 6912, VocabSize: 262144, ContextLength: 32768, RopeBase: 1e6, RMSEps: 1e-6,
		Tied: true, SlidingWindow: 512, SWAPattern: 6, RopeBaseSWA: 10000})
	add(Preset{Name: "phi3-mini", Arch: Phi3, Embd: 3072, Layers: 32, Heads: 32, KVHeads: 32, FFN: 8192,
		VocabSize: 32064, ContextLength: 4096, RopeBase: 10000, RMSEps: 1e-5, Specials: phi3Specials, BOS: "<s>",
		EOS: "<|endoftext|>"})

	addEmbeddingPresets()

	// Small models for tests: the same architectures at width 256.
	add(Preset{Name: "tiny-llama", Arch: Llama, Embd: 256, Layers: 2, Heads: 4, KVHeads: 2, FFN: 512,
		VocabSize: 1024, ContextLength: 2048, RopeBase: 10000, RMSEps: 1e-5})
	add(Preset{Name: "tiny-qwen2", Arch: Qwen2, Embd: 256, Layers: 2, Heads: 4, KVHeads: 2, FFN: 512,
		VocabSize: 2048, ContextLength: 4096, RopeBase: 1e6, RMSEps: 1e-6, Tied: true, Vocab: BPE, Pre: "qwen2",
		Specials: qwenSpecials, BOS: "<|endoftext|>", EOS: "<|im_end|>"})
	add(Preset{Name: "tiny-qwen3", Arch: Qwen3, Embd: 256, Layers: 2, Heads: 4, KVHeads: 2, HeadDim: 64,
		WriteHeadDim: true, FFN: 768, VocabSize: 2048, ContextLength: 4096, RopeBase: 1e6, RMSEps: 1e-6,
		Tied: true, Vocab: BPE, Pre: "qwen2", Specials: qwenSpecials, BOS: "<|endoftext|>", EOS: "<|im_end|>"})
	// A separate output.weight: with tied embeddings, gemma's sqrt(n_embd) input scaling makes a random model
	// predict its input token forever.
	add(Preset{Name: "tiny-gemma3", Arch: Gemma3, Embd: 256, Layers: 3, Heads: 4, KVHeads: 1, HeadDim: 64,
		WriteHeadDim: true, FFN: 512, VocabSize: 2048, ContextLength: 4096, RopeBase: 1e6, RMSEps: 1e-6,
		SlidingWindow: 8, SWAPattern: 3, RopeBaseSWA: 10000})
	add(Preset{Name: "tiny-phi3", Arch: Phi3, Embd: 256, Layers: 2, Heads: 4, KVHeads: 4, FFN: 512,
		VocabSize: 2048, ContextLength: 4096, RopeBase: 10000, RMSEps: 1e-5, Specials: phi3Specials, BOS: "<s>",
		EOS: "<|endoftext|>"})
	addMoE()
	addFamilies()
}

// Presets returns the names of every preset, sorted.
func Presets() []string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Lookup returns the named preset.
func Lookup(name string) (Preset, error) {
	p, ok := presets[name]
	if !ok {
		return Preset{}, fmt.Errorf("synth: unknown preset %q (have %v)", name, Presets())
	}
	return p, nil
}
