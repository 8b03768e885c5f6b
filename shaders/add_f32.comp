// add_f32: d[d_off + i] = a[a_off + i] + b[b_off + i] for i < n, one invocation per element.
// Offsets and n count float elements. Bindings: 0 = a, 1 = b, 2 = d (may alias a or b).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(push_constant) uniform Push {
    uint n;
    uint a_off;
    uint b_off;
    uint d_off;
} pc;

layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) readonly buffer B { float b[]; };
layout(std430, binding = 2) writeonly buffer D { float d[]; };

void main() {
    uint i = flat_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (i >= pc.n) {
        return;
    }
    d[pc.d_off + i] = a[pc.a_off + i] + b[pc.b_off + i];
}
