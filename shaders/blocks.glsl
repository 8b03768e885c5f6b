// blocks.glsl: forma's device layouts of quantized weights, decoded 32 elements (a "chunk") at a time.
//
// The including shader declares the weight buffer `uint w[]` and defines WTYPE (one of the WT_ values). The
// Vulkan backend (accel/vulkan/layout.go) writes every block as whole 32-bit words:
//   WT_Q4_0  5 words per 32:  d (f16, low half of word 0), 16 bytes of nibbles (element k low, k+16 high)
//   WT_Q8_0  9 words per 32:  d (f16, low half of word 0), 32 int8
//   WT_Q4_K  36 words per 256: GGUF's Q4_K block unchanged (d, dmin, 12 scale bytes, 128 nibble bytes)
//   WT_Q5_K  44 words per 256: GGUF's Q5_K block unchanged (d, dmin, scales, qh[32], qs[128])
//   WT_Q6_K  53 words per 256: GGUF's Q6_K block (ql[128], qh[64], scales[16], d) and two bytes of padding
//   WT_Q8S   12 words per 32:  32 int8 q, then s0, s1, m0, m1 (float32): element j is s·q + m with s, m of its
//                              half (j < 16: s0, m0). Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, IQ4_NL, IQ4_XS and MXFP4
//                              are converted to it exactly at upload.
// decode_chunk(base, j) decodes chunk j of the block starting at word base into 32 int8 quants packed four to
// a word, q[k] holding elements 4k…4k+3 (low byte first), and smm = (s0, s1, m0, m1): element i of the chunk is
// s·q_i + m with the scale and minimum of its half. Scales are formed as llama.cpp's dequantization forms them
// (d·scale, exact in float32), so s·q + m is bit-identical to gguf/quant's dequantized value.
#ifndef FORMA_BLOCKS_GLSL
#define FORMA_BLOCKS_GLSL

#define WT_F32 0
#define WT_F16 1
#define WT_BF16 2
#define WT_Q4_0 3
#define WT_Q8_0 4
#define WT_Q4_K 5
#define WT_Q5_K 6
#define WT_Q6_K 7
#define WT_Q8S 8

#if WTYPE == WT_Q4_0
#define BLOCK_ELEMS 32u
#define BLOCK_WORDS 5u
#define HAS_MIN 0
#elif WTYPE == WT_Q8_0
#define BLOCK_ELEMS 32u
#define BLOCK_WORDS 9u
#define HAS_MIN 0
#elif WTYPE == WT_Q4_K
#define BLOCK_ELEMS 256u
#define BLOCK_WORDS 36u
#define HAS_MIN 1
#elif WTYPE == WT_Q5_K
#define BLOCK_ELEMS 256u
#define BLOCK_WORDS 44u
#define HAS_MIN 1
#elif WTYPE == WT_Q6_K
#define BLOCK_ELEMS 256u
#define BLOCK_WORDS 53u
#define HAS_MIN 0
#elif WTYPE == WT_Q8S
#define BLOCK_ELEMS 32u
#define BLOCK_WORDS 12u
#define HAS_MIN 1
#endif
#define CHUNKS_PER_BLOCK (BLOCK_ELEMS / 32u)

// i8x4_sub subtracts b from each of four bytes below 128, giving packed int8 (no borrow between bytes).
uint i8x4_sub(uint x, uint b) {
    return ((x | 0x80808080u) - b * 0x01010101u) ^ 0x80808080u;
}

// byte_at reads byte i counted from word base.
uint byte_at(uint base, uint i) {
    return (w[base + (i >> 2)] >> (8u * (i & 3u))) & 0xffu;
}

#if WTYPE == WT_Q4_K || WTYPE == WT_Q5_K
// scale_min_k4 is ggml's get_scale_min_k4 over the 12 scale bytes starting at byte 4 of the block.
uvec2 scale_min_k4(uint base, uint j) {
    if (j < 4u) {
        return uvec2(byte_at(base, 4u + j) & 63u, byte_at(base, 8u + j) & 63u);
    }
    uint a = byte_at(base, 8u + j), lo = byte_at(base, j), hi = byte_at(base, 4u + j);
    return uvec2((a & 0xfu) | ((lo >> 6) << 4), (a >> 4) | ((hi >> 6) << 4));
}
#endif

