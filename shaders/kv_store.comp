// kv_store: writes x [n, row] (F32) into rows pos[i] of a cache of ctx rows, converting to the cache's type:
// F32, or F16 (round to nearest even) packed two to a word. One workgroup per token; a token whose position a
// later token also has is skipped, so the last write wins as on the CPU. Positions were checked by the host;
// any outside [0, ctx) are skipped. An F16 row that does not start on a word boundary is written half by half
// with atomics. Bindings: 0 = x, 1 = pos (int), 2 = cache (uint).
//#variant kv_store_f32 F16=0
//#variant kv_store_f16 F16=1
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "numeric.glsl"

layout(push_constant) uniform Push {
    uint n;
    uint row;
    uint ctx;
    uint x_off;
    uint pos_off;
    uint c_off; // elements of the cache type
} pc;

layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer P { int pos[]; };
layout(std430, binding = 2) buffer C { uint c[]; };

shared bool later;

void main() {
    uint i = flat_workgroup();
    if (i >= pc.n) {
        return;
    }
    uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    int p = pos[pc.pos_off + i];
    if (lid == 0u) {
        later = false;
    }
    barrier();
    for (uint j = i + 1u + lid; j < pc.n; j += wg) {
        if (pos[pc.pos_off + j] == p) {
            later = true;
        }
    }
    barrier();
    if (later || p < 0 || uint(p) >= pc.ctx) {
        return;
    }
    uint xb = pc.x_off + i * pc.row;
    uint dst = pc.c_off + uint(p) * pc.row;
#if F16 == 0
    for (uint e = lid; e < pc.row; e += wg) {
        c[dst + e] = floatBitsToUint(x[xb + e]);
    }
#else
    if ((dst & 1u) == 0u && (pc.row & 1u) == 0u) {
        for (uint k = lid; k < pc.row / 2u; k += wg) {
            c[dst / 2u + k] = f16_bits(x[xb + 2u * k]) | (f16_bits(x[xb + 2u * k + 1u]) << 16);
        }
    } else {
        for (uint e = lid; e < pc.row; e += wg) {
            uint h = dst + e, sh = 16u * (h & 1u);
            atomicAnd(c[h >> 1], ~(0xffffu << sh));
            atomicOr(c[h >> 1], f16_bits(x[xb + e]) << sh);
        }
    }
#endif
}
