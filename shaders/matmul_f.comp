// matmul_f: y = x·Wᵀ for two or more activation rows and an F32 or F16 weight whose row length is a multiple of
// 16 and row count a multiple of 4: the shapes for which llama.cpp's reference build runs llamafile's tinyBLAS,
// whose arithmetic it reproduces: 16 lanes per output (element i in lane i mod 16) accumulate with fused
// multiply-adds, then reduce as _mm512_reduce_add_ps. Tiles of 32 weight rows × 8 activation rows, 32 columns
// at a time staged in shared memory; each of the 128 invocations computes one weight row against 2 activation
// rows. Operands and push constants as matvec_f (ncols any number, no tpr).
// Bindings: 0 = W, 1 = x, 2 = y. Dispatch (ceil(rows/32), ceil(ncols/8)) workgroups.
//#variant matmul_f32 WTYPE=0
//#variant matmul_f16 WTYPE=1
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
} pc;

layout(std430, binding = 0) readonly buffer W { uint w[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 2) writeonly buffer Y { float y[]; };

#include "welem.glsl"

#define TM 32u
#define TN 8u
#define KT 32u
#define WG 128u
#define NPT (TN * TM / WG)

shared float sw[TM * (KT + 1u)];
shared float sx[TN * (KT + 1u)];

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint m0 = gl_WorkGroupID.x * TM, n0 = gl_WorkGroupID.y * TN;
    uint m = lid % TM, ng = lid / TM;
    float acc[NPT][16];
    for (uint i = 0u; i < NPT; i++) {
        for (uint l = 0u; l < 16u; l++) {
            acc[i][l] = 0.0;
        }
    }
    for (uint k0 = 0u; k0 < pc.cols; k0 += KT) {
        for (uint idx = lid; idx < TM * KT; idx += WG) {
            uint r = idx / KT, k = idx % KT;
            float v = 0.0;
            if (m0 + r < pc.rows && k0 + k < pc.cols) {
                v = welem(pc.w_off + (m0 + r) * pc.cols + k0 + k);
            }
            sw[r * (KT + 1u) + k] = v;
        }
        for (uint idx = lid; idx < TN * KT; idx += WG) {
            uint r = idx / KT, k = idx % KT;
            float v = 0.0;
            if (n0 + r < pc.ncols && k0 + k < pc.cols) {
                v = x[pc.x_off + (n0 + r) * pc.cols + k0 + k];
            }
            sx[r * (KT + 1u) + k] = v;
        }
        barrier();
        uint kn = min(KT, pc.cols - k0); // a multiple of 16
        for (uint k = 0u; k < kn; k++) {
            float wv = sw[m * (KT + 1u) + k];
            for (uint i = 0u; i < NPT; i++) {
                float xv = sx[(ng * NPT + i) * (KT + 1u) + k];
#if WTYPE == 0
                acc[i][k % 16u] = fmaf(wv, xv, acc[i][k % 16u]);
#else
                precise float p = wv * xv;
                precise float s = acc[i][k % 16u] + p;
                acc[i][k % 16u] = s;
#endif
            }
        }
        barrier();
    }
    uint row = m0 + m;
    if (row < pc.rows) {
        for (uint i = 0u; i < NPT; i++) {
            uint col = n0 + ng * NPT + i;
            if (col < pc.ncols) {
                y[pc.y_off + col * pc.y_stride + row] = reduce16(acc[i]);
            }
        }
    }
}
