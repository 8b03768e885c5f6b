package server

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

func anthropicClient(ts *testServer) anthropic.Client {
	return anthropic.NewClient(option.WithBaseURL(ts.url), option.WithAPIKey("none"), option.WithMaxRetries(0),
		option.WithHTTPClient(http.DefaultClient)) // one transport: the tests close its idle connections
}

// greedyOpt sets temperature 0, a field this SDK version no longer has in its parameters.
var greedyOpt = option.WithJSONSet("temperature", 0)

func antText(m *anthropic.Message) (text, thinking string) {
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			text += b.Text
		case "thinking":
			thinking += b.Thinking
		}
	}
	return text, thinking
}

// TestAnthropicMessages drives /v1/messages with anthropic-sdk-go: greedy answers with a system message equal
// forma run --system's, streamed or whole; a second turn reads its prefix from the cache; stop sequences are
// reported; count_tokens counts the prompt.
func TestAnthropicMessages(t *testing.T) {
	ts := startServer(t, Config{Session: runtime0(256)}, stories)
	c := anthropicClient(ts)
	ctx := context.Background()
	const system = "Tell a story."
	want := referenceChat(t, stories, 256, 24, system, storyPrompt)
	params := anthropic.MessageNewParams{Model: stories, MaxTokens: 24, System: []anthropic.TextBlockParam{{Text: system}},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(storyPrompt))}}
	msg, err := c.Messages.New(ctx, params, greedyOpt)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := antText(msg); got != want || msg.StopReason != "max_tokens" || msg.Usage.OutputTokens != 24 {
		t.Errorf("answer %q (%s, %+v), forma run %q", got, msg.StopReason, msg.Usage, want)
	}
	first := msg.Usage.InputTokens + msg.Usage.CacheReadInputTokens

	stream := c.Messages.NewStreaming(ctx, params, greedyOpt)
	var acc anthropic.Message
	for stream.Next() {
		if err := acc.Accumulate(stream.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if got, _ := antText(&acc); got != want || acc.StopReason != "max_tokens" || acc.Usage.OutputTokens != 24 {
		t.Errorf("streamed answer %q (%s, %+v), want %q", got, acc.StopReason, acc.Usage, want)
	}

	turn2 := "Then what?"
	mp := params
	mp.Messages = append(mp.Messages, anthropic.NewAssistantMessage(anthropic.NewTextBlock(want)),
		anthropic.NewUserMessage(anthropic.NewTextBlock(turn2)))
	msg2, err := c.Messages.New(ctx, mp, greedyOpt)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := antText(msg2); got != referenceChat(t, stories, 256, 24, system, storyPrompt, turn2) {
		t.Errorf("second turn %q", got)
	}
	if msg2.Usage.CacheReadInputTokens < first {
		t.Errorf("second turn usage %+v: the first turn's %d tokens should be read from the cache", msg2.Usage, first)
	}

	stop := want[6:10]
	sp := params
	sp.StopSequences = []string{stop}
	msg3, err := c.Messages.New(ctx, sp, greedyOpt)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := antText(msg3); got != want[:strings.Index(want, stop)] || msg3.StopReason != "stop_sequence" || msg3.StopSequence != stop {
		t.Errorf("stop %q: %q, %s %q", stop, got, msg3.StopReason, msg3.StopSequence)
	}

	count, err := c.Messages.CountTokens(ctx, anthropic.MessageCountTokensParams{Model: stories,
		System:   anthropic.MessageCountTokensParamsSystemUnion{OfTextBlockArray: []anthropic.TextBlockParam{{Text: system}}},
		Messages: params.Messages})
	if err != nil || count.InputTokens != first {
		t.Errorf("count_tokens: %+v, %v; want %d", count, err, first)
	}
}

// TestThinking: a template that thinks gets its <think> block split off: a thinking block for Anthropic,
// reasoning_content for OpenAI, thinking for Ollama.
func TestThinking(t *testing.T) {
	ts := startServer(t, Config{Session: runtime0(512)}, qwenChat)
	c := anthropicClient(ts)
	ctx := context.Background()
	// The assistant's turn is prefilled with an open <think>: the answer starts inside the reasoning.
	params := anthropic.MessageNewParams{Model: qwenChat, MaxTokens: 8, Messages: []anthropic.MessageParam{
		anthropic.NewUserMessage(anthropic.NewTextBlock("Why is the sky blue?")),
		anthropic.NewAssistantMessage(anthropic.NewTextBlock("<think>\nLet me see."))}}
	msg, err := c.Messages.New(ctx, params, greedyOpt)
	if err != nil {
		t.Fatal(err)
	}
	text, thinking := antText(msg)
	if thinking == "" || msg.Content[0].Type != "thinking" {
		t.Errorf("no thinking block: %+v", msg.Content)
	}
	stream := c.Messages.NewStreaming(ctx, params, greedyOpt)
	var acc anthropic.Message
	for stream.Next() {
		acc.Accumulate(stream.Current())
	}
	if st, sth := antText(&acc); stream.Err() != nil || st != text || sth != thinking {
		t.Errorf("streamed %q/%q (%v), whole %q/%q", st, sth, stream.Err(), text, thinking)
	}
	code, _, body := post(t, ts.url+"/v1/chat/completions", `{"max_tokens":8,"temperature":0,"messages":[
		{"role":"user","content":"Why is the sky blue?"},{"role":"assistant","content":"<think>\nLet me see."}]}`)
	var r oaiChatResponse
	decodeJSON(t, body, &r)
	if code != 200 || deref(r.Choices[0].Message.ReasoningContent) != thinking {
		t.Errorf("chat completions: %d %s", code, body)
	}
}
