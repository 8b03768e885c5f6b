// quantize: converts F32 activation rows [n, cols] as llama.cpp's CPU does before a matrix product, so that the
// products that follow are the same integer sums (see gguf/quant/q8.go):
//   MODE 0 (Q8_0) and 1 (Q8_1), per 32 elements: d = amax/127, q = round-half-even(x·(127/amax)) saturated to
//     int8; d is stored rounded to F16, and for Q8_1 also s = F16(d·Σq).
//   MODE 2 (Q8_K), per 256 elements: iscale = -127/max (max: the element of largest magnitude, with its sign),
//     q = min(127, round-half-even(iscale·x)), d = 1/iscale.
//   MODE 3 (F16) and 4 (BF16): each value rounded to the type, stored as float.
// Quantized rows are written as chunks of 10 words: 8 words of int8 quants, d, s (float bits); chunk c of row r
// starts at word q_off + (r·cols/32 + c)·10 (for Q8_K every chunk of a block holds the block's d).
// Rounded rows are floats at q_off + r·cols + i.
// Bindings: 0 = x (float), 1 = out (uint). One invocation per 32 elements (per 256 for Q8_K).
//#variant quantize_q8_0 MODE=0
//#variant quantize_q8_1 MODE=1
//#variant quantize_q8_k MODE=2
//#variant quantize_f16 MODE=3
//#variant quantize_bf16 MODE=4
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "numeric.glsl"

layout(push_constant) uniform Push {
    uint rows;
    uint cols;
    uint x_off;
    uint q_off;
} pc;

layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Q { uint q[]; };

#if MODE == 2
#define UNIT 256u
#else
#define UNIT 32u
#endif

void main() {
    uint units = pc.cols / UNIT;
    if (MODE >= 3) {
        units = (pc.cols + 31u) / 32u;
    }
    uint u = flat_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (u >= pc.rows * units) {
        return;
    }
    uint row = u / units, part = u % units;
    uint xb = pc.x_off + row * pc.cols + part * UNIT;
#if MODE >= 3
    uint n = min(32u, pc.cols - part * 32u);
    uint ob = pc.q_off + row * pc.cols + part * 32u;
    for (uint i = 0u; i < n; i++) {
#if MODE == 3
        q[ob + i] = floatBitsToUint(f16_round(x[xb + i]));
#else
        q[ob + i] = floatBitsToUint(bf16_round(x[xb + i]));
#endif
    }
#elif MODE == 2
    float amax = 0.0, mx = 0.0;
    for (uint i = 0u; i < 256u; i++) {
        float v = x[xb + i];
        if (amax < abs(v)) {
            amax = abs(v);
            mx = v;
        }
    }
    uint cb = pc.q_off + (row * (pc.cols / 32u) + part * 8u) * 10u;
    if (mx == 0.0) {
        for (uint i = 0u; i < 80u; i++) {
            q[cb + i] = 0u;
        }
        return;
    }
    float iscale = div_rn(-127.0, mx);
    float d = div_rn(1.0, iscale);
    for (uint c = 0u; c < 8u; c++) {
        for (uint k = 0u; k < 8u; k++) {
            uint word = 0u;
            for (uint b = 0u; b < 4u; b++) {
                precise float p = iscale * x[xb + 32u * c + 4u * k + b];
                int v = min(127, int(roundEven(p)));
                word |= (uint(v) & 0xffu) << (8u * b);
            }
            q[cb + 10u * c + k] = word;
        }
        q[cb + 10u * c + 8u] = floatBitsToUint(d);
        q[cb + 10u * c + 9u] = 0u;
    }
#else
    float amax = 0.0;
    for (uint i = 0u; i < 32u; i++) {
        float a = abs(x[xb + i]);
        if (!(amax > a)) {
            amax = a;
        }
    }
    float d = div_rn(amax, 127.0);
    float id = amax != 0.0 ? div_rn(127.0, amax) : 0.0;
    uint cb = pc.q_off + (row * (pc.cols / 32u) + part) * 10u;
    int sum = 0;
    for (uint k = 0u; k < 8u; k++) {
        uint word = 0u;
        for (uint b = 0u; b < 4u; b++) {
            precise float p = x[xb + 4u * k + b] * id;
            int v = clamp(int(roundEven(p)), -128, 127);
            sum += v;
            word |= (uint(v) & 0xffu) << (8u * b);
        }
        q[cb + k] = word;
    }
    q[cb + 8u] = floatBitsToUint(f16_round(d));
#if MODE == 1
    precise float s = d * float(sum);
    q[cb + 9u] = floatBitsToUint(f16_round(s));
#else
    q[cb + 9u] = 0u;
#endif
#endif
}
