// elementwise: one invocation per element of an F32 tensor of n elements (2D dispatch above 65535 groups).
//   add, mul:     y[i] = a[i] op b[i mod nb] — b has a's shape or its trailing dimensions
//   scale:        y = a·f
//   silu:         y = a / (1 + exp(-a)): ggml_v_expf, but the C library's expf (correctly rounded) for the last
//                 nb mod 16 elements of each row of nb, which ggml's 16-float vector loop leaves to scalar code
//   gelu:         ggml's F16 table semantics: a rounded to F16, GELU (tanh form) in float32, rounded to F16;
//                 a ≤ -10 gives 0 and a ≥ 10 gives a
//   softcap:      y = tanh(a·inv)·f with inv = 1/f from the host
//   swiglu:       y = silu(a)·b (rows of nb, as silu)     geglu: y = gelu(a)·b (b the same shape as a)
//   sigmoid:      y = 1 / (1 + exp(-a)), exp correctly rounded (ggml_vec_sigmoid_f32's expf)
//   swiglu_oai:   g = min(a, limit), u = clamp(b, -limit, limit), y = g / (1 + exp(alpha·-g))·(u + 1) with
//                 alpha = f, limit = inv (ggml_swiglu_oai)
//   temp_scale:   y = a·(1 + f·ln(⌊pos/inv⌋ + 1)) with pos = b[i / nb] (I32 bits) for rows of nb: the attention
//                 temperature by position (accel.TempFactor; the logarithm in float32, not float64)
// Bindings: 0 = a, 1 = b (bound to a for one-operand ops), 2 = y.
//#variant add OP=0
//#variant mul OP=1
//#variant scale OP=2
//#variant silu OP=3
//#variant gelu OP=4
//#variant softcap OP=5
//#variant swiglu OP=6
//#variant geglu OP=7
//#variant sigmoid OP=8
//#variant swiglu_oai OP=9
//#variant temp_scale OP=10
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "numeric.glsl"

layout(push_constant) uniform Push {
    uint n;
    uint nb;
    uint a_off;
    uint b_off;
    uint y_off;
    float f;
    float inv;
} pc;

layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) readonly buffer B { float b[]; };
layout(std430, binding = 2) writeonly buffer Y { float y[]; };

// silu is ggml_v_silu; element i of a row of n is in the scalar tail when i ≥ n - n mod 16.
float silu(float x, uint i, uint n) {
    bool tail = i % n >= n - n % 16u;
    precise float d = 1.0 + (tail ? expf_rn(-x) : vexpf(-x));
    return div_rn(x, d);
}

// gelu32 is ggml_gelu_f32 in float32, operation by operation.
float gelu32(float x) {
    precise float inner = 1.0 + (0.044715 * x) * x;
    precise float t = tanh_rn((0.79788456080286535587989211986876 * x) * inner);
    precise float r = (0.5 * x) * (1.0 + t);
    return r;
}

float gelu_f16(float x) {
    if (x <= -10.0) {
        return 0.0;
    }
    if (x >= 10.0) {
        return x;
    }
    return f16_round(gelu32(f16_round(x)));
}

void main() {
    uint i = flat_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (i >= pc.n) {
        return;
    }
    float x = a[pc.a_off + i];
    precise float r;
#if OP == 0
    r = x + b[pc.b_off + i % pc.nb];
#elif OP == 1
    r = x * b[pc.b_off + i % pc.nb];
#elif OP == 2
    r = x * pc.f;
#elif OP == 3
    r = silu(x, i, pc.nb);
#elif OP == 4
    r = gelu_f16(x);
#elif OP == 5
    precise float xi = x * pc.inv;
    r = tanh_rn(xi) * pc.f;
#elif OP == 6
    r = silu(x, i, pc.nb) * b[pc.b_off + i];
#elif OP == 7
    float u = b[pc.b_off + i];
    if (x <= -10.0) {
        r = 0.0;
    } else if (x >= 10.0) {
        r = x * u;
    } else {
        r = gelu_f16(x) * u;
    }
#elif OP == 8
    precise float d = 1.0 + expf_rn(-x);
    r = div_rn(1.0, d);
#elif OP == 9
    float g = min(x, pc.inv);
    float u = clamp(b[pc.b_off + i], -pc.inv, pc.inv);
    precise float t = pc.f * -g;
    precise float d = 1.0 + expf_rn(t);
    precise float u1 = u + 1.0;
    r = div_rn(g, d) * u1;
#elif OP == 10
    float p = float(floatBitsToInt(b[pc.b_off + i / pc.nb]));
    float k = floor(div_rn(p, pc.inv));
    precise float t = log(k + 1.0) * pc.f + 1.0;
    r = x * t;
#endif
    y[pc.y_off + i] = r;
}
