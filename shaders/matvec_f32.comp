// matvec_f32: y[y_off + r] = sum_c W[w_off + r*cols + c] * x[x_off + c] for r < rows.
// W is row-major [rows, cols] F32. Each workgroup computes ROWS consecutive rows: every invocation sums a strided
// slice of each row, subgroupAdd reduces within a subgroup, and shared memory adds up the subgroups.
// Bindings: 0 = W, 1 = x, 2 = y. Dispatch ceil(rows / ROWS) workgroups (2D when more than 65535).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "common.glsl"

layout(constant_id = 1) const uint ROWS = 1; // rows per workgroup

layout(push_constant) uniform Push {
    uint rows;
    uint cols;
    uint w_off;
    uint x_off;
    uint y_off;
} pc;

layout(std430, binding = 0) readonly buffer W { float w[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 2) writeonly buffer Y { float y[]; };

// One partial sum per (row, subgroup); a workgroup has at most gl_WorkGroupSize.x subgroups.
shared float partial[ROWS * gl_WorkGroupSize.x];

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint row0 = flat_workgroup() * ROWS;
    for (uint r = 0; r < ROWS; r++) {
        uint row = row0 + r;
        float sum = 0.0;
        if (row < pc.rows) {
            uint base = pc.w_off + row * pc.cols;
            for (uint c = lid; c < pc.cols; c += gl_WorkGroupSize.x) {
                sum += w[base + c] * x[pc.x_off + c];
            }
        }
        sum = subgroupAdd(sum);
        if (subgroupElect()) {
            partial[r * gl_WorkGroupSize.x + gl_SubgroupID] = sum;
        }
    }
    barrier();
    if (lid < ROWS && row0 + lid < pc.rows) {
        float sum = 0.0;
        for (uint s = 0; s < gl_NumSubgroups; s++) {
            sum += partial[lid * gl_WorkGroupSize.x + s];
        }
        y[pc.y_off + row0 + lid] = sum;
    }
}
