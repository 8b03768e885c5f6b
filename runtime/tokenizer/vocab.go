package tokenizer

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/forma-llm/forma/gguf"
)

// Model is the kind of tokenizer a vocabulary uses (tokenizer.ggml.model).
type Model uint8

const (
	ModelNone Model = iota // "no_vocab"/"none": the file carries no tokenizer
	ModelSPM               // "llama": SentencePiece-style bigram merges by score, byte fallback
	ModelBPE               // "gpt2": byte-level BPE, merges by rank
	ModelWPM               // "bert": WordPiece
)

func (m Model) String() string {
	return [...]string{"none", "SPM", "BPE", "WPM"}[m]
}

// TokenType is a GGUF tokenizer.ggml.token_type value.
type TokenType int32

const (
	TypeUndefined   TokenType = 0
	TypeNormal      TokenType = 1
	TypeUnknown     TokenType = 2
	TypeControl     TokenType = 3
	TypeUserDefined TokenType = 4
	TypeUnused      TokenType = 5
	TypeByte        TokenType = 6
)

// Attr is a set of token attributes, as llama.cpp's llama_token_attr.
type Attr uint16

const (
	AttrUnknown Attr = 1 << iota
	AttrUnused
	AttrNormal
	AttrControl
	AttrUserDefined
	AttrByte
	AttrNormalized
	AttrLStrip
	AttrRStrip
	AttrSingleWord
)

// None is the id of an absent special token.
const None int32 = -1

// GGUF keys read by Load.
const (
	KeyModel          = "tokenizer.ggml.model"
	KeyPre            = "tokenizer.ggml.pre"
	KeyTokens         = "tokenizer.ggml.tokens"
	KeyTokenType      = "tokenizer.ggml.token_type"
	KeyScores         = "tokenizer.ggml.scores"
	KeyMerges         = "tokenizer.ggml.merges"
	KeyBOS            = "tokenizer.ggml.bos_token_id"
	KeyEOS            = "tokenizer.ggml.eos_token_id"
	KeyEOT            = "tokenizer.ggml.eot_token_id"
	KeyEOM            = "tokenizer.ggml.eom_token_id"
	KeyUNK            = "tokenizer.ggml.unknown_token_id"
	KeySEP            = "tokenizer.ggml.seperator_token_id" // sic, as llama.cpp spells it
	KeyPAD            = "tokenizer.ggml.padding_token_id"
	KeyMASK           = "tokenizer.ggml.mask_token_id"
	KeyAddBOS         = "tokenizer.ggml.add_bos_token"
	KeyAddEOS         = "tokenizer.ggml.add_eos_token"
	KeyAddSEP         = "tokenizer.ggml.add_sep_token"
	KeyAddSpacePrefix = "tokenizer.ggml.add_space_prefix"
	KeyLowercase      = "tokenizer.ggml.normalizer.lowercase"
	KeyStripAccents   = "tokenizer.ggml.normalizer.strip_accents"
	KeyChatTemplate   = "tokenizer.chat_template"
	keyName           = "general.name"
)

// Tokenizer turns text into token ids and back for one vocabulary. It is read-only after Load and safe for
// concurrent use.
type Tokenizer struct {
	model   Model
	preName string
	pre     []splitter
	byteEnc bool // GPT-2 byte encoding of BPE pieces

	regexText bool // some pre-tokenizer step runs the general expression engine

	vocab  texts     // the token texts and their index
	scores []float32 // nil for a vocabulary without scores (other than SPM's)
	attrs  []Attr
	maxLen int // longest token text, bytes

	bos, eos, eot, eom, unk, sep, pad, mask        int32
	fimPre, fimSuf, fimMid, fimPad, fimRep, fimSep int32

	spmWords                   bool // SPM: no token has ▁ after another character, so words merge apart
	addBOS, addEOS, addSEP     bool
	addSpacePrefix, cleanSpace bool
	escapeSpaces, ignoreMerges bool
	lowercase, stripAccents    bool

	eog     []int32 // sorted
	special []int32 // control, user-defined and unknown tokens, longest text first
	pieces  *pieces // every token rendered, built by the first call that needs it

	bpe     *bpeTable
	scratch *sync.Pool // of *scratch
}

