#pragma clang diagnostic ignored "-Wmissing-prototypes"
#pragma clang diagnostic ignored "-Wmissing-braces"

#include <metal_stdlib>
#include <simd/simd.h>

using namespace metal;
#pragma clang fp contract(off)

template<typename T, size_t Num>
struct spvUnsafeArray
{
    T elements[Num ? Num : 1];
    
    thread T& operator [] (size_t pos) thread
    {
        return elements[pos];
    }
    constexpr const thread T& operator [] (size_t pos) const thread
    {
        return elements[pos];
    }
    
    device T& operator [] (size_t pos) device
    {
        return elements[pos];
    }
    constexpr const device T& operator [] (size_t pos) const device
    {
        return elements[pos];
    }
    
    constexpr const constant T& operator [] (size_t pos) const constant
    {
        return elements[pos];
    }
    
    threadgroup T& operator [] (size_t pos) threadgroup
    {
        return elements[pos];
    }
    constexpr const threadgroup T& operator [] (size_t pos) const threadgroup
    {
        return elements[pos];
    }
};

template<typename T>
[[clang::optnone]] T spvFMul(T l, T r)
{
    return fma(l, r, T(0));
}

template<typename T, int Cols, int Rows>
[[clang::optnone]] vec<T, Cols> spvFMulVectorMatrix(vec<T, Rows> v, matrix<T, Cols, Rows> m)
{
    vec<T, Cols> res = vec<T, Cols>(0);
    for (uint i = Rows; i > 0; --i)
    {
        vec<T, Cols> tmp(0);
        for (uint j = 0; j < Cols; ++j)
        {
            tmp[j] = m[j][i - 1];
        }
        res = fma(tmp, vec<T, Cols>(v[i - 1]), res);
    }
    return res;
}

template<typename T, int Cols, int Rows>
[[clang::optnone]] vec<T, Rows> spvFMulMatrixVector(matrix<T, Cols, Rows> m, vec<T, Cols> v)
{
    vec<T, Rows> res = vec<T, Rows>(0);
    for (uint i = Cols; i > 0; --i)
    {
        res = fma(m[i - 1], vec<T, Rows>(v[i - 1]), res);
    }
    return res;
}

template<typename T, int LCols, int LRows, int RCols, int RRows>
[[clang::optnone]] matrix<T, RCols, LRows> spvFMulMatrixMatrix(matrix<T, LCols, LRows> l, matrix<T, RCols, RRows> r)
{
    matrix<T, RCols, LRows> res;
    for (uint i = 0; i < RCols; i++)
    {
        vec<T, RCols> tmp(0);
        for (uint j = 0; j < LCols; j++)
        {
            tmp = fma(vec<T, RCols>(r[i][j]), l[j], tmp);
        }
        res[i] = tmp;
    }
    return res;
}

template<typename T>
[[clang::optnone]] T spvFAdd(T l, T r)
{
    return fma(T(1), l, r);
}

template<typename T>
[[clang::optnone]] T spvFSub(T l, T r)
{
    return fma(T(-1), r, l);
}

struct Push
{
    uint rows;
    uint cols;
    uint ncols;
    uint w_off;
    uint x_off;
    uint y_off;
    uint y_stride;
    uint tpr;
};

struct W
{
    uint w[1];
};

#ifndef SPIRV_CROSS_CONSTANT_ID_0
#define SPIRV_CROSS_CONSTANT_ID_0 1u
#endif
constant uint _155 = SPIRV_CROSS_CONSTANT_ID_0;
constant uint3 gl_WorkGroupSize [[maybe_unused]] = uint3(_155, 1u, 1u);
constant uint _169 = _155;
constant uint _170 = (8u * _169);

struct Y
{
    float y[1];
};

struct X
{
    float x[1];
};

constant bool NATIVE_FMA_tmp [[function_constant(7)]];
constant bool NATIVE_FMA = is_function_constant_defined(NATIVE_FMA_tmp) ? NATIVE_FMA_tmp : false;

constant spvUnsafeArray<float2, 20> _472 = spvUnsafeArray<float2, 20>({ float2(1.0, 0.0), float2(1.0, 0.0), float2(0.5, 0.0), float2(0.16666667163372039794921875, -4.9670538793122887000208720564842e-09), float2(0.0416666679084300994873046875, -1.2417634698280721750052180141211e-09), float2(0.008333333767950534820556640625, -4.3461720333759501500026090070605e-10), float2(0.001388888922519981861114501953125, -3.3631094437103215000206546392292e-11), float2(0.00019841270113829523324966430664062, -2.7255968749334558154373553406913e-12), float2(2.4801587642286904156208038330078e-05, -3.4069960936668197692966941758641e-13), float2(2.7557318844628753140568733215332e-06, 3.7935712242972291496911907415779e-14), float2(2.7557319981497130356729030609131e-07, -7.5751122090511949225266619123431e-15), float2(2.5052107943679402524139732122421e-08, 4.4176230446483664635048960178665e-16), float2(2.0876755879584152353345416486263e-09, 1.1082839147459852308270911169785e-16), float2(1.6059044372074282591711380518973e-10, -5.3525265115627256262654729002115e-18), float2(1.147074536050896043093416665215e-11, 2.3722076892312380547612072484442e-19), float2(7.6471636098127127034729255683487e-13, 1.2200710471178287732698915322299e-20), float2(4.779477256132945439670578480218e-14, 7.625444044486429832936822076437e-22), float2(2.8114573589663703623298118827734e-15, -1.0462084739763657794534194576036e-22), float2(1.5619206814541513076918799463044e-16, 1.5404471465941992767529961911953e-24), float2(8.2206350784765213506911918361908e-18, 1.6814780968558980371442752815229e-25) });
constant spvUnsafeArray<uint, 24> _520 = spvUnsafeArray<uint, 24>({ 162u, 41721u, 10680707u, 2734261102u, 4186140238u, 2205044292u, 1850622997u, 1313084713u, 1142237692u, 355073063u, 704390999u, 4230436817u, 660066805u, 1473377588u, 3522507997u, 4113882560u, 886948059u, 3720403810u, 3235603093u, 3680671129u, 1653971260u, 2509847619u, 2570863504u, 1011060801u });

