package toolcall

import (
	"encoding/json"
	"strings"
)

// Family is a chat template's way of writing reasoning and tool calls.
type Family uint8

const (
	Plain      Family = iota // no reasoning tags, no tool-call syntax
	Thinking                 // <think>…</think> reasoning only (DeepSeek-R1 distills, QwQ, …)
	Hermes                   // Qwen 2.5/3, Hermes 2/3: <tool_call>{"name": …, "arguments": …}</tool_call>
	Llama3                   // Llama 3.1–3.3: {"name": …, "parameters": …}, <|python_tag|>
	Mistral                  // Mistral Nemo/Small, Magistral: [TOOL_CALLS][{"name": …, "arguments": …, "id": …}]
	MistralV11               // Ministral/Magistral/Devstral 2025+: [TOOL_CALLS]NAME[ARGS]{…}
	Phi4                     // Phi-4-mini: functools[{…}], <|tool_call|>{…}<|/tool_call|>
	Gemma4                   // Gemma 4: <|tool_call>call:NAME{key:value}<tool_call|>
	Harmony                  // gpt-oss: channels, <|channel|>commentary to=functions.NAME<|message|>{…}
	DeepSeekR1               // DeepSeek R1: <｜tool▁calls▁begin｜>… function<｜tool▁sep｜>NAME\n```json…
	numFamilies
)

// syntax is what a family writes.
type syntax struct {
	name      string
	think     [2]string // reasoning open and close tags ("" for none)
	triggers  []trigger // where call syntax starts
	preserved []string  // tokens that must be decoded as their text for the parser to see them
	kwargs    []string  // template variables that switch thinking on or off
	idLen     int       // length of the ids the family's templates expect (0: OpenAI-style "call_…")
	args      callKeys  // keys of a JSON call object, for grammars
}

// trigger is a text where call syntax starts, with the parser of what follows it.
type trigger struct {
	text    string
	atStart bool // only at the start of the answer (after whitespace)
	parse   callParser
}

var hermesKeys = callKeys{name: "name", args: []string{"arguments", "parameters"}}

var families = [numFamilies]syntax{
	Plain:    {name: "plain"},
	Thinking: {name: "thinking", think: [2]string{"<think>", "</think>"}, kwargs: []string{"enable_thinking"}},
	Hermes: {name: "hermes", think: [2]string{"<think>", "</think>"}, kwargs: []string{"enable_thinking"},
		args: hermesKeys, preserved: []string{"<think>", "</think>", "<tool_call>", "</tool_call>"},
		triggers: []trigger{{text: "<tool_call>", parse: hermesCall}, {text: "<function=", parse: functionTagCall}}},
	Llama3: {name: "llama3", args: llamaKeys,
		preserved: []string{"<|python_tag|>"},
		triggers: []trigger{{text: "{", atStart: true, parse: llamaJSONCalls},
			{text: "<|python_tag|>", parse: pythonTagCall}}},
	Mistral: {name: "mistral", think: [2]string{"[THINK]", "[/THINK]"}, idLen: 9,
		args: mistralKeys, preserved: []string{"[TOOL_CALLS]", "[THINK]", "[/THINK]"},
		triggers: []trigger{{text: "[TOOL_CALLS]", parse: mistralCalls}}},
	MistralV11: {name: "mistral-v11", think: [2]string{"[THINK]", "[/THINK]"}, idLen: 9,
		preserved: []string{"[TOOL_CALLS]", "[ARGS]", "[CALL_ID]", "[THINK]", "[/THINK]"},
		triggers:  []trigger{{text: "[TOOL_CALLS]", parse: mistralArgsCall}}},
	Phi4: {name: "phi4", args: hermesKeys, preserved: []string{"<|tool_call|>", "<|/tool_call|>"},
		triggers: []trigger{{text: "functools", parse: functoolsCalls}, {text: "<|tool_call|>", parse: phiTagCall}}},
	Gemma4: {name: "gemma4", think: [2]string{"<|channel>thought", "<channel|>"}, kwargs: []string{"enable_thinking"},
		preserved: []string{"<|tool_call>", "<tool_call|>", `<|"|>`, "<|channel>", "<channel|>"},
		triggers:  []trigger{{text: "<|tool_call>", parse: gemmaCall}}},
	Harmony: {name: "harmony", kwargs: []string{"reasoning_effort"},
		preserved: []string{"<|channel|>", "<|constrain|>", "<|message|>", "<|start|>", "<|end|>", "<|call|>", "<|return|>"}},
	DeepSeekR1: {name: "deepseek-r1", think: [2]string{"<think>", "</think>"},
		preserved: []string{"<think>", "</think>", dsCallsBegin, dsCallBegin, dsSep, dsCallEnd, dsCallsEnd},
		triggers:  []trigger{{text: dsCallsBegin, parse: deepseekCalls}}},
}

