package synth

// mistralSpecials are the first control tokens of Mistral's Tekken vocabulary, as its chat template writes them.
var mistralSpecials = []string{"<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]",
	"[TOOL_RESULTS]", "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]", "[IMG_END]", "[PREFIX]",
	"[MIDDLE]", "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[TOOL_CONTENT]"}

// graniteSpecials are Granite 3's role tokens.
var graniteSpecials = []string{"<|end_of_text|>", "<fim_prefix>", "<fim_middle>", "<fim_suffix>", "<fim_pad>",
	"<filename>", "<reponame>", "<|start_of_role|>", "<|end_of_role|>", "<|tool_call|>"}

// olmoSpecials are OLMo 2's end-of-text and padding tokens and its chat template's role markers.
var olmoSpecials = []string{"<|endoftext|>", "<|pad|>", "<|user|>", "<|assistant|>", "<|system|>"}

// smolSpecials are SmolLM3's ChatML tokens.
var smolSpecials = []string{"<|begin_of_text|>", "<|end_of_text|>", "<|im_start|>", "<|im_end|>"}

// lfmSpecials are LFM2's first control tokens (ids 0…7 in the real vocabulary): padding, BOS, EOS, FIM and
// its ChatML markers.
var lfmSpecials = []string{"<|pad|>", "<|startoftext|>", "<|endoftext|>", "<|fim_pre|>", "<|fim_mid|>", "<|fim_suf|>",
	"<|im_start|>", "<|im_end|>"}

// gemmaSpecials are Gemma's turn markers (synth's SentencePiece vocabularies begin <unk>, <s>, </s>).
var gemmaSpecials = []string{"<pad>", "<start_of_turn>", "<end_of_turn>"}

