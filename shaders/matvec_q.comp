// matvec_q: y = x·Wᵀ for a few (≤ 8) activation rows and a quantized weight, the decode-time product.
// W is [rows, cols] in a device layout of blocks.glsl, starting at word w_off; the activations are the chunks
// quantize.comp wrote (10 words per 32 elements) from word a_off, ncols rows of cols/32 chunks. Each workgroup
// computes one weight row: invocations take strided chunks, decode each once and dot it with every activation
// row; subgroupAdd and shared memory reduce the sums. y[y_off + c·y_stride + row] for activation row c.
// Bindings: 0 = W, 1 = activations, 2 = y. Dispatch rows workgroups (2D above 65535).
//#variant matvec_q4_0 WTYPE=3
//#variant matvec_q8_0 WTYPE=4
//#variant matvec_q4_k WTYPE=5
//#variant matvec_q5_k WTYPE=6
//#variant matvec_q6_k WTYPE=7
//#variant matvec_q8s WTYPE=8
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "common.glsl"
#include "numeric.glsl"

layout(constant_id = 1) const bool ACT_Q81 = false;

layout(push_constant) uniform Push {
    uint rows;
    uint nchunks;
    uint ncols;
    uint w_off;
    uint a_off;
    uint y_off;
    uint y_stride;
    uint tpr; // invocations per weight row: a power of two dividing the workgroup size
} pc;

layout(std430, binding = 0) readonly buffer W { uint w[]; };
layout(std430, binding = 1) readonly buffer A { uint act[]; };
layout(std430, binding = 2) writeonly buffer Y { float y[]; };

#include "blocks.glsl"
#include "matq.glsl"

#define MAXCOLS 8u

#include "matvec_reduce.glsl"

void main() {
    uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    uint lane = lid % pc.tpr, slot = lid / pc.tpr;
    uint row = flat_workgroup() * (wg / pc.tpr) + slot;
    float acc[MAXCOLS];
    for (uint c = 0u; c < MAXCOLS; c++) {
        acc[c] = 0.0;
    }
    if (row < pc.rows) {
        uint rbase = pc.w_off + row * (pc.nchunks / CHUNKS_PER_BLOCK) * BLOCK_WORDS;
        for (uint ch = lane; ch < pc.nchunks; ch += pc.tpr) {
            uint q[8];
            vec4 smm;
            decode_chunk(rbase + (ch / CHUNKS_PER_BLOCK) * BLOCK_WORDS, ch % CHUNKS_PER_BLOCK, q, smm);
            for (uint c = 0u; c < pc.ncols; c++) {
                uint ab = pc.a_off + (c * pc.nchunks + ch) * 10u;
                uint a[8];
                for (uint k = 0u; k < 8u; k++) {
                    a[k] = act[ab + k];
                }
                acc[c] += chunk_dot(q, smm, a, uintBitsToFloat(act[ab + 8u]), uintBitsToFloat(act[ab + 9u]));
            }
        }
    }
    reduce_rows(acc, lid, lane, slot, row);
}
