package server

import (
	"encoding/json"
	"net/http"

	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/toolcall"
)

// antStream writes the Messages API's streaming events.
type antStream struct {
	sw           *streamWriter
	resp         antResponse
	promptTokens int
	open         string // the block being written: "", "thinking", "text" or "tool_use"
	call         int    // for a tool_use block: the call's index
	index        int    // the block's index
	blocks       int
}

func (as *antStream) start(w http.ResponseWriter, r *http.Request) error {
	if as.sw != nil {
		return nil
	}
	as.sw = newSSE(w)
	streamStarted(r.Context())
	m := as.resp
	m.Usage = antUsage{InputTokens: as.promptTokens}
	if err := as.sw.event("message_start", map[string]any{"type": "message_start", "message": m}); err != nil {
		return err
	}
	return as.sw.event("ping", map[string]any{"type": "ping"})
}

// openBlock starts a block (closing the one open) unless it is the one open; a tool_use block is opened by each
// call's start.
func (as *antStream) openBlock(block antOutBlock) error {
	if as.open == block.Type && block.Type != "tool_use" {
		return nil
	}
	if err := as.closeBlock(); err != nil {
		return err
	}
	as.open, as.index = block.Type, as.blocks
	as.blocks++
	return as.sw.event("content_block_start", map[string]any{"type": "content_block_start", "index": as.index, "content_block": block})
}

func (as *antStream) closeBlock() error {
	if as.open == "" {
		return nil
	}
	if as.open == "thinking" {
		if err := as.sw.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": as.index,
			"delta": map[string]any{"type": "signature_delta", "signature": ""}}); err != nil {
			return err
		}
	}
	as.open = ""
	return as.sw.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": as.index})
}

func (as *antStream) delta(delta map[string]any) error {
	return as.sw.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": as.index, "delta": delta})
}

// token writes a token's reasoning, text and call deltas. A call's arguments stream as input_json_delta events
// of its tool_use block (the runtime finishes a call before it starts the next).
func (as *antStream) token(tok runtime.Token) error {
	if tok.Reasoning != "" {
		if err := as.openBlock(antOutBlock{Type: "thinking", Thinking: ptr(""), Signature: ptr("")}); err != nil {
			return err
		}
		if err := as.delta(map[string]any{"type": "thinking_delta", "thinking": tok.Reasoning}); err != nil {
			return err
		}
	}
	if tok.Text != "" {
		if err := as.openBlock(antOutBlock{Type: "text", Text: ptr("")}); err != nil {
			return err
		}
		if err := as.delta(map[string]any{"type": "text_delta", "text": tok.Text}); err != nil {
			return err
		}
	}
	for _, d := range tok.Calls {
		switch {
		case d.Kind == toolcall.CallStart:
			if err := as.openBlock(antOutBlock{Type: "tool_use", ID: d.ID, Name: d.Name, Input: json.RawMessage("{}")}); err != nil {
				return err
			}
			as.call = d.Index
		case d.Kind == toolcall.CallArgs && as.open == "tool_use" && as.call == d.Index:
			if err := as.delta(map[string]any{"type": "input_json_delta", "partial_json": d.Text}); err != nil {
				return err
			}
		}
	}
	return nil
}

func (as *antStream) finish(c *choice) {
	if as.blocks == 0 && as.openBlock(antOutBlock{Type: "text", Text: ptr("")}) != nil {
		return
	}
	if as.closeBlock() != nil {
		return
	}
	reason, seq := antStop(c)
	u := antUsageOf(usageOf([]*choice{c}))
	if as.sw.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": reason, "stop_sequence": seq}, "usage": u}) != nil {
		return
	}
	as.sw.event("message_stop", map[string]any{"type": "message_stop"})
}