// addFamilies adds the dense families on the llama block: the real shapes and tiny variants for tests (width
// 256, a 320-token vocabulary), each keeping what makes its family differ: mistral3's YaRN (without
// yarn_log_multiplier, where its RoPE magnitude differs from llama's) and attention temperature (steps of 16
// positions, which the prompt crosses), granite's multipliers, olmo2's post-norms and whole-projection q/k
// norms, smollm3's layer without RoPE (4 layers, so that layer 3 has none), gemma2's soft-caps and window on
// every other layer, lfm2's short convolutions around its attention layers (1 and 3 of 5). The tiny ones but
// gemma2 have an output matrix of their own (with random tied embeddings a scaled input tends to predict
// itself); llama.cpp's gemma2 always ties it.
func addFamilies() {
	add(Preset{Name: "ministral-3-3b", Arch: Mistral3, Embd: 3072, Layers: 26, Heads: 32, KVHeads: 8, HeadDim: 128,
		WriteHeadDim: true, FFN: 9216, VocabSize: 131072, ContextLength: 262144, RopeBase: 1e6, RMSEps: 1e-5,
		Tied: true, YaRNFactor: 16, YaRNOrigCtx: 16384, YaRNLogMul: 1, TemperatureScale: 0.1, Vocab: BPE, Pre: "tekken",
		Specials: mistralSpecials, BOS: "<s>", EOS: "</s>", AddBOS: true})
	add(Preset{Name: "granite-3.3-2b", Arch: Granite, Embd: 2048, Layers: 40, Heads: 32, KVHeads: 8, FFN: 8192,
		VocabSize: 49159, ContextLength: 131072, RopeBase: 1e7, RMSEps: 1e-5, Tied: true, EmbeddingScale: 12,
		ResidualScale: 0.22, AttentionScale: 0.015625, LogitScale: 8, Vocab: BPE, Pre: "refact",
		Specials: graniteSpecials, BOS: "<|end_of_text|>", EOS: "<|end_of_text|>"})
	add(Preset{Name: "olmo-2-1b", Arch: OLMo2, Embd: 2048, Layers: 16, Heads: 16, KVHeads: 16, FFN: 8192,
		VocabSize: 100352, ContextLength: 4096, RopeBase: 500000, RMSEps: 1e-6, Vocab: BPE, Pre: "dbrx",
		Specials: olmoSpecials, BOS: "<|endoftext|>", EOS: "<|endoftext|>"})
	add(Preset{Name: "smollm3-3b", Arch: SmolLM3, Embd: 2048, Layers: 36, Heads: 16, KVHeads: 4, FFN: 11008,
		VocabSize: 128256, ContextLength: 65536, RopeBase: 5e6, RMSEps: 1e-6, Tied: true, Vocab: BPE, Pre: "smollm",
		Specials: smolSpecials, BOS: "<|begin_of_text|>", EOS: "<|im_end|>"})
	add(Preset{Name: "gemma2-2b", Arch: Gemma2, Embd: 2304, Layers: 26, Heads: 8, KVHeads: 4, HeadDim: 256,
		WriteHeadDim: true, FFN: 9216, VocabSize: 256000, ContextLength: 8192, RopeBase: 10000, RMSEps: 1e-6,
		Tied: true, SlidingWindow: 4096, AttnSoftCap: 50, FinalSoftCap: 30, Specials: gemmaSpecials})
	add(Preset{Name: "lfm2-1.2b", Arch: LFM2, Embd: 2048, Layers: 16, Heads: 32, KVHeads: 8, FFN: 8192,
		VocabSize: 65536, ContextLength: 128000, RopeBase: 1e6, RMSEps: 1e-5, Tied: true,
		AttnLayers: []int{2, 5, 8, 10, 12, 14}, ConvTaps: 3, Vocab: BPE, Pre: "lfm2", Specials: lfmSpecials,
		BOS: "<|startoftext|>", EOS: "<|im_end|>", AddBOS: true})

	add(Preset{Name: "tiny-mistral3", Arch: Mistral3, Embd: 256, Layers: 2, Heads: 4, KVHeads: 2, HeadDim: 64,
		WriteHeadDim: true, FFN: 512, VocabSize: 320, ContextLength: 4096, RopeBase: 1e6, RMSEps: 1e-5,
		YaRNFactor: 16, YaRNOrigCtx: 16, TemperatureScale: 0.1, Vocab: BPE, Pre: "tekken", Specials: mistralSpecials,
		BOS: "<s>", EOS: "</s>", AddBOS: true})
	add(Preset{Name: "tiny-granite", Arch: Granite, Embd: 256, Layers: 2, Heads: 4, KVHeads: 2, FFN: 512,
		VocabSize: 320, ContextLength: 4096, RopeBase: 1e7, RMSEps: 1e-5, EmbeddingScale: 12, ResidualScale: 0.22,
		AttentionScale: 0.015625, LogitScale: 8, Vocab: BPE, Pre: "refact", Specials: graniteSpecials,
		BOS: "<|end_of_text|>", EOS: "<|end_of_text|>"})
	add(Preset{Name: "tiny-olmo2", Arch: OLMo2, Embd: 256, Layers: 2, Heads: 4, KVHeads: 2, FFN: 512,
		VocabSize: 320, ContextLength: 4096, RopeBase: 500000, RMSEps: 1e-6, Vocab: BPE, Pre: "dbrx",
		Specials: olmoSpecials, BOS: "<|endoftext|>", EOS: "<|endoftext|>"})
	add(Preset{Name: "tiny-smollm3", Arch: SmolLM3, Embd: 256, Layers: 4, Heads: 4, KVHeads: 2, FFN: 512,
		VocabSize: 320, ContextLength: 4096, RopeBase: 5e6, RMSEps: 1e-6, Vocab: BPE, Pre: "smollm",
		Specials: smolSpecials, BOS: "<|begin_of_text|>", EOS: "<|im_end|>"})
	add(Preset{Name: "tiny-gemma2", Arch: Gemma2, Embd: 256, Layers: 2, Heads: 4, KVHeads: 2, HeadDim: 64,
		WriteHeadDim: true, FFN: 512, VocabSize: 320, ContextLength: 4096, RopeBase: 10000, RMSEps: 1e-6,
		Tied: true, SlidingWindow: 8, AttnSoftCap: 50, FinalSoftCap: 30, Specials: gemmaSpecials})
	add(Preset{Name: "tiny-lfm2", Arch: LFM2, Embd: 256, Layers: 5, Heads: 4, KVHeads: 2, FFN: 512,
		VocabSize: 320, ContextLength: 4096, RopeBase: 1e6, RMSEps: 1e-5, AttnLayers: []int{1, 3}, ConvTaps: 3,
		Vocab: BPE, Pre: "lfm2", Specials: lfmSpecials, BOS: "<|startoftext|>", EOS: "<|im_end|>", AddBOS: true})
}
