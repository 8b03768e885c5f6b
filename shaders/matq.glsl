// matq.glsl: dot products of decoded weight chunks (blocks.glsl) with quantized activations (quantize.comp), each
// block formed as gguf/quant's reference dot products (ggml's generic kernels) form it: exact integer sums, then
// the same float32 products in the same association. Blocks are then added in order by the including kernel, so
// a row's result is that of the CPU backend. The including shader declares ACT (a uint constant), the
// activation type of Q8S weights: 0 for Q8_0 (Q5_0, IQ4_NL, MXFP4), 1 for Q8_1 (Q4_1, Q5_1, whose minimum term
// uses the activation block's stored sum), 2 for Q8_K (Q2_K, Q3_K, IQ4_XS: scaled per half, not in ggml's
// association).
#ifndef FORMA_MATQ_GLSL
#define FORMA_MATQ_GLSL

// block32_term is the contribution of a 32-element block (chunk) of a Q4_0, Q8_0 or Q8S row.
float block32_term(uint q[8], vec4 smm, uint a[8], float da, float sa) {
    int i0 = 0, i1 = 0, a0 = 0, a1 = 0;
    for (uint k = 0u; k < 4u; k++) {
        for (uint b = 0u; b < 4u; b++) {
            int y = i8(a[k], b);
            i0 += i8(q[k], b) * y;
            a0 += y;
            int y1 = i8(a[k + 4u], b);
            i1 += i8(q[k + 4u], b) * y1;
            a1 += y1;
        }
    }
#if WTYPE == WT_Q4_0
    precise float t = float(i0 + i1) * smm.x;
    precise float r = t * da;
#elif WTYPE == WT_Q8_0
    precise float dd = smm.x * da;
    precise float r = float(i0 + i1) * dd;
#else
    precise float r;
    if (ACT == 1u) {
        precise float dd = smm.x * da;
        precise float t = dd * float(i0 + i1);
        precise float mm = smm.z * sa;
        r = t + mm;
    } else if (ACT == 0u) {
        precise float dd = smm.x * da;
        r = dd * float(i0 + i1);
    } else {
        r = da * (smm.x * float(i0) + smm.y * float(i1)) + da * (smm.z * float(a0) + smm.w * float(a1));
    }
#endif
    return r;
}

#if KQUANT
// kchunk_lanes adds a K-quant chunk into ggml's eight integer lanes (lane = element mod 8, each product times
// its group's scale) and its minimum term (scale of the minimum times the activations' sum).
void kchunk_lanes(uint q[8], ivec3 scm, uint a[8], inout int lanes[8], inout int mins) {
    int sum = 0;
    for (uint k = 0u; k < 8u; k++) {
        int sc = k < 4u ? scm.x : scm.y;
        for (uint b = 0u; b < 4u; b++) {
            int y = i8(a[k], b);
            lanes[(4u * k + b) & 7u] += sc * i8(q[k], b) * y;
            sum += y;
        }
    }
    mins += scm.z * sum;
}

// kblock_contrib turns a block's lanes into ggml's float32 contributions: lanes[l]·(d·yd) to accumulator l, and
// -(dmin·yd)·mins to the running sum (index 8).
void kblock_contrib(vec2 dm, float yd, int lanes[8], int mins, out float c[9]) {
    precise float d = dm.x * yd;
    for (uint l = 0u; l < 8u; l++) {
        precise float v = d * float(lanes[l]);
        c[l] = v;
    }
    precise float dmin = dm.y * yd;
    precise float m = dmin * float(mins);
    c[8] = -m;
}
#endif

#endif
