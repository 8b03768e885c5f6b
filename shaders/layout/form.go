package layout

import "github.com/forma-llm/forma/gguf/quant"

// Forms of the quantized products (shaders/matq.glsl's FORM specialization constant): how the CPU backend
// orders each weight type's block sums, chosen by the weight's type and shape alone so that a row's result
// does not depend on how many rows share its batch.
const (
	FormGeneric  = 0
	FormLanes    = 1
	FormLanesMin = 2
	FormBlock    = 3
	FormHalves   = 4
	FormKPairs   = 5
	RepackOut    = 8 // Q4_0, IQ4_NL and Q4_K weights with a multiple of 8 rows: the reference build's repacked orders
)

// Form returns the form of a product with weight type t and out rows.
func Form(t quant.Type, out int) uint32 {
	switch t {
	case quant.Q4_0, quant.IQ4_NL:
		if out%RepackOut == 0 {
			return FormBlock
		}
		return FormLanes
	case quant.Q4_K:
		if out%RepackOut == 0 {
			return FormKPairs
		}
		return FormHalves // K-quant shaders ignore the other forms
	case quant.Q5_0, quant.Q8_0:
		return FormLanes
	case quant.Q4_1, quant.Q5_1:
		return FormLanesMin
	case quant.MXFP4:
		return FormGeneric
	}
	return FormHalves // Q2_K, Q3_K, IQ4_XS (K-quant shaders ignore the form)
}
