// numeric_check: applies one function of numeric.glsl to each input, for the Vulkan backend's tests that
// compare them bit for bit with Go: y[i] = f(a[i], b[i]) with FN: 0 tanh_rn, 1 cos, 2 sin (libm_sincos),
// 3 vexpf, 4 sqrt_rn, 5 div_rn(a, b), 6 f16_bits (as a float holding the integer), 7 bf16_round,
// 8 fma_exact(a, b, c), 9 expf_rn, 10 the device's fma(a, b, c) (the backend's probe of whether it is fused),
// 11 bf16_madd(a, b, c). Bindings: 0 = a, 1 = b, 2 = c, 3 = y. One invocation per element.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "numeric.glsl"

layout(constant_id = 1) const uint FN = 0;

layout(push_constant) uniform Push {
    uint n;
} pc;

layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) readonly buffer B { float b[]; };
layout(std430, binding = 2) readonly buffer C { float c[]; };
layout(std430, binding = 3) writeonly buffer Y { float y[]; };

void main() {
    uint i = flat_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (i >= pc.n) {
        return;
    }
    float x = a[i], r = 0.0;
    if (FN == 0u) {
        r = tanh_rn(x);
    } else if (FN == 1u) {
        r = libm_sincos(x).x;
    } else if (FN == 2u) {
        r = libm_sincos(x).y;
    } else if (FN == 3u) {
        r = vexpf(x);
    } else if (FN == 4u) {
        r = sqrt_rn(x);
    } else if (FN == 5u) {
        r = div_rn(x, b[i]);
    } else if (FN == 6u) {
        r = float(f16_bits(x));
    } else if (FN == 7u) {
        r = bf16_round(x);
    } else if (FN == 8u) {
        r = fma_exact(x, b[i], c[i]);
    } else if (FN == 9u) {
        r = expf_rn(x);
    } else if (FN == 11u) {
        r = bf16_madd(x, b[i], c[i]);
    } else {
        precise float f = fma(x, b[i], c[i]);
        r = f;
    }
    y[i] = r;
}
