// Package server is forma's HTTP server: OpenAI's Chat Completions, Completions, Responses and Models APIs,
// Anthropic's Messages API, Ollama's /api/* and native endpoints (/health, /metrics, /tokenize, /detokenize,
// /apply-template), over models loaded with package runtime. cmd/forma's serve command only wires it.
//
// Requests flow one way: a handler decodes its API's body strictly (a malformed body, a wrong type or a value out
// of range is a 400 naming the field), turns it into a genRequest (prompt token ids and runtime.GenerateOptions:
// request.go, prompt.go), reads what it asks of the answer's form — tools and tool_choice, or a JSON format —
// into a shape (constraint.go: a schema the engine cannot enforce is a 400 naming the field and the keyword,
// never an unconstrained answer), and runs it through the engine adapter (engine.go), the only file that calls
// a Session. The adapter lends each model's sessions to at most Config.Parallel requests at once; more wait in
// a FIFO queue of Config.MaxQueue (a full queue is a 503 with Retry-After). An idle session whose cached tokens
// share the longest prefix with a new prompt is reused, so a conversation that continues evaluates only its new
// tokens (reported as cached tokens). The runtime splits each token's text into the answer, the reasoning of a
// template that thinks, and tool-call deltas (a call's start, then fragments of its arguments); gen.go
// accumulates them per choice and each API writes them in its own shape, streamed (SSE or NDJSON) or whole.
//
// Models are named by file stem. A name not loaded is resolved with Config.Resolve and loaded on demand; models
// loaded on demand are closed after Config.KeepAlive without requests (Ollama's keep_alive per request too).
//
// Every request gets an id (X-Request-Id) and one log/slog line when it ends. A request's context reaches the
// generation loop: a client that disconnects stops its sequence within one forward pass, prompt processing
// included. Run shuts down gracefully: it stops accepting, lets running requests finish within Config.Grace,
// then cancels them.
//
// The server holds no state a replica would need: prompt caches are local speed-ups only, so it scales out
// behind a load balancer (docs/deploy.md).
package server
