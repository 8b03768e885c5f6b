package backendtest

import (
	"testing"

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
}

// Run runs the conformance suite. newBackend is called once per case; the suite closes what it returns.
func Run(t *testing.T, newBackend func(t *testing.T) accel.Backend) {
	t.Run("ops", func(t *testing.T) {
		for _, op := range accel.Ops() {
			c, ok := opCases[op]
			if !ok {
				t.Errorf("op %s has no conformance case: add one to backendtest", op)
				continue
			}
			t.Run(op.String(), func(t *testing.T) { c(newEnv(t, newBackend)) })
		}
	})
	t.Run("block", func(t *testing.T) {
		for _, v := range blockVariants {
			t.Run(v.name, func(t *testing.T) { testBlock(newEnv(t, newBackend), v) })
		}
	})
	t.Run("concurrent", func(t *testing.T) { testConcurrent(newEnv(t, newBackend)) })
	t.Run("errors", func(t *testing.T) {
		for _, c := range errorCases {
			t.Run(c.name, func(t *testing.T) { c.f(newEnv(t, newBackend)) })
		}
	})
}
