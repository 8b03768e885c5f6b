package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ardanlabs/jinja"
)

// Message is one turn of a conversation, in the Hugging Face chat format.
type Message struct {
	Role             string     `json:"role"` // system, user, assistant, tool
	Content          string     `json:"content"`
	ReasoningContent string     `json:"reasoning_content,omitempty"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string     `json:"tool_call_id,omitempty"`
	Name             string     `json:"name,omitempty"`
}

// ToolCall is a function call made by the assistant. Arguments is a JSON object (the Hugging Face format); its
// key order is kept when a template prints it.
type ToolCall struct {
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function and its arguments.
type FunctionCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Conversation is what a template renders: the messages, the tools the model may call (JSON objects, key order
// kept), whether to open the assistant's turn, and extra template variables (for example enable_thinking).
type Conversation struct {
	Messages            []Message                  `json:"messages"`
	Tools               []json.RawMessage          `json:"tools,omitempty"`
	AddGenerationPrompt bool                       `json:"add_generation_prompt"`
	Kwargs              map[string]json.RawMessage `json:"kwargs,omitempty"`
}

// ParseConversation reads a conversation from JSON:
// {"messages": [...], "tools": [...], "add_generation_prompt": true, "kwargs": {...}}.
func ParseConversation(r io.Reader) (Conversation, error) {
	var c Conversation
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("chat: conversation: %w", err)
	}
	return c, nil
}

// vars builds the template variables.
func (c Conversation) vars(bos, eos string) (map[string]jinja.Value, error) {
	msgs := make([]jinja.Value, len(c.Messages))
	for i, m := range c.Messages {
		v, err := m.value()
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		msgs[i] = v
	}
	vars := map[string]jinja.Value{
		"messages":              jinja.NewList(msgs),
		"add_generation_prompt": jinja.NewBool(c.AddGenerationPrompt),
		"bos_token":             jinja.NewString(bos),
		"eos_token":             jinja.NewString(eos),
	}
	if len(c.Tools) > 0 {
		tools := make([]jinja.Value, len(c.Tools))
		for i, raw := range c.Tools {
			v, err := jsonValue(raw)
			if err != nil {
				return nil, fmt.Errorf("tool %d: %w", i, err)
			}
			tools[i] = v
		}
		vars["tools"] = jinja.NewList(tools)
	}
	for k, raw := range c.Kwargs {
		v, err := jsonValue(raw)
		if err != nil {
			return nil, fmt.Errorf("kwarg %q: %w", k, err)
		}
		vars[k] = v
	}
	return vars, nil
}

func (m Message) value() (jinja.Value, error) {
	d := jinja.NewDict()
	dict := d.AsDict()
	dict.Set("role", jinja.NewString(m.Role))
	dict.Set("content", jinja.NewString(m.Content))
	if m.ReasoningContent != "" {
		dict.Set("reasoning_content", jinja.NewString(m.ReasoningContent))
		dict.Set("thinking", jinja.NewString(m.ReasoningContent)) // gpt-oss's templates read it there
	}
	if len(m.ToolCalls) > 0 {
		calls := make([]jinja.Value, len(m.ToolCalls))
		for i, tc := range m.ToolCalls {
			c := jinja.NewDict()
			cd := c.AsDict()
			if tc.ID != "" {
				cd.Set("id", jinja.NewString(tc.ID))
			}
			if tc.Type != "" {
				cd.Set("type", jinja.NewString(tc.Type))
			}
			fn := jinja.NewDict()
			fd := fn.AsDict()
			fd.Set("name", jinja.NewString(tc.Function.Name))
			args := jinja.NewDict()
			if len(bytes.TrimSpace(tc.Function.Arguments)) > 0 {
				v, err := jsonValue(tc.Function.Arguments)
				if err != nil {
					return jinja.Value{}, fmt.Errorf("tool call %d arguments: %w", i, err)
				}
				args = v
			}
			fd.Set("arguments", args)
			cd.Set("function", fn)
			calls[i] = c
		}
		dict.Set("tool_calls", jinja.NewList(calls))
	}
	if m.ToolCallID != "" {
		dict.Set("tool_call_id", jinja.NewString(m.ToolCallID))
	}
	if m.Name != "" {
		dict.Set("name", jinja.NewString(m.Name))
	}
	return d, nil
}

// jsonValue converts JSON to a template value, keeping object key order and integer/float distinction.
func jsonValue(raw []byte) (jinja.Value, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return jinja.Value{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return jinja.Value{}, fmt.Errorf("trailing data after JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (jinja.Value, error) {
	tok, err := dec.Token()
	if err != nil {
		return jinja.Value{}, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			d := jinja.NewDict()
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return jinja.Value{}, err
				}
				v, err := decodeValue(dec)
				if err != nil {
					return jinja.Value{}, err
				}
				d.AsDict().Set(k.(string), v)
			}
			_, err := dec.Token() // '}'
			return d, err
		case '[':
			var items []jinja.Value
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return jinja.Value{}, err
				}
				items = append(items, v)
			}
			_, err := dec.Token() // ']'
			return jinja.NewList(items), err
		}
	case json.Number:
		return jinja.FromGoValue(t), nil
	case string:
		return jinja.NewString(t), nil
	case bool:
		return jinja.NewBool(t), nil
	case nil:
		return jinja.None(), nil
	}
	return jinja.Value{}, fmt.Errorf("unexpected JSON token %v", tok)
}

// quoteLine returns line n (1-based) of src, trimmed, for error messages.
func quoteLine(src string, n int) string {
	lines := strings.Split(src, "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[n-1])
}
