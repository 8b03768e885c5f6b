// reduce.glsl: sums and maxima over a workgroup, by subgroup operations and then shared memory across the
// subgroups. Every invocation of the workgroup must call them (uniform control flow); each returns the result to
// all invocations.
#ifndef FORMA_REDUCE_GLSL
#define FORMA_REDUCE_GLSL

shared float red_buf[gl_WorkGroupSize.x];

float wg_sum(float v) {
    v = subgroupAdd(v);
    if (subgroupElect()) {
        red_buf[gl_SubgroupID] = v;
    }
    barrier();
    float s = 0.0;
    for (uint i = 0u; i < gl_NumSubgroups; i++) {
        s += red_buf[i];
    }
    barrier();
    return s;
}

float wg_max(float v) {
    v = subgroupMax(v);
    if (subgroupElect()) {
        red_buf[gl_SubgroupID] = v;
    }
    barrier();
    float s = red_buf[0];
    for (uint i = 1u; i < gl_NumSubgroups; i++) {
        s = max(s, red_buf[i]);
    }
    barrier();
    return s;
}

shared vec2 red_df[gl_WorkGroupSize.x];

// wg_sum_df adds every invocation's double-float value, exactly to about 2^-48, in a fixed tree.
vec2 wg_sum_df(vec2 v) {
    uint lid = gl_LocalInvocationID.x;
    red_df[lid] = v;
    barrier();
    for (uint s = gl_WorkGroupSize.x / 2u; s > 0u; s >>= 1) {
        if (lid < s) {
            red_df[lid] = df_add(red_df[lid], red_df[lid + s]);
        }
        barrier();
    }
    vec2 r = red_df[0];
    barrier();
    return r;
}

#endif
