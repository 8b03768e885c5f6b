package runtime

import (
	"context"
	"fmt"
	"iter"

	"github.com/forma-llm/forma/runtime/chat"
	"github.com/forma-llm/forma/runtime/tokenizer"
)

// Chat adds msg to the conversation as the user's turn and streams the assistant's answer. The whole
// conversation is rendered with the model's chat template and tokenized; the longest common prefix with the
// cache is kept, so a new turn evaluates only the tokens that are new (the template's rendering of the last
// answer and the new message). The answer joins the history when the stream ends, however it ends (a cut-off
// answer is kept as far as it got); a turn whose prompt could not be evaluated leaves the history unchanged.
func (s *Session) Chat(ctx context.Context, msg string, opt GenerateOptions) iter.Seq2[Token, error] {
	return func(yield func(Token, error) bool) {
		fail := func(err error) { yield(Token{ID: tokenizer.None}, err) }
		tmpl, err := s.m.Template()
		if err != nil {
			fail(fmt.Errorf("runtime: chat: %w", err))
			return
		}
		n := len(s.history)
		s.history = append(s.history, chat.Message{Role: "user", Content: msg})
		text, err := tmpl.Render(chat.Conversation{Messages: s.history, AddGenerationPrompt: true, Kwargs: s.kwargs})
		if err != nil {
			s.history = s.history[:n]
			fail(err)
			return
		}
		ids, err := s.m.Tokenizer.Encode(text, tokenizer.EncodeOptions{AddSpecial: true, ParseSpecial: true})
		if err != nil {
			s.history = s.history[:n]
			fail(fmt.Errorf("runtime: %w", err))
			return
		}
		s.generate(ctx, ids, opt, yield)
		if s.stats.Generated == 0 && s.stats.Stop != StopEOG {
			s.history = s.history[:n] // the prompt was not evaluated: as if the turn had not happened
			return
		}
		reply, _ := s.Result() // a reply cut inside a call keeps what was whole
		s.history = append(s.history, reply.Message())
	}
}

// History returns a copy of the conversation so far.
func (s *Session) History() []chat.Message { return append([]chat.Message(nil), s.history...) }

// SetHistory replaces the conversation (the cache is kept: the next turn reuses what matches).
func (s *Session) SetHistory(msgs []chat.Message) { s.history = append(s.history[:0], msgs...) }

// SetSystem replaces the system message and starts the conversation over (as Reset).
func (s *Session) SetSystem(msg string) {
	s.opt.System = msg
	s.Reset()
}

// Reply returns the text the last generation returned (a chat answer, or a completion).
func (s *Session) Reply() string { return string(s.gen.reply) }
