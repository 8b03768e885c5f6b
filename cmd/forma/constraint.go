package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/grammar"
	"github.com/forma-llm/forma/runtime/grammar/jsonschema"
)

// constraintFlags are the output constraints of forma run, named as llama-cli names them.
type constraintFlags struct {
	grammar     string // GBNF source
	grammarFile string
	schema      string // a file, or the JSON itself
	json        bool

	schemaJSON []byte // read from schema
}

func (c *constraintFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&c.grammar, "grammar", "", "constrain the output to this GBNF `grammar`")
	fs.StringVar(&c.grammarFile, "grammar-file", "", "constrain the output to the GBNF grammar in `file`")
	fs.StringVar(&c.schema, "json-schema", "", "constrain the output to JSON valid against the JSON Schema `schema` (a file, or the schema itself)")
	fs.BoolVar(&c.json, "json", false, "constrain the output to a JSON object")
}

// read loads the grammar file or the schema and checks them before the model is loaded: an invalid grammar or
// schema is a bad input (exit status 2) whose message names the line:column or the keyword.
func (c *constraintFlags) read() error {
	n := 0
	for _, set := range []bool{c.grammar != "", c.grammarFile != "", c.schema != "", c.json} {
		if set {
			n++
		}
	}
	if n > 1 {
		return badInput{errors.New("give only one of --grammar, --grammar-file, --json-schema and --json")}
	}
	if c.grammarFile != "" {
		b, err := os.ReadFile(c.grammarFile)
		if err != nil {
			return badInput{err}
		}
		c.grammar = string(b)
	}
	if c.grammar != "" {
		if _, err := grammar.Parse(c.grammar); err != nil {
			if c.grammarFile != "" {
				return badInput{fmt.Errorf("%s: %w", c.grammarFile, err)}
			}
			return badInput{err}
		}
	}
	if c.schema != "" {
		c.schemaJSON = []byte(c.schema)
		if t := strings.TrimSpace(c.schema); !strings.HasPrefix(t, "{") && t != "true" && t != "false" {
			b, err := os.ReadFile(c.schema)
			if err != nil {
				return badInput{fmt.Errorf("--json-schema: %w (give a file or the schema's JSON)", err)}
			}
			c.schemaJSON = b
		}
		if _, err := jsonschema.Compile(c.schemaJSON, jsonschema.Options{}); err != nil {
			return badInput{err}
		}
	}
	return nil
}

func (c *constraintFlags) apply(o *runtime.GenerateOptions) {
	o.Grammar, o.JSONSchema, o.JSON = c.grammar, c.schemaJSON, c.json
}

// set reports whether an output constraint was given.
func (c *constraintFlags) set() bool { return c.grammar != "" || c.schemaJSON != nil || c.json }