static inline __attribute__((always_inline))
uint flat_workgroup(thread uint3& gl_WorkGroupID, thread uint3& gl_NumWorkGroups)
{
    return (gl_WorkGroupID.y * gl_NumWorkGroups.x) + gl_WorkGroupID.x;
}

static inline __attribute__((always_inline))
bool id_setup(thread const uint& x_row, thread uint& w_base, constant Push& pc, thread uint& x_base, thread uint& y_base)
{
    w_base = pc.w_off;
    x_base = pc.x_off;
    y_base = pc.y_off;
    return true;
}

static inline __attribute__((always_inline))
float welem(thread const uint& e, device W& _134)
{
    return as_type<float>(((_134.w[e >> uint(1)] >> (16u * (e & 1u))) & 65535u) << uint(16));
}

static inline __attribute__((always_inline))
float2 two_sum(thread const float& a, thread const float& b)
{
    float s = spvFAdd(a, b);
    float bb = spvFSub(s, a);
    float e = spvFAdd(spvFSub(a, spvFSub(s, bb)), spvFSub(b, bb));
    return float2(s, e);
}

static inline __attribute__((always_inline))
float2 df_add(thread const float2& a, thread const float2& b)
{
    float param = a.x;
    float param_1 = b.x;
    float2 s = two_sum(param, param_1);
    float e = spvFAdd(s.y, spvFAdd(a.y, b.y));
    float param_2 = s.x;
    float param_3 = e;
    return two_sum(param_2, param_3);
}

static inline __attribute__((always_inline))
void reduce_rows(thread const spvUnsafeArray<float2, 8>& acc, thread const uint& lid, thread const uint& lane, thread const uint& slot, thread const uint& row, constant Push& pc, thread uint& y_base, threadgroup spvUnsafeArray<float2, _170>& partial, device Y& _260)
{
    uint wg = gl_WorkGroupSize.x;
    for (uint c = 0u; c < pc.ncols; c++)
    {
        partial[(c * wg) + lid] = acc[c];
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    uint _192 = pc.tpr / 2u;
    for (uint s = _192; s > 0u; s = s >> uint(1))
    {
        if (lane < s)
        {
            for (uint c_1 = 0u; c_1 < pc.ncols; c_1++)
            {
                float2 param = partial[(c_1 * wg) + lid];
                float2 param_1 = partial[((c_1 * wg) + lid) + s];
                partial[(c_1 * wg) + lid] = df_add(param, param_1);
            }
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    bool _247 = lane < pc.ncols;
    bool _254;
    if (_247)
    {
        _254 = row < pc.rows;
    }
    else
    {
        _254 = _247;
    }
    if (_254)
    {
        _260.y[(y_base + (lane * pc.y_stride)) + row] = ((threadgroup float*)&partial[(lane * wg) + (slot * pc.tpr)])[0u];
    }
}

kernel void forma_matvec_bf16(constant Push& pc [[buffer(0)]], device W& _134 [[buffer(1)]], device Y& _260 [[buffer(2)]], device X& _376 [[buffer(3)]], uint3 gl_WorkGroupID [[threadgroup_position_in_grid]], uint3 gl_NumWorkGroups [[threadgroups_per_grid]], uint3 gl_LocalInvocationID [[thread_position_in_threadgroup]])
{
    threadgroup spvUnsafeArray<float2, _170> partial;
    uint lid = gl_LocalInvocationID.x;
    uint wg = gl_WorkGroupSize.x;
    uint lane = lid % pc.tpr;
    uint slot = lid / pc.tpr;
    uint row = (flat_workgroup(gl_WorkGroupID, gl_NumWorkGroups) * (wg / pc.tpr)) + slot;
    uint param = pc.cols;
    uint w_base;
    uint x_base;
    uint y_base;
    bool _311 = id_setup(param, w_base, pc, x_base, y_base);
    if (!_311)
    {
        return;
    }
    spvUnsafeArray<float2, 8> acc;
    for (uint c = 0u; c < 8u; c++)
    {
        acc[c] = float2(0.0);
    }
    if (row < pc.rows)
    {
        uint base = w_base + (row * pc.cols);
        for (uint k = lane; k < pc.cols; k += pc.tpr)
        {
            uint param_1 = base + k;
            float wv = welem(param_1, _134);
            for (uint c_1 = 0u; c_1 < pc.ncols; c_1++)
            {
                float p = spvFMul(wv, _376.x[(x_base + (c_1 * pc.cols)) + k]);
                float2 param_2 = acc[c_1];
                float2 param_3 = float2(p, 0.0);
                acc[c_1] = df_add(param_2, param_3);
            }
        }
    }
    spvUnsafeArray<float2, 8> param_4 = acc;
    uint param_5 = lid;
    uint param_6 = lane;
    uint param_7 = slot;
    uint param_8 = row;
    reduce_rows(param_4, param_5, param_6, param_7, param_8, pc, y_base, partial, _260);
}

