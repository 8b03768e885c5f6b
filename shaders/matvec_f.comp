// matvec_f: y = x·Wᵀ for a few (≤ 8) activation rows and an F32, F16 or BF16 weight [rows, cols] starting at
// element w_off. The activations are float rows (for F16 and BF16 weights already rounded to the weight's type
// by quantize.comp, as llama.cpp converts them), ncols rows of cols from element x_off. y[y_off + c·y_stride +
// row]. Each row's sum is the CPU backend's, bit for bit:
//   F32, F16: ggml_vec_dot_f32/f16 of the reference build (AVX-512): 64 lanes (element i in lane i mod 64)
//     accumulate the elements below the last multiple of 64 with fused multiply-adds; the lanes fold as
//     GGML_F32x16_REDUCE ((l+32) + (l+16 + l+48) per l < 16) and reduce as _mm512_reduce_add_ps; the elements
//     left are added one at a time, in float32 for F32 (each product rounded), in double for F16. A workgroup computes two rows with 64
//     invocations each, one lane per invocation (tpr must be 64).
//   BF16: products summed in double (here double-float, rounded once), over tpr invocations per row.
// Bindings: 0 = W, 1 = x, 2 = y. Dispatch ceil(rows / (wg/tpr)) workgroups (2D above 65535).
// The matvec_id variants multiply by chosen experts (mat_mul_id, id.glsl): workgroup z is a (row, slot) pair
// whose expert's matrix is read; with tiled set (a matrix per slot, a batch: MatMul's tinyBLAS order) each
// row's sum is 16 fused lanes (element i in lane i mod 16) reduced as _mm512_reduce_add_ps.
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
    uint tpr; // invocations per weight row (64 for F32 and F16)
#if ID
    uint k;         // slots per row
    uint bcast;     // 1: every slot of a row reads the row's activations
    uint identity;  // 1: slot s uses matrix s (no ids)
    uint tiled;     // 1: the 16-lane order (matvec_f)
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
#include "matvec_reduce.glsl"

void main() {
    uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    uint lane = lid % pc.tpr, slot = lid / pc.tpr;
    uint row = flat_workgroup() * (wg / pc.tpr) + slot;
    if (!id_setup(pc.cols)) {
        return;
    }
    vec2 acc[MAXCOLS];
    for (uint c = 0u; c < MAXCOLS; c++) {
        acc[c] = vec2(0.0);
    }
    if (row < pc.rows) {
        uint base = w_base + row * pc.cols;
        for (uint k = lane; k < pc.cols; k += pc.tpr) {
            float wv = welem(base + k);
            for (uint c = 0u; c < pc.ncols; c++) {
                precise float p = wv * x[x_base + c * pc.cols + k];
                acc[c] = df_add(acc[c], vec2(p, 0.0));
            }
        }
    }
    reduce_rows(acc, lid, lane, slot, row);
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
    uint lane = lid % LANES, slot = lid / LANES;
    uint row = flat_workgroup() * (wg / LANES) + slot;
    if (!id_setup(pc.cols)) {
        return;
    }
    bool tiled = id_tiled();
    uint step = tiled ? 16u : LANES;
    uint np = tiled ? pc.cols : pc.cols & ~(LANES - 1u);
    uint base = w_base + row * pc.cols;
    for (uint c = 0u; c < pc.ncols; c++) {
        float acc = 0.0;
        if (row < pc.rows && lane < step) {
            for (uint k = lane; k < np; k += step) {
                acc = lane_step(welem(base + k), x[x_base + c * pc.cols + k], acc);
            }
        }
        lanes[(slot * MAXCOLS + c) * LANES + lane] = acc;
    }
    barrier();
    if (lane < pc.ncols && row < pc.rows) {
        uint c = lane, lb = (slot * MAXCOLS + c) * LANES;
        float r[16];
        for (uint e = 0u; e < 16u; e++) {
            precise float v = (lanes[lb + e] + lanes[lb + 32u + e]) + (lanes[lb + 16u + e] + lanes[lb + 48u + e]);
            r[e] = tiled ? lanes[lb + e] : v;
        }
        float sum = reduce16(r);
#if WTYPE == 0
        for (uint k = np; k < pc.cols; k++) { // the leftover products, rounded and added unfused
            precise float p = welem(base + k) * x[x_base + c * pc.cols + k];
            sum = sum + p;
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
