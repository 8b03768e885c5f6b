package toolcall_test

import (
	"fmt"

	"github.com/forma-llm/forma/runtime/toolcall"
)

// A Qwen3 reply, streamed in pieces that cut the tags: reasoning, then a call whose arguments arrive in fragments.
func ExampleParser() {
	p := toolcall.NewParser(toolcall.Options{Family: toolcall.Hermes, Calls: true,
		NewID: func(n int) string { return fmt.Sprintf("call_%d", n) }})
	for _, piece := range []string{"<thi", "nk>The user wants the weather.</th", "ink>\n\n<tool_", "call>\n{\"name\": \"get_weather\", ",
		"\"arguments\": {\"city\": ", "\"Paris\"}}\n</tool_call>"} {
		for _, d := range p.Feed(piece) {
			fmt.Printf("%-9s %d %q %q %q\n", d.Kind, d.Index, d.ID, d.Name, d.Text)
		}
	}
	p.Finish()
	r, err := p.Result()
	fmt.Println(r.Calls[0].Arguments, err)
	// Output:
	// reasoning 0 "" "" "The user wants the weather."
	// call      0 "call_0" "get_weather" ""
	// args      0 "" "" "{\"city\": "
	// args      0 "" "" "\"Paris\"}"
	// {"city": "Paris"} <nil>
}