// Load reads the tokenizer.* keys of a GGUF file and builds the tokenizer, applying llama.cpp's load-time rules.
// A vocabulary that is malformed (missing or mistyped keys, arrays of the wrong length, tokens that are not valid
// UTF-8, merges naming unknown tokens) is an error naming the problem.
func Load(f *gguf.File) (*Tokenizer, error) {
	t, err := load(f)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	return t, nil
}

// special id defaults per model, llama.cpp's.
type specialDefaults struct{ bos, eos, unk, sep, pad, mask int32 }

func load(f *gguf.File) (*Tokenizer, error) {
	t := &Tokenizer{bos: None, eos: None, eot: None, eom: None, unk: None, sep: None, pad: None, mask: None,
		fimPre: None, fimSuf: None, fimMid: None, fimPad: None, fimRep: None, fimSep: None, byteEnc: true,
		scratch: &sync.Pool{}, pieces: &pieces{}}
	model, err := f.String(KeyModel)
	if err != nil {
		return nil, err
	}
	var def specialDefaults
	switch model {
	case "no_vocab", "none":
		return loadNone(f, t)
	case "llama":
		t.model = ModelSPM
		def = specialDefaults{bos: 1, eos: 2, unk: 0, sep: None, pad: None, mask: None}
		t.addSpacePrefix, t.addBOS, t.escapeSpaces = true, true, true
	case "bert":
		t.model = ModelWPM
		def = specialDefaults{bos: 101, eos: None, unk: 100, sep: 102, pad: 0, mask: 103}
		t.addBOS, t.addSEP, t.cleanSpace = true, true, true
	case "gpt2":
		t.model = ModelBPE
		def = specialDefaults{bos: 11, eos: 11, unk: None, sep: None, pad: None, mask: None}
		t.cleanSpace = true
		if err := t.setPre(f); err != nil {
			return nil, err
		}
		if t.preFlags()&preNoBOS != 0 {
			def.bos = None
		}
	default:
		return nil, fmt.Errorf("unsupported tokenizer model %q (%s)", model, KeyModel)
	}
	if err := readBool(f, KeyAddSpacePrefix, &t.addSpacePrefix); err != nil {
		return nil, err
	}
	if err := t.readTokens(f); err != nil {
		return nil, err
	}
	if t.model == ModelBPE {
		tab, err := newBPETable(f, t)
		if err != nil {
			return nil, err
		}
		t.bpe = tab
	}
	t.bos, t.eos, t.unk, t.sep, t.pad, t.mask = def.bos, def.eos, def.unk, def.sep, def.pad, def.mask
	if err := t.readSpecialIDs(f); err != nil {
		return nil, err
	}
	if err := t.readFlags(f); err != nil {
		return nil, err
	}
	t.fixups(f)
	if t.model == ModelSPM {
		t.spmWords = true
		for id := range int32(t.Len()) {
			if strings.Contains(strings.TrimLeft(t.vocab.text(id), "▁"), "▁") {
				t.spmWords = false
				break
			}
		}
	}
	return t, nil
}

// loadNone builds the tokenizer of a file without a vocabulary: it knows only how many ids the model has
// (ARCH.vocab_size) and refuses to tokenize.
func loadNone(f *gguf.File, t *Tokenizer) (*Tokenizer, error) {
	t.model = ModelNone
	if arch, err := f.Architecture(); err == nil {
		n, err := f.Int(arch + ".vocab_size")
		switch {
		case err == nil && (n < 0 || n > 1<<31-1):
			return nil, fmt.Errorf("%s.vocab_size = %d is out of range", arch, n)
		case err == nil:
			t.vocab.off = make([]uint32, n+1) // n empty texts
		case !gguf.IsNotFound(err):
			return nil, err
		}
	}
	return t, nil
}

func (t *Tokenizer) preFlags() preFlags {
	if p, ok := preTokenizers[t.preName]; ok {
		return p.flags
	}
	return 0
}

// setPre selects the BPE pre-tokenizer and the flags it implies.
func (t *Tokenizer) setPre(f *gguf.File) error {
	name, err := f.String(KeyPre)
	switch {
	case gguf.IsNotFound(err):
		name = "default" // llama.cpp warns that quality will suffer and uses its default expressions
	case err != nil:
		return err
	}
	return t.applyPre(name)
}

