package runtime_test

import (
	"context"
	"testing"

	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/sample"
)

// TestSamplersAgainstLlamaCpp: greedy generations on stories260K (F32) with the penalties, DRY (with and without
// sequence breakers), typical-p, top-n-σ, XTC and Mirostat give llama.cpp's tokens. The expected ids are llama-server's
// (build d32676d77) for the prompt "Once upon a time", n_predict 100, temperature 0 and the case's parameters
// under their request names; at temperature 0 these samplers define the token exactly.
func TestSamplersAgainstLlamaCpp(t *testing.T) {
	m := load(t, "stories260K-F32.gguf")
	for _, tc := range []struct {
		name string
		set  func(o *sample.Options)
		want []int32
	}{
		{"penalties", func(o *sample.Options) {
			o.RepeatPenalty, o.RepeatLastN, o.PresPenalty, o.FreqPenalty = 1.3, 64, 0.5, 0.3
		}, []int32{
			432, 383, 286, 261, 376, 298, 315, 421, 395, 317, 426, 338, 401, 396, 267, 337, 410, 408, 419, 292,
			411, 322, 265, 282, 295, 433, 335, 311, 374, 419, 426, 385, 328, 432, 358, 394, 262, 287, 316, 415,
			299, 318, 416, 425, 419, 425, 412, 421, 269, 279, 420, 414, 339, 266, 312, 353, 345, 272, 412, 331,
			426, 359, 413, 381, 284, 303, 422, 280, 347, 433, 417, 406, 351, 286, 261, 370, 268, 315, 418, 263,
			260, 276, 366, 382, 276, 298, 289, 411, 443, 13, 438, 310, 439, 419, 374, 368, 290, 421, 422, 336}},
		{"dry", func(o *sample.Options) {
			o.DRYMultiplier, o.DRYBase, o.DRYAllowedLength, o.DRYPenaltyLastN = 0.8, 1.75, 2, 128
		}, []int32{
			432, 383, 286, 261, 376, 298, 315, 421, 395, 317, 426, 338, 401, 396, 267, 337, 410, 408, 419, 292,
			411, 322, 265, 282, 295, 433, 426, 385, 328, 432, 358, 394, 261, 370, 432, 352, 266, 268, 388, 426,
			338, 391, 266, 267, 337, 335, 312, 432, 398, 312, 286, 267, 414, 270, 333, 415, 426, 13, 438, 310,
			439, 419, 357, 336, 432, 313, 438, 310, 432, 278, 316, 439, 419, 298, 414, 267, 265, 282, 295, 433,
			443, 436, 317, 286, 296, 418, 269, 279, 292, 416, 439, 413, 409, 416, 327, 263, 415, 294, 267, 400}},
		{"dry-breakers", func(o *sample.Options) {
			o.DRYMultiplier, o.DRYBase, o.DRYAllowedLength, o.DRYPenaltyLastN = 2, 1.5, 1, 32
			o.DRYSequenceBreakers = []string{".", " a"}
		}, []int32{
			432, 383, 286, 261, 376, 298, 315, 421, 395, 317, 426, 338, 401, 396, 267, 337, 410, 408, 419, 292,
			411, 322, 265, 282, 295, 433, 426, 385, 328, 432, 358, 394, 261, 370, 432, 352, 266, 268, 388, 426,
			338, 391, 266, 267, 262, 411, 411, 263, 415, 294, 286, 322, 419, 292, 411, 426, 338, 261, 419, 355,
			311, 357, 432, 313, 457, 303, 359, 337, 335, 364, 420, 268, 388, 450, 436, 320, 285, 357, 336, 432,
			313, 452, 406, 432, 312, 439, 419, 378, 267, 298, 414, 270, 287, 411, 426, 436, 13, 438, 310, 286}},
		{"typical", func(o *sample.Options) {
			o.TypicalP = 0.5
		}, []int32{
			432, 383, 286, 261, 376, 298, 315, 421, 395, 317, 426, 338, 401, 396, 267, 337, 410, 408, 419, 292,
			411, 322, 265, 282, 295, 433, 426, 385, 328, 432, 358, 394, 261, 262, 415, 271, 422, 280, 415, 417,
			340, 302, 353, 265, 298, 420, 277, 264, 426, 338, 286, 399, 393, 269, 282, 417, 340, 266, 312, 350,
			426, 13, 438, 310, 391, 266, 267, 337, 335, 311, 280, 415, 417, 340, 302, 426, 338, 391, 266, 267,
			262, 415, 327, 311, 374, 419, 265, 280, 415, 417, 340, 302, 426, 301, 414, 432, 358, 267, 414, 433}},
		{"mirostat", func(o *sample.Options) {
			o.Mirostat, o.RepeatPenalty = 2, 1.5 // Mirostat leaves out the penalties: plain greedy
		}, []int32{
			432, 383, 286, 261, 376, 298, 315, 421, 395, 317, 426, 338, 401, 396, 267, 337, 410, 408, 419, 292,
			411, 322, 265, 282, 295, 433, 426, 385, 328, 432, 358, 394, 261, 370, 432, 352, 266, 268, 388, 426,
			338, 391, 266, 267, 337, 335, 312, 432, 398, 312, 286, 267, 414, 270, 333, 415, 426, 13, 438, 310,
			439, 419, 357, 336, 432, 313, 438, 310, 432, 278, 316, 439, 419, 298, 414, 267, 265, 282, 295, 433,
			426, 436, 317, 286, 296, 418, 269, 279, 292, 416, 439, 413, 409, 416, 327, 263, 415, 294, 267, 400}},
		{"nsigma", func(o *sample.Options) {
			o.TopNSigma, o.DRYMultiplier = 1, 0.5
		}, []int32{
			432, 383, 286, 261, 376, 298, 315, 421, 395, 317, 426, 338, 401, 396, 267, 337, 410, 408, 419, 292,
			411, 322, 265, 282, 295, 433, 426, 385, 328, 432, 358, 394, 261, 370, 432, 352, 266, 268, 388, 426,
			338, 391, 266, 267, 337, 335, 312, 432, 398, 312, 286, 267, 414, 270, 333, 415, 426, 13, 438, 310,
			439, 419, 357, 336, 432, 313, 438, 310, 432, 278, 316, 439, 419, 298, 414, 267, 265, 282, 295, 433,
			443, 436, 317, 286, 296, 418, 269, 279, 292, 416, 439, 413, 409, 416, 327, 263, 415, 294, 267, 400}},
		{"xtc", func(o *sample.Options) {
			o.XTCProbability, o.XTCThreshold = 1, 0.1 // probability 1: every token
		}, []int32{
			432, 383, 286, 261, 376, 268, 315, 418, 426, 291, 268, 315, 418, 381, 284, 303, 422, 374, 419, 322,
			261, 262, 423, 388, 267, 422, 280, 295, 426, 342, 261, 421, 419, 414, 401, 396, 267, 262, 411, 411,
			261, 416, 309, 386, 262, 379, 426, 342, 261, 421, 419, 414, 397, 355, 267, 262, 411, 411, 261, 306,
			265, 267, 422, 419, 322, 265, 262, 379, 419, 316, 426, 385, 328, 432, 261, 370, 400, 428, 395, 301,
			314, 263, 377, 267, 265, 262, 411, 412, 269, 336, 432, 313, 448, 415, 414, 279, 292, 364, 262, 415}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := sample.Defaults()
			o.Temperature = 0
			tc.set(&o)
			s := session(t, m, runtime.SessionOptions{})
			got, _, err := collect(s.Generate(context.Background(), "Once upon a time",
				runtime.GenerateOptions{MaxTokens: len(tc.want), Sampling: &o, IgnoreEOG: true}))
			if err != nil {
				t.Fatal(err)
			}
			if i := mismatch(got, tc.want); i >= 0 {
				t.Errorf("token %d: got %v\nwant %v", i, got[i:min(i+8, len(got))], tc.want[i:min(i+8, len(tc.want))])
			}
		})
	}
}

// mismatch returns the first index where a and b differ, -1 when they are equal.
func mismatch(a, b []int32) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}
