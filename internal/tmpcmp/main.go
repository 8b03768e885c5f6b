package main

import (
	"fmt"
	"math"
	"os"

	"github.com/forma-llm/forma/internal/golden"
)

func main() {
	a, _ := golden.ReadF32(os.Args[1])
	b, _ := golden.ReadF32(os.Args[2])
	var V int
	fmt.Sscan(os.Args[3], &V)
	for r := 0; r*V < len(a) && r*V < len(b); r++ {
		x, y := a[r*V:(r+1)*V], b[r*V:(r+1)*V]
		md, mean := 0.0, 0.0
		for i := range x {
			mean += float64(x[i] - y[i])
		}
		mean /= float64(V)
		sd := 0.0
		for i := range x {
			d := float64(x[i]-y[i]) - mean
			sd += d * d
			md = max(md, math.Abs(d))
		}
		fmt.Printf("row %d KL %.3g meandiff %.3g sd %.3g max|d-mean| %.3g  argmax %d %d\n", r, golden.KL(x, y), mean, math.Sqrt(sd/float64(V)), md, golden.Argmax(x), golden.Argmax(y))
	}
}
