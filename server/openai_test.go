package server

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

func openaiClient(ts *testServer) openai.Client {
	return openai.NewClient(option.WithBaseURL(ts.url+"/v1/"), option.WithAPIKey("none"), option.WithMaxRetries(0),
		option.WithHTTPClient(http.DefaultClient)) // one transport: the tests close its idle connections
}

const storyPrompt = "Once upon a time"

// TestOpenAIChat drives /v1/chat/completions with openai-go: greedy answers (whole and streamed) equal forma
// run's, a conversation that goes on reuses the cache, stop strings, seeds, logprobs and n.
func TestOpenAIChat(t *testing.T) {
	ts := startServer(t, Config{Session: runtime0(128)}, stories)
	c := openaiClient(ts)
	ctx := context.Background()
	want := reference(t, stories, 128, storyPrompt, false, 24)
	params := openai.ChatCompletionNewParams{Model: stories, Temperature: openai.Float(0), MaxTokens: openai.Int(24),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(storyPrompt)}}
	resp, err := c.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Choices[0].Message.Content; got != want {
		t.Errorf("greedy answer %q, forma run %q", got, want)
	}
	if resp.Choices[0].FinishReason != "length" || resp.Usage.CompletionTokens != 24 || resp.Model != stories {
		t.Errorf("finish %q, usage %+v, model %q", resp.Choices[0].FinishReason, resp.Usage, resp.Model)
	}

	// Streamed, with usage: the accumulated message is the same text.
	sp := params
	sp.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	stream := c.Chat.Completions.NewStreaming(ctx, sp)
	var acc openai.ChatCompletionAccumulator
	chunks := 0
	for stream.Next() {
		acc.AddChunk(stream.Current())
		chunks++
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if got := acc.Choices[0].Message.Content; got != want || chunks < 10 {
		t.Errorf("streamed answer %q in %d chunks, want %q", got, chunks, want)
	}
	if acc.Usage.CompletionTokens != 24 || acc.Usage.PromptTokensDetails.CachedTokens == 0 {
		t.Errorf("streamed usage %+v: want 24 tokens and the cached prompt of the first request", acc.Usage)
	}

	// A second turn evaluates only its new tokens and answers as forma run's conversation does.
	turn2 := "What did she find?"
	mp := params
	mp.Messages = []openai.ChatCompletionMessageParamUnion{openai.UserMessage(storyPrompt), openai.AssistantMessage(want), openai.UserMessage(turn2)}
	resp2, err := c.Chat.Completions.New(ctx, mp)
	if err != nil {
		t.Fatal(err)
	}
	if got, w := resp2.Choices[0].Message.Content, referenceTurns(t, stories, 128, 24, storyPrompt, turn2); got != w {
		t.Errorf("second turn %q, forma run %q", got, w)
	}
	if u := resp2.Usage; u.PromptTokensDetails.CachedTokens < resp.Usage.PromptTokens {
		t.Errorf("second turn usage %+v: the first turn's %d prompt tokens should be cached", u, resp.Usage.PromptTokens)
	}

	// Stop strings: the answer ends before the first match.
	stop := want[5:9]
	pp := params
	pp.Stop = openai.ChatCompletionNewParamsStopUnion{OfStringArray: []string{"zzz", stop}}
	resp3, err := c.Chat.Completions.New(ctx, pp)
	if err != nil {
		t.Fatal(err)
	}
	if got := resp3.Choices[0].Message.Content; got != want[:strings.Index(want, stop)] || resp3.Choices[0].FinishReason != "stop" {
		t.Errorf("with stop %q: %q (%s)", stop, got, resp3.Choices[0].FinishReason)
	}

	// Seeds: one seed gives one answer; another seed another.
	seeded := func(seed int64) string {
		p := params
		p.Temperature, p.Seed, p.MaxTokens = openai.Float(1), openai.Int(seed), openai.Int(32)
		r, err := c.Chat.Completions.New(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		return r.Choices[0].Message.Content
	}
	if a, b, d := seeded(42), seeded(42), seeded(43); a != b || a == d {
		t.Errorf("seed 42: %q and %q; seed 43: %q", a, b, d)
	}

	// Logprobs: one entry per token, each token the most likely of its top list (greedy).
	lp := params
	lp.Logprobs, lp.TopLogprobs = openai.Bool(true), openai.Int(3)
	resp4, err := c.Chat.Completions.New(ctx, lp)
	if err != nil {
		t.Fatal(err)
	}
	content := resp4.Choices[0].Logprobs.Content
	joined := ""
	for _, e := range content {
		joined += e.Token
		if len(e.TopLogprobs) != 3 || e.TopLogprobs[0].Token != e.Token || e.TopLogprobs[0].Logprob != e.Logprob || e.Logprob > 0 {
			t.Errorf("logprob entry %+v", e)
		}
	}
	if len(content) != 24 || joined != want {
		t.Errorf("%d logprob entries spelling %q, want 24 spelling %q", len(content), joined, want)
	}

	// n = 2 seeded choices: two sequences, each repeatable.
	np := params
	np.N, np.Temperature, np.Seed = openai.Int(2), openai.Float(1), openai.Int(7)
	r1, err := c.Chat.Completions.New(ctx, np)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := c.Chat.Completions.New(ctx, np)
	if err != nil {
		t.Fatal(err)
	}
	if len(r1.Choices) != 2 || r1.Choices[0].Message.Content != r2.Choices[0].Message.Content ||
		r1.Choices[1].Message.Content != r2.Choices[1].Message.Content || r1.Choices[0].Message.Content == r1.Choices[1].Message.Content {
		t.Errorf("n=2 answers %+v and %+v", r1.Choices, r2.Choices)
	}
}

// TestOpenAICompletions drives /v1/completions: a raw completion equals forma run --raw's, streamed or not.
func TestOpenAICompletions(t *testing.T) {
	ts := startServer(t, Config{Session: runtime0(128)}, stories)
	c := openaiClient(ts)
	ctx := context.Background()
	want := reference(t, stories, 128, storyPrompt, true, 20)
	params := openai.CompletionNewParams{Model: openai.CompletionNewParamsModel(stories), Temperature: openai.Float(0),
		MaxTokens: openai.Int(20), Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String(storyPrompt)}}
	resp, err := c.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Choices[0].Text; got != want {
		t.Errorf("completion %q, forma run --raw %q", got, want)
	}
	stream := c.Completions.NewStreaming(ctx, params)
	got := ""
	for stream.Next() {
		for _, ch := range stream.Current().Choices {
			got += ch.Text
		}
	}
	if err := stream.Err(); err != nil || got != want {
		t.Errorf("streamed completion %q (%v), want %q", got, err, want)
	}
	ep := params
	ep.Echo, ep.Logprobs = openai.Bool(true), openai.Int(2)
	resp, err = c.Completions.New(ctx, ep)
	if err != nil {
		t.Fatal(err)
	}
	if ch := resp.Choices[0]; ch.Text != storyPrompt+want || len(ch.Logprobs.Tokens) != 20 || len(ch.Logprobs.TopLogprobs[0]) != 2 {
		t.Errorf("echo with logprobs: %q, %+v", ch.Text, ch.Logprobs)
	}
}

