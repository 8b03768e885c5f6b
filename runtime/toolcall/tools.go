package toolcall

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/forma-llm/forma/runtime/chat"
)

// Tool is one function of a request's tools (OpenAI's function-tool shape).
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage // JSON Schema of the arguments; {"type": "object"} when the request has none
	Raw         json.RawMessage // the tool as the request wrote it (for the chat template's tools, key order kept)
}

// ChoiceMode is tool_choice.
type ChoiceMode uint8

const (
	Auto     ChoiceMode = iota // the model may call tools
	None                       // the model does not call tools (their syntax is content)
	Required                   // the model calls at least one tool
	Function                   // the model calls Choice.Name
)

// Choice is a request's tool_choice.
type Choice struct {
	Mode ChoiceMode
	Name string // for Function
}

var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// ParseTools reads a request's tools: [{"type": "function", "function": {"name": …, "description": …,
// "parameters": {…}}}]. A tool of another type, a name outside OpenAI's [a-zA-Z0-9_-]{1,64}, a name used twice
// or parameters that are not a JSON object are errors.
func ParseTools(raw json.RawMessage) ([]Tool, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("toolcall: tools: %w", err)
	}
	tools := make([]Tool, 0, len(items))
	seen := map[string]bool{}
	for i, item := range items {
		var t struct {
			Type     string `json:"type"`
			Function *struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		}
		if err := json.Unmarshal(item, &t); err != nil {
			return nil, fmt.Errorf("toolcall: tool %d: %w", i, err)
		}
		switch {
		case t.Type != "function":
			return nil, fmt.Errorf("toolcall: tool %d: type %q is not supported (only \"function\")", i, t.Type)
		case t.Function == nil:
			return nil, fmt.Errorf("toolcall: tool %d: no function", i)
		case !toolName.MatchString(t.Function.Name):
			return nil, fmt.Errorf("toolcall: tool %d: name %q: want 1 to 64 letters, digits, '_' or '-'", i, t.Function.Name)
		case seen[t.Function.Name]:
			return nil, fmt.Errorf("toolcall: tool %d: name %q is used twice", i, t.Function.Name)
		}
		seen[t.Function.Name] = true
		params := bytes.TrimSpace(t.Function.Parameters)
		if len(params) == 0 || string(params) == "null" {
			params = []byte(`{"type": "object"}`)
		} else if params[0] != '{' {
			return nil, fmt.Errorf("toolcall: tool %s: parameters must be a JSON Schema object", t.Function.Name)
		}
		tools = append(tools, Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: params,
			Raw: item})
	}
	return tools, nil
}

// Templates returns the tools as the chat template's tools variable takes them (chat.Conversation.Tools).
func Templates(tools []Tool) []json.RawMessage {
	out := make([]json.RawMessage, len(tools))
	for i, t := range tools {
		out[i] = t.Raw
	}
	return out
}

// ParseChoice reads tool_choice: "auto", "none", "required", or {"type": "function", "function": {"name": …}};
// empty means auto. A named function must be one of tools.
func ParseChoice(raw json.RawMessage, tools []Tool) (Choice, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return Choice{}, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch s {
		case "auto":
			return Choice{Mode: Auto}, nil
		case "none":
			return Choice{Mode: None}, nil
		case "required":
			return Choice{Mode: Required}, nil
		}
		return Choice{}, fmt.Errorf("toolcall: tool_choice %q: want auto, none, required or a function", s)
	}
	var named struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &named); err != nil || named.Type != "function" {
		return Choice{}, fmt.Errorf("toolcall: tool_choice %s: want auto, none, required or {\"type\": \"function\", \"function\": {\"name\": …}}", raw)
	}
	for _, t := range tools {
		if t.Name == named.Function.Name {
			return Choice{Mode: Function, Name: t.Name}, nil
		}
	}
	return Choice{}, fmt.Errorf("toolcall: tool_choice names %q, which is not among the tools", named.Function.Name)
}

// Message returns the reply as the assistant's turn of a conversation, for the next prompt.
func (r Reply) Message() chat.Message {
	m := chat.Message{Role: "assistant", Content: r.Content, ReasoningContent: r.Reasoning}
	for _, c := range r.Calls {
		m.ToolCalls = append(m.ToolCalls, chat.ToolCall{ID: c.ID, Type: "function",
			Function: chat.FunctionCall{Name: c.Name, Arguments: json.RawMessage(c.Arguments)}})
	}
	return m
}
