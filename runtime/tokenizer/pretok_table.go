package tokenizer

// The pre-tokenizers of byte-level BPE vocabularies, keyed by tokenizer.ggml.pre, with the regular expressions and
// flags llama.cpp (llama-vocab.cpp: llama_vocab::impl::load and the llm_tokenizer_bpe constructor) gives each.
// The expressions are applied in order: each splits the pieces the previous one produced, and text between matches
// becomes a piece of its own.

// Expressions that more than one pre-tokenizer shares.
const (
	reGPT2     = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)`
	reLlama3   = `(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	reLlama3CI = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	reQwen2    = `(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	reQwen35   = `(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	reNewlines = `[^\n]+|[\n]+`
	reDigits3  = `\p{N}{1,3}`
	reCJKKana  = "[\u4E00-\u9FA5\u3040-\u309F\u30A0-\u30FF]+"
	reCJKHang  = "[\u4E00-\u9FA5\u0800-\u4E00\uAC00-\uD7FF]+"
	rePoro     = " ?[^(\\s|.,!?\u2026\u3002\uFF0C\u3001\u0964\u06D4\u060C)]+"
	reDSV3     = "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+"
	reGPT4o    = `[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	reContract = `(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])`
)

// preFlags are the vocabulary flags a pre-tokenizer sets, on top of the BPE defaults (clean_spaces on).
type preFlags uint8

const (
	preNoClean      preFlags = 1 << iota // clean_spaces = false
	preIgnoreMerges                      // a piece that is a whole token is not merged
	preAddBOS                            // add_bos = true (before the GGUF key is read)
	preAddSEP                            // add_sep = true
	preNoBOS                             // special_bos_id = none
	preEscapeSpaces                      // spaces are ▁ (SPM-style BPE)
	preRawUTF8                           // no GPT-2 byte encoding of pieces
)

type preTokenizer struct {
	exprs []string
	flags preFlags
}

var (
	preDefault  = preTokenizer{exprs: []string{`[\p{P}\$\+<=>\^~\|]+`, reGPT2, `\p{N}+`, `[0-9][0-9][0-9]`}}
	preLlama3   = preTokenizer{exprs: []string{reLlama3}, flags: preIgnoreMerges | preAddBOS}
	preGPT2     = preTokenizer{exprs: []string{reGPT2}}
	preStarcode = preTokenizer{exprs: []string{`\p{N}`, reGPT2}}
	preQwen2    = preTokenizer{exprs: []string{reQwen2}, flags: preNoClean}
	preDSV3     = preTokenizer{exprs: []string{reDigits3, reCJKKana, reDSV3}, flags: preNoClean}
	preGPT4o    = preTokenizer{exprs: []string{reGPT4o}, flags: preNoClean}
)

// preTokenizers maps tokenizer.ggml.pre to its pre-tokenizer. Names llama.cpp knows but that need code of their
// own (kimi-k2, whitespace, hybriddna) are absent and refused at load.
var preTokenizers = map[string]preTokenizer{
	"default": preDefault,

	"llama3": preLlama3, "llama-v3": preLlama3, "llama-bpe": preLlama3, "falcon3": preLlama3, "falcon-h1": preLlama3,
	"pixtral": preLlama3, "midm-2.0": preLlama3, "lfm2": preLlama3, "jina-v5-nano": preLlama3,
	"dbrx": {exprs: []string{reLlama3}}, "smaug-bpe": {exprs: []string{reLlama3}},
	"glm4":        {exprs: []string{reLlama3}, flags: preNoBOS},
	"chatglm-bpe": {exprs: []string{reLlama3}, flags: preNoBOS},
	"jais-2":      {exprs: []string{`(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s{512}(?!\S)|\s{256}(?!\S)|\s{128}(?!\S)|\s{64}(?!\S)|\s{32}(?!\S)|\s{16}(?!\S)|\s{8}(?!\S)|\s{4}(?!\S)|\s{1,2}(?!\S)|\s{1}`}},

	"deepseek-llm": {exprs: []string{"[\r\n]",
		"\\s?[A-Za-z\u00B5\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u01BA\u01BC-\u01BF\u01C4-\u0293\u0295-\u02AF\u0370-\u0373\u0376\u0377\u037B-\u037D\u037F\u0386\u0388-\u038A\u038C\u038E-\u03A1\u03A3-\u03F5\u03F7-\u0481\u048A-\u052F\u0531-\u0556\u10A0-\u10C5\u13A0-\u13F5\u13F8-\u13FD\u1C90-\u1CBA\u1CBD-\u1CBF\u1D00-\u1D2B\u1D6B-\u1D77\u1D79-\u1D9A\u1E00-\u1F15\u1F18-\u1F1D\u1F20-\u1F45\u1F48-\u1F4D\u1F50-\u1F57\u1F59\u1F5B\u1F5D\u1F5F-\u1F7D\u1F80-\u1FB4\u1FB6-\u1FBC\u1FBE\u1FC2-\u1FC4\u1FC6-\u1FCC\u1FD0-\u1FD3\u1FD6-\u1FDB\u1FE0-\u1FEC\u1FF2-\u1FF4\u1FF6-\u1FFC\u2102\u2107\u210A-\u2113\u2115\u2119-\u211D\u2124\u2126\u2128\u212A-\u212D\u212F-\u2134\u2139\u213C-\u213F\u2145-\u2149\u214E\u2183\u2184\u2C00-\u2C7B\u2C7E-\u2CE4\u2CEB-\u2CEE\u2CF2\u2CF3\uA640-\uA66D\uA680-\uA69B\uA722-\uA76F\uA771-\uA787\uA78B-\uA78E\uAB70-\uABBF\uFB00-\uFB06\uFB13-\uFB17\uFF21-\uFF3A\uFF41-\uFF5A\U00010400-\U0001044F\U000104B0-\U000104D3\U000104D8-\U000104FB\U00010C80-\U00010CB2\U00010CC0-\U00010CF2\U000118A0-\U000118DF\U0001E900-\U0001E943]+",
		"\\s?[!-/:-~\uFF01-\uFF0F\uFF1A-\uFF5E\u2018-\u201F\u3000-\u3002]+", `\s+$`, reCJKHang, `\p{N}+`}, flags: preNoClean},
	"deepseek-coder": {exprs: []string{"[\r\n]", `\s?\p{L}+`, `\s?\p{P}+`, reCJKHang, `\p{N}`}, flags: preNoClean},
	"deepseek-v3":    preDSV3, "hunyuan-dense": preDSV3, "joyai-llm": preDSV3, "hy_v4": preDSV3,
	"spark2_5": {exprs: []string{reDigits3, reCJKKana,
		"[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+|[\r\n]|\\s+(?!\\S)|\\s+",
		`\p{N}`}, flags: preNoClean},
	"youtu": {exprs: []string{"[\uAC00-\uD7A3\u3131-\u318E]+|[\uFF01\u2026\u201C\u201D\u2018\u2019\u2014\uFF1A\uFF1B\uFF0C\u3001-\u303F\uFE30-\uFE4F]+|[\u3105-\u312F]+|[\u4E00-\u9FA5\u3040-\u309F\u30A0-\u30FF]+",
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+` + reContract + `?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*` + reContract + `?|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`},
		flags: preNoClean | preIgnoreMerges},

	"falcon": {exprs: []string{"[\\p{P}\\$\\+<=>\\^~\\|`]+", reGPT2, `[0-9][0-9][0-9]`}},

	"starcoder": preStarcode, "refact": preStarcode, "codeshell": preStarcode, "exaone": preStarcode,
	"minerva-7b": preStarcode, "mellum2": preStarcode,
	"command-r": {exprs: preStarcode.exprs, flags: preNoClean},
	"smollm":    {exprs: preStarcode.exprs, flags: preNoClean},

	"gpt-2": preGPT2, "phi-2": preGPT2, "jina-es": preGPT2, "jina-de": preGPT2, "gigachat": preGPT2,
	"jina-v2-es": preGPT2, "jina-v2-de": preGPT2, "a.x-4.0": preGPT2, "mellum": preGPT2, "modern-bert": preGPT2,
	"exaone4": preGPT2, "mpt": preGPT2, "olmo": preGPT2, "jais": preGPT2,
	"jina-v1-en": {exprs: []string{reGPT2}, flags: preAddSEP}, "jina-v2-code": {exprs: []string{reGPT2}, flags: preAddSEP},
	"roberta-bpe":     {exprs: []string{reGPT2}, flags: preAddSEP},
	"trillion":        {exprs: []string{reGPT2}, flags: preNoClean},
	"granite-docling": {exprs: []string{reGPT2}, flags: preNoClean},

	"qwen2": preQwen2, "deepseek-r1-qwen": preQwen2, "kormo": preQwen2, "f2llmv2": preQwen2,
	"hunyuan": preQwen2, "solar-open": preQwen2,
	"megrez":    {exprs: []string{reQwen2}},
	"stablelm2": {exprs: []string{reQwen2}},
	"qwen35":    {exprs: []string{reQwen35}, flags: preNoClean},
	"grok-2":    preQwen2,
	"ufakzeka":  {exprs: []string{`[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`}, flags: preNoClean},
	"seed-coder": {exprs: []string{reContract + `|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1}| ?[^\s\p{L}\p{N}\r\n]+|\s*[\r\n]+|\s+(?!\S)|\s+`},
		flags: preNoClean},
	"bailingmoe":   {exprs: []string{`'(?:[sSdDmMtT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+`}, flags: preNoClean},
	"laguna":       {exprs: []string{reNewlines, reQwen2}, flags: preNoClean},
	"minicpm5":     {exprs: []string{reDigits3, reContract + `|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}+| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`}, flags: preIgnoreMerges},
	"exaone-moe":   {exprs: []string{reContract + `|[^\r\n\p{L}\p{N}]?(?:\p{L}\p{M}*(?: \p{L}\p{M}*)*)+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]?|\s*[\r\n]|\s+(?!\S)|\s+`}, flags: preNoClean},
	"poro-chat":    {exprs: []string{rePoro}, flags: preNoClean},
	"bloom":        {exprs: []string{rePoro}},
	"gpt3-finnish": {exprs: []string{rePoro}},
	"viking":       {exprs: []string{rePoro, `\p{N}`}, flags: preNoClean},

	"tekken": {exprs: []string{`[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`},
		flags: preNoClean | preIgnoreMerges | preAddBOS},
	"gpt-4o": preGPT4o, "llama4": preGPT4o, "kanana2": preGPT4o, "talkie": preGPT4o, "minimax-m2": preGPT4o,
	"granite-embed-multi-97m": {exprs: []string{`[^\r\n\p{L}\p{N}]?((?=[\p{L}\p{M}])([^a-z]))*((?=[\p{L}\p{M}])([^A-Z]))+` + reContract + `?|[^\r\n\p{L}\p{N}]?((?=[\p{L}\p{M}])([^a-z]))+((?=[\p{L}\p{M}])([^A-Z]))*` + reContract + `?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`},
		flags: preNoClean | preIgnoreMerges},
	"tiny_aya": {exprs: []string{`\d{1,3}(?=(?:\d{3})*\b)`, `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+` + reContract + `?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*` + reContract + `?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`},
		flags: preNoClean},
	"superbpe": {exprs: []string{`\p{N}+`, `(?=(\d{3})+(?!\d))`}, flags: preNoClean},
	"afmoe": {exprs: []string{`\p{AFMoE_digits}`, "[\u4E00-\u9FFF\u3400-\u4DBF\u8C48-\uFAFF\u3040-\u309F\u30A0-\u30FF\uFF65-\uFF9F\u2F00-\u2FDF\u0E40-\u0E7F\u0E80-\u0EFF\u1780-\u17FF\u1000-\u109F\uAA60-\uAA7F\uA9E0-\uA9FF\uAC00-\uD7AF\u1100-\u11FF]+",
		"[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\\r\\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},
		flags: preNoClean},
	"chameleon": {exprs: []string{`<sentinel:[0-9]+>`, `(IMGIMG)((A|B|C|D|E|F|G|H|I){1,4})Z`, `([\t\n]|    |  )`, `\p{N}`,
		"[\\p{P}!-/:-@\\[-`{-~]", reGPT2}, flags: preAddBOS | preNoClean},

	"gemma4":                   {exprs: []string{reNewlines}, flags: preEscapeSpaces | preRawUTF8},
	"granite-embed-multi-311m": {exprs: []string{reNewlines}, flags: preEscapeSpaces | preRawUTF8},
	"sarvam-moe":               {exprs: []string{reNewlines}, flags: preEscapeSpaces | preRawUTF8 | preNoClean},
}
