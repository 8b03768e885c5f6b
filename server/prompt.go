package server

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/forma-llm/forma/runtime/chat"
	"github.com/forma-llm/forma/runtime/tokenizer"
)

// prompt is a request's prompt: its text, its token ids, and whether the answer starts inside a reasoning block
// (the template opened <think> itself).
type prompt struct {
	text     string
	ids      []int32
	thinking bool
}

// chatPrompt renders a conversation with the model's chat template and tokenizes it as Session.Chat does (BOS as
// the vocabulary asks, special-token text recognized), so that a greedy answer equals forma run's. A last
// assistant message is a prefill: the answer continues it.
func chatPrompt(e *modelEntry, msgs []chat.Message, kwargs map[string]json.RawMessage) (prompt, error) {
	tmpl, err := e.m.Template()
	if err != nil {
		return prompt{}, badRequest("messages", "the model has no usable chat template: %v", err)
	}
	if len(msgs) == 0 {
		return prompt{}, badRequest("messages", "at least one message is needed")
	}
	prefill := ""
	if last := msgs[len(msgs)-1]; last.Role == "assistant" && len(last.ToolCalls) == 0 {
		prefill, msgs = last.Content, msgs[:len(msgs)-1]
	}
	text, err := tmpl.Render(chat.Conversation{Messages: msgs, AddGenerationPrompt: true, Kwargs: kwargs})
	if err != nil {
		return prompt{}, badRequest("messages", "the chat template failed: %v", err)
	}
	p := prompt{text: text + prefill}
	if e.thinks {
		t := strings.TrimRight(p.text, " \t\r\n")
		p.thinking = strings.LastIndex(t, "<think>") > strings.LastIndex(t, "</think>")
	}
	p.ids, err = encode(e, p.text, true)
	return p, err
}

// textPrompt tokenizes a plain completion prompt as Session.Generate does.
func textPrompt(e *modelEntry, text string) (prompt, error) {
	ids, err := encode(e, text, true)
	return prompt{text: text, ids: ids}, err
}

func encode(e *modelEntry, text string, special bool) ([]int32, error) {
	ids, err := e.m.Tokenizer.Encode(text, tokenizer.EncodeOptions{AddSpecial: special, ParseSpecial: true})
	if errors.Is(err, tokenizer.ErrNoVocab) {
		return nil, badRequest("model", "model %s has no vocabulary: it takes token ids only", e.name)
	}
	if err != nil {
		return nil, badRequest("", "tokenizing the prompt: %v", err)
	}
	return ids, nil
}

// piece returns a token's text as the logprobs fields show it (control tokens as their text).
func piece(e *modelEntry, id int32) []byte {
	return e.m.Tokenizer.TokenToPiece(id, tokenizer.PieceOptions{Special: true})
}
