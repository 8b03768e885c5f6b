package grammar

import "testing"

// BenchmarkEntry is the cold work of a state: the walk of Qwen3's token trie (333k nodes) that computes what a
// JSON string's content state accepts.
func BenchmarkEntry(b *testing.B) {
	v, _ := modelVocab(b, qwenModel)
	c, err := Compile(testGrammar(b, "json"), v)
	if err != nil {
		b.Fatal(err)
	}
	m := c.NewMatcher()
	m.AcceptBytes([]byte(`{"a":"`))
	q := m.eng.stState[m.eng.stacks(m.cur)[0]]
	c.mu.Lock()
	defer c.mu.Unlock()
	c.computeEntry(q)
	b.ResetTimer()
	for b.Loop() {
		c.computeEntry(q)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(v.nodes)), "ns/node")
}
