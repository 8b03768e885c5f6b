package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/forma-llm/forma/runtime"
)

// oaiCompletionRequest is OpenAI's legacy Completions request.
type oaiCompletionRequest struct {
	Model         string             `json:"model"`
	Prompt        oaiPrompt          `json:"prompt"`
	Stream        bool               `json:"stream"`
	StreamOptions *oaiStreamOptions  `json:"stream_options"`
	MaxTokens     *int               `json:"max_tokens"`
	Stop          stringList         `json:"stop"`
	N             *int               `json:"n"`
	Logprobs      *int               `json:"logprobs"`
	LogitBias     map[string]float64 `json:"logit_bias"`
	Echo          bool               `json:"echo"`
	BestOf        *int               `json:"best_of"`
	Suffix        *string            `json:"suffix"`
	User          string             `json:"user"`
	CachePrompt   *bool              `json:"cache_prompt"`
	oaiSampling
}

// oaiPrompt is a completion prompt: a string, or one token array, or an array holding one of either.
type oaiPrompt struct {
	text string
	ids  []int32
	set  bool
}

func (p *oaiPrompt) UnmarshalJSON(b []byte) error {
	p.set = true
	switch jsonKind(b) {
	case "string":
		return json.Unmarshal(b, &p.text)
	case "array":
		var items []json.RawMessage
		if err := json.Unmarshal(b, &items); err != nil {
			return err
		}
		if len(items) == 0 {
			return badRequest("prompt", "the prompt is empty")
		}
		if jsonKind(items[0]) == "number" {
			if err := json.Unmarshal(b, &p.ids); err != nil {
				return typeError(b, []int32{})
			}
			return nil
		}
		if len(items) > 1 {
			return badRequest("prompt", "%d prompts in one request are not supported: send one request per prompt", len(items))
		}
		return p.UnmarshalJSON(items[0])
	}
	return typeError(b, "")
}

// logprobsDefault is OpenAI's default max_tokens of a completion.
const completionMaxTokens = 16

