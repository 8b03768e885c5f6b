package runtime

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/forma-llm/forma/runtime/grammar"
	"github.com/forma-llm/forma/runtime/sample"
	"github.com/forma-llm/forma/runtime/tokenizer"
	"github.com/forma-llm/forma/runtime/toolcall"
)

// Token is one generated token and the text it completes.
type Token struct {
	ID int32 // the token; tokenizer.None for a last piece of held-back text after an end-of-generation token
	// Text is the text this token makes complete: its piece, less bytes of an unfinished UTF-8 character or of a
	// possible stop string, which come out with a later token. It is often "" for such tokens. For a template
	// that thinks or calls tools it is the answer's part only; the rest goes to Reasoning and Calls.
	Text string
	// Reasoning is the reasoning text this token makes complete (templates that think: <think>…</think> and the
	// like).
	Reasoning string
	// Calls are the tool-call pieces this token completes (GenerateOptions.Tools): a call's start (index, id,
	// name), then fragments of its arguments JSON. The slice is the session's: the next token overwrites it.
	Calls []toolcall.Delta
	// Logprob is the token's log-probability under the model (GenerateOptions.Logprobs; 0 otherwise).
	Logprob float32
	// Top are the GenerateOptions.TopLogprobs most likely tokens at this step, most likely first. The slice is
	// the session's: it is overwritten by the next token.
	Top []TokenLogprob
}

// GenerateOptions control one generation.
type GenerateOptions struct {
	// MaxTokens is the most tokens to generate (llama-cli's -n); 0 or less means until an end-of-generation
	// token or a full context.
	MaxTokens int
	// Sampling are the sampling parameters; nil means the model's defaults (Model.Sampling).
	Sampling *sample.Options
	// Stop ends generation at the first of these strings; the matched text is not returned.
	Stop []string
	// IgnoreEOG keeps generating past end-of-generation tokens (not with a constraint, which ends generation
	// itself).
	IgnoreEOG bool

	// Grammar constrains the output to a grammar in llama.cpp's GBNF (see package runtime/grammar).
	Grammar string
	// JSONSchema constrains the output to JSON valid against this JSON Schema (see runtime/grammar/jsonschema).
	JSONSchema []byte
	// JSON constrains the output to a JSON object.
	JSON bool

	// Tools the model may call, written in its chat template's syntax (Model.ToolFamily); ToolChoice says
	// whether it may (Auto: the call's grammar starts at the family's trigger), must (Required) or must call one
	// (Function), or must not (None). Each call's arguments follow its tool's parameter schema; the calls come
	// out as Token.Calls and in Session.Result. With a template that thinks, a JSON Schema or grammar applies to
	// the answer after the reasoning.
	Tools             []toolcall.Tool
	ToolChoice        toolcall.Choice
	ParallelToolCalls bool
	// RawReply turns the reply layer off: Text is all the generated text, reasoning tags and call syntax
	// included, as a plain completion of a prompt wants it. It cannot be set with Tools.
	RawReply bool

	// Speculation, when set, drafts tokens to confirm several per pass (see Speculation).
	Speculation *Speculation
	// Logprobs sets Token.Logprob: the log-probability of each generated token in the model's distribution (the
	// softmax of the raw logits, before the sampler's biases, penalties and temperature).
	Logprobs bool
	// TopLogprobs (at most MaxTopLogprobs) fills Token.Top with that many most likely tokens at each step.
	TopLogprobs int
}

// StopReason says why a generation ended.
type StopReason uint8

const (
	StopNone      StopReason = iota // still running, or never started
	StopEOG                         // an end-of-generation token, or the end of the constraining grammar
	StopMaxTokens                   // GenerateOptions.MaxTokens reached
	StopString                      // a stop string matched
	StopContext                     // the context is full and context shift is off
	StopCancelled                   // the context.Context was cancelled or the caller stopped iterating
	StopError                       // an evaluation failed
)

func (r StopReason) String() string {
	return [...]string{"none", "eog", "max-tokens", "stop-string", "context-full", "cancelled", "error"}[min(int(r), 6)]
}

// Stats describe the last generation of a session.
type Stats struct {
	PromptTokens int           // tokens of the prompt (the whole conversation for a chat turn)
	CachedTokens int           // of those, tokens already in the cache and not evaluated again
	PromptTime   time.Duration // evaluating the prompt
	PromptStart  time.Time     // when the prompt's evaluation began (its template rendered, its text tokenized)
	Generated    int           // tokens generated (the final end-of-generation token not counted)
	GenTime      time.Duration // generating: evaluation and sampling
	Shifts       int           // context shifts
	Drafted      int           // speculative drafts evaluated
	Accepted     int           // of those, drafts the sampler confirmed
	Stop         StopReason
	StopString   string // the stop string that matched, when Stop is StopString
	Seed         uint64 // the sampler's seed (the one drawn when it was random)
}

