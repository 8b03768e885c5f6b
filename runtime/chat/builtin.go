package chat

import (
	"fmt"
	"strings"
)

// Builtin is one of llama.cpp's built-in chat formats (llama-chat.cpp), used for --chat-template NAME and for
// templates the Jinja engine cannot compile.
type Builtin uint8

const (
	BuiltinUnknown Builtin = iota
	BuiltinChatML
	BuiltinLlama2
	BuiltinLlama2Sys
	BuiltinLlama2SysBOS
	BuiltinLlama2SysStrip
	BuiltinMistralV1
	BuiltinMistralV3
	BuiltinMistralV3Tekken
	BuiltinMistralV7
	BuiltinMistralV7Tekken
	BuiltinPhi3
	BuiltinPhi4
	BuiltinFalcon3
	BuiltinZephyr
	BuiltinGemma
	BuiltinLlama3
	BuiltinGPTOSS  // gpt-oss's Harmony turns (llama.cpp's LLM_CHAT_TEMPLATE_OPENAI_MOE)
	BuiltinGranite // IBM Granite's <|start_of_role|> turns
)

var builtinNames = map[string]Builtin{
	"chatml": BuiltinChatML, "llama2": BuiltinLlama2, "llama2-sys": BuiltinLlama2Sys,
	"llama2-sys-bos": BuiltinLlama2SysBOS, "llama2-sys-strip": BuiltinLlama2SysStrip,
	"mistral-v1": BuiltinMistralV1, "mistral-v3": BuiltinMistralV3, "mistral-v3-tekken": BuiltinMistralV3Tekken,
	"mistral-v7": BuiltinMistralV7, "mistral-v7-tekken": BuiltinMistralV7Tekken,
	"phi3": BuiltinPhi3, "phi4": BuiltinPhi4, "falcon3": BuiltinFalcon3, "zephyr": BuiltinZephyr,
	"gemma": BuiltinGemma, "llama3": BuiltinLlama3, "gpt-oss": BuiltinGPTOSS,
	"granite": BuiltinGranite,
}

// BuiltinNames lists the built-in format names.
func BuiltinNames() []string {
	names := make([]string, 0, len(builtinNames))
	for n := range builtinNames {
		names = append(names, n)
	}
	return names
}

func (b Builtin) String() string {
	for n, v := range builtinNames {
		if v == b {
			return n
		}
	}
	return "unknown"
}

// Detect recognizes a built-in format from a template's text, as llama.cpp's llm_chat_detect_template does (for
// the formats implemented here).
func Detect(tmpl string) Builtin {
	if b, ok := builtinNames[tmpl]; ok {
		return b
	}
	has := func(s string) bool { return strings.Contains(tmpl, s) }
	switch {
	case has("<|im_start|>"):
		if has("<|im_sep|>") {
			return BuiltinPhi4
		}
		if has("<end_of_utterance>") {
			return BuiltinUnknown // SmolVLM, not ChatML
		}
		return BuiltinChatML
	case strings.HasPrefix(tmpl, "mistral") || has("[INST]"):
		switch {
		case has("[SYSTEM_PROMPT]"):
			return BuiltinMistralV7
		case has("' [INST] ' + system_message") || has("[AVAILABLE_TOOLS]"):
			switch {
			case has(" [INST]"):
				return BuiltinMistralV1
			case has(`"[INST]"`):
				return BuiltinMistralV3Tekken
			}
			return BuiltinMistralV3
		case has("content.strip()"):
			return BuiltinLlama2SysStrip
		case has("bos_token + '[INST]"):
			return BuiltinLlama2SysBOS
		case has("<<SYS>>"):
			return BuiltinLlama2Sys
		}
		return BuiltinLlama2
	case has("<|assistant|>") && has("<|end|>"):
		return BuiltinPhi3
	case has("[gMASK]<sop>"):
		return BuiltinUnknown // chatglm4
	case has("<|assistant|>") && has("<|user|>"):
		if !has("<|tool_declare|>") && has("</s>") {
			return BuiltinFalcon3
		}
		return BuiltinUnknown
	case has("<|user|>") && has("<|endoftext|>"):
		return BuiltinZephyr
	case has("bos_token + message['role']"):
		return BuiltinUnknown // monarch
	case has("<start_of_turn>"):
		return BuiltinGemma
	case has("<|start_header_id|>") && has("<|end_header_id|>"):
		return BuiltinLlama3
	case has("<|start|>") && has("<|channel|>"):
		return BuiltinGPTOSS
	case has("<|start_of_role|>"):
		return BuiltinGranite
	}
	return BuiltinUnknown
}

// trimSpace trims C isspace characters, as llama.cpp's trim.
func trimSpace(s string) string { return strings.Trim(s, " \t\n\v\f\r") }

