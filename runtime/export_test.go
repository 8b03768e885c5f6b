package runtime

import "github.com/forma-llm/forma/accel"

// StopMatch feeds pieces to a stop matcher and returns what it released after each and the index of the piece
// that completed a stop string (-1 if none).
func StopMatch(stops, pieces []string) ([]string, int) {
	var m stopMatcher
	m.reset(stops)
	var out []string
	for i, p := range pieces {
		m.push([]byte(p))
		txt, matched := m.release(i == len(pieces)-1)
		out = append(out, string(txt))
		if matched {
			return out, i
		}
	}
	return out, -1
}

func (m *Model) kvDescForTest() accel.TensorDesc {
	return accel.TensorDesc{Name: "x", Type: accel.F32, Shape: []int{4}}
}
