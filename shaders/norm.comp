// norm: row-wise ops over the last dimension of an F32 tensor [rows, cols], one workgroup per row (2D dispatch
// above 65535 rows):
//   rms_norm:   y = x / sqrt(mean(x²) + eps)
//   layer_norm: y = (x - mean) / sqrt(var + eps)
//   softmax:    y = exp(x - max) / Σ exp(x - max) as ggml_vec_soft_max_f32: ggml_v_expf over each whole vector
//               of 16, its lanes added in float32 (_mm512_reduce_add_ps), the C library's expf (correctly
//               rounded) for the elements after the last whole vector; the vector sums and those elements in
//               double
// Sums are double-float over the workgroup, as ggml sums in double; the scale factors are correctly rounded.
// Bindings: 0 = x, 1 = y.
//#variant rms_norm OP=0
//#variant layer_norm OP=1
//#variant softmax OP=2
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "common.glsl"
#include "numeric.glsl"
#include "reduce.glsl"

layout(push_constant) uniform Push {
    uint rows;
    uint cols;
    uint x_off;
    uint y_off;
    float eps;
} pc;

layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { float y[]; };

void main() {
    uint row = flat_workgroup();
    if (row >= pc.rows) {
        return;
    }
    uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    uint xb = pc.x_off + row * pc.cols, yb = pc.y_off + row * pc.cols;
    float n = float(pc.cols);
#if OP == 0
    vec2 s = vec2(0.0);
    for (uint i = lid; i < pc.cols; i += wg) {
        precise float v = x[xb + i] * x[xb + i];
        s = df_add(s, vec2(v, 0.0));
    }
    precise float mean = df_div(wg_sum_df(s), n);
    float scale = div_rn(1.0, sqrt_rn(mean + pc.eps));
    for (uint i = lid; i < pc.cols; i += wg) {
        y[yb + i] = x[xb + i] * scale;
    }
#elif OP == 1
    vec2 s = vec2(0.0);
    for (uint i = lid; i < pc.cols; i += wg) {
        s = df_add(s, vec2(x[xb + i], 0.0));
    }
    vec2 st = wg_sum_df(s);
    float mean = div_rn(st.x, n);
    vec2 s2 = vec2(0.0);
    for (uint i = lid; i < pc.cols; i += wg) {
        precise float d = x[xb + i] - mean;
        precise float d2 = d * d;
        s2 = df_add(s2, vec2(d2, 0.0));
    }
    precise float var = df_div(wg_sum_df(s2), n);
    float scale = div_rn(1.0, sqrt_rn(var + pc.eps));
    for (uint i = lid; i < pc.cols; i += wg) {
        precise float d = x[xb + i] - mean;
        y[yb + i] = d * scale;
    }
#else
    float m = uintBitsToFloat(0xff800000u);
    for (uint i = lid; i < pc.cols; i += wg) {
        m = max(m, x[xb + i]);
    }
    m = wg_max(m);
    uint vec = pc.cols & ~15u;
    vec2 s = vec2(0.0);
    for (uint g = lid; g < vec / 16u; g += wg) {
        float l[16];
        for (uint e = 0u; e < 16u; e++) {
            l[e] = vexpf(x[xb + 16u * g + e] - m);
        }
        s = df_add(s, vec2(reduce16(l), 0.0));
    }
    for (uint i = vec + lid; i < pc.cols; i += wg) {
        s = df_add(s, vec2(expf_rn(x[xb + i] - m), 0.0));
    }
    vec2 st = wg_sum_df(s);
    float inv = df_recip(st);
    for (uint i = lid; i < pc.cols; i += wg) {
        float e = i < vec ? vexpf(x[xb + i] - m) : expf_rn(x[xb + i] - m);
        y[yb + i] = e * inv;
    }
#endif
}