// applyPre sets the pre-tokenizer and the flags its name implies.
func (t *Tokenizer) applyPre(name string) error {
	p, ok := preTokenizers[name]
	if !ok {
		return fmt.Errorf("unsupported pre-tokenizer %q (%s)", name, KeyPre)
	}
	t.preName, t.pre, t.regexText = name, nil, false
	for _, e := range p.exprs {
		s, err := compileSplitter(e)
		if err != nil {
			return fmt.Errorf("pre-tokenizer %q: %w", name, err)
		}
		t.pre = append(t.pre, s)
		if _, ok := s.(*regexSplit); ok {
			t.regexText = true
		}
	}
	t.cleanSpace = p.flags&preNoClean == 0
	t.ignoreMerges = p.flags&preIgnoreMerges != 0
	t.addBOS = p.flags&preAddBOS != 0
	t.addSEP = p.flags&preAddSEP != 0
	t.escapeSpaces = p.flags&preEscapeSpaces != 0
	t.byteEnc = p.flags&preRawUTF8 == 0
	return nil
}

func readBool(f *gguf.File, key string, dst *bool) error {
	v, err := f.Bool(key)
	switch {
	case err == nil:
		*dst = v
	case !gguf.IsNotFound(err):
		return err
	}
	return nil
}

// readTokens reads the token texts, scores and types.
func (t *Tokenizer) readTokens(f *gguf.File) error {
	toks, err := f.StringArray(KeyTokens)
	if err != nil {
		if gguf.IsNotFound(err) {
			return fmt.Errorf("no vocabulary: %s is missing", KeyTokens)
		}
		return err
	}
	n := toks.Len()
	if n == 0 {
		return fmt.Errorf("%s is empty", KeyTokens)
	}
	if n > 1<<31-1 {
		return fmt.Errorf("%s has %d tokens, too many for int32 ids", KeyTokens, n)
	}
	if err := t.readTexts(toks); err != nil {
		return err
	}
	if err := t.readScores(f, n); err != nil {
		return err
	}
	t.attrs = make([]Attr, n)
	for i := range t.attrs {
		t.attrs[i] = AttrNormal
	}
	if f.Has(KeyTokenType) {
		types, err := f.Ints(KeyTokenType)
		if err != nil {
			return err
		}
		if len(types) != n {
			return fmt.Errorf("%s has %d entries for %d tokens", KeyTokenType, len(types), n)
		}
		for i, ty := range types {
			t.attrs[i] = typeAttr(TokenType(ty))
		}
	}
	t.vocab.index()
	return nil
}

// readTexts copies the token texts out of the mapping into one string; an empty text becomes llama.cpp's
// placeholder [EMPTY_<id>].
func (t *Tokenizer) readTexts(toks gguf.StringArray) error {
	size := 0
	for i, s := range toks.All() {
		if len(s) == 0 {
			size += len("[EMPTY_]") + len(strconv.Itoa(i))
		}
		size += len(s)
	}
	if size > math.MaxUint32 {
		return fmt.Errorf("%s holds more than 4 GiB of text", KeyTokens)
	}
	var all strings.Builder
	all.Grow(size)
	off := make([]uint32, toks.Len()+1)
	var num [20]byte
	for i, s := range toks.All() {
		if len(s) == 0 {
			all.WriteString("[EMPTY_")
			all.Write(strconv.AppendInt(num[:0], int64(i), 10))
			all.WriteByte(']')
		} else if !utf8.Valid(s) {
			return fmt.Errorf("token %d (%q) is not valid UTF-8", i, s)
		} else {
			all.Write(s)
		}
		off[i+1] = uint32(all.Len())
		t.maxLen = max(t.maxLen, int(off[i+1]-off[i]))
	}
	t.vocab.all, t.vocab.off = all.String(), off
	return nil
}

// readScores reads the token scores; a vocabulary without them scores every token 0.
func (t *Tokenizer) readScores(f *gguf.File, n int) error {
	if !f.Has(KeyScores) {
		if t.model == ModelSPM {
			t.scores = make([]float32, n)
		}
		return nil
	}
	scores, err := f.Floats(KeyScores)
	if err != nil {
		ints, ierr := f.Ints(KeyScores) // llama.cpp also takes int32 scores
		if ierr != nil {
			return err
		}
		scores = make([]float32, len(ints))
		for i, x := range ints {
			scores[i] = float32(x)
		}
	}
	if len(scores) != n {
		return fmt.Errorf("%s has %d entries for %d tokens", KeyScores, len(scores), n)
	}
	t.scores = scores
	return nil
}