// Stats returns the statistics of the session's last generation.
func (s *Session) Stats() Stats { return s.stats }

// Generate completes prompt: it tokenizes the text (BOS added as the vocabulary asks, special-token text
// recognized), keeps the longest prefix of it already in the cache, evaluates the rest, and streams the
// generated tokens. Iteration ends with an error only when something failed or ctx was cancelled; the session
// stays usable either way. Stop iterating early to stop generating.
func (s *Session) Generate(ctx context.Context, prompt string, opt GenerateOptions) iter.Seq2[Token, error] {
	return func(yield func(Token, error) bool) {
		ids, err := s.m.Tokenizer.Encode(prompt, tokenizer.EncodeOptions{AddSpecial: true, ParseSpecial: true})
		if err != nil {
			yield(Token{ID: tokenizer.None}, fmt.Errorf("runtime: %w", err))
			return
		}
		s.generate(ctx, ids, opt, yield)
	}
}

// GenerateTokens is Generate for a prompt already tokenized.
func (s *Session) GenerateTokens(ctx context.Context, prompt []int32, opt GenerateOptions) iter.Seq2[Token, error] {
	return func(yield func(Token, error) bool) { s.generate(ctx, prompt, opt, yield) }
}

// generator is the per-session state of the generation loop, kept between calls so that the loop allocates
// nothing once warm.
type generator struct {
	stop    stopMatcher
	arena   arena
	sampler *sample.Sampler
	dec     *tokenizer.Decoder
	match   *grammar.Matcher // the output constraint of this generation, or nil
	warm    *grammar.Matcher // the last constraint's matcher, reused by the next generation with its grammar
	reply   []byte           // the text returned so far in this generation
	batch   []int32          // the token to evaluate and its drafts
	shifted []int32          // the tokens a context shift evaluates again
	drafter drafter
	lp      logprobs
	out     replyState // reasoning, answer and tool calls of the reply
}

func (s *Session) generate(ctx context.Context, prompt []int32, opt GenerateOptions, consumer func(Token, error) bool) {
	s.stats = Stats{Stop: StopError}
	s.gen.reply = s.gen.reply[:0]
	s.gen.out = replyState{raw: s.gen.out.raw[:0], calls: s.gen.out.calls[:0]}
	live := true // the consumer has not stopped iterating
	yield := func(t Token, err error) bool {
		if live {
			live = consumer(t, err)
		}
		return live
	}
	fail := func(err error) { yield(Token{ID: tokenizer.None}, err) }
	if s.closed {
		fail(ErrClosed)
		return
	}
	defer s.seq.park()
	so := s.m.sampling
	if opt.Sampling != nil {
		so = *opt.Sampling
	}
	if err := s.newSampler(so); err != nil {
		fail(err)
		return
	}
	if sp := opt.Speculation; sp.on() {
		if err := sp.check(s.m); err != nil {
			fail(err)
			return
		}
		if so.Mirostat != 0 {
			fail(errNoSpeculation)
			return
		}
		if s.gen.drafter.sp != nil && s.gen.drafter.sp.Draft != sp.Draft {
			s.gen.drafter.close()
		}
		s.gen.drafter.sp = sp
		s.gen.drafter.costs = &s.eng.costs
		s.gen.drafter.size.reset()
	}
	if opt.TopLogprobs < 0 || opt.TopLogprobs > MaxTopLogprobs {
		fail(fmt.Errorf("runtime: top logprobs %d must be in [0, %d]", opt.TopLogprobs, MaxTopLogprobs))
		return
	}
	match, err := s.newMatcher(opt, len(prompt))
	if err != nil {
		fail(err)
		return
	}
	s.gen.match = match
	opened, closed := s.promptThinking(s.m.ToolFamily(), prompt)
	if err := s.startReply(opt, len(prompt), opened, closed); err != nil {
		fail(err)
		return
	}
	s.stats.Seed = s.gen.sampler.Options().Seed
	start := time.Now()
	s.stats.PromptStart = start
	logits, err := s.prefill(ctx, prompt)
	s.stats.PromptTime = time.Since(start)
	if err != nil {
		if ctx.Err() != nil {
			s.stats.Stop = StopCancelled
		}
		fail(err)
		return
	}
	start = time.Now()
	defer func() { s.stats.GenTime = time.Since(start) }()
	s.gen.stop.reset(opt.Stop)
	// A family whose syntax uses control tokens (Harmony's channels, Mistral's [TOOL_CALLS]) needs them as text.
	s.gen.dec = s.m.Tokenizer.NewDecoder(tokenizer.DecodeOptions{
		Special: s.gen.out.parser != nil && len(s.gen.out.family.PreservedTokens()) > 0})
	s.gen.dec.Add(tokenizer.None) // a continuation: no leading space is removed from the first piece
	s.loop(ctx, logits, opt, yield)
	if t, ok := s.finishReply(); ok {
		yield(t, nil) // the text the reply layer held back
	}
}

