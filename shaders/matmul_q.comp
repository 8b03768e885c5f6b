// matmul_q: y = x·Wᵀ for many activation rows and a quantized weight, the prefill product. Each workgroup of
// 128 invocations computes a tile of weight rows × activation rows: per step it decodes a few blocks of each
// of its weight rows and loads the matching activation chunks into shared memory, then every invocation applies
// those blocks to the accumulators of its outputs (one weight row × four activation rows) in block order, as
// matq.glsl forms them, so results equal the CPU backend's. Operands and push constants as matvec_q (no tpr).
//   32-element types: tiles of 32 weight rows × 16 activation rows, 4 blocks per step.
//   K-quants: tiles of 16 × 32, one super-block per step.
// Bindings: 0 = W, 1 = activations, 2 = y. Dispatch (ceil(rows/TM), ceil(ncols/TN)) workgroups.
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

layout(constant_id = 1) const uint FORM = 0;

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

#define WG 128u
#if KQUANT
#define TM 16u
#define TN 32u
#define KC 8u // chunks per step: one super-block
#define SWC 11u // shared words per weight chunk: 8 quant words, two scales, the minimum's scale
#else
#define TM 32u
#define TN 16u
#define KC 4u
#define SWC 12u // 8 quant words, s0, s1, m0, m1
#endif
#define NPT (TN * TM / WG)

shared uint sw[TM * KC * SWC];
shared uint sa[TN * KC * 10u];
#if KQUANT
shared vec2 sdm[TM];
#endif

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint m0 = gl_WorkGroupID.x * TM, n0 = gl_WorkGroupID.y * TN;
    uint m = lid % TM, ng = lid / TM;
    uint bpr = pc.nchunks / CHUNKS_PER_BLOCK;
    float acc[NPT][NACC];
    for (uint i = 0u; i < NPT; i++) {
        for (uint k = 0u; k < NACC; k++) {
            acc[i][k] = 0.0;
        }
    }
    for (uint k0 = 0u; k0 < pc.nchunks; k0 += KC) {
        for (uint idx = lid; idx < TM * KC; idx += WG) {
            uint mm = idx / KC, c = idx % KC, row = m0 + mm, ch = k0 + c;
            uint q[8];
            for (uint k = 0u; k < 8u; k++) {
                q[k] = 0u;
            }
            uint sb = idx * SWC;
#if KQUANT
            ivec3 scm = ivec3(0);
            if (row < pc.rows) {
                decode_kchunk(pc.w_off + (row * bpr + ch / 8u) * BLOCK_WORDS, c, q, scm);
                if (c == 0u) {
                    sdm[mm] = kblock_dm(pc.w_off + (row * bpr + ch / 8u) * BLOCK_WORDS);
                }
            }
            sw[sb + 8u] = uint(scm.x);
            sw[sb + 9u] = uint(scm.y);
            sw[sb + 10u] = uint(scm.z);
#else
            vec4 smm = vec4(0.0);
            if (row < pc.rows && ch < pc.nchunks) {
                decode_chunk(pc.w_off + (row * bpr + ch) * BLOCK_WORDS, 0u, q, smm);
            }
            sw[sb + 8u] = floatBitsToUint(smm.x);
            sw[sb + 9u] = floatBitsToUint(smm.y);
            sw[sb + 10u] = floatBitsToUint(smm.z);
            sw[sb + 11u] = floatBitsToUint(smm.w);
#endif
            for (uint k = 0u; k < 8u; k++) {
                sw[sb + k] = q[k];
            }
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
        for (uint i = 0u; i < NPT; i++) {
            uint nb = (ng * NPT + i) * KC * 10u;
            vec2 t[NACC];
#if KQUANT
            int lanes[8] = int[8](0, 0, 0, 0, 0, 0, 0, 0);
            int mins[4] = int[4](0, 0, 0, 0);
            ivec2 cs[8];
            for (uint c = 0u; c < KC; c++) {
                uint sb = (m * KC + c) * SWC, ab = nb + c * 10u;
                uint q[8], a[8];
                for (uint k = 0u; k < 8u; k++) {
                    q[k] = sw[sb + k];
                    a[k] = sa[ab + k];
                }
                ivec3 scm = ivec3(int(sw[sb + 8u]), int(sw[sb + 9u]), int(sw[sb + 10u]));
                if (FORM == FORM_KPAIRS) {
                    cs[c] = kchunk_sum(q, scm, a);
                } else {
                    kchunk_lanes(c, q, scm, a, lanes, mins);
                }
            }
            if (FORM == FORM_KPAIRS) {
                kblock_pairs(sdm[m], uintBitsToFloat(sa[nb + 8u]), cs, t);
            } else {
                kblock_terms(sdm[m], uintBitsToFloat(sa[nb + 8u]), lanes, mins, t);
            }
            for (uint k = 0u; k < nused(); k++) {
                for (uint j = 0u; j < nterms() / nused(); j++) {
                    acc[i][k] = apply_term(k, acc[i][k], t[term_index(k, j)]);
                }
            }
#else
            for (uint c = 0u; c < KC; c++) {
                if (k0 + c >= pc.nchunks) {
                    break;
                }
                uint sb = (m * KC + c) * SWC, ab = nb + c * 10u;
                uint q[8], a[8];
                for (uint k = 0u; k < 8u; k++) {
                    q[k] = sw[sb + k];
                    a[k] = sa[ab + k];
                }
                vec4 smm = vec4(uintBitsToFloat(sw[sb + 8u]), uintBitsToFloat(sw[sb + 9u]), uintBitsToFloat(sw[sb + 10u]),
                                uintBitsToFloat(sw[sb + 11u]));
                block_terms(q, smm, a, uintBitsToFloat(sa[ab + 8u]), uintBitsToFloat(sa[ab + 9u]), t);
                for (uint k = 0u; k < nused(); k++) {
                    acc[i][k] = apply_term(k, acc[i][k], t[k]);
                }
            }
#endif
        }
        barrier();
    }
    uint row = m0 + m;
    if (row < pc.rows) {
        for (uint i = 0u; i < NPT; i++) {
            uint col = n0 + ng * NPT + i;
            if (col < pc.ncols) {
                y[pc.y_off + col * pc.y_stride + row] = finish(acc[i]);
            }
        }
    }
}