func typeAttr(ty TokenType) Attr {
	switch ty {
	case TypeUnknown:
		return AttrUnknown
	case TypeUnused:
		return AttrUnused
	case TypeNormal:
		return AttrNormal
	case TypeControl:
		return AttrControl
	case TypeUserDefined:
		return AttrUserDefined
	case TypeByte:
		return AttrByte
	}
	return 0 // undefined
}

// readSpecialIDs reads the special token ids; an id outside the vocabulary is ignored (the default stays), as in
// llama.cpp, and a default outside the vocabulary is dropped.
func (t *Tokenizer) readSpecialIDs(f *gguf.File) error {
	ids := []struct {
		key string
		id  *int32
	}{
		{KeyBOS, &t.bos}, {KeyEOS, &t.eos}, {KeyEOT, &t.eot}, {KeyEOM, &t.eom}, {KeyUNK, &t.unk},
		{KeySEP, &t.sep}, {KeyPAD, &t.pad}, {KeyMASK, &t.mask},
		{"tokenizer.ggml.fim_pre_token_id", &t.fimPre}, {"tokenizer.ggml.fim_suf_token_id", &t.fimSuf},
		{"tokenizer.ggml.fim_mid_token_id", &t.fimMid}, {"tokenizer.ggml.fim_pad_token_id", &t.fimPad},
		{"tokenizer.ggml.fim_rep_token_id", &t.fimRep}, {"tokenizer.ggml.fim_sep_token_id", &t.fimSep},
		{"tokenizer.ggml.prefix_token_id", &t.fimPre}, {"tokenizer.ggml.suffix_token_id", &t.fimSuf},
		{"tokenizer.ggml.middle_token_id", &t.fimMid},
	}
	n := int64(t.Len())
	for _, s := range ids {
		if *s.id >= 0 && int64(*s.id) >= n {
			*s.id = None
		}
		v, err := f.Int(s.key)
		switch {
		case gguf.IsNotFound(err):
			continue
		case err != nil:
			return err
		}
		if v >= 0 && v < n {
			*s.id = int32(v)
		}
	}
	return nil
}

func (t *Tokenizer) readFlags(f *gguf.File) error {
	for _, b := range []struct {
		key string
		dst *bool
	}{{KeyAddBOS, &t.addBOS}, {KeyAddEOS, &t.addEOS}, {KeyAddSEP, &t.addSEP}} {
		if err := readBool(f, b.key, b.dst); err != nil {
			return err
		}
	}
	for _, c := range []struct {
		add  bool
		id   int32
		what string
	}{{t.addBOS, t.bos, "add_bos_token is true but there is no BOS token"},
		{t.addEOS, t.eos, "add_eos_token is true but there is no EOS token"},
		{t.addSEP, t.sep, "add_sep_token is true but there is no separator token"}} {
		if c.add && c.id == None {
			return errors.New(c.what)
		}
	}
	t.lowercase = true // llama.cpp's BertNormalizer defaults
	if err := readBool(f, KeyLowercase, &t.lowercase); err != nil {
		return err
	}
	t.stripAccents = t.lowercase
	return readBool(f, KeyStripAccents, &t.stripAccents)
}

// Texts by which llama.cpp recognizes end-of-turn, end-of-message, FIM and end-of-generation tokens.
var (
	eotTexts = []string{"<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|end_of_text|>",
		"<EOT>", "_<EOT>", "[EOT]", "<｜end▁of▁sentence｜>", "<end_of_utterance>"}
	eomTexts    = []string{"<|eom_id|>"}
	fimPreTexts = []string{"<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<｜fim▁begin｜>", "<PRE>", "▁<PRE>",
		"<|code_prefix|>", "<|prefix|>"}
	fimSufTexts = []string{"<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<｜fim▁hole｜>", "<SUF>", "▁<SUF>",
		"<|code_suffix|>", "<|suffix|>"}
	fimMidTexts = []string{"<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<｜fim▁end｜>", "<MID>", "▁<MID>",
		"<|code_middle|>", "<|middle|>"}
	fimPadTexts = []string{"<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"}
	fimRepTexts = []string{"<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"}
	fimSepTexts = []string{"<|file_sep|>"}
	eogTexts    = []string{"<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>",
		"<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]",
		"<|end_of_text|>", "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>", "<｜end▁of▁sentence｜>",
		"[e~["}
)

