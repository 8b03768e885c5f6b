// welem.glsl: element e of a float weight (F32, or F16/BF16 packed two to a word, low half first). The
// including shader declares `uint w[]` and WTYPE.
#ifndef FORMA_WELEM_GLSL
#define FORMA_WELEM_GLSL

float welem(uint e) {
#if WTYPE == 0
    return uintBitsToFloat(w[e]);
#elif WTYPE == 1
    return unpackHalf2x16(w[e >> 1] >> (16u * (e & 1u))).x;
#else
    return uintBitsToFloat(((w[e >> 1] >> (16u * (e & 1u))) & 0xffffu) << 16);
#endif
}

#endif
