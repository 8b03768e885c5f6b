package runtime

import (
	"github.com/forma-llm/forma/runtime/sample"
	"github.com/forma-llm/forma/runtime/tokenizer"
)

// NewSampler returns a sampler for o on the model's vocabulary (which DRY's sequence breakers need).
func (m *Model) NewSampler(o sample.Options) (*sample.Sampler, error) {
	if m.Tokenizer == nil {
		return sample.NewFor(o, nil)
	}
	return sample.NewFor(o, samplingVocab{m.Tokenizer})
}

// samplingVocab is the tokenizer as sample.Vocab.
type samplingVocab struct{ t *tokenizer.Tokenizer }

func (v samplingVocab) Len() int { return v.t.Len() }

func (v samplingVocab) AppendText(dst []byte, id int32) []byte {
	return v.t.AppendPiece(dst, id, tokenizer.PieceOptions{Special: true})
}

func (v samplingVocab) Tokenize(text string) []int32 {
	ids, _ := v.t.Encode(text, tokenizer.EncodeOptions{})
	return ids
}