// oaiCompletions is POST /v1/completions: a plain completion of the prompt (no chat template).
func (s *Server) oaiCompletions(w http.ResponseWriter, r *http.Request) error {
	var q oaiCompletionRequest
	if err := decode(r, &q); err != nil {
		return err
	}
	if !q.Prompt.set {
		return badRequest("prompt", "required")
	}
	if q.Suffix != nil && *q.Suffix != "" {
		return notSupported("suffix")
	}
	if q.BestOf != nil && *q.BestOf != 1 {
		return notSupported("best_of")
	}
	if q.Logprobs != nil && (*q.Logprobs < 0 || *q.Logprobs > 5) {
		return badRequest("logprobs", "%d is out of range [0, 5]", *q.Logprobs)
	}
	if q.MaxTokens == nil {
		q.MaxTokens = ptr(completionMaxTokens)
	}
	e, err := s.acquireModel(r, q.Model)
	if err != nil {
		return err
	}
	defer s.reg.release(e, nil)
	lp := q.Logprobs != nil
	req, err := oaiGenRequest(e, q.oaiSampling, q.MaxTokens, "max_tokens", q.Stop, q.N, q.LogitBias, lp, q.Logprobs)
	if err != nil {
		return err
	}
	req.opt.RawReply = true // the text as the model writes it: no reasoning split off
	var p prompt
	if q.Prompt.ids != nil {
		vocab := e.m.HParams().Vocab
		for _, id := range q.Prompt.ids {
			if id < 0 || int(id) >= vocab {
				return badRequest("prompt", "token id %d is outside the vocabulary of %d", id, vocab)
			}
		}
		p = prompt{ids: q.Prompt.ids, text: e.m.Tokenizer.Detokenize(q.Prompt.ids, detokenizeOpts)}
	} else if p, err = textPrompt(e, q.Prompt.text); err != nil {
		return err
	}
	resp := oaiCompletionResponse{ID: newID("cmpl-"), Object: "text_completion", Created: time.Now().Unix(),
		Model: e.name, SystemFingerprint: fingerprint}
	echo := ""
	if q.Echo {
		echo = p.text
	}
	if !q.Stream {
		choices, err := s.generate(r.Context(), e, p, req, nil)
		if err != nil {
			return err
		}
		for i, c := range choices {
			ch := oaiCompletionChoice{Index: i, Text: echo + c.content.String(), FinishReason: ptr(finishReason(c))}
			if lp {
				ch.Logprobs = completionLogprobs(e, c.logprobs, len(echo))
			}
			resp.Choices = append(resp.Choices, ch)
		}
		resp.Usage = oaiUsageOf(usageOf(choices))
		writeJSON(w, http.StatusOK, resp)
		return nil
	}
	var sw *streamWriter
	var one [1]tokenLogprob
	offsets := make([]int, max(req.n, 1))
	started := func() error {
		if sw == nil {
			sw = newSSE(w)
			streamStarted(r.Context())
			if echo != "" {
				for i := range offsets {
					c := resp
					c.Choices = []oaiCompletionChoice{{Index: i, Text: echo}}
					if err := sw.event("", c); err != nil {
						return err
					}
					offsets[i] = len(echo)
				}
			}
		}
		return nil
	}
	choices, err := s.generate(r.Context(), e, p, req, func(i int, _ *choice, tok runtime.Token) error {
		if err := started(); err != nil {
			return err
		}
		text := tok.Text
		ch := oaiCompletionChoice{Index: i, Text: text}
		if lp && tok.ID >= 0 {
			one[0] = tokenLogprob{tok.ID, tok.Logprob, tok.Top}
			ch.Logprobs = completionLogprobs(e, one[:], offsets[i])
		} else if text == "" {
			return nil
		}
		offsets[i] += len(text)
		c := resp
		c.Choices = []oaiCompletionChoice{ch}
		return sw.event("", c)
	})
	if sw == nil {
		if err != nil {
			return err
		}
		if started() != nil {
			return nil
		}
	}
	if msg := streamError(r.Context(), choices, err); msg != "" {
		sw.event("", errorBody(kindOpenAI, asAPIError(fmt.Errorf("%s", msg))))
		return nil
	}
	if r.Context().Err() != nil {
		return nil
	}
	for i, c := range choices {
		ch := resp
		ch.Choices = []oaiCompletionChoice{{Index: i, FinishReason: ptr(finishReason(c))}}
		if sw.event("", ch) != nil {
			return nil
		}
	}
	if q.StreamOptions != nil && q.StreamOptions.IncludeUsage {
		ch := resp
		ch.Choices = []oaiCompletionChoice{}
		ch.Usage = oaiUsageOf(usageOf(choices))
		if sw.event("", ch) != nil {
			return nil
		}
	}
	sw.done()
	return nil
}

type oaiCompletionResponse struct {
	ID                string                `json:"id"`
	Object            string                `json:"object"`
	Created           int64                 `json:"created"`
	Model             string                `json:"model"`
	SystemFingerprint string                `json:"system_fingerprint"`
	Choices           []oaiCompletionChoice `json:"choices"`
	Usage             *oaiUsage             `json:"usage,omitempty"`
}

type oaiCompletionChoice struct {
	Index        int                    `json:"index"`
	Text         string                 `json:"text"`
	Logprobs     *oaiCompletionLogprobs `json:"logprobs"`
	FinishReason *string                `json:"finish_reason"`
}

// oaiCompletionLogprobs is the legacy logprobs shape: parallel arrays.
type oaiCompletionLogprobs struct {
	Tokens        []string             `json:"tokens"`
	TokenLogprobs []float32            `json:"token_logprobs"`
	TopLogprobs   []map[string]float32 `json:"top_logprobs"`
	TextOffset    []int                `json:"text_offset"`
}

func completionLogprobs(e *modelEntry, lps []tokenLogprob, offset int) *oaiCompletionLogprobs {
	out := &oaiCompletionLogprobs{Tokens: []string{}, TokenLogprobs: []float32{}, TopLogprobs: []map[string]float32{}, TextOffset: []int{}}
	for _, lp := range lps {
		p := string(piece(e, lp.id))
		out.Tokens = append(out.Tokens, p)
		out.TokenLogprobs = append(out.TokenLogprobs, lp.logprob)
		top := map[string]float32{}
		for _, t := range lp.top {
			top[string(piece(e, t.ID))] = t.Logprob
		}
		out.TopLogprobs = append(out.TopLogprobs, top)
		out.TextOffset = append(out.TextOffset, offset)
		offset += len(p)
	}
	return out
}
