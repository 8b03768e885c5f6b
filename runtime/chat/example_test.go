package chat_test

import (
	"encoding/json"
	"fmt"

	"github.com/forma-llm/forma/runtime/chat"
)

func Example() {
	tmpl, err := chat.New("{% for m in messages %}<|{{ m.role }}|>{{ m.content }}\n{% endfor %}"+
		"{% if add_generation_prompt %}<|assistant|>{% endif %}", chat.Options{})
	if err != nil {
		panic(err)
	}
	prompt, err := tmpl.Render(chat.Conversation{
		Messages:            []chat.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Hi"}},
		AddGenerationPrompt: true,
		Kwargs:              map[string]json.RawMessage{"enable_thinking": json.RawMessage("false")},
	})
	fmt.Printf("%q %v\n", prompt, err)

	builtin, _ := chat.New("gemma", chat.Options{})
	prompt, _ = builtin.Render(chat.Conversation{Messages: []chat.Message{{Role: "user", Content: "Hi"}}, AddGenerationPrompt: true})
	fmt.Printf("%q\n", prompt)
	// Output:
	// "<|system|>Be brief.\n<|user|>Hi\n<|assistant|>" <nil>
	// "<start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n"
}
