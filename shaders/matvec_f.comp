// matvec_f: y = x·Wᵀ for a few (≤ 8) activation rows and an F32, F16 or BF16 weight [rows, cols] starting at
// element w_off. The activations are float rows (for F16 and BF16 weights already rounded to the weight's type
// by quantize.comp, as llama.cpp converts them), ncols rows of cols from element x_off. y[y_off + c·y_stride +
// row]. Each row's sum is the CPU backend's, bit for bit:
//   F32, F16 with tpr 16: llamafile's tinyBLAS (rows a multiple of 16): 16 lanes (element i in lane i mod 16)
//     accumulate with fused multiply-adds (exact products of halves for F16), then reduce as
//     _mm512_reduce_add_ps; a workgroup computes wg/16 rows, one lane per invocation.
//   F32, F16 with tpr 64: ggml_vec_dot_f32/f16 of the reference build (AVX-512): 64 lanes (element i in lane i mod 64)
//     accumulate the elements below the last multiple of 64 with fused multiply-adds; the lanes fold as
//     GGML_F32x16_REDUCE ((l+32) + (l+16 + l+48) per l < 16) and reduce as _mm512_reduce_add_ps; the elements
//     left are added one at a time: in double for F16; for F32 with rounded products but for the last
//     (left mod 8), fused (tail_f32). A workgroup computes two rows with 64
//     invocations each, one lane per invocation (tpr must be 64).
//   BF16 with tpr 32: ggml_vec_dot_bf16 of the reference build (AVX-512 BF16), see main below.
// Bindings: 0 = W, 1 = x, 2 = y. Dispatch ceil(rows / (wg/tpr)) workgroups (2D above 65535).
// The matvec_id variants multiply by chosen experts (mat_mul_id, id.glsl): workgroup z is a (row, slot) pair
// whose expert's matrix is read; tpr 16 (a matrix per slot of a shape MatMul takes in tinyBLAS's order) gives
// each row's sum in 16 fused lanes, as above.
//#variant matvec_f32 WTYPE=0 ID=0
//#variant matvec_f16 WTYPE=1 ID=0
//#variant matvec_bf16 WTYPE=2 ID=0
//#variant matvec_id_f32 WTYPE=0 ID=1
//#variant matvec_id_f16 WTYPE=1 ID=1
//#variant matvec_id_bf16 WTYPE=2 ID=1
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
    uint tpr; // invocations per weight row (16 or 64 for F32 and F16)
#if ID
    uint k;         // slots per row
    uint bcast;     // 1: every slot of a row reads the row's activations
    uint identity;  // 1: slot s uses matrix s (no ids)
    uint ids_off;
    uint e0;        // the experts [e0, e1) of the bound weight part
    uint e1;
    uint e_units;   // one expert's matrix, in the unit of w_off
#endif
} pc;