// renderBuiltin formats messages (role and content only) exactly as llama.cpp's llm_chat_apply_template.
func renderBuiltin(b Builtin, c Conversation) (string, error) {
	var sb strings.Builder
	addAss := c.AddGenerationPrompt
	msgs := c.Messages
	switch b {
	case BuiltinChatML:
		for _, m := range msgs {
			sb.WriteString("<|im_start|>" + m.Role + "\n" + m.Content + "<|im_end|>\n")
		}
		if addAss {
			sb.WriteString("<|im_start|>assistant\n")
		}
	case BuiltinMistralV7, BuiltinMistralV7Tekken:
		sp := ""
		if b == BuiltinMistralV7 {
			sp = " "
		}
		for _, m := range msgs {
			switch m.Role {
			case "system":
				sb.WriteString("[SYSTEM_PROMPT]" + sp + m.Content + "[/SYSTEM_PROMPT]")
			case "user":
				sb.WriteString("[INST]" + sp + m.Content + "[/INST]")
			default:
				sb.WriteString(sp + m.Content + "</s>")
			}
		}
	case BuiltinMistralV1, BuiltinMistralV3, BuiltinMistralV3Tekken:
		lead, trail := "", " "
		if b == BuiltinMistralV1 {
			lead = " "
		}
		if b == BuiltinMistralV3Tekken {
			trail = ""
		}
		inTurn := false
		for _, m := range msgs {
			if !inTurn {
				sb.WriteString(lead + "[INST]" + trail)
				inTurn = true
			}
			switch m.Role {
			case "system":
				sb.WriteString(m.Content + "\n\n")
			case "user":
				sb.WriteString(m.Content + lead + "[/INST]")
			default:
				content := m.Content
				if b == BuiltinMistralV3 {
					content = trimSpace(content)
				}
				sb.WriteString(trail + content + "</s>")
				inTurn = false
			}
		}
	case BuiltinLlama2, BuiltinLlama2Sys, BuiltinLlama2SysBOS, BuiltinLlama2SysStrip:
		inTurn := true
		sb.WriteString("[INST] ")
		for _, m := range msgs {
			content := m.Content
			if b == BuiltinLlama2SysStrip {
				content = trimSpace(content)
			}
			if !inTurn {
				inTurn = true
				if b == BuiltinLlama2SysBOS {
					sb.WriteString("<s>[INST] ")
				} else {
					sb.WriteString("[INST] ")
				}
			}
			switch m.Role {
			case "system":
				if b != BuiltinLlama2 {
					sb.WriteString("<<SYS>>\n" + content + "\n<</SYS>>\n\n")
				} else {
					sb.WriteString(content + "\n")
				}
			case "user":
				sb.WriteString(content + " [/INST]")
			default:
				sb.WriteString(content + "</s>")
				inTurn = false
			}
		}
	case BuiltinPhi3:
		for _, m := range msgs {
			sb.WriteString("<|" + m.Role + "|>\n" + m.Content + "<|end|>\n")
		}
		if addAss {
			sb.WriteString("<|assistant|>\n")
		}
	case BuiltinPhi4:
		for _, m := range msgs {
			sb.WriteString("<|im_start|>" + m.Role + "<|im_sep|>" + m.Content + "<|im_end|>")
		}
		if addAss {
			sb.WriteString("<|im_start|>assistant<|im_sep|>")
		}
	case BuiltinFalcon3:
		for _, m := range msgs {
			sb.WriteString("<|" + m.Role + "|>\n" + m.Content + "\n")
		}
		if addAss {
			sb.WriteString("<|assistant|>\n")
		}
	case BuiltinZephyr:
		for _, m := range msgs {
			sb.WriteString("<|" + m.Role + "|>\n" + m.Content + "<|endoftext|>\n")
		}
		if addAss {
			sb.WriteString("<|assistant|>\n")
		}
	case BuiltinGemma:
		system := ""
		for _, m := range msgs {
			if m.Role == "system" {
				system += trimSpace(m.Content) // gemma has no system turn: it joins the next user turn
				continue
			}
			role := m.Role
			if role == "assistant" {
				role = "model"
			}
			sb.WriteString("<start_of_turn>" + role + "\n")
			if system != "" && role != "model" {
				sb.WriteString(system + "\n\n")
				system = ""
			}
			sb.WriteString(trimSpace(m.Content) + "<end_of_turn>\n")
		}
		if addAss {
			sb.WriteString("<start_of_turn>model\n")
		}
	case BuiltinLlama3:
		for _, m := range msgs {
			sb.WriteString("<|start_header_id|>" + m.Role + "<|end_header_id|>\n\n" + trimSpace(m.Content) + "<|eot_id|>")
		}
		if addAss {
			sb.WriteString("<|start_header_id|>assistant<|end_header_id|>\n\n")
		}
	case BuiltinGPTOSS:
		// Harmony without its system and developer headers, channels or tools: what llama.cpp falls back to.
		for _, m := range msgs {
			end := "<|end|>"
			if m.Role == "assistant" {
				end = "<|return|>"
			}
			sb.WriteString("<|start|>" + m.Role + "<|message|>" + m.Content + end)
		}
		if addAss {
			sb.WriteString("<|start|>assistant")
		}
	case BuiltinGranite:
		for _, m := range msgs {
			sb.WriteString("<|start_of_role|>" + m.Role + "<|end_of_role|>")
			if m.Role == "assistant_tool_call" {
				sb.WriteString("<|tool_call|>")
			}
			sb.WriteString(m.Content + "<|end_of_text|>\n")
		}
		if addAss {
			sb.WriteString("<|start_of_role|>assistant<|end_of_role|>")
		}
	default:
		return "", fmt.Errorf("%w: %v", ErrUnknownBuiltin, b)
	}
	return sb.String(), nil
}
