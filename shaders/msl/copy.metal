#pragma clang diagnostic ignored "-Wmissing-prototypes"

#include <metal_stdlib>
#include <simd/simd.h>

using namespace metal;
#pragma clang fp contract(off)

constant uint _30_tmp [[function_constant(0)]];
constant uint _30 = is_function_constant_defined(_30_tmp) ? _30_tmp : 1u;
constant uint3 gl_WorkGroupSize [[maybe_unused]] = uint3(_30, 1u, 1u);

struct Push
{
    uint4 shape;
    uint4 stride;
    uint n;
    uint x_off;
    uint y_off;
};

struct Y
{
    float y[1];
};

struct X
{
    float x[1];
};

static inline __attribute__((always_inline))
uint flat_workgroup(thread uint3& gl_WorkGroupID, thread uint3& gl_NumWorkGroups)
{
    return (gl_WorkGroupID.y * gl_NumWorkGroups.x) + gl_WorkGroupID.x;
}

kernel void forma_copy(constant Push& pc [[buffer(0)]], device Y& _92 [[buffer(1)]], device X& _101 [[buffer(2)]], uint3 gl_WorkGroupID [[threadgroup_position_in_grid]], uint3 gl_NumWorkGroups [[threadgroups_per_grid]], uint3 gl_LocalInvocationID [[thread_position_in_threadgroup]])
{
    uint i = (flat_workgroup(gl_WorkGroupID, gl_NumWorkGroups) * gl_WorkGroupSize.x) + gl_LocalInvocationID.x;
    if (i >= pc.n)
    {
        return;
    }
    uint rest = i;
    uint src = pc.x_off;
    for (int k = 3; k >= 0; k--)
    {
        src += ((rest % pc.shape[k]) * pc.stride[k]);
        rest /= pc.shape[k];
    }
    _92.y[pc.y_off + i] = _101.x[src];
}

