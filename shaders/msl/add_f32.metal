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
    uint n;
    uint a_off;
    uint b_off;
    uint d_off;
};

struct D
{
    float d[1];
};

struct A
{
    float a[1];
};

struct B
{
    float b[1];
};

static inline __attribute__((always_inline))
uint flat_workgroup(thread uint3& gl_WorkGroupID, thread uint3& gl_NumWorkGroups)
{
    return (gl_WorkGroupID.y * gl_NumWorkGroups.x) + gl_WorkGroupID.x;
}

kernel void forma_add_f32(constant Push& pc [[buffer(0)]], device D& _56 [[buffer(1)]], device A& _65 [[buffer(2)]], device B& _77 [[buffer(3)]], uint3 gl_WorkGroupID [[threadgroup_position_in_grid]], uint3 gl_NumWorkGroups [[threadgroups_per_grid]], uint3 gl_LocalInvocationID [[thread_position_in_threadgroup]])
{
    uint i = (flat_workgroup(gl_WorkGroupID, gl_NumWorkGroups) * gl_WorkGroupSize.x) + gl_LocalInvocationID.x;
    if (i >= pc.n)
    {
        return;
    }
    _56.d[pc.d_off + i] = _65.a[pc.a_off + i] + _77.b[pc.b_off + i];
}

