// matq.glsl: the dot product of a decoded weight chunk (blocks.glsl) with a chunk of quantized activations
// (quantize.comp): 32 int8 products summed exactly in integers per half, then scaled in float32, as
// llama.cpp's CPU dot products do per block. The including shader declares ACT_Q81 (a bool constant): for
// Q8_1 activations (Q4_1 and Q5_1 weights) the minimum term uses the activation block's stored sum s, as ggml
// does; otherwise it uses d·Σq of each half.
#ifndef FORMA_MATQ_GLSL
#define FORMA_MATQ_GLSL

float chunk_dot(uint q[8], vec4 smm, uint a[8], float da, float sa) {
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
    float r = da * (smm.x * float(i0) + smm.y * float(i1));
#if HAS_MIN
    if (ACT_Q81) {
        precise float dd = smm.x * da;
        precise float t = dd * float(i0 + i1);
        precise float mm = smm.z * sa;
        r = t + mm;
    } else {
        r += da * (smm.z * float(a0) + smm.w * float(a1));
    }
#endif
    return r;
}

#endif
