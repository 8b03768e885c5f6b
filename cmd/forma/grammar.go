package main

import (
	"fmt"
	"io"

	"github.com/forma-llm/forma/runtime/grammar"
	"github.com/forma-llm/forma/runtime/grammar/jsonschema"
)

func init() {
	register(command{name: "grammar", summary: "check a GBNF grammar or JSON schema and print its GBNF", run: runGrammar})
}

// runGrammar prints the GBNF of a JSON schema (as llama.cpp's json_schema_to_grammar.py does; the output works
// with llama.cpp's --grammar-file) or of a grammar, after checking it: an error names the schema keyword or the
// grammar's line:column and exits 2.
func runGrammar(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("grammar", "--json-schema FILE|JSON | --json | --grammar-file FILE | --grammar GBNF [--whitespace]", stderr)
	var cf constraintFlags
	cf.add(fs)
	ws := fs.Bool("whitespace", false, "with --json-schema or --json: allow short runs of whitespace between tokens")
	if pos, err := parseFlags(fs, args); err != nil || len(pos) > 0 {
		fs.Usage()
		return errUsage
	}
	if err := cf.read(); err != nil {
		return err
	}
	var g *grammar.Grammar
	var err error
	opt := jsonschema.Options{Whitespace: *ws}
	switch {
	case cf.schemaJSON != nil:
		g, err = jsonschema.Compile(cf.schemaJSON, opt)
	case cf.json:
		g = jsonschema.Object(opt)
	case cf.grammar != "":
		g, err = grammar.Parse(cf.grammar)
	default:
		fs.Usage()
		return errUsage
	}
	if err != nil {
		return badInput{err}
	}
	if err := grammar.Check(g); err != nil { // left recursion, or no sentence at all
		return badInput{err}
	}
	fmt.Fprint(stdout, g)
	return nil
}
