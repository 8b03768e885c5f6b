package toolcall

// rawCall is a call as far as its text has been read.
type rawCall struct {
	id, name  string
	nameDone  bool   // the name is whole (a call is announced only then)
	args      []byte // the arguments JSON read so far
	argsDone  bool
	argsIsStr bool // the arguments came as a JSON string holding JSON
}

// callParser reads the calls of one block of call syntax, from its trigger on. It returns the calls read so far
// (the last possibly incomplete) and nil when the block has ended at c.i, errMore when the text ends inside it,
// or a syntaxError.
type callParser func(c *cursor) ([]rawCall, error)

// args reads a JSON value as a call's arguments: raw text, or the decoded text of a JSON string (some models
// write the OpenAI wire form, a string holding JSON). With the text cut inside the value, call.args holds what
// is certain so far.
func (c *cursor) args(call *rawCall) error {
	c.space()
	if c.i >= len(c.b) {
		return errMore
	}
	if c.b[c.i] == '"' {
		call.argsIsStr = true
		var err error
		call.args, err = c.str(call.args[:0])
		if err == nil {
			call.argsDone = true
		}
		return err
	}
	start := c.i
	err := c.value()
	switch err {
	case nil:
		call.args = append(call.args[:0], c.b[start:c.i]...)
		call.argsDone = true
	case errMore:
		b := c.b[start:]
		call.args = append(call.args[:0], b[:completeUTF8(b)]...)
	}
	return err
}

// object keys of a JSON call object.
type callKeys struct {
	name string
	args []string // accepted keys of the arguments (the first is the family's own)
	id   string   // "" when the family has no id
}

// callObject reads {"name": …, "arguments": …} (keys in any order, other keys skipped).
func (c *cursor) callObject(call *rawCall, k callKeys) error {
	c.space()
	if err := c.lit("{"); err != nil {
		return err
	}
	sawArgs := false
	for first := true; ; first = false {
		c.space()
		if c.i >= len(c.b) {
			return errMore
		}
		if c.b[c.i] == '}' && first {
			return c.fail("a call's name")
		}
		key, err := c.str(nil)
		if err != nil {
			return err
		}
		c.space()
		if err := c.lit(":"); err != nil {
			return err
		}
		c.space()
		switch ks := string(key); {
		case ks == k.name:
			at := c.i
			name, err := c.str(nil)
			if err != nil {
				return err
			}
			if len(name) == 0 {
				return &syntaxError{at, "a function name"}
			}
			call.name, call.nameDone = string(name), true
		case ks == k.id && k.id != "":
			id, err := c.str(nil)
			if err != nil {
				return err
			}
			call.id = string(id)
		case contains(k.args, ks):
			if err := c.args(call); err != nil {
				return err
			}
			sawArgs = true
		default:
			if err := c.value(); err != nil {
				return err
			}
		}
		c.space()
		if c.i >= len(c.b) {
			return errMore
		}
		if c.b[c.i] == ',' {
			c.i++
			continue
		}
		if c.b[c.i] != '}' {
			return c.fail("',' or '}'")
		}
		c.i++
		if !call.nameDone {
			return &syntaxError{c.i - 1, "a call's name"}
		}
		if !sawArgs {
			call.args, call.argsDone = []byte("{}"), true
		}
		return nil
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// callArray reads a JSON array of call objects.
func (c *cursor) callArray(k callKeys) ([]rawCall, error) {
	c.space()
	if err := c.lit("["); err != nil {
		return nil, err
	}
	var calls []rawCall
	for {
		calls = append(calls, rawCall{})
		if err := c.callObject(&calls[len(calls)-1], k); err != nil {
			return calls, err
		}
		c.space()
		if c.i >= len(c.b) {
			return calls, errMore
		}
		switch c.b[c.i] {
		case ',':
			c.i++
		case ']':
			c.i++
			return calls, nil
		default:
			return calls, c.fail("',' or ']'")
		}
	}
}

// one wraps a parser of a single call.
func one(f func(c *cursor, call *rawCall) error) callParser {
	return func(c *cursor) ([]rawCall, error) {
		calls := []rawCall{{}}
		err := f(c, &calls[0])
		return calls, err
	}
}

// name reads a call's name up to one of the delimiters; the name is whole once a delimiter is seen.
func (c *cursor) name(call *rawCall, delims ...string) (int, error) {
	n, d, err := c.until(delims...)
	if err != nil {
		return -1, err
	}
	if n == "" {
		return -1, &syntaxError{c.i, "a function name"}
	}
	call.name, call.nameDone = n, true
	return d, nil
}