layout(std430, binding = 0) readonly buffer W { uint w[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 2) writeonly buffer Y { float y[]; };

#define ID_X_OFF pc.x_off
#include "id.glsl"

#include "welem.glsl"

#define MAXCOLS 8u

#if WTYPE == 2
shared float lanes[gl_WorkGroupSize.x * MAXCOLS];

// BF16: 32 lanes per row (tpr), lane l taking elements 2l+1 then 2l of every 64, each exact product added with
// one rounding, denormals taken as zero and tiny sums flushed (VDPBF16PS: bf16_madd); lanes 0…15 and 16…31
// reduced apart as _mm512_reduce_add_ps and added in double (double-float here), then the products after the
// last 64 elements one at a time.
void main() {
    uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    uint nl = pc.tpr, step = 2u * nl;
    uint lane = lid % nl, slot = lid / nl;
    uint row = flat_workgroup() * (wg / nl) + slot;
    if (!id_setup(pc.cols)) {
        return;
    }
    uint np = pc.cols & ~(step - 1u);
    uint base = w_base + row * pc.cols;
    for (uint c = 0u; c < pc.ncols; c++) {
        float acc = 0.0;
        if (row < pc.rows) {
            uint xb = x_base + c * pc.cols;
            for (uint k = 2u * lane; k < np; k += step) {
                acc = bf16_madd(acc, welem(base + k + 1u), x[xb + k + 1u]);
                acc = bf16_madd(acc, welem(base + k), x[xb + k]);
            }
        }
        lanes[(slot * MAXCOLS + c) * nl + lane] = acc;
    }
    barrier();
    if (lane < pc.ncols && row < pc.rows) {
        uint c = lane, lb = (slot * MAXCOLS + c) * nl;
        float r[16];
        for (uint e = 0u; e < 16u; e++) {
            r[e] = lanes[lb + e];
        }
        float sum = reduce16(r);
        for (uint e = 0u; e < 16u; e++) {
            r[e] = lanes[lb + 16u + e];
        }
        vec2 s = df_add(vec2(sum, 0.0), vec2(reduce16(r), 0.0));
        for (uint k = np; k < pc.cols; k++) {
            precise float p = welem(base + k) * x[x_base + c * pc.cols + k];
            s = df_add(s, vec2(p, 0.0));
        }
        y[y_base + c * pc.y_stride + row] = s.x;
    }
}
#else
#define LANES 64u

shared float lanes[(gl_WorkGroupSize.x / LANES) * MAXCOLS * LANES];

// lane_step adds w·x into a lane as ggml does: fused for F32; for F16 the product of two halves is exact and
// the fused result is the rounded sum.
float lane_step(float wv, float xv, float acc) {
#if WTYPE == 0
    return fmaf(wv, xv, acc);
#else
    precise float p = wv * xv;
    precise float r = acc + p;
    return r;
#endif
}

void main() {
    uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    // tpr 16: llamafile's tinyBLAS (16 lanes, rows a multiple of 16); else ggml_vec_dot's 64 lanes.
    bool tiled = pc.tpr == 16u;
    uint nl = tiled ? 16u : LANES;
    uint lane = lid % nl, slot = lid / nl;
    uint row = flat_workgroup() * (wg / nl) + slot;
    if (!id_setup(pc.cols)) {
        return;
    }
    uint np = pc.cols & ~(nl - 1u);
    uint base = w_base + row * pc.cols;
    for (uint c = 0u; c < pc.ncols; c++) {
        float acc = 0.0;
        if (row < pc.rows) {
            for (uint k = lane; k < np; k += nl) {
                acc = lane_step(welem(base + k), x[x_base + c * pc.cols + k], acc);
            }
        }
        lanes[(slot * MAXCOLS + c) * nl + lane] = acc;
    }
    barrier();
    if (lane < pc.ncols && row < pc.rows) {
        uint c = lane, lb = (slot * MAXCOLS + c) * nl;
        float r[16];
        for (uint e = 0u; e < 16u; e++) {
            if (tiled) {
                r[e] = lanes[lb + e];
            } else {
                precise float v = (lanes[lb + e] + lanes[lb + 32u + e]) + (lanes[lb + 16u + e] + lanes[lb + 48u + e]);
                r[e] = v;
            }
        }
        float sum = reduce16(r);
#if WTYPE == 0
        for (uint k = np; k < pc.cols; k++) {
            sum = tail_f32(sum, welem(base + k), x[x_base + c * pc.cols + k], k - np < ((pc.cols - np) & ~7u));
        }
        y[y_base + c * pc.y_stride + row] = sum;
#else
        vec2 s = vec2(sum, 0.0);
        for (uint k = np; k < pc.cols; k++) {
            precise float p = welem(base + k) * x[x_base + c * pc.cols + k];
            s = df_add(s, vec2(p, 0.0));
        }
        y[y_base + c * pc.y_stride + row] = s.x;
#endif
    }
}
#endif
