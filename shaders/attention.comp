// attention: causal grouped-query attention of q [n, heads, size] over caches k [ctx, kv_heads, size] and
// v [ctx, kv_heads, vsize] (F16 packed two to a word, or F32; value rows vstride apart, vstride > vsize when the
// values are the keys' leading elements and v is bound to the key cache), computed as the CPU backend computes it (after
// llama.cpp's graph without flash attention, in the reference build's arithmetic): s_c = k_c·q (q rounded to
// F16 for an F16 cache; with an F32 cache ggml_vec_dot_f32's 64 lanes), soft-capped, scaled; e_c = exp(s_c -
// max) by ggml_v_expf over the cells first…pos (first = pos - window + 1 with a window; with attention sinks the
// maximum includes head h's sink, and exp(sink - max), correctly rounded, joins the sum); Σ e summed per aligned
// group of 16 cells in float32 (a vector reduction) and across groups in double (double-float here);
// p = e·(1/Σ); out = Σ p_c·v_c: for an F16 V, p rounded to F16 and a float32 sum in cell order; for an F32 V,
// llamafile's tinyBLAS order, the reference build's for a batch of queries, for every query: 16 lanes (cell c
// in lane c mod 16, fused multiply-adds), reduced as _mm512_reduce_add_ps.
// One workgroup (128 invocations) per (query, head); query head h reads kv head h / (heads / kv_heads). Scores
// are kept in shared memory up to CH cells, and recomputed in each pass beyond. Cells are the positions of the
// query's sequence: cell c is cache row c, or, paged, row pages[seq·max_pages + c/page_size]·page_size +
// c%page_size. Positions, sequences and pages were checked by the host (others are clamped).
// Bindings: 0 = q, 1 = k, 2 = v, 3 = pos (int), 4 = seq (int), 5 = pages (int), 6 = y, 7 = sinks (float; bound
// to q when there are none).
//#variant attention_k16_v16 K_F16=1 V_F16=1
//#variant attention_k16_v32 K_F16=1 V_F16=0
//#variant attention_k32_v16 K_F16=0 V_F16=1
//#variant attention_k32_v32 K_F16=0 V_F16=0
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "common.glsl"
#include "numeric.glsl"
#include "reduce.glsl"

layout(push_constant) uniform Push {
    uint n;
    uint heads;
    uint kv_heads;
    uint size;
    uint vsize;
    uint ctx;
    uint window;
    uint q_off;
    uint k_off;
    uint v_off;
    uint pos_off;
    uint y_off;
    uint paged;
    uint page_size;
    uint max_pages;
    uint seq_off;
    uint pages_off;
    uint vstride;
    uint sinks; // 1 with attention sinks
    uint sinks_off;
    float scale;
    float softcap;
    float cap_inv;
} pc;

layout(std430, binding = 0) readonly buffer Q { float q[]; };
layout(std430, binding = 1) readonly buffer K { uint kc[]; };
layout(std430, binding = 2) readonly buffer V { uint vc[]; };
layout(std430, binding = 3) readonly buffer P { int pos[]; };
layout(std430, binding = 4) readonly buffer S { int seq[]; };
layout(std430, binding = 5) readonly buffer T { int pages[]; };
layout(std430, binding = 6) writeonly buffer Y { float y[]; };
layout(std430, binding = 7) readonly buffer SK { float sink[]; };

#define MAX_HEAD 640u
#define CH 2048u
#define WG 128u
#define VPT (MAX_HEAD / WG)

shared float sq[MAX_HEAD];
shared float sc[CH];

float kval(uint e) {
#if K_F16
    return unpackHalf2x16(kc[e >> 1] >> (16u * (e & 1u))).x;
#else
    return uintBitsToFloat(kc[e]);
#endif
}

float vval(uint e) {
#if V_F16
    return unpackHalf2x16(vc[e >> 1] >> (16u * (e & 1u))).x;
#else
    return uintBitsToFloat(vc[e]);
#endif
}

#if !K_F16
// kchain is lane l of ggml_vec_dot_f32(q, k): the fused sum of the elements l, l+64, … below np.
float kchain(uint off, uint l, uint np) {
    float a = 0.0;
    for (uint i = l; i < np; i += 64u) {
        a = fmaf(sq[i], kval(off + i), a);
    }
    return a;
}
#endif

// The table row of this workgroup's query (paged attention).
uint table_row;

// row returns the cache row of cell c of the query's sequence.
uint row(uint c) {
    if (pc.paged == 0u) {
        return c;
    }
    uint pg = uint(clamp(pages[pc.pages_off + table_row + c / pc.page_size], 0, int(pc.ctx / pc.page_size) - 1));
    return pg * pc.page_size + c % pc.page_size;
}

float score(uint cell, uint g) {
    uint off = pc.k_off + (row(cell) * pc.kv_heads + g) * pc.size;
#if K_F16
    precise float s = 0.0;
    for (uint d = 0u; d < pc.size; d++) {
        precise float prod = sq[d] * kval(off + d);
        s = s + prod;
    }
#else
    uint np = pc.size & ~63u;
    float r[16];
    for (uint e = 0u; e < 16u; e++) {
        precise float v = (kchain(off, e, np) + kchain(off, e + 32u, np)) + (kchain(off, e + 16u, np) + kchain(off, e + 48u, np));
        r[e] = v;
    }
    float s = reduce16(r);
    for (uint d = np; d < pc.size; d++) {
        s = tail_f32(s, sq[d], kval(off + d), d - np < ((pc.size - np) & ~7u));
    }
#endif
    if (pc.softcap > 0.0) {
        precise float t = s * pc.cap_inv;
        s = tanh_rn(t) * pc.softcap;
    }
    precise float res = s * pc.scale;
    return res;
}

