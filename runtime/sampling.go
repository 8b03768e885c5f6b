package runtime

import (
	"strings"

	"github.com/forma-llm/forma/runtime/sample"
	"github.com/forma-llm/forma/runtime/tokenizer"
)

// NewSampler returns a sampler for o on the model's vocabulary (which DRY's sequence breakers need).
func (m *Model) NewSampler(o sample.Options) (*sample.Sampler, error) {
	if m.Tokenizer == nil {
		return sample.NewFor(o, nil)
	}
	return sample.NewFor(o, samplingVocab{m.Tokenizer, m})
}

// samplingVocab is the tokenizer as sample.Vocab, keeping DRY's breakers on the Model.
type samplingVocab struct {
	t *tokenizer.Tokenizer
	m *Model
}

// maxCachedBreakers bounds the lists of DRY breakers a Model keeps (requests may each send their own).
const maxCachedBreakers = 8

// Breakers returns DRY's breakers for seqs, found once per Model for the first few lists asked for.
func (v samplingVocab) Breakers(seqs []string) *sample.Breakers {
	key := strings.Join(seqs, "\x00")
	m := v.m
	m.dryMu.Lock()
	b, ok := m.dryBreakers[key]
	m.dryMu.Unlock()
	if ok {
		return b
	}
	b = sample.FindBreakers(v, seqs)
	m.dryMu.Lock()
	if m.dryBreakers == nil {
		m.dryBreakers = map[string]*sample.Breakers{}
	}
	if len(m.dryBreakers) < maxCachedBreakers {
		m.dryBreakers[key] = b
	}
	m.dryMu.Unlock()
	return b
}

func (v samplingVocab) Len() int { return v.t.Len() }

func (v samplingVocab) AppendText(dst []byte, id int32) []byte {
	return v.t.AppendPiece(dst, id, tokenizer.PieceOptions{Special: true})
}

func (v samplingVocab) Tokenize(text string) []int32 {
	ids, _ := v.t.Encode(text, tokenizer.EncodeOptions{})
	return ids
}