void decode_chunk(uint base, uint j, out uint q[8], out vec4 smm) {
#if WTYPE == WT_Q4_0
    float d = f16_value(w[base]);
    for (uint k = 0u; k < 4u; k++) {
        uint v = w[base + 1u + k];
        q[k] = i8x4_sub(v & 0x0f0f0f0fu, 8u);
        q[k + 4u] = i8x4_sub((v >> 4) & 0x0f0f0f0fu, 8u);
    }
    smm = vec4(d, d, 0.0, 0.0);
#elif WTYPE == WT_Q8_0
    float d = f16_value(w[base]);
    for (uint k = 0u; k < 8u; k++) {
        q[k] = w[base + 1u + k];
    }
    smm = vec4(d, d, 0.0, 0.0);
#elif WTYPE == WT_Q4_K
    uint g = j >> 1, sh = 4u * (j & 1u);
    for (uint k = 0u; k < 8u; k++) {
        q[k] = (w[base + 4u + 8u * g + k] >> sh) & 0x0f0f0f0fu;
    }
    vec2 dm = unpackHalf2x16(w[base]);
    uvec2 sm = scale_min_k4(base, j);
    float s = dm.x * float(sm.x), m = -(dm.y * float(sm.y));
    smm = vec4(s, s, m, m);
#elif WTYPE == WT_Q5_K
    uint g = j >> 1, sh = 4u * (j & 1u);
    for (uint k = 0u; k < 8u; k++) {
        uint lo = (w[base + 12u + 8u * g + k] >> sh) & 0x0f0f0f0fu;
        uint hi = ((w[base + 4u + k] >> j) & 0x01010101u) << 4;
        q[k] = lo | hi;
    }
    vec2 dm = unpackHalf2x16(w[base]);
    uvec2 sm = scale_min_k4(base, j);
    float s = dm.x * float(sm.x), m = -(dm.y * float(sm.y));
    smm = vec4(s, s, m, m);
#elif WTYPE == WT_Q6_K
    uint half_ = j >> 2, r = j & 3u;
    uint lbase = base + 16u * half_ + 8u * (r & 1u), lsh = 4u * (r >> 1);
    uint hbase = base + 32u + 8u * half_, hsh = 2u * r;
    for (uint k = 0u; k < 8u; k++) {
        uint lo = (w[lbase + k] >> lsh) & 0x0f0f0f0fu;
        uint hi = ((w[hbase + k] >> hsh) & 0x03030303u) << 4;
        q[k] = i8x4_sub(lo | hi, 32u);
    }
    float d = f16_value(w[base + 52u]);
    uint sc = 192u + 8u * half_ + 2u * r;
    float s0 = d * float(int(byte_at(base, sc) << 24) >> 24);
    float s1 = d * float(int(byte_at(base, sc + 1u) << 24) >> 24);
    smm = vec4(s0, s1, 0.0, 0.0);
#elif WTYPE == WT_Q8S
    for (uint k = 0u; k < 8u; k++) {
        q[k] = w[base + k];
    }
    smm = vec4(uintBitsToFloat(w[base + 8u]), uintBitsToFloat(w[base + 9u]), uintBitsToFloat(w[base + 10u]),
               uintBitsToFloat(w[base + 11u]));
#endif
}

#if WTYPE == WT_Q4_K || WTYPE == WT_Q5_K || WTYPE == WT_Q6_K
#define KQUANT 1
// decode_kchunk decodes chunk j of a K-quant block for llama.cpp's integer dot product: the quants (Q4_K and
// Q5_K unsigned, Q6_K minus 32) and the integer scales of its two halves and its minimum (0 for Q6_K).
void decode_kchunk(uint base, uint j, out uint q[8], out ivec3 scm) {
#if WTYPE == WT_Q6_K
    vec4 smm;
    decode_chunk(base, j, q, smm);
    uint half_ = j >> 2, r = j & 3u, sc = 192u + 8u * half_ + 2u * r;
    scm = ivec3(int(byte_at(base, sc) << 24) >> 24, int(byte_at(base, sc + 1u) << 24) >> 24, 0);
#else
    vec4 smm;
    decode_chunk(base, j, q, smm);
    uvec2 sm = scale_min_k4(base, j);
    scm = ivec3(int(sm.x), int(sm.x), int(sm.y));
#endif
}

// kblock_dm returns a K-quant block's d and dmin (0 for Q6_K).
vec2 kblock_dm(uint base) {
#if WTYPE == WT_Q6_K
    return vec2(f16_value(w[base + 52u]), 0.0);
#else
    return unpackHalf2x16(w[base]);
#endif
}
#else
#define KQUANT 0
#endif

// i8 extracts signed byte b (0…3) of a packed word.
int i8(uint v, uint b) {
    return bitfieldExtract(int(v), int(8u * b), 8);
}

#endif