void main() {
    uint u = flat_workgroup();
    if (u >= pc.n * pc.heads) {
        return;
    }
    uint lid = gl_LocalInvocationID.x;
    uint i = u / pc.heads, h = u % pc.heads, g = h / (pc.heads / pc.kv_heads);
    uint cells = pc.paged != 0u ? pc.max_pages * pc.page_size : pc.ctx;
    uint p = uint(clamp(pos[pc.pos_off + i], 0, int(cells) - 1));
    table_row = pc.paged != 0u ? uint(max(seq[pc.seq_off + i], 0)) * pc.max_pages : 0u;
    uint first = pc.window > 0u && p + 1u > pc.window ? p + 1u - pc.window : 0u;
    uint nk = p + 1u - first;
    bool kept = nk <= CH; // the scores (then the exponentials) stay in shared memory
    for (uint d = lid; d < pc.size; d += WG) {
        float v = q[pc.q_off + u * pc.size + d];
#if K_F16
        v = f16_round(v);
#endif
        sq[d] = v;
    }
    barrier();

    // The maximum score.
    float lm = uintBitsToFloat(0xff800000u);
    for (uint j = lid; j < nk; j += WG) {
        float s = score(first + j, g);
        if (kept) {
            sc[j] = s;
        }
        lm = max(lm, s);
    }
    float m = wg_max(lm);
    float sk = pc.sinks != 0u ? sink[pc.sinks_off + h] : 0.0;
    if (pc.sinks != 0u) {
        m = max(m, sk);
    }

    // Σ exp(s - max): per aligned group of 16 cells a float32 reduction of its lanes, the groups in double-float.
    vec2 ls = vec2(0.0);
    for (uint gi = first / 16u + lid; gi <= p / 16u; gi += WG) {
        float grp[16];
        for (uint l = 0u; l < 16u; l++) {
            uint c = gi * 16u + l;
            float e = 0.0;
            if (c >= first && c <= p) {
                e = vexpf((kept ? sc[c - first] : score(c, g)) - m);
                if (kept) {
                    sc[c - first] = e;
                }
            }
            grp[l] = e;
        }
        ls = df_add(ls, vec2(reduce16(grp), 0.0));
    }
    vec2 tot = wg_sum_df(ls);
    if (pc.sinks != 0u) {
        tot = df_add(tot, vec2(expf_rn(sk - m), 0.0));
    }
    float inv = df_recip(tot);

#if V_F16
    // p rounded to F16, then out[d] = Σ p_c·v_c[d] in cell order.
    float acc[VPT];
    for (uint k = 0u; k < VPT; k++) {
        acc[k] = 0.0;
    }
    for (uint c0 = 0u; c0 < nk; c0 += CH) {
        uint cn = min(CH, nk - c0);
        for (uint j = lid; j < cn; j += WG) {
            float e = kept ? sc[j] : vexpf(score(first + c0 + j, g) - m);
            precise float pj = e * inv;
            sc[j] = f16_round(pj);
        }
        barrier();
        for (uint k = 0u; k < VPT; k++) {
            uint d = lid + k * WG;
            if (d < pc.vsize) {
                float a = acc[k];
                for (uint j = 0u; j < cn; j++) {
                    precise float prod = sc[j] * vval(pc.v_off + (row(first + c0 + j) * pc.kv_heads + g) * pc.vstride + d);
                    a = a + prod;
                }
                acc[k] = a;
            }
        }
        barrier();
    }
    for (uint k = 0u; k < VPT; k++) {
        uint d = lid + k * WG;
        if (d < pc.vsize) {
            y[pc.y_off + u * pc.vsize + d] = acc[k];
        }
    }
#else
    // llamafile's tinyBLAS: 16 lanes per output (cell c in lane c mod 16).
    float lanes[VPT][16];
    for (uint k = 0u; k < VPT; k++) {
        for (uint l = 0u; l < 16u; l++) {
            lanes[k][l] = 0.0;
        }
    }
    for (uint c0 = 0u; c0 < nk; c0 += CH) {
        uint cn = min(CH, nk - c0);
        for (uint j = lid; j < cn; j += WG) {
            float e = kept ? sc[j] : vexpf(score(first + c0 + j, g) - m);
            precise float pj = e * inv;
            sc[j] = pj;
        }
        barrier();
        // Cells in aligned groups of 16, so that each lane index is the inner loop's constant.
        uint lo = first + c0, hi = lo + cn;
        for (uint k = 0u; k < VPT; k++) {
            uint d = lid + k * WG;
            if (d < pc.vsize) {
                for (uint cb = lo & ~15u; cb < hi; cb += 16u) {
                    for (uint l = 0u; l < 16u; l++) {
                        uint c = cb + l;
                        if (c >= lo && c < hi) {
                            lanes[k][l] = fmaf(sc[c - lo], vval(pc.v_off + (row(c) * pc.kv_heads + g) * pc.vstride + d), lanes[k][l]);
                        }
                    }
                }
            }
        }
        barrier();
    }
    for (uint k = 0u; k < VPT; k++) {
        uint d = lid + k * WG;
        if (d < pc.vsize) {
            y[pc.y_off + u * pc.vsize + d] = reduce16(lanes[k]);
        }
    }
#endif
}
