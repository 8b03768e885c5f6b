// matq.glsl: the dot products of quantized weight rows with quantized activations (quantize.comp), block by
// block as the CPU backend forms them after llama.cpp's x86-64 kernels (gguf/quant's Dot functions): exact
// integer sums, then float32 operations in the same order, fused where they fuse.
//
// A row's result is kept in NACC accumulators, updated once per block in block order. block_terms computes a
// block's update of each accumulator as a pair (x, y); the kernel applies it in order as acc = fmaf(x, y, acc)
// for the fused accumulators and acc = acc + x for the others, and finish combines the accumulators:
//   FORM_GENERIC     acc0 += (da·d)·s                                     MXFP4
//   FORM_LANES       lane i (elements 4i…4i+3 of each block) = fma(d·da, s_i, lane i); hsum of the lanes
//                                                                        Q4_0, Q5_0, Q8_0, IQ4_NL
//   FORM_LANES_MIN   the lanes, plus acc8 += m·sa; hsum + acc8           Q4_1, Q5_1
//   FORM_BLOCK       acc0 = fma(s, d·da, acc0)                             Q4_0, IQ4_NL with a multiple of 8 rows
//   FORM_HALVES      acc0 += da·(s0·Σ0 + s1·Σ1) + da·(m0·A0 + m1·A1)        Q2_K, Q3_K, IQ4_XS as Q8S (not
//                                                                        llama.cpp's association)
//   K-quants         the reference build's AVX2 lanes (kchunk_lanes): lane l = fma(d·yd, lanes[l], lane l), and
//                    hsum_float_8 at the end; Q5_K adds acc8 = fma(−dmin·yd, mins, acc8), Q4_K its four pair
//                    minimum terms into acc8…acc11 likewise, added (8+10) + (9+11)
//   FORM_KPAIRS      per pair of groups acc0 = fma(s, d·yd, acc0) and acc1 = fma(m, dmin·yd, acc1); acc0 - acc1
//                                                                        Q4_K with a multiple of 8 rows (repacked)
// The including shader defines FORM (a uint constant) and, for K-quants, KQUANT (blocks.glsl).
#ifndef FORMA_MATQ_GLSL
#define FORMA_MATQ_GLSL

#define FORM_GENERIC 0u
#define FORM_LANES 1u
#define FORM_LANES_MIN 2u
#define FORM_BLOCK 3u
#define FORM_HALVES 4u
#define FORM_KPAIRS 5u

#if WTYPE == WT_Q4_K
#define NACC 12u
#else
#define NACC 9u
#endif

// nused is the number of accumulators the form uses (the others stay 0).
uint nused() {
#if KQUANT
#if WTYPE == WT_Q6_K
    return 8u;
#endif
    return FORM == FORM_KPAIRS ? 2u : NACC;
#else
    if (FORM == FORM_LANES) {
        return 8u;
    }
    return FORM == FORM_LANES_MIN ? 9u : 1u;
#endif
}

// fused reports whether accumulator k takes fused multiply-adds.
bool fused(uint k) {
#if KQUANT
    return true;
#else
    return ((FORM == FORM_LANES || FORM == FORM_LANES_MIN) && k < 8u) || (FORM == FORM_BLOCK && k == 0u);
#endif
}

// apply_term updates accumulator k with the pair (x, y).
float apply_term(uint k, float acc, vec2 t) {
    if (fused(k)) {
        return fmaf(t.x, t.y, acc);
    }
    precise float r = acc + t.x;
    return r;
}

// nterms is the number of terms a block contributes: one per accumulator, but four per accumulator (one per pair
// of groups, in order) for FORM_KPAIRS, whose term k + p·4… see kblock_pairs.
uint nterms() {
#if KQUANT
    if (FORM == FORM_KPAIRS) {
        return 8u;
    }
#endif
    return nused();
}

// term_index is the index of term j (< terms per accumulator) of accumulator k in a block's terms.
uint term_index(uint k, uint j) {
    return nterms() == nused() ? k : 4u * k + j;
}

// finish combines a row's accumulators into its result.
float finish(float acc[NACC]) {
#if KQUANT
    if (FORM == FORM_KPAIRS) {
        precise float d = acc[0] - acc[1];
        return d;
    }
    precise float h0 = acc[0] + acc[4], h1 = acc[1] + acc[5], h2 = acc[2] + acc[6], h3 = acc[3] + acc[7];
    precise float h = (h0 + h2) + (h1 + h3); // hsum_float_8
#if WTYPE == WT_Q5_K
    h = h + acc[8];
#elif WTYPE == WT_Q4_K
    precise float m = (acc[8] + acc[10]) + (acc[9] + acc[11]);
    h = h + m;
#endif
    return h;
#else
    if (FORM == FORM_LANES || FORM == FORM_LANES_MIN) {
        precise float r0 = acc[4] + acc[0], r1 = acc[5] + acc[1], r2 = acc[6] + acc[2], r3 = acc[7] + acc[3];
        precise float r = (r0 + r2) + (r1 + r3);
        if (FORM == FORM_LANES_MIN) {
            r = r + acc[8];
        }
        return r;
    }
    return acc[0];
#endif
}

