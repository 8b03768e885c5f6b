package backendtest

import (
	"flag"

	"github.com/forma-llm/forma/accel"
)

// opCases has a case for every op of accel.Ops(). Each case builds graphs on a fresh backend and compares the
// results with the float64 references.
var opCases = map[accel.Op]func(e *env){
	accel.OpReshape:     testReshape,
	accel.OpRows:        testRows,
	accel.OpGetRows:     testGetRows,
	accel.OpMatMul:      testMatMul,
	accel.OpAdd:         func(e *env) { testBinary(e, accel.OpAdd) },
	accel.OpMul:         func(e *env) { testBinary(e, accel.OpMul) },
	accel.OpScale:       testScale,
	accel.OpRMSNorm:     testRMSNorm,
	accel.OpLayerNorm:   testLayerNorm,
	accel.OpSoftmax:     testSoftmax,
	accel.OpSiLU:        testSiLU,
	accel.OpGELU:        testGELU,
	accel.OpSwiGLU:      testSwiGLU,
	accel.OpGeGLU:       testGeGLU,
	accel.OpSoftCap:     testSoftCap,
	accel.OpSlice:       testSlice,
	accel.OpPermute:     testPermute,
	accel.OpRoPE:        testRoPE,
	accel.OpKVStore:     testKVStore,
	accel.OpAttention:   testAttention,
	accel.OpSigmoid:     testSigmoid,
	accel.OpTopK:        testTopK,
	accel.OpPick:        testPick,
	accel.OpDivSum:      testDivSum,
	accel.OpMatMulID:    testMatMulID,
	accel.OpAddID:       testAddID,
	accel.OpSwiGLUOAI:   testSwiGLUOAI,
	accel.OpWeightedSum: testWeightedSum,
	accel.OpConcat:      testConcat,
	accel.OpTempScale:   testTempScale,
	accel.OpShortConv:   testShortConv,
}

// TB is what the suite needs of its test. *testing.T has it; so can a reporter outside `go test` (forma
// selftest), which keeps the testing package out of a binary. Like testing's, Fatal and Fatalf must end the
// calling goroutine (runtime.Goexit), and Run must run f to completion, then its cleanups, before returning.
type TB[T any] interface {
	tb
	Run(name string, f func(t T)) bool
}

// Run runs the conformance suite. newBackend is called once per case; the suite closes what it returns. Under
// go test -short (or with a t whose Short method reports true) it runs fewer shapes.
func Run[T TB[T]](t T, newBackend func(t T) accel.Backend) {
	short := isShort(t)
	t.Run("ops", func(t T) {
		for _, op := range accel.Ops() {
			c, ok := opCases[op]
			if !ok {
				t.Errorf("op %s has no conformance case: add one to backendtest", op)
				continue
			}
			t.Run(op.String(), func(t T) { c(newEnv(t, newBackend, short)) })
		}
	})
	t.Run("block", func(t T) {
		for _, v := range blockVariants {
			t.Run(v.name, func(t T) { testBlock(newEnv(t, newBackend, short), v) })
		}
	})
	t.Run("concurrent", func(t T) { testConcurrent(newEnv(t, newBackend, short)) })
	t.Run("errors", func(t T) {
		for _, c := range errorCases {
			t.Run(c.name, func(t T) { c.f(newEnv(t, newBackend, short)) })
		}
	})
}

// isShort reports short mode: t's own Short method, else go test's -short flag (read through the flag package,
// so that this package need not import testing).
func isShort(t any) bool {
	if s, ok := t.(interface{ Short() bool }); ok {
		return s.Short()
	}
	f := flag.Lookup("test.short")
	return f != nil && f.Value.String() == "true"
}