// TestOpenAIResponses drives the stateless /v1/responses with openai-go, whole and streamed.
func TestOpenAIResponses(t *testing.T) {
	ts := startServer(t, Config{Session: runtime0(128)}, stories)
	c := openaiClient(ts)
	ctx := context.Background()
	want := reference(t, stories, 128, storyPrompt, false, 24)
	params := responses.ResponseNewParams{Model: stories, Temperature: openai.Float(0), MaxOutputTokens: openai.Int(24),
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(storyPrompt)}}
	resp, err := c.Responses.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.OutputText(); got != want || resp.Status != "incomplete" || resp.Usage.OutputTokens != 24 {
		t.Errorf("response %q (%s, %+v), want %q", got, resp.Status, resp.Usage, want)
	}
	stream := c.Responses.NewStreaming(ctx, params)
	got, completed := "", false
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "response.output_text.delta":
			got += ev.Delta
		case "response.incomplete", "response.completed":
			completed = ev.Response.OutputText() == want
		}
	}
	if err := stream.Err(); err != nil || got != want || !completed {
		t.Errorf("streamed response %q (%v, final event matches: %v), want %q", got, err, completed, want)
	}
	list, err := c.Models.List(ctx)
	if err != nil || len(list.Data) != 1 || list.Data[0].ID != stories {
		t.Errorf("models: %+v, %v", list, err)
	}
}
