package server

import (
	"encoding/json"
	"errors"

	"github.com/forma-llm/forma/runtime/chat"
	"github.com/forma-llm/forma/runtime/tokenizer"
	"github.com/forma-llm/forma/runtime/toolcall"
)

// prompt is a request's prompt: its text and its token ids.
type prompt struct {
	text string
	ids  []int32
}

// chatPrompt renders a conversation, with the tools the model may call, with the model's chat template and
// tokenizes it as Session.Chat does (BOS as the vocabulary asks, special-token text recognized), so that a
// greedy answer equals forma run's. A last assistant message without tool calls is a prefill: the answer
// continues it. The runtime reads from the prompt's end whether the answer starts inside the reasoning.
func chatPrompt(e *modelEntry, msgs []chat.Message, tools []toolcall.Tool, kwargs map[string]json.RawMessage) (prompt, error) {
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
	conv := chat.Conversation{Messages: msgs, AddGenerationPrompt: true, Kwargs: kwargs}
	if len(tools) > 0 {
		conv.Tools = toolcall.Templates(tools)
		if vars := e.family.ToolVars(); len(vars) > 0 {
			conv.Kwargs = make(map[string]json.RawMessage, len(vars)+len(kwargs))
			for k, v := range vars {
				conv.Kwargs[k] = v
			}
			for k, v := range kwargs { // the request's own variables win
				conv.Kwargs[k] = v
			}
		}
	}
	text, err := tmpl.Render(conv)
	if err != nil {
		return prompt{}, badRequest("messages", "the chat template failed: %v", err)
	}
	p := prompt{text: text + prefill}
	p.ids, err = encode(e, p.text, true)
	return p, err
}

// thinkingVars are the template variables that switch a model's thinking on or off (enable_thinking for most
// templates, gpt-oss's reasoning_effort), nil for a template without such a switch.
func thinkingVars(e *modelEntry, on bool) map[string]json.RawMessage {
	if vars := e.family.TemplateVars(on); len(vars) > 0 {
		return vars
	}
	return nil
}

// withNames fills the names of tool results from the calls of earlier turns (templates such as Llama 3's and
// Gemma's print the name of the tool that answered; OpenAI's and Anthropic's results carry only the call id).
func withNames(msgs []chat.Message) []chat.Message {
	names := map[string]string{}
	for i, m := range msgs {
		for _, c := range m.ToolCalls {
			if c.ID != "" {
				names[c.ID] = c.Function.Name
			}
		}
		if m.Role == "tool" && m.Name == "" && names[m.ToolCallID] != "" {
			msgs[i].Name = names[m.ToolCallID]
		}
	}
	return msgs
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
