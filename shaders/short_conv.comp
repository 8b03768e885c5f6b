// short_conv: the short convolution of LFM2 (accel.Builder.ShortConv), one invocation per (token, channel):
// y[t][c] = Σ_k cell(pos[t] − taps + 1 + k)[c] · w[c][k] over k = 0…taps−1, cells before position 0 zero, in
// the reference build's order: the first `unfused` taps' products rounded and added one by one, the rest
// fused multiply-adds (accel.ShortConvUnfused). Cell c is cache row c, or, paged, row
// pages[seq[t]][c / page_size]·page_size + c % page_size. The host checked the positions and pages.
// Bindings: 0 = cache (F32 rows of d), 1 = kernel (F32 [d, taps]), 2 = pos, 3 = seq, 4 = pages (int; 3 and 4
// bound to pos when not paged), 5 = y.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "numeric.glsl"

layout(push_constant) uniform Push {
    uint n;
    uint d;
    uint taps;
    uint unfused;
    uint paged;
    uint page_size;
    uint max_pages;
    uint c_off;
    uint w_off;
    uint pos_off;
    uint seq_off;
    uint pages_off;
    uint y_off;
} pc;

layout(std430, binding = 0) readonly buffer C { float cache[]; };
layout(std430, binding = 1) readonly buffer W { float w[]; };
layout(std430, binding = 2) readonly buffer P { int pos[]; };
layout(std430, binding = 3) readonly buffer S { int seq[]; };
layout(std430, binding = 4) readonly buffer T { int pages[]; };
layout(std430, binding = 5) writeonly buffer Y { float y[]; };

void main() {
    uint i = flat_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (i >= pc.n * pc.d) {
        return;
    }
    uint t = i / pc.d, ch = i % pc.d;
    int first = pos[pc.pos_off + t] - int(pc.taps) + 1;
    precise float sum = 0.0;
    for (uint k = 0u; k < pc.taps; k++) {
        int c = first + int(k);
        if (c < 0) {
            continue; // a zero cell adds nothing, fused or not
        }
        uint row = uint(c);
        if (pc.paged != 0u) {
            int pg = pages[pc.pages_off + uint(seq[pc.seq_off + t]) * pc.max_pages + row / pc.page_size];
            row = uint(pg) * pc.page_size + row % pc.page_size;
        }
        float x = cache[pc.c_off + row * pc.d + ch];
        float wk = w[pc.w_off + ch * pc.taps + k];
        if (k < pc.unfused) {
            precise float p = x * wk;
            sum = sum + p;
        } else {
            sum = fmaf(x, wk, sum);
        }
    }
    y[pc.y_off + i] = sum;
}
