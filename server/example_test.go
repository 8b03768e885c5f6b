package server_test

import (
	"context"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/forma-llm/forma/server"
)

// A server for one model, as forma serve starts it: 8 sequences at once, a queue of 32, an API key, and a
// graceful shutdown on SIGINT or SIGTERM.
func Example() {
	s := server.New(server.Config{
		Models:   []string{"models/qwen3-0.6b-Q8_0.gguf"},
		Parallel: 8,
		MaxQueue: 32,
		APIKeys:  []string{os.Getenv("FORMA_API_KEY")},
		Grace:    time.Minute,
	})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := s.ListenAndServe(ctx, "127.0.0.1:8080"); err != nil {
		log.Fatal(err)
	}
}
