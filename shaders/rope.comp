// rope: rotary position embedding of x [n, heads, size] by positions pos [n], as ggml_compute_forward_rope:
// pair i of a token turns by θ_i, where θ_0 = pos and θ_{i+1} = θ_i·theta_scale by repeated float32
// multiplication (so the angles round as ggml's), divided by freq factor i when there are factors, with YaRN's
// ramp blend when ext_factor ≠ 0; cos and sin (the C library's cosf and sinf, libm_sincos) are scaled by mscale. Normal mode rotates (2i, 2i+1), NeoX mode
// (i, i + dims/2), with x0·cos fused into the subtraction (and x0·sin into the sum), as the reference build;
// elements from dims on are copied. One invocation per (token, k) for k < max(dims/2,
// size - dims): it rotates pair k and copies element dims + k, in every head.
// Bindings: 0 = x, 1 = pos (int), 2 = freq factors (float; bound to x when there are none), 3 = y.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "numeric.glsl"

layout(push_constant) uniform Push {
    uint n;
    uint heads;
    uint size;
    uint dims;
    uint neox;
    uint has_ff;
    uint x_off;
    uint pos_off;
    uint ff_off;
    uint y_off;
    float theta_scale;
    float freq_scale;
    float ext_factor;
    float mscale;      // attention factor, times YaRN's magnitude correction when ext_factor ≠ 0
    float corr0;
    float corr1;
} pc;

layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer P { int pos[]; };
layout(std430, binding = 2) readonly buffer F { float ff[]; };
layout(std430, binding = 3) writeonly buffer Y { float y[]; };

void main() {
    uint per = max(pc.dims / 2u, pc.size - pc.dims);
    uint u = flat_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (u >= pc.n * per) {
        return;
    }
    uint t = u / per, k = u % per;
    uint base = t * pc.heads * pc.size;
    if (k < pc.dims / 2u) {
        precise float theta = float(pos[pc.pos_off + t]);
        for (uint j = 0u; j < k; j++) {
            theta = theta * pc.theta_scale;
        }
        float extrap = pc.has_ff != 0u ? div_rn(theta, ff[pc.ff_off + k]) : theta;
        precise float interp = pc.freq_scale * extrap;
        precise float th = interp;
        if (pc.ext_factor != 0.0) {
            float ramp = div_rn(float(k) - pc.corr0, max(0.001, pc.corr1 - pc.corr0));
            precise float mix = (1.0 - min(1.0, max(0.0, ramp))) * pc.ext_factor;
            th = interp * (1.0 - mix) + extrap * mix;
        }
        vec2 cs = libm_sincos(th);
        precise float c = cs.x * pc.mscale;
        precise float s = cs.y * pc.mscale;
        uint i0 = pc.neox != 0u ? k : 2u * k;
        uint i1 = pc.neox != 0u ? k + pc.dims / 2u : 2u * k + 1u;
        for (uint h = 0u; h < pc.heads; h++) {
            uint b = base + h * pc.size;
            float x0 = x[pc.x_off + b + i0], x1 = x[pc.x_off + b + i1];
            // x0·cos - x1·sin and x0·sin + x1·cos, the first product fused as the reference build's compiler does
            precise float p0 = x1 * s, p1 = x1 * c;
            float y0 = fmaf(x0, c, -p0);
            float y1 = fmaf(x0, s, p1);
            y[pc.y_off + b + i0] = y0;
            y[pc.y_off + b + i1] = y1;
        }
    }
    if (k < pc.size - pc.dims) {
        for (uint h = 0u; h < pc.heads; h++) {
            uint e = base + h * pc.size + pc.dims + k;
            y[pc.y_off + e] = x[pc.x_off + e];
        }
    }
}
