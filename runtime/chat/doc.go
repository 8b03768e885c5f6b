// Package chat turns a conversation into a model's prompt with the model's chat template
// (tokenizer.chat_template), rendered by github.com/ardanlabs/jinja the way Hugging Face transformers renders it:
// messages (system, user, assistant, tool; assistant tool_calls with JSON-object arguments; reasoning_content),
// tools, add_generation_prompt, bos_token / eos_token, and extra variables such as enable_thinking. JSON objects
// keep their key order, and tojson prints as Python's json.dumps does.
//
// As llama.cpp's --chat-template, a template can be replaced by one of llama.cpp's built-in formats by name
// (chatml, llama2, llama3, gemma, phi3, phi4, zephyr, falcon3, mistral-v1/v3/v3-tekken/v7/v7-tekken, gpt-oss); a template the
// Jinja engine cannot compile falls back to the built-in format detected from its text; a model without a
// template gets chatml. Errors name the template line they come from.
//
// A Template is read-only after Load/New and safe for concurrent Render calls.
package chat
