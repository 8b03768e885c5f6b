// attention: causal grouped-query attention of q [n, heads, size] over caches k [ctx, kv_heads, size] and
// v [ctx, kv_heads, vsize] (F16 packed two to a word, or F32), computed as llama.cpp's graph without flash
// attention: s_j = q·k_j (q rounded to F16 for an F16 cache), soft-capped, scaled; p = softmax(s) over keys
// first…pos (first = pos - window + 1 with a window); p rounded to F16 for an F16 V; out = Σ p_j·v_j.
// One workgroup (128 invocations) per (query, head); query head h reads kv head h / (heads / kv_heads).
// Scores are kept in shared memory (up to CH keys; beyond, they are recomputed in each pass): the maximum, the
// sum of exponentials (ggml_v_expf, summed in double-float as ggml sums in double), then the probabilities and
// the weighted sum of V. Dot products and the V sum run in key order in
// float32, as on the CPU. Positions were checked by the host (others are clamped).
// Bindings: 0 = q, 1 = k, 2 = v, 3 = pos (int), 4 = y.
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
    float scale;
    float softcap;
    float cap_inv;
} pc;

layout(std430, binding = 0) readonly buffer Q { float q[]; };
layout(std430, binding = 1) readonly buffer K { uint kc[]; };
layout(std430, binding = 2) readonly buffer V { uint vc[]; };
layout(std430, binding = 3) readonly buffer P { int pos[]; };
layout(std430, binding = 4) writeonly buffer Y { float y[]; };

#define MAX_HEAD 512u
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

float score(uint key, uint g) {
    uint off = pc.k_off + (key * pc.kv_heads + g) * pc.size;
    precise float s = 0.0;
    for (uint d = 0u; d < pc.size; d++) {
        precise float prod = sq[d] * kval(off + d);
        s = s + prod;
    }
    if (pc.softcap > 0.0) {
        precise float t = s * pc.cap_inv;
        s = tanh_rn(t) * pc.softcap;
    }
    precise float r = s * pc.scale;
    return r;
}

void main() {
    uint u = flat_workgroup();
    if (u >= pc.n * pc.heads) {
        return;
    }
    uint lid = gl_LocalInvocationID.x;
    uint i = u / pc.heads, h = u % pc.heads, g = h / (pc.heads / pc.kv_heads);
    uint p = uint(clamp(pos[pc.pos_off + i], 0, int(pc.ctx) - 1));
    uint first = pc.window > 0u && p + 1u > pc.window ? p + 1u - pc.window : 0u;
    uint nk = p + 1u - first;
    for (uint d = lid; d < pc.size; d += WG) {
        float v = q[pc.q_off + u * pc.size + d];
#if K_F16
        v = f16_round(v);
#endif
        sq[d] = v;
    }
    barrier();

    // The maximum over all keys, then Σ exp(s - max) in double-float (ggml sums in double), as the CPU does:
    // the scores are computed once when they fit in shared memory, else once per pass.
    float lm = uintBitsToFloat(0xff800000u);
    for (uint c0 = 0u; c0 < nk; c0 += CH) {
        uint cn = min(CH, nk - c0);
        for (uint j = lid; j < cn; j += WG) {
            float s = score(first + c0 + j, g);
            sc[j] = s;
            lm = max(lm, s);
        }
    }
    float m = wg_max(lm);
    vec2 ls = vec2(0.0);
    for (uint c0 = 0u; c0 < nk; c0 += CH) {
        uint cn = min(CH, nk - c0);
        for (uint j = lid; j < cn; j += WG) {
            float s = nk > CH ? score(first + c0 + j, g) : sc[j];
            ls = df_add(ls, vec2(vexpf(s - m), 0.0));
        }
    }
    float inv = df_recip(wg_sum_df(ls));

    float acc[VPT];
    for (uint k = 0u; k < VPT; k++) {
        acc[k] = 0.0;
    }
    for (uint c0 = 0u; c0 < nk; c0 += CH) {
        uint cn = min(CH, nk - c0);
        for (uint j = lid; j < cn; j += WG) {
            float s = nk > CH ? score(first + c0 + j, g) : sc[j];
            precise float pj = vexpf(s - m) * inv;
#if V_F16
            pj = f16_round(pj);
#endif
            sc[j] = pj;
        }
        barrier();
        for (uint k = 0u; k < VPT; k++) {
            uint d = lid + k * WG;
            if (d < pc.vsize) {
                float a = acc[k];
                for (uint j = 0u; j < cn; j++) {
                    precise float prod = sc[j] * vval(pc.v_off + ((first + c0 + j) * pc.kv_heads + g) * pc.vsize + d);
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
}
