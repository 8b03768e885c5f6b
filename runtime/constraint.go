package runtime

import (
	"errors"
	"fmt"
	"sync"

	"github.com/forma-llm/forma/runtime/grammar"
	"github.com/forma-llm/forma/runtime/grammar/jsonschema"
)

// ErrConstraint is wrapped by the error for a grammar or JSON schema that cannot be used (a syntax error, an
// unsupported keyword, a token the vocabulary lacks): it is returned before any token is generated.
var ErrConstraint = errors.New("invalid output constraint")

// Constraint returns the grammar of opt's output constraint (Grammar, JSONSchema or JSON), or nil for none.
// Setting more than one is an error.
func (opt GenerateOptions) Constraint() (*grammar.Grammar, error) {
	n := 0
	for _, set := range []bool{opt.Grammar != "", len(opt.JSONSchema) > 0, opt.JSON} {
		if set {
			n++
		}
	}
	switch {
	case n > 1:
		return nil, fmt.Errorf("%w: set only one of Grammar, JSONSchema and JSON", ErrConstraint)
	case opt.Grammar != "":
		g, err := grammar.Parse(opt.Grammar)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConstraint, err)
		}
		return g, nil
	case len(opt.JSONSchema) > 0:
		g, err := jsonschema.Compile(opt.JSONSchema, jsonschema.Options{})
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConstraint, err)
		}
		return g, nil
	case opt.JSON:
		return jsonschema.Object(jsonschema.Options{}), nil
	}
	return nil, nil
}

// lazyVocab is the model's vocabulary as the constraint engine sees it, built on first use.
type lazyVocab struct {
	once sync.Once
	v    *grammar.Vocab
}

// GrammarVocab returns the model's vocabulary for the constraint engine (built once; it caches compiled
// grammars).
func (m *Model) GrammarVocab() *grammar.Vocab {
	m.vocab.once.Do(func() { m.vocab.v = grammar.FromTokenizer(m.Tokenizer) })
	return m.vocab.v
}

// newMatcher returns the matcher of opt's constraint for this model, or nil when there is none. Its budget is
// MaxTokens, or the room left in the context, so that a generation cut by either still ends complete when it can.
func (s *Session) newMatcher(opt GenerateOptions, promptLen int) (*grammar.Matcher, error) {
	g, err := opt.Constraint()
	if err != nil || g == nil {
		return nil, err
	}
	c, err := s.m.GrammarVocab().Compile(g)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConstraint, err)
	}
	mt := s.gen.warm
	if mt != nil && mt.Compiled() == c {
		mt.Reset() // the same grammar as the last constrained generation: its memoized steps are warm
	} else {
		mt = c.NewMatcher()
		s.gen.warm = mt
	}
	s.setBudget(mt, opt, promptLen)
	return mt, nil
}

// setBudget gives a matcher the generation's budget: MaxTokens, or the room left in the context, so that a
// generation cut by either still ends complete when it can.
func (s *Session) setBudget(mt *grammar.Matcher, opt GenerateOptions, promptLen int) {
	switch {
	case opt.MaxTokens > 0:
		mt.SetBudget(opt.MaxTokens)
	case !s.opt.ContextShift:
		mt.SetBudget(s.ctx - min(promptLen, s.ctx))
	}
}

// constrain masks the logits of the tokens the grammar does not allow next (nil matcher: no constraint).
func constrain(mt *grammar.Matcher, logits []float32) {
	if mt != nil {
		mt.MaskLogits(logits)
	}
}

// accept advances the matcher past the sampled token, or past the token that replaces it (see
// grammar.Matcher.Choose: a token of probability zero a sampler picked through rounding, or one that would leave
// too few tokens to complete the output). masked are the logits it was sampled from.
func accept(mt *grammar.Matcher, id int32, masked []float32) (int32, error) {
	if mt == nil {
		return id, nil
	}
	id, err := mt.Choose(id, masked)
	if err != nil {
		return id, fmt.Errorf("runtime: %w", err)
	}
	return id, nil
}