#if !KQUANT
// block_terms computes a 32-element block's updates of the accumulators.
void block_terms(uint q[8], vec4 smm, uint a[8], float da, float sa, out vec2 t[NACC]) {
    int lane[8];
    int a0 = 0, a1 = 0;
    for (uint k = 0u; k < 8u; k++) {
        lane[k] = 0;
        for (uint b = 0u; b < 4u; b++) {
            int y = i8(a[k], b);
            lane[k] += i8(q[k], b) * y;
            if (k < 4u) {
                a0 += y;
            } else {
                a1 += y;
            }
        }
    }
    for (uint k = 0u; k < NACC; k++) {
        t[k] = vec2(0.0);
    }
    int s = ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
    precise float dd = smm.x * da;
    if (FORM == FORM_LANES || FORM == FORM_LANES_MIN) {
        for (uint k = 0u; k < 8u; k++) {
            t[k] = vec2(dd, float(lane[k]));
        }
        if (FORM == FORM_LANES_MIN) {
            precise float ms = smm.z * sa;
            t[8] = vec2(ms, 0.0);
        }
    } else if (FORM == FORM_BLOCK) {
        t[0] = vec2(float(s), dd);
    } else if (FORM == FORM_GENERIC) {
        precise float dd2 = da * smm.x;
        precise float r = dd2 * float(s);
        t[0] = vec2(r, 0.0);
    } else {
        int i0 = (lane[0] + lane[1]) + (lane[2] + lane[3]), i1 = (lane[4] + lane[5]) + (lane[6] + lane[7]);
        float r = da * (smm.x * float(i0) + smm.y * float(i1)) + da * (smm.z * float(a0) + smm.w * float(a1));
        t[0] = vec2(r, 0.0);
    }
}
#else
// kchunk_lanes adds chunk j of a K-quant block into the reference build's AVX2 integer lanes: lane k sums the
// chunk's bytes 4k…4k+3, each product times its group's scale; mins[j/2] gets the chunk's minimum term (scale
// of the minimum times the activations' sum). Q6_K takes its quants unsigned (q + 32), and lane j loses
// 32·(scale·Σ y) of the chunk's two groups.
void kchunk_lanes(uint j, uint q[8], ivec3 scm, uint a[8], inout int lanes[8], inout int mins[4]) {
    int sum = 0, s0 = 0, s1 = 0;
    for (uint k = 0u; k < 8u; k++) {
        int sc = k < 4u ? scm.x : scm.y;
        for (uint b = 0u; b < 4u; b++) {
            int y = i8(a[k], b);
#if WTYPE == WT_Q6_K
            lanes[k] += sc * (i8(q[k], b) + 32) * y;
            if (k < 4u) {
                s0 += y;
            } else {
                s1 += y;
            }
#else
            lanes[k] += sc * i8(q[k], b) * y;
#endif
            sum += y;
        }
    }
#if WTYPE == WT_Q6_K
    lanes[j] -= 32 * (scm.x * s0 + scm.y * s1);
#endif
    mins[j / 2u] += scm.z * sum;
}

// kchunk_sum returns a K-quant chunk's integer sum (each product times the group's scale) and its minimum term.
ivec2 kchunk_sum(uint q[8], ivec3 scm, uint a[8]) {
    int s0 = 0, s1 = 0, sum = 0;
    for (uint k = 0u; k < 8u; k++) {
        for (uint b = 0u; b < 4u; b++) {
            int y = i8(a[k], b);
            if (k < 4u) {
                s0 += i8(q[k], b) * y;
            } else {
                s1 += i8(q[k], b) * y;
            }
            sum += y;
        }
    }
    return ivec2(scm.x * s0 + scm.y * s1, scm.z * sum);
}

// kblock_pairs turns a super-block's chunk sums (kchunk_sum) into its FORM_KPAIRS terms: term p (the sum of
// groups 2p, 2p+1) for accumulator 0 with d·yd, term 4 + p (their minimum terms) for accumulator 1 with dmin·yd.
void kblock_pairs(vec2 dm, float yd, ivec2 cs[8], out vec2 t[NACC]) {
    precise float d = dm.x * yd;
    precise float dmin = dm.y * yd;
    for (uint p = 0u; p < 4u; p++) {
        t[p] = vec2(float(cs[2u * p].x + cs[2u * p + 1u].x), d);
        t[4u + p] = vec2(float(cs[2u * p].y + cs[2u * p + 1u].y), dmin);
    }
    for (uint k = 8u; k < NACC; k++) {
        t[k] = vec2(0.0);
    }
}

// kblock_terms turns a super-block's lanes into its updates: lanes[l] with d·yd to accumulator l; for Q5_K the
// whole minimum term, for Q4_K each pair's, with −dmin·yd to accumulator 8 (8…11).
void kblock_terms(vec2 dm, float yd, int lanes[8], int mins[4], out vec2 t[NACC]) {
    precise float d = dm.x * yd;
    for (uint l = 0u; l < 8u; l++) {
        t[l] = vec2(float(lanes[l]), d);
    }
    precise float dmin = dm.y * yd;
#if WTYPE == WT_Q5_K
    t[8] = vec2(float(mins[0] + mins[1] + mins[2] + mins[3]), -dmin);
#elif WTYPE == WT_Q4_K
    for (uint p = 0u; p < 4u; p++) {
        t[8u + p] = vec2(float(mins[p]), -dmin);
    }
#else
    t[8] = vec2(0.0);
#endif
}
#endif

#endif