func (f Family) syn() *syntax {
	if f >= numFamilies {
		return &families[Plain]
	}
	return &families[f]
}

func (f Family) String() string { return f.syn().name }

// ParseFamily returns the family of a name String gives.
func ParseFamily(name string) (Family, bool) {
	for f := range numFamilies {
		if families[f].name == name {
			return f, true
		}
	}
	return Plain, false
}

// SupportsTools reports whether the family has a tool-call syntax.
func (f Family) SupportsTools() bool { return len(f.syn().triggers) > 0 || f == Harmony }

// Reasoning returns the family's reasoning tags ("", "" for none; Harmony's reasoning is its analysis channel).
func (f Family) Reasoning() (open, close string) { return f.syn().think[0], f.syn().think[1] }

// PreservedTokens lists special tokens the generation must decode as their text (llama.cpp's preserved_tokens):
// the parser finds tags and triggers in the text.
func (f Family) PreservedTokens() []string { return append([]string(nil), f.syn().preserved...) }

// Detect returns the family of a chat template from its Jinja source, as llama.cpp's common_chat_templates_apply
// does: by the markers the template writes.
func Detect(src string) Family {
	has := func(s ...string) bool {
		for _, x := range s {
			if !strings.Contains(src, x) {
				return false
			}
		}
		return true
	}
	switch {
	case has("<|channel|>"):
		return Harmony
	case has(dsCallsBegin):
		return DeepSeekR1
	case has("[TOOL_CALLS]", "[ARGS]"):
		return MistralV11
	case has("<tool_call>"):
		return Hermes
	case has("<|tool_call>", "<tool_call|>"):
		return Gemma4
	case has("functools") || has("<|tool_call|>", "<|/tool_call|>") || has("<|tool|>", "<|/tool|>"):
		return Phi4
	case has("<|start_header_id|>ipython<|end_header_id|>") || has("<|start_header_id|>", "<|python_tag|>"):
		return Llama3
	case has("[TOOL_CALLS]") || has("[THINK]", "[/THINK]"):
		return Mistral
	case has("<think>"):
		return Thinking
	}
	return Plain
}

// TemplateVars returns the template variables that switch the family's thinking on or off (enable_thinking for
// most; gpt-oss has reasoning_effort, set to "low" when thinking is off since it cannot be switched off).
func (f Family) TemplateVars(thinking bool) map[string]json.RawMessage {
	vars := map[string]json.RawMessage{}
	for _, k := range f.syn().kwargs {
		switch {
		case k == "reasoning_effort" && !thinking:
			vars[k] = json.RawMessage(`"low"`)
		case k == "reasoning_effort":
			vars[k] = json.RawMessage(`"medium"`)
		case thinking:
			vars[k] = json.RawMessage("true")
		default:
			vars[k] = json.RawMessage("false")
		}
	}
	return vars
}

// ToolVars returns template variables a request with tools sets, as llama.cpp does: Llama 3.x templates get the
// tools in the system turn rather than in the first user message (tools_in_user_message false).
func (f Family) ToolVars() map[string]json.RawMessage {
	if f == Llama3 {
		return map[string]json.RawMessage{"tools_in_user_message": json.RawMessage("false")}
	}
	return nil
}

// PromptThinking reports whether a rendered prompt already opens the reasoning (the template ends the
// generation prompt with the open tag, as DeepSeek-R1's and Qwen3-thinking's do), so the reply starts inside
// it. With thinking off, such a prompt gets the close tag appended, as llama.cpp does, and reports false.
func (f Family) PromptThinking(prompt string, thinking bool) (string, bool) {
	open, close := f.Reasoning()
	if open == "" || !strings.HasSuffix(strings.TrimRight(prompt, " \n"), open) {
		return prompt, false
	}
	if !thinking {
		return prompt + close, false
	}
	return prompt, true
}
