package toolcall

// The call syntax of each family. Each parser starts at its trigger's first byte.

// hermesCall: <tool_call>\n{"name": "f", "arguments": {…}}\n</tool_call>
func hermesCall(c *cursor) ([]rawCall, error) {
	return one(func(c *cursor, call *rawCall) error {
		if err := c.lit("<tool_call>"); err != nil {
			return err
		}
		if err := c.callObject(call, hermesKeys); err != nil {
			return err
		}
		c.space()
		return c.lit("</tool_call>")
	})(c)
}

// functionTagCall: <function=f>{…}</function> (Hermes and Functionary 3.1 models write it too).
func functionTagCall(c *cursor) ([]rawCall, error) {
	return one(func(c *cursor, call *rawCall) error {
		if err := c.lit("<function="); err != nil {
			return err
		}
		if _, err := c.name(call, ">"); err != nil {
			return err
		}
		c.i++
		if err := c.args(call); err != nil {
			return err
		}
		c.space()
		return c.lit("</function>")
	})(c)
}

var llamaKeys = callKeys{name: "name", args: []string{"parameters", "arguments"}}

// llamaJSONCalls: {"name": "f", "parameters": {…}} at the start of the answer (optionally with "type":
// "function" first), several separated by ';' or whitespace.
func llamaJSONCalls(c *cursor) ([]rawCall, error) {
	var calls []rawCall
	for {
		c.space()
		start := c.i
		if err := c.lit("{"); err != nil {
			return calls, err
		}
		c.space()
		key, err := c.str(nil)
		if err != nil {
			return calls, err
		}
		if k := string(key); k != "name" && k != "type" {
			return calls, &syntaxError{start, `a call: {"name": …}`}
		}
		c.i = start
		calls = append(calls, rawCall{})
		if err := c.callObject(&calls[len(calls)-1], llamaKeys); err != nil {
			return calls, err
		}
		save := c.i
		c.space()
		if c.i >= len(c.b) {
			if c.final {
				c.i = save
				return calls, nil
			}
			return calls, errMore
		}
		switch c.b[c.i] {
		case ';':
			c.i++
		case '{':
		default:
			c.i = save
			return calls, nil
		}
	}
}

// pythonTagCall: <|python_tag|> then a JSON call, or a built-in tool call: brave_search.call(query="…").
func pythonTagCall(c *cursor) ([]rawCall, error) {
	return one(func(c *cursor, call *rawCall) error {
		if err := c.lit("<|python_tag|>"); err != nil {
			return err
		}
		c.space()
		if c.i >= len(c.b) {
			return errMore
		}
		if c.b[c.i] == '{' {
			return c.callObject(call, llamaKeys)
		}
		if _, err := c.name(call, ".call("); err != nil {
			return err
		}
		c.i += len(".call(")
		return c.kwargs(call)
	})(c)
}

// kwargs reads k=JSON, … ) into a JSON object.
func (c *cursor) kwargs(call *rawCall) error {
	out := append(call.args[:0], '{')
	defer func() { call.args = out }()
	for first := true; ; first = false {
		c.space()
		if c.i >= len(c.b) {
			return errMore
		}
		if c.b[c.i] == ')' {
			c.i++
			out = append(out, '}')
			call.argsDone = true
			return nil
		}
		if !first {
			if err := c.lit(","); err != nil {
				return err
			}
			out = append(out, ',')
			c.space()
		}
		start := c.i
		for c.i < len(c.b) && (isWord(c.b[c.i])) {
			c.i++
		}
		if c.i >= len(c.b) {
			return errMore
		}
		if c.i == start {
			return c.fail("an argument name")
		}
		out = appendJSONText(append(out, '"'), c.b[start:c.i])
		out = append(out, '"', ':')
		c.space()
		if err := c.lit("="); err != nil {
			return err
		}
		c.space()
		vs := c.i
		err := c.value()
		b := c.b[vs:c.i]
		if err == errMore {
			b = c.b[vs:]
			b = b[:completeUTF8(b)]
		}
		out = append(out, b...)
		if err != nil {
			return err
		}
	}
}

