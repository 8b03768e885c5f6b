package server

import (
	"net/http"

	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/toolcall"
)

// respStream writes the Responses API's streaming events, numbered.
type respStream struct {
	sw   *streamWriter
	resp *respObject
	seq  int
}

func (rs *respStream) event(typ string, fields map[string]any) error {
	fields["type"] = typ
	fields["sequence_number"] = rs.seq
	rs.seq++
	return rs.sw.event(typ, fields)
}

func (rs *respStream) start(w http.ResponseWriter, r *http.Request) error {
	if rs.sw != nil {
		return nil
	}
	rs.sw = newSSE(w)
	streamStarted(r.Context())
	if err := rs.event("response.created", map[string]any{"response": rs.resp}); err != nil {
		return err
	}
	return rs.event("response.in_progress", map[string]any{"response": rs.resp})
}

// respItems builds a response's output items in the order the answer writes them — reasoning, a message, a
// function_call item per tool call — and, when emit is set (a stream), writes the events of each step:
// output_item.added, the deltas (output_text, reasoning_text, function_call_arguments), their .done events and
// output_item.done.
type respItems struct {
	out   []respOutput
	open  int         // 1 + the index in out of the item being written; 0: none
	calls map[int]int // a call's index → its item's index in out
	emit  func(typ string, fields map[string]any) error
}

func (b *respItems) send(typ string, fields map[string]any) error {
	if b.emit == nil {
		return nil
	}
	return b.emit(typ, fields)
}

// whole adds a whole answer's items: its reasoning, its text, its tool calls.
func (b *respItems) whole(c *choice) {
	b.text("reasoning", c.reasoning.String())
	b.text("message", c.content.String())
	for i, tc := range c.toolCalls() {
		b.callStart(toolcall.Delta{Kind: toolcall.CallStart, Index: i, ID: tc.ID, Name: tc.Name})
		b.callArgs(toolcall.Delta{Kind: toolcall.CallArgs, Index: i, Text: tc.Arguments})
	}
}

// token adds a streamed token's reasoning, text and call deltas.
func (b *respItems) token(tok runtime.Token) error {
	if err := b.text("reasoning", tok.Reasoning); err != nil {
		return err
	}
	if err := b.text("message", tok.Text); err != nil {
		return err
	}
	for _, d := range tok.Calls {
		var err error
		if d.Kind == toolcall.CallStart {
			err = b.callStart(d)
		} else if d.Kind == toolcall.CallArgs {
			err = b.callArgs(d)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// text adds reasoning or answer text to the item of that kind, opening one unless it is the item being written.
func (b *respItems) text(kind, s string) error {
	if s == "" {
		return nil
	}
	if b.open == 0 || b.out[b.open-1].Type != kind {
		it := respOutput{Type: kind, ID: newID("rs_"), Content: []respPart{{Type: "reasoning_text"}}}
		if kind == "message" {
			it = respOutput{Type: kind, ID: newID("msg_"), Status: "in_progress", Role: "assistant",
				Content: []respPart{{Type: "output_text", Annotations: []any{}}}}
		}
		if err := b.add(it); err != nil {
			return err
		}
	}
	i := b.open - 1
	it := &b.out[i]
	it.Content[0].Text += s
	if kind == "reasoning" {
		return b.send("response.reasoning_text.delta", map[string]any{"item_id": it.ID, "output_index": i,
			"content_index": 0, "delta": s})
	}
	return b.send("response.output_text.delta", map[string]any{"item_id": it.ID, "output_index": i,
		"content_index": 0, "delta": s, "logprobs": []any{}})
}

func (b *respItems) callStart(d toolcall.Delta) error {
	if b.calls == nil {
		b.calls = map[int]int{}
	}
	b.calls[d.Index] = len(b.out)
	return b.add(respOutput{Type: "function_call", ID: newID("fc_"), Status: "in_progress", CallID: d.ID,
		Name: d.Name, Arguments: ptr("")})
}

func (b *respItems) callArgs(d toolcall.Delta) error {
	i, ok := b.calls[d.Index]
	if !ok {
		return nil
	}
	it := &b.out[i]
	*it.Arguments += d.Text
	return b.send("response.function_call_arguments.delta", map[string]any{"item_id": it.ID, "output_index": i,
		"delta": d.Text})
}

// add closes the item being written and opens it.
func (b *respItems) add(it respOutput) error {
	if err := b.close(); err != nil {
		return err
	}
	b.out = append(b.out, it)
	b.open = len(b.out)
	skeleton := it
	skeleton.Content = nil
	if err := b.send("response.output_item.added", map[string]any{"output_index": b.open - 1, "item": skeleton}); err != nil {
		return err
	}
	if it.Type == "message" {
		return b.send("response.content_part.added", map[string]any{"item_id": it.ID, "output_index": b.open - 1,
			"content_index": 0, "part": respPart{Type: "output_text", Annotations: []any{}}})
	}
	return nil
}

// close ends the item being written.
func (b *respItems) close() error {
	if b.open == 0 {
		return nil
	}
	i := b.open - 1
	b.open = 0
	it := &b.out[i]
	if it.Status == "in_progress" {
		it.Status = "completed"
	}
	var err error
	switch it.Type {
	case "reasoning":
		err = b.send("response.reasoning_text.done", map[string]any{"item_id": it.ID, "output_index": i,
			"content_index": 0, "text": it.Content[0].Text})
	case "message":
		err = b.send("response.output_text.done", map[string]any{"item_id": it.ID, "output_index": i,
			"content_index": 0, "text": it.Content[0].Text, "logprobs": []any{}})
		if err == nil {
			err = b.send("response.content_part.done", map[string]any{"item_id": it.ID, "output_index": i,
				"content_index": 0, "part": it.Content[0]})
		}
	case "function_call":
		err = b.send("response.function_call_arguments.done", map[string]any{"item_id": it.ID, "output_index": i,
			"arguments": *it.Arguments})
	}
	if err != nil {
		return err
	}
	return b.send("response.output_item.done", map[string]any{"output_index": i, "item": *it})
}

// finish ends the output: an answer with neither text nor calls still has its (empty) message item; the last
// item of an answer cut by the token limit is incomplete.
func (b *respItems) finish(cut bool) {
	answered := false
	for _, it := range b.out {
		answered = answered || it.Type != "reasoning"
	}
	if !answered && b.add(respOutput{Type: "message", ID: newID("msg_"), Status: "in_progress", Role: "assistant",
		Content: []respPart{{Type: "output_text", Annotations: []any{}}}}) != nil {
		return
	}
	if cut && b.open > 0 && b.out[b.open-1].Type != "reasoning" {
		b.out[b.open-1].Status = "incomplete"
	}
	b.close()
}
