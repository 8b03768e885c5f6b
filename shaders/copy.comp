// copy: a strided gather that implements slice and permute. Output element (i0, i1, i2, i3) of shape s (up to
// four dimensions, leading ones 1) reads x[x_off + Σ i_k·stride_k]. One invocation per output element.
// Bindings: 0 = x, 1 = y.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(push_constant) uniform Push {
    uvec4 shape;
    uvec4 stride;
    uint n;
    uint x_off;
    uint y_off;
} pc;

layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { float y[]; };

void main() {
    uint i = flat_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (i >= pc.n) {
        return;
    }
    uint rest = i, src = pc.x_off;
    for (int k = 3; k >= 0; k--) {
        src += (rest % pc.shape[k]) * pc.stride[k];
        rest /= pc.shape[k];
    }
    y[pc.y_off + i] = x[src];
}
