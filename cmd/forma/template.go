package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/forma-llm/forma/internal/bundle"
	"github.com/forma-llm/forma/runtime/chat"
)

func init() {
	register(command{name: "template", summary: "render a conversation with the model's chat template", run: runTemplate})
}

func runTemplate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("template", "-m MODEL [--chat-template FILE|NAME] CONVERSATION.json|-", stderr)
	model := fs.String("m", "", "model `file` (GGUF) or name")
	override := fs.String("chat-template", "", "Jinja template `file`, or a built-in name ("+builtinList()+")")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *model == "" || len(pos) != 1 {
		fs.Usage()
		return errUsage
	}
	var in io.Reader = os.Stdin
	if pos[0] != "-" {
		f, err := os.Open(pos[0])
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	conv, err := chat.ParseConversation(in)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	src, err := templateOverride(*override)
	if err != nil {
		return err
	}
	path, err := resolveModel(*model)
	if err != nil {
		return err
	}
	f, err := bundle.OpenModel(path)
	if err != nil {
		return err
	}
	defer f.Close()
	tmpl, err := chat.Load(f, src)
	if err != nil {
		return err
	}
	out, err := tmpl.Render(conv)
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, out)
	return err
}

// templateOverride resolves --chat-template: a readable file gives its contents, otherwise the value must be a
// built-in name.
func templateOverride(v string) (string, error) {
	if v == "" {
		return "", nil
	}
	if b, err := os.ReadFile(v); err == nil {
		return string(b), nil
	}
	for _, n := range chat.BuiltinNames() {
		if n == v {
			return v, nil
		}
	}
	return "", fmt.Errorf("--chat-template %q is neither a readable file nor a built-in template (%s)", v, builtinList())
}

func builtinList() string {
	names := chat.BuiltinNames()
	sort.Strings(names)
	return strings.Join(names, ", ")
}
