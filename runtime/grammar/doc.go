// Package grammar constrains generation to a formal language: a grammar in llama.cpp's GBNF, a regular
// expression, or (package jsonschema) the JSON texts a JSON Schema accepts. For each token it computes the mask
// of the tokens that may come next, so that the output is always a prefix of a sentence of the grammar, and
// says when the output is complete.
//
// The pieces, in the order a generation uses them:
//
//	g, err := grammar.Parse(src)        // GBNF; errors name line:column. Or Regex, FromExpr, a Builder.
//	v := grammar.FromTokenizer(tk)       // once per vocabulary: token bytes in a trie
//	c, err := v.Compile(g)               // bound to the vocabulary (cached per grammar text)
//	m := c.NewMatcher()                  // one per generation
//	m.SetBudget(maxTokens)               // optional: end complete when the budget runs out
//	for {
//		m.MaskLogits(logits)         // disallowed tokens get -Inf
//		id := sample(logits)
//		id, err = m.Choose(id, logits)
//		if m.Done() { break }        // complete, and nothing can follow
//	}
//
// Conventions. A grammar is over Unicode code points (classes, literals) and, where it names them (<[id]>,
// <text>, !<...>), whole tokens; it is lowered to bytes (UTF-8), so a token may end inside a character. Text
// tokens are matched by the bytes they write as the generation loop decodes them; control, unknown and unused
// tokens are never text: they match only where the grammar names them. End-of-generation tokens are allowed
// exactly when the output is complete. A Grammar, a Vocab and a Compiled are immutable (Compiled fills caches
// behind a lock) and safe for concurrent use; a Matcher belongs to one generation and one goroutine.
//
// Errors, never panics, for bad input: a syntax error names line:column; a rule that can recurse before
// consuming input (left recursion) or a grammar that matches nothing the vocabulary can write is refused at
// Compile. Paths that cannot finish are removed at Compile, so the matcher never allows a token that leads to a
// dead end: from every state some sequence of tokens completes the output.
//
// How it works. Each rule becomes a deterministic automaton over byte classes, rule calls and token sets.
// The matcher runs them as a pushdown automaton: a configuration is a set of interned stacks (rule positions
// with their return positions), and steps from a configuration on each byte class are memoized, so walking
// bytes is one table look-up once warm (a lazily built DFA). A mask is computed as XGrammar does: for each
// state on top of a stack, the tokens it accepts whatever lies below it are computed once, by walking the
// token trie, and kept; only the few tokens that leave the rule part-way (and whose next byte can follow the
// rule somewhere) are checked against the whole stack at each step. On a 151,936-token vocabulary a warm mask
// takes a few microseconds inside a JSON string and tens of microseconds at structural points; a state's
// first mask takes a walk of the trie (milliseconds), after which it is cached for every later generation with
// the same grammar. A Matcher allocates nothing per token once its tables are warm.
//
// Budget: each configuration knows the length of its shortest completion (a byte counts as one token, since
// every byte is a token of its own). With SetBudget, Choose replaces a sampled token that would leave the output
// unable to finish in time by the likeliest token on a shortest way to the end, so a generation cut by its
// token limit still ends with a complete output whenever the limit allows one at all.
package grammar
