// matvec_f: y = x·Wᵀ for a few (≤ 8) activation rows and an F32, F16 or BF16 weight [rows, cols] starting at
// element w_off. The activations are float rows (for F16 and BF16 weights already rounded to the weight's type
// by quantize.comp, as llama.cpp converts them), ncols rows of cols from element x_off. A workgroup computes
// wg/tpr weight rows with tpr invocations each; products (rounded to float32, as ggml forms them) are summed in
// double-float and rounded once (matvec_reduce.glsl). y[y_off + c·y_stride + row].
// Bindings: 0 = W, 1 = x, 2 = y. Dispatch ceil(rows / (wg/tpr)) workgroups (2D above 65535).
//#variant matvec_f32 WTYPE=0
//#variant matvec_f16 WTYPE=1
//#variant matvec_bf16 WTYPE=2
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "numeric.glsl"

layout(push_constant) uniform Push {
    uint rows;
    uint cols;
    uint ncols;
    uint w_off;
    uint x_off;
    uint y_off;
    uint y_stride;
    uint tpr; // invocations per weight row: a power of two dividing the workgroup size
} pc;

layout(std430, binding = 0) readonly buffer W { uint w[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 2) writeonly buffer Y { float y[]; };

#include "welem.glsl"

#define MAXCOLS 8u

#include "matvec_reduce.glsl"

void main() {
    uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    uint lane = lid % pc.tpr, slot = lid / pc.tpr;
    uint row = flat_workgroup() * (wg / pc.tpr) + slot;
    vec2 acc[MAXCOLS];
    for (uint c = 0u; c < MAXCOLS; c++) {
        acc[c] = vec2(0.0);
    }
    if (row < pc.rows) {
        uint base = pc.w_off + row * pc.cols;
        for (uint k = lane; k < pc.cols; k += pc.tpr) {
            float wv = welem(base + k);
            for (uint c = 0u; c < pc.ncols; c++) {
                precise float p = wv * x[pc.x_off + c * pc.cols + k];
                acc[c] = df_add(acc[c], vec2(p, 0.0));
            }
        }
    }
    reduce_rows(acc, lid, lane, slot, row);
}