// fixups applies llama.cpp's load-time rules: special tokens found by their text (and forced to CONTROL), unused
// control tokens, the end-of-generation set, and per-model strip attributes.
func (t *Tokenizer) fixups(f *gguf.File) {
	// llama.cpp walks a hash map, so which of several candidates wins is unspecified there; here the first text in
	// each list that the vocabulary has wins.
	find := func(id *int32, texts []string) {
		if *id != None {
			return
		}
		for _, s := range texts {
			if x, ok := t.vocab.id(s); ok {
				*id = x
				t.attrs[x] |= AttrControl
				return
			}
		}
	}
	find(&t.eot, eotTexts)
	find(&t.eom, eomTexts)
	find(&t.fimPre, fimPreTexts)
	find(&t.fimSuf, fimSufTexts)
	find(&t.fimMid, fimMidTexts)
	find(&t.fimPad, fimPadTexts)
	find(&t.fimRep, fimRepTexts)
	find(&t.fimSep, fimSepTexts)

	for id, a := range t.attrs {
		if a&AttrControl != 0 && a&AttrUnused == 0 && strings.Contains(t.vocab.text(int32(id)), "unused") {
			t.attrs[id] |= AttrUnused
		}
	}

	eog := map[int32]bool{}
	for _, id := range []int32{t.fimPad, t.fimRep, t.fimSep} {
		if id != None {
			eog[id] = true
		}
	}
	for _, s := range eogTexts {
		if id, ok := t.vocab.id(s); ok {
			eog[id] = true
			t.attrs[id] |= AttrControl
		}
	}
	for _, s := range []string{"<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"} {
		if id, ok := t.vocab.id(s); ok {
			t.attrs[id] = AttrUserDefined // gpt-oss: always rendered
		}
	}
	for _, id := range []int32{t.eos, t.eot, t.eom} {
		if id != None {
			eog[id] = true
		}
	}
	has := func(s string) (int32, bool) {
		id, ok := t.vocab.id(s)
		return id, ok && eog[id]
	}
	_, ret := has("<|return|>")
	_, call := has("<|call|>")
	_, calls := has("<|calls|>")
	_, flush := has("<|flush|>")
	if end, ok := has("<|end|>"); ok && ((ret && (call || calls)) || ((call || calls) && flush)) {
		delete(eog, end) // o200k_harmony, solar-open: <|end|> ends a message, not the generation
		t.attrs[end] = AttrUserDefined
	}
	if _, ok := has("<|tool_response>"); ok {
		if s, ok := has("</s>"); ok {
			delete(eog, s) // gemma4
			t.attrs[s] = AttrNormal
		}
	}
	for id := range eog {
		t.eog = append(t.eog, id)
	}
	sort.Slice(t.eog, func(i, j int) bool { return t.eog[i] < t.eog[j] })

	for id, a := range t.attrs {
		if a&(AttrControl|AttrUserDefined|AttrUnknown) != 0 {
			t.special = append(t.special, int32(id))
		}
	}
	sort.SliceStable(t.special, func(i, j int) bool {
		return len(t.vocab.text(t.special[i])) > len(t.vocab.text(t.special[j]))
	})

	name, _ := f.String(keyName)
	name = strings.ToLower(name)
	if strings.Contains(name, "phi-3") || strings.Contains(name, "phi3") {
		for _, id := range t.special {
			t.attrs[id] |= AttrRStrip
		}
		if id, ok := t.vocab.id("</s>"); ok {
			t.attrs[id] |= AttrRStrip
		}
		for _, s := range []string{"<unk>", "<s>", "<|endoftext|>"} {
			if id, ok := t.vocab.id(s); ok {
				t.attrs[id] &^= AttrRStrip
			}
		}
	}
}