func isWord(ch byte) bool {
	return ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9'
}

var mistralKeys = callKeys{name: "name", args: []string{"arguments"}, id: "id"}

// mistralCalls: [TOOL_CALLS][{"name": "f", "arguments": {…}, "id": "abcdef123"}, …]
func mistralCalls(c *cursor) ([]rawCall, error) {
	if err := c.lit("[TOOL_CALLS]"); err != nil {
		return nil, err
	}
	return c.callArray(mistralKeys)
}

// mistralArgsCall: [TOOL_CALLS]f[ARGS]{…}, or [TOOL_CALLS]f[CALL_ID]abcdef123[ARGS]{…}
func mistralArgsCall(c *cursor) ([]rawCall, error) {
	return one(func(c *cursor, call *rawCall) error {
		if err := c.lit("[TOOL_CALLS]"); err != nil {
			return err
		}
		d, err := c.name(call, "[ARGS]", "[CALL_ID]")
		if err != nil {
			return err
		}
		if d == 1 {
			c.i += len("[CALL_ID]")
			if call.id, _, err = c.until("[ARGS]"); err != nil {
				return err
			}
		}
		c.i += len("[ARGS]")
		return c.args(call)
	})(c)
}

// functoolsCalls: functools[{"name": "f", "arguments": {…}}, …]
func functoolsCalls(c *cursor) ([]rawCall, error) {
	if err := c.lit("functools"); err != nil {
		return nil, err
	}
	return c.callArray(hermesKeys)
}

// phiTagCall: <|tool_call|>{"name": "f", "arguments": {…}}<|/tool_call|>
func phiTagCall(c *cursor) ([]rawCall, error) {
	return one(func(c *cursor, call *rawCall) error {
		if err := c.lit("<|tool_call|>"); err != nil {
			return err
		}
		if err := c.callObject(call, hermesKeys); err != nil {
			return err
		}
		c.space()
		return c.lit("<|/tool_call|>")
	})(c)
}

// gemmaCall: <|tool_call>call:f{key:<|"|>text<|"|>}<tool_call|>
func gemmaCall(c *cursor) ([]rawCall, error) {
	return one(func(c *cursor, call *rawCall) error {
		if err := c.lit("<|tool_call>"); err != nil {
			return err
		}
		if err := c.lit("call:"); err != nil {
			return err
		}
		if _, err := c.name(call, "{"); err != nil {
			return err
		}
		if err := c.gemmaArgs(call); err != nil {
			return err
		}
		return c.lit("<tool_call|>")
	})(c)
}

// DeepSeek R1's markers.
const (
	dsCallsBegin = "<｜tool▁calls▁begin｜>"
	dsCallBegin  = "<｜tool▁call▁begin｜>"
	dsSep        = "<｜tool▁sep｜>"
	dsCallEnd    = "<｜tool▁call▁end｜>"
	dsCallsEnd   = "<｜tool▁calls▁end｜>"
)

// deepseekCalls: <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{…}\n```<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>
func deepseekCalls(c *cursor) ([]rawCall, error) {
	if err := c.lit(dsCallsBegin); err != nil {
		return nil, err
	}
	var calls []rawCall
	for {
		c.space()
		if done, err := c.optLit(dsCallsEnd); err != nil || done {
			return calls, err
		}
		if _, err := c.optLit(dsCallBegin); err != nil {
			return calls, err
		}
		calls = append(calls, rawCall{})
		call := &calls[len(calls)-1]
		if err := c.lit("function" + dsSep); err != nil {
			return calls, err
		}
		if _, err := c.name(call, "\n"); err != nil {
			return calls, err
		}
		if err := c.lit("\n```json\n"); err != nil {
			return calls, err
		}
		if err := c.args(call); err != nil {
			return calls, err
		}
		c.space()
		if err := c.lit("```"); err != nil {
			return calls, err
		}
		c.space()
		if err := c.lit(dsCallEnd); err != nil {
			return calls, err
		}
	}
}
