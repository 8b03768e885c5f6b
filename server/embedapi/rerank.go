package embedapi

import (
	"context"
	"encoding/json"

	"github.com/forma-llm/forma/runtime"
)

// RerankRequest is the body of llama-server's POST /v1/rerank (Jina's and Cohere's shape), or with Texts, of
// its TEI-style shape (any of its paths: /rerank, /reranking, /v1/rerank, /v1/reranking).
type RerankRequest struct {
	Model           string          `json:"model"`
	Query           *string         `json:"query"`
	Documents       json.RawMessage `json:"documents"` // an array of strings
	Texts           json.RawMessage `json:"texts"`     // TEI's name for them
	TopN            *int            `json:"top_n"`     // the most results (default: all)
	ReturnDocuments bool            `json:"return_documents"`
	ReturnText      bool            `json:"return_text"` // TEI's
}

// RerankResponse is the answer to /v1/rerank: the documents most relevant first.
type RerankResponse struct {
	Model   string         `json:"model"`
	Object  string         `json:"object"` // "list"
	Usage   OpenAIUsage    `json:"usage"`
	Results []RerankResult `json:"results"`
}

// RerankResult is one document's score (the reranker's raw output, as llama-server's relevance_score).
type RerankResult struct {
	Index          int             `json:"index"`
	RelevanceScore float32         `json:"relevance_score"`
	Document       *RerankDocument `json:"document,omitempty"`
}

// RerankDocument carries a document's text when the request asks for it.
type RerankDocument struct {
	Text string `json:"text"`
}

// TEIResult is one element of the TEI-style answer (a bare array).
type TEIResult struct {
	Index int     `json:"index"`
	Score float32 `json:"score"`
	Text  string  `json:"text,omitempty"`
}

// Rerank answers POST /v1/rerank with m: a *RerankResponse, or for a TEI-style request (texts), []TEIResult;
// it also returns the number of documents scored and the tokens evaluated.
func Rerank(ctx context.Context, m *runtime.Model, model string, req *RerankRequest) (any, int, int, error) {
	if req.Query == nil {
		return nil, 0, 0, badRequest("query", "\"query\" must be provided")
	}
	// As llama-server: "texts" makes the answer TEI's; "documents" are read first.
	tei := len(req.Texts) > 0 && string(req.Texts) != "null"
	field, raw := "documents", req.Documents
	if (len(raw) == 0 || string(raw) == "null") && tei {
		field, raw = "texts", req.Texts
	}
	in, err := parseInputs(field, raw, false, true)
	if err != nil {
		return nil, 0, 0, err
	}
	if kind(raw) != "an array" {
		return nil, 0, 0, badRequest(field, "%q must be an array of strings", field)
	}
	top := len(in)
	if req.TopN != nil {
		if *req.TopN < 0 {
			return nil, 0, 0, badRequest("top_n", "\"top_n\" = %d must not be negative", *req.TopN)
		}
		top = min(top, *req.TopN)
	}
	docs := make([]string, len(in))
	n := 0
	for i, it := range in {
		docs[i] = it.text
		ids, err := m.RerankTokens(*req.Query, it.text)
		if err != nil {
			return nil, 0, 0, err
		}
		n += len(ids)
	}
	scores, err := m.Rerank(ctx, *req.Query, docs)
	if err != nil {
		return nil, 0, 0, err
	}
	order := runtime.RankOrder(scores)[:top]
	if tei {
		out := make([]TEIResult, len(order))
		for i, k := range order {
			out[i] = TEIResult{Index: k, Score: scores[k]}
			if req.ReturnText {
				out[i].Text = docs[k]
			}
		}
		return out, len(docs), n, nil
	}
	res := &RerankResponse{Model: model, Object: "list", Usage: OpenAIUsage{PromptTokens: n, TotalTokens: n},
		Results: make([]RerankResult, len(order))}
	for i, k := range order {
		res.Results[i] = RerankResult{Index: k, RelevanceScore: scores[k]}
		if req.ReturnDocuments {
			res.Results[i].Document = &RerankDocument{Text: docs[k]}
		}
	}
	return res, len(docs), n, nil
}
