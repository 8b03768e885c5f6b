// matvec_q: y = x·Wᵀ for a few (≤ 8) activation rows and a quantized weight, the decode-time product.
// W is [rows, cols] in a device layout of blocks.glsl, starting at word w_off; the activations are the chunks
// quantize.comp wrote (10 words per 32 elements) from word a_off, ncols rows of cols/32 chunks. A workgroup
// computes wg/tpr weight rows with tpr invocations each; an invocation computes the update of every tpr-th
// block of its row (matq.glsl), and the updates are then applied to the row's accumulators in block order
// through shared memory, so that the result is the CPU backend's whatever the GPU. y[y_off + c·y_stride + row].
// Bindings: 0 = W, 1 = activations, 2 = y. Dispatch ceil(rows / (wg/tpr)) workgroups (2D above 65535).
// The matvec_id variants multiply by chosen experts (mat_mul_id, id.glsl): workgroup z is a (row, slot) pair.
//#variant matvec_q4_0 WTYPE=3 ID=0
//#variant matvec_q8_0 WTYPE=4 ID=0
//#variant matvec_q4_k WTYPE=5 ID=0
//#variant matvec_q5_k WTYPE=6 ID=0
//#variant matvec_q6_k WTYPE=7 ID=0
//#variant matvec_q8s WTYPE=8 ID=0
//#variant matvec_id_q4_0 WTYPE=3 ID=1
//#variant matvec_id_q8_0 WTYPE=4 ID=1
//#variant matvec_id_q4_k WTYPE=5 ID=1
//#variant matvec_id_q5_k WTYPE=6 ID=1
//#variant matvec_id_q6_k WTYPE=7 ID=1
//#variant matvec_id_q8s WTYPE=8 ID=1
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
    uint tpr; // invocations per weight row: a power of two from 8 to the workgroup size
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
layout(std430, binding = 1) readonly buffer A { uint act[]; };
layout(std430, binding = 2) writeonly buffer Y { float y[]; };

#define ID_X_OFF pc.a_off
#include "id.glsl"

#include "blocks.glsl"
#include "matq.glsl"

#define MAXCOLS 8u
#define MINTPR 8u

shared vec2 contrib[gl_WorkGroupSize.x * NACC];
shared float accs[(gl_WorkGroupSize.x / MINTPR) * MAXCOLS * NACC];

// act_chunk reads activation chunk ch of activation row c.
void act_chunk(uint c, uint ch, out uint a[8], out vec2 ds) {
    uint ab = x_base + (c * pc.nchunks + ch) * 10u;
    for (uint k = 0u; k < 8u; k++) {
        a[k] = act[ab + k];
    }
    ds = vec2(uintBitsToFloat(act[ab + 8u]), uintBitsToFloat(act[ab + 9u]));
}

void main() {
    uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    uint rpw = wg / pc.tpr;
    uint lane = lid % pc.tpr, slot = lid / pc.tpr;
    uint row0 = flat_workgroup() * rpw, row = row0 + slot;
    uint nblocks = pc.nchunks / CHUNKS_PER_BLOCK;
    if (!id_setup(pc.nchunks * 10u)) {
        return;
    }
    for (uint t = lid; t < rpw * MAXCOLS * NACC; t += wg) {
        accs[t] = 0.0;
    }
    barrier();
    for (uint b0 = 0u; b0 < nblocks; b0 += pc.tpr) {
        uint blk = b0 + lane;
        bool valid = row < pc.rows && blk < nblocks;
        uint base = w_base + (row * nblocks + blk) * BLOCK_WORDS;
        for (uint c = 0u; c < pc.ncols; c++) {
            vec2 v[NACC];
            for (uint k = 0u; k < NACC; k++) {
                v[k] = vec2(0.0);
            }
            if (valid) {
                uint q[8], a[8];
                vec2 ds;
#if KQUANT
                int lanes[8] = int[8](0, 0, 0, 0, 0, 0, 0, 0);
                int mins[4] = int[4](0, 0, 0, 0);
                ivec2 cs[8];
                for (uint j = 0u; j < 8u; j++) {
                    ivec3 scm;
                    decode_kchunk(base, j, q, scm);
                    act_chunk(c, blk * 8u + j, a, ds);
                    if (FORM == FORM_KPAIRS) {
                        cs[j] = kchunk_sum(q, scm, a);
                    } else {
                        kchunk_lanes(j, q, scm, a, lanes, mins);
                    }
                }
                if (FORM == FORM_KPAIRS) {
                    kblock_pairs(kblock_dm(base), ds.x, cs, v);
                } else {
                    kblock_terms(kblock_dm(base), ds.x, lanes, mins, v);
                }
#else
                vec4 smm;
                decode_chunk(base, 0u, q, smm);
                act_chunk(c, blk, a, ds);
                block_terms(q, smm, a, ds.x, ds.y, v);
#endif
            }
            uint nu = nused(), nt = nterms();
            for (uint k = 0u; k < nt; k++) {
                contrib[lid * NACC + k] = v[k];
            }
            barrier();
            uint n = min(pc.tpr, nblocks - b0);
            for (uint t = lid; t < rpw * nu; t += wg) {
                uint s = t / nu, k = t % nu;
                float acc = accs[(s * MAXCOLS + c) * NACC + k];
                for (uint l = 0u; l < n; l++) {
                    for (uint j = 0u; j < nt / nu; j++) {
                        acc = apply_term(k, acc, contrib[(s * pc.tpr + l) * NACC + term_index(k, j)]);
                    }
                }
                accs[(s * MAXCOLS + c) * NACC + k] = acc;
            }
            barrier();
        }
    }
    for (uint t = lid; t < rpw * pc.ncols; t += wg) {
        uint s = t / pc.ncols, c = t % pc.ncols, r = row0 + s;
        if (r < pc.rows) {
            float acc[NACC];
            for (uint k = 0u; k < NACC; k++) {
                acc[k] = accs[(s * MAXCOLS + c) * NACC + k];
            }
            y[y_base + c * pc.y_stride + r] = finish(acc);
        }
    }
}