// newSampler makes the sampler of one generation (a seeded one starts its sequence afresh).
func (s *Session) newSampler(o sample.Options) error {
	sm, err := s.m.NewSampler(o)
	if err != nil {
		return fmt.Errorf("runtime: sampling: %w", err)
	}
	s.gen.sampler = sm
	return nil
}

// loop samples, streams and evaluates tokens until a stop condition. With speculation, each pass evaluates the
// chosen token with drafts of the next ones, and the drafts the sampler confirms come out without passes of
// their own.
func (s *Session) loop(ctx context.Context, logits []float32, opt GenerateOptions, yield func(Token, error) bool) {
	g := &s.gen
	V := s.m.HParams().Vocab
	next := int32(-1) // a token already chosen (and accepted by the constraint): a rejected draft's replacement
	if g.match != nil && g.match.Done() {
		s.stats.Stop = StopEOG // a grammar whose only sentence is empty
		return
	}
	for n := 1; ; n++ {
		id := next
		if id < 0 {
			constrain(g.match, logits)
			var err error
			if id, err = accept(g.match, g.sampler.Sample(logits, s.seq.toks), logits); err != nil {
				s.stats.Stop = StopError
				yield(Token{ID: tokenizer.None}, err)
				return
			}
		}
		next = -1
		if s.take(ctx, id, n, logits, opt, yield) {
			return
		}
		if len(s.seq.toks) == s.ctx {
			if !s.opt.ContextShift {
				s.stats.Stop = StopContext
				s.flushHeld(yield)
				return
			}
			if err := s.shift(ctx); err != nil {
				s.stats.Stop = StopError
				yield(Token{ID: tokenizer.None}, err)
				return
			}
		}
		drafts, err := s.drafts(ctx, id, opt)
		if err != nil {
			s.fail(ctx, err, yield)
			return
		}
		g.batch = append(append(g.batch[:0], id), drafts...)
		start := time.Now()
		out, err := s.eval(ctx, g.batch, len(drafts) > 0)
		if err != nil {
			s.fail(ctx, err, yield)
			return
		}
		base := len(s.seq.toks) - len(g.batch) // where id is, after the pass's context
		s.eng.costs.observe(len(g.batch), base, time.Since(start))
		s.stats.Drafted += len(drafts)
		accepted := 0
		logits = out[len(drafts)*V : (len(drafts)+1)*V]
		for i, d := range drafts {
			row := out[i*V : (i+1)*V]
			constrain(g.match, row) // a draft the grammar does not allow has probability 0
			tok, ok := g.sampler.Verify(row, s.seq.toks[:base+i+1], d)
			if tok, err = accept(g.match, tok, row); err != nil {
				s.fail(ctx, err, yield)
				return
			}
			if !ok || tok != d {
				next, logits = tok, row
				break
			}
			accepted++
			n++
			if s.take(ctx, d, n, row, opt, yield) {
				s.stats.Accepted += accepted
				return
			}
		}
		s.stats.Accepted += accepted
		g.drafter.feedback(len(drafts), accepted)
		if next >= 0 {
			s.seq.truncate(base + 1 + accepted) // the rejected drafts leave the cache
		}
	}
}

