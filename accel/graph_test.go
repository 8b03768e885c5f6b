package accel

import (
	"strings"
	"testing"
)

// TestGraphOutput checks the errors Program.Read reports through Graph.Output.
func TestGraphOutput(t *testing.T) {
	b := NewBuilder()
	x := b.Input("x", F32, 4, 3)
	hidden := b.Scale(x, 2)
	y := b.Output(b.Add(hidden, x))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		t    Tensor
		n    int
		want string // "" for no error
	}{
		{"output", y, 12, ""},
		{"wrong length", y, 11, "has 12 values, dst 11"},
		{"not an output", hidden, 12, "is not an output"},
		{"zero tensor", Tensor{}, 12, "not in the program's graph"},
		{"past the graph", Tensor{int32(len(g.Nodes) + 5)}, 12, "not in the program's graph"},
	}
	for _, c := range cases {
		nd, err := g.Output(c.t, c.n)
		switch {
		case c.want == "" && (err != nil || nd != g.Node(c.t)):
			t.Errorf("%s: node %v, err %v; want the node", c.name, nd, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: err %v, want one containing %q", c.name, err, c.want)
		}
	}
}
