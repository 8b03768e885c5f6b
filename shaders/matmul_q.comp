// matmul_q: y = x·Wᵀ for many activation rows and a quantized weight, the prefill product. Each workgroup
// (128 invocations) computes a tile of 32 weight rows × 32 activation rows: per step it decodes 4 chunks of
// each of its weight rows and loads the matching activation chunks into shared memory, then every invocation
// dots one weight row with 8 activation rows. Operands and push constants as matvec_q (ncols any number).
// Bindings: 0 = W, 1 = activations, 2 = y. Dispatch (ceil(rows/32), ceil(ncols/32)) workgroups.
//#variant matmul_q4_0 WTYPE=3
//#variant matmul_q8_0 WTYPE=4
//#variant matmul_q4_k WTYPE=5
//#variant matmul_q5_k WTYPE=6
//#variant matmul_q6_k WTYPE=7
//#variant matmul_q8s WTYPE=8
#version 450
#extension GL_GOOGLE_include_directive : require
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
} pc;

layout(std430, binding = 0) readonly buffer W { uint w[]; };
layout(std430, binding = 1) readonly buffer A { uint act[]; };
layout(std430, binding = 2) writeonly buffer Y { float y[]; };

#include "blocks.glsl"
#include "matq.glsl"

#define TM 32u
#define TN 32u
#define KC 4u
#define WG 128u
#define NPT (TN * TM / WG)

shared uint sw[TM * KC * 12u];
shared uint sa[TN * KC * 10u];

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint m0 = gl_WorkGroupID.x * TM, n0 = gl_WorkGroupID.y * TN;
    uint m = lid % TM, ng = lid / TM;
    uint bpr = pc.nchunks / CHUNKS_PER_BLOCK;
    float acc[NPT];
    for (uint i = 0u; i < NPT; i++) {
        acc[i] = 0.0;
    }
    for (uint k0 = 0u; k0 < pc.nchunks; k0 += KC) {
        for (uint idx = lid; idx < TM * KC; idx += WG) {
            uint mm = idx / KC, c = idx % KC, row = m0 + mm, ch = k0 + c;
            uint q[8];
            vec4 smm = vec4(0.0);
            for (uint k = 0u; k < 8u; k++) {
                q[k] = 0u;
            }
            if (row < pc.rows && ch < pc.nchunks) {
                decode_chunk(pc.w_off + (row * bpr + ch / CHUNKS_PER_BLOCK) * BLOCK_WORDS, ch % CHUNKS_PER_BLOCK, q, smm);
            }
            uint sb = idx * 12u;
            for (uint k = 0u; k < 8u; k++) {
                sw[sb + k] = q[k];
            }
            sw[sb + 8u] = floatBitsToUint(smm.x);
            sw[sb + 9u] = floatBitsToUint(smm.y);
            sw[sb + 10u] = floatBitsToUint(smm.z);
            sw[sb + 11u] = floatBitsToUint(smm.w);
        }
        for (uint idx = lid; idx < TN * KC * 10u; idx += WG) {
            uint n = idx / (KC * 10u), rest = idx % (KC * 10u), c = rest / 10u;
            uint col = n0 + n, ch = k0 + c;
            uint v = 0u;
            if (col < pc.ncols && ch < pc.nchunks) {
                v = act[pc.a_off + (col * pc.nchunks + ch) * 10u + rest % 10u];
            }
            sa[idx] = v;
        }
        barrier();
        for (uint c = 0u; c < KC; c++) {
            uint sb = (m * KC + c) * 12u;
            uint q[8];
            for (uint k = 0u; k < 8u; k++) {
                q[k] = sw[sb + k];
            }
            vec4 smm = vec4(uintBitsToFloat(sw[sb + 8u]), uintBitsToFloat(sw[sb + 9u]), uintBitsToFloat(sw[sb + 10u]),
                            uintBitsToFloat(sw[sb + 11u]));
            for (uint i = 0u; i < NPT; i++) {
                uint ab = ((ng * NPT + i) * KC + c) * 10u;
                uint a[8];
                for (uint k = 0u; k < 8u; k++) {
                    a[k] = sa[ab + k];
                }
                acc[i] += chunk_dot(q, smm, a, uintBitsToFloat(sa[ab + 8u]), uintBitsToFloat(sa[ab + 9u]));
            }
        }
        barrier();
    }
    uint row = m0 + m;
    if (row < pc.rows) {
        for (uint i = 0u; i < NPT; i++) {
            uint col = n0 + ng * NPT + i;
            if (col < pc.ncols) {
                y[pc.y_off + col * pc.y_stride + row] = acc[i];
            }
        }
    }
}
