// Command chat is a minimal chat program on the forma library: go run ./examples/chat MODEL.gguf
//
// Type a message and press Enter; the answer streams back. Ctrl-C stops an answer, Ctrl-D exits.
package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/signal"

	"github.com/forma-llm/forma"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: chat MODEL.gguf")
		os.Exit(2)
	}
	m, err := forma.Load(os.Args[1], forma.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer m.Close()
	s, err := m.NewSession(forma.SessionOptions{ContextShift: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer s.Close()

	in := bufio.NewScanner(os.Stdin)
	for fmt.Print(">>> "); in.Scan(); fmt.Print(">>> ") {
		if in.Text() == "" {
			continue
		}
		// Ctrl-C cancels this answer only.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		for tok, err := range s.Chat(ctx, in.Text(), forma.GenerateOptions{}) {
			if err != nil {
				fmt.Print("\n[", err, "]")
				break
			}
			fmt.Print(tok.Text)
		}
		stop()
		fmt.Println()
	}
	fmt.Println()
}