// take streams token id, the n-th of the generation, chosen from logits, and reports whether generation ends
// with it: an end-of-generation token (not streamed), the token limit, a stop string, or a cancelled context.
func (s *Session) take(ctx context.Context, id int32, n int, logits []float32, opt GenerateOptions, yield func(Token, error) bool) bool {
	g := &s.gen
	tok := Token{ID: id}
	if opt.Logprobs || opt.TopLogprobs > 0 {
		tok.Logprob = g.lp.step(logits, id, opt.TopLogprobs)
		tok.Top = g.lp.top
	}
	if (!opt.IgnoreEOG || g.match != nil) && s.m.Tokenizer.IsEOG(id) {
		s.stats.Stop = StopEOG
		s.flushHeld(yield)
		return true
	}
	s.stats.Generated = n
	last := opt.MaxTokens > 0 && n >= opt.MaxTokens
	g.stop.push(g.dec.Add(id))
	if last {
		g.stop.push(g.dec.Flush())
	}
	text, matched := g.stop.release(last)
	if !s.emit(tok, text, yield) {
		s.stats.Stop = StopCancelled
		return true
	}
	switch {
	case matched:
		s.stats.Stop = StopString
		s.stats.StopString = g.stop.match
	case last:
		s.stats.Stop = StopMaxTokens
	case g.match != nil && g.match.Done():
		s.stats.Stop = StopEOG // the grammar is complete and nothing can follow
		s.flushHeld(yield)
	case ctx.Err() != nil:
		s.stats.Stop = StopCancelled
		yield(Token{ID: tokenizer.None}, ctx.Err())
	default:
		return false
	}
	return true
}

// drafts returns the drafts to evaluate after id (none without speculation, or fewer than its minimum).
func (s *Session) drafts(ctx context.Context, id int32, opt GenerateOptions) ([]int32, error) {
	sp := opt.Speculation
	if !sp.on() {
		return nil, nil
	}
	// Room in the context, and a pass size the engine compiles (it would split another one).
	room := s.eng.bucket(min(sp.max(), s.ctx-len(s.seq.toks)-1)+1) - 1
	// The session is between requests, so the spare capacity of its tokens may hold id: the next request
	// writes the same there.
	hist := append(s.seq.toks, id)
	d, err := s.gen.drafter.propose(ctx, hist, min(sp.max(), room))
	if err != nil || len(d) < sp.Min {
		return nil, err
	}
	return d, nil
}

// fail ends the generation after a failed evaluation.
func (s *Session) fail(ctx context.Context, err error, yield func(Token, error) bool) {
	if ctx.Err() != nil {
		s.stats.Stop = StopCancelled
		yield(Token{ID: tokenizer.None}, ctx.Err())
		return
	}
	s.stats.Stop = StopError
	yield(Token{ID: tokenizer.None}, err)
}

// flushHeld yields the text still held back, if any, when generation ends without a stop string.
func (s *Session) flushHeld(yield func(Token, error) bool) {
	s.gen.stop.push(s.gen.dec.Flush())
	if rest, _ := s.gen.stop.release(true); len(rest) > 0 {
		s.emit(Token{ID: tokenizer.None}, rest, yield)
	}
}

// emit yields a token with text made a string in the arena, and records the text.
func (s *Session) emit(t Token, text []byte, yield func(Token, error) bool) bool {
	s.gen.reply = append(s.gen.reply, text...)
	if err := s.feed(&t, text); err != nil {
		s.stats.Stop = StopError
		yield(t, nil)
		yield(Token{ID: tokenizer.None}, err)
		return false
	}
	return yield(t, nil)
}

// prefill makes the cache hold prompt and returns the logits of its last token: the longest common prefix of the
// cache and the prompt is kept (at least the last prompt token is evaluated again, for its logits) and the rest
// evaluated in batches. A prompt that does not fit is an error, or, with context shift, is cut as a shift would.
func (s *Session) prefill(ctx context.Context, prompt []int32) ([]float32, error) {
	if len(prompt) == 0 {
		return nil, fmt.Errorf("runtime: the prompt is empty")
	}
	s.stats.PromptTokens = len(prompt)
	s.promptLen = len(prompt)
	if len(prompt) >= s.ctx {
		if !s.opt.ContextShift {
			return nil, fmt.Errorf("%w: the prompt has %d tokens and the context holds %d", ErrContextFull, len(prompt), s.ctx)
		}
		prompt = fitPrompt(prompt, s.keepLen(len(prompt)), s.ctx)
		s.stats.Shifts++
	}
	keep := commonPrefix(s.seq.toks, prompt)
	keep = min(keep, len(prompt)-1)
	logits, err := s.seq.run(ctx, keep, prompt[keep:], false)
	if err != nil {
		// The cache holds what was evaluated before the failure: still a valid prefix of the prompt.
		return nil, err
	}
	s.stats.CachedTokens = s.seq.cached
	return logits, nil
}

func commonPrefix(a, b []int32) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
