// moe: the element- and row-wise ops of a mixture of experts (accel/moe.go), as the CPU backend computes them:
//   pick:         y[i] = x[(i / k)·m + ids[i]]  (x [rows, m], ids [rows, k]; one invocation per output)
//   div_sum:      a row of m: d = max(Σ x in double (double-float, rounded), least); y = x / d, correctly
//                 rounded (one invocation per row)
//   add_id:       y[i] = x[i] + bias[ids[i / m]·m + i mod m]  (x [pairs, m], bias [experts, m])
//   weighted_sum: y[r·m + c] = Σ_j round(x[(r·k + j)·m + c]·w[r·k + j]), added in order j = 0, 1, …
//   concat:       y[r·(m+k) + c] = c < m ? x[r·m + c] : b[r·k + c - m]
// Indices were checked by the host or come from top_k (others are clamped).
// Bindings: 0 = x, 1 = b (bias, weights or the second operand), 2 = ids (int), 3 = y.
//#variant pick OP=0
//#variant div_sum OP=1
//#variant add_id OP=2
//#variant weighted_sum OP=3
//#variant concat OP=4
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "numeric.glsl"

layout(push_constant) uniform Push {
    uint n; // outputs (rows for div_sum)
    uint m;
    uint k;
    uint limit; // rows of the table ids index (pick: m; add_id: experts)
    uint x_off;
    uint b_off;
    uint ids_off;
    uint y_off;
    float least;
} pc;

layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer B { float b[]; };
layout(std430, binding = 2) readonly buffer I { int ids[]; };
layout(std430, binding = 3) writeonly buffer Y { float y[]; };

uint clamped(int id) {
    return uint(clamp(id, 0, int(pc.limit) - 1));
}

void main() {
    uint i = flat_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (i >= pc.n) {
        return;
    }
#if OP == 0
    y[pc.y_off + i] = x[pc.x_off + (i / pc.k) * pc.m + clamped(ids[pc.ids_off + i])];
#elif OP == 1
    uint base = pc.x_off + i * pc.m;
    vec2 s = vec2(0.0);
    for (uint j = 0u; j < pc.m; j++) {
        s = df_add(s, vec2(x[base + j], 0.0));
    }
    float d = max(s.x, pc.least);
    for (uint j = 0u; j < pc.m; j++) {
        y[pc.y_off + i * pc.m + j] = div_rn(x[base + j], d);
    }
#elif OP == 2
    uint e = clamped(ids[pc.ids_off + i / pc.m]);
    precise float r = x[pc.x_off + i] + b[pc.b_off + e * pc.m + i % pc.m];
    y[pc.y_off + i] = r;
#elif OP == 3
    uint r = i / pc.m, c = i % pc.m;
    precise float acc = x[pc.x_off + r * pc.k * pc.m + c] * b[pc.b_off + r * pc.k];
    for (uint j = 1u; j < pc.k; j++) {
        precise float p = x[pc.x_off + (r * pc.k + j) * pc.m + c] * b[pc.b_off + r * pc.k + j];
        acc = acc + p;
    }
    y[pc.y_off + i] = acc;
#else
    uint w = pc.m + pc.k, r = i / w, c = i % w;
    y[pc.y_off + i] = c < pc.m ? x[pc.x_off + r * pc.m + c] : b[pc.b_off + r * pc.k + c - pc.m];
#endif
}
