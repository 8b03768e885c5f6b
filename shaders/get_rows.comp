// get_rows: y[i] = row ids[i] of a table [rows, cols] in any device weight layout, dequantized to float exactly
// as gguf/quant dequantizes. A table split over several buffers is read one part per dispatch: the part holds
// rows [row_lo, row_lo + part_rows) from w_off (elements for F32/F16/BF16, words for blocks), and ids outside
// it are left to the other parts. Quantized tables: one invocation per 32 columns of a row; float tables: one
// per element. Bindings: 0 = W, 1 = ids (int), 2 = y (float).
//#variant get_rows_f32 WTYPE=0
//#variant get_rows_f16 WTYPE=1
//#variant get_rows_bf16 WTYPE=2
//#variant get_rows_q4_0 WTYPE=3
//#variant get_rows_q8_0 WTYPE=4
//#variant get_rows_q4_k WTYPE=5
//#variant get_rows_q5_k WTYPE=6
//#variant get_rows_q6_k WTYPE=7
//#variant get_rows_q8s WTYPE=8
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "numeric.glsl"

layout(push_constant) uniform Push {
    uint n;
    uint cols;
    uint row_lo;
    uint part_rows;
    uint ids_off;
    uint w_off;
    uint y_off;
} pc;

layout(std430, binding = 0) readonly buffer W { uint w[]; };
layout(std430, binding = 1) readonly buffer I { int ids[]; };
layout(std430, binding = 2) writeonly buffer Y { float y[]; };

#if WTYPE <= 2
#include "welem.glsl"
#define PER 1u
#else
#include "blocks.glsl"
#define PER 32u
#endif

void main() {
    uint per_row = pc.cols / PER;
    uint u = flat_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (u >= pc.n * per_row) {
        return;
    }
    uint i = u / per_row, c = u % per_row;
    int id = ids[pc.ids_off + i];
    if (id < int(pc.row_lo) || id >= int(pc.row_lo + pc.part_rows)) {
        return;
    }
    uint r = uint(id) - pc.row_lo;
    uint yb = pc.y_off + i * pc.cols + c * PER;
#if WTYPE <= 2
    y[yb] = welem(pc.w_off + r * pc.cols + c);
#else
    uint q[8];
    vec4 smm;
    uint bpr = pc.cols / BLOCK_ELEMS;
    decode_chunk(pc.w_off + (r * bpr + c / CHUNKS_PER_BLOCK) * BLOCK_WORDS, c % CHUNKS_PER_BLOCK, q, smm);
    for (uint k = 0u; k < 8u; k++) {
        for (uint b = 0u; b < 4u; b++) {
            uint e = 4u * k + b;
            float s = e < 16u ? smm.x : smm.y;
            float m = e < 16u ? smm.z : smm.w;
            precise float v = s * float(i8(q[k], b)) + m;
            y[yb + e] = v;
        }
    }
#endif
}
