package synth

// gptOSSSpecials are the Harmony format's tokens of gpt-oss (o200k_harmony ids 199998…200018 in the real
// model), as its chat template writes them.
var gptOSSSpecials = []string{"<|startoftext|>", "<|endoftext|>", "<|reserved_200000|>", "<|reserved_200001|>",
	"<|return|>", "<|constrain|>", "<|reserved_200004|>", "<|channel|>", "<|start|>", "<|end|>", "<|message|>",
	"<|reserved_200009|>", "<|reserved_200010|>", "<|reserved_200011|>", "<|call|>"}

var deepseekSpecials = []string{"<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>", "<｜User｜>", "<｜Assistant｜>"}

// addMoE adds the mixture-of-experts presets: the real shapes and tiny variants for tests. The tiny ones keep
// their architectures' structure (qwen3moe's q/k norms and normalised top-k weights; gpt-oss's biases, sinks,
// alternating sliding window, YaRN and clamped SwiGLU; deepseek2's latent attention, shared experts and dense
// first layer) at width 256 with a 320-token vocabulary, so that reference logits stay small.
func addMoE() {
	add(Preset{Name: "qwen3-30b-a3b", Arch: Qwen3MoE, Embd: 2048, Layers: 48, Heads: 32, KVHeads: 4, HeadDim: 128,
		WriteHeadDim: true, FFN: 6144, Experts: 128, ExpertsUsed: 8, ExpertFF: 768, VocabSize: 151936,
		ContextLength: 40960, RopeBase: 1e6, RMSEps: 1e-6, Vocab: BPE, Pre: "qwen2", Specials: qwenSpecials,
		BOS: "<|endoftext|>", EOS: "<|im_end|>"})
	// Qwen3-30B-A3B's active shape as a dense model: its attention with one FFN of 8·768 = 6144 (the file's
	// feed_forward_length), for measuring a MoE decode against the dense model that reads as much per token.
	add(Preset{Name: "qwen3-30b-a3b-dense", Arch: Qwen3, Embd: 2048, Layers: 48, Heads: 32, KVHeads: 4, HeadDim: 128,
		WriteHeadDim: true, FFN: 6144, VocabSize: 151936, ContextLength: 40960, RopeBase: 1e6, RMSEps: 1e-6,
		Vocab: BPE, Pre: "qwen2", Specials: qwenSpecials, BOS: "<|endoftext|>", EOS: "<|im_end|>"})
	add(Preset{Name: "gpt-oss-20b", Arch: GPTOSS, Embd: 2880, Layers: 24, Heads: 64, KVHeads: 8, HeadDim: 64,
		WriteHeadDim: true, FFN: 2880, Experts: 32, ExpertsUsed: 4, ExpertFF: 2880, VocabSize: 201088,
		ContextLength: 131072, RopeBase: 150000, RMSEps: 1e-5, SlidingWindow: 128, YaRNFactor: 32, YaRNOrigCtx: 4096,
		Vocab: BPE, Pre: "gpt-4o", Specials: gptOSSSpecials, BOS: "<|startoftext|>", EOS: "<|return|>"})
	add(Preset{Name: "deepseek-v2-lite", Arch: DeepSeek2, Embd: 2048, Layers: 27, Heads: 16, KVHeads: 16, FFN: 10944,
		Experts: 64, ExpertsUsed: 6, ExpertFF: 1408, SharedExperts: 2, DenseLead: 1, ExpertWeightsScale: 1,
		KVLoraRank: 512, QKNope: 128, QKRope: 64, VHead: 128, YaRNFactor: 40, YaRNOrigCtx: 4096, YaRNLogMul: 0.0707,
		VocabSize: 102400, ContextLength: 163840, RopeBase: 10000, RMSEps: 1e-6, Vocab: BPE, Pre: "deepseek-llm",
		Specials: deepseekSpecials, BOS: "<｜begin▁of▁sentence｜>", EOS: "<｜end▁of▁sentence｜>", AddBOS: true})

	add(Preset{Name: "tiny-qwen3moe", Arch: Qwen3MoE, Embd: 256, Layers: 2, Heads: 4, KVHeads: 2, HeadDim: 64,
		WriteHeadDim: true, FFN: 512, Experts: 16, ExpertsUsed: 4, ExpertFF: 256, VocabSize: 320,
		ContextLength: 4096, RopeBase: 1e6, RMSEps: 1e-6, Vocab: BPE, Pre: "qwen2", Specials: qwenSpecials,
		BOS: "<|endoftext|>", EOS: "<|im_end|>"})
	add(Preset{Name: "tiny-gpt-oss", Arch: GPTOSS, Embd: 256, Layers: 2, Heads: 4, KVHeads: 2, HeadDim: 64,
		WriteHeadDim: true, FFN: 256, Experts: 8, ExpertsUsed: 2, ExpertFF: 256, VocabSize: 320,
		ContextLength: 4096, RopeBase: 150000, RMSEps: 1e-5, SlidingWindow: 8, YaRNFactor: 32, YaRNOrigCtx: 4096,
		Vocab: BPE, Pre: "gpt-4o", Specials: gptOSSSpecials, BOS: "<|startoftext|>", EOS: "<|return|>"})
	add(Preset{Name: "tiny-deepseek2", Arch: DeepSeek2, Embd: 256, Layers: 2, Heads: 4, KVHeads: 4, FFN: 512,
		Experts: 8, ExpertsUsed: 3, ExpertFF: 256, SharedExperts: 1, DenseLead: 1, ExpertWeightsScale: 1,
		KVLoraRank: 64, QKNope: 32, QKRope: 16, VHead: 32, YaRNFactor: 40, YaRNOrigCtx: 4096, YaRNLogMul: 0.0707,
		VocabSize: 320, ContextLength: 4096, RopeBase: 10000, RMSEps: 1e-6, Vocab: BPE, Pre: "deepseek-llm",
		Specials: deepseekSpecials, BOS: "<｜begin▁of▁sentence｜>", EOS: "<｜end▁of▁sentence｜>", AddBOS: true})
}
