package sample_test

import (
	"encoding/json"
	"fmt"

	"github.com/forma-llm/forma/runtime/sample"
)

// One table names each parameter for the command line, the REPL and requests, and checks its range.
func ExampleLookup() {
	o := sample.Defaults()
	p, _ := sample.Lookup("dry_multiplier") // a request field, a /set name
	p.SetJSON(&o, json.RawMessage("0.8"))
	q, _ := sample.Lookup("top-p") // a flag
	q.Set(&o, "1.5")
	fmt.Println(p.Flag, p.Value(o), o.Validate())
	// Output: dry-multiplier 0.8 top_p 1.5 must be in (0, 1]
}
