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

#ifndef SPIRV_CROSS_CONSTANT_ID_0
#define SPIRV_CROSS_CONSTANT_ID_0 1u
#endif
constant uint _489 = SPIRV_CROSS_CONSTANT_ID_0;
constant uint3 gl_WorkGroupSize [[maybe_unused]] = uint3(_489, 1u, 1u);
constant uint _491 = _489;
constant uint _502 = _489;
constant uint _503 = (_502 / 2u);

struct Push
{
    uint rows;
    uint cols;
    uint x_off;
    uint y_off;
    float eps;
};

struct X
{
    float x[1];
};

struct Y
{
    float y[1];
};

constant bool NATIVE_FMA_tmp [[function_constant(7)]];
constant bool NATIVE_FMA = is_function_constant_defined(NATIVE_FMA_tmp) ? NATIVE_FMA_tmp : false;
constant uint _770 = _489;

constant spvUnsafeArray<float2, 20> _720 = spvUnsafeArray<float2, 20>({ float2(1.0, 0.0), float2(1.0, 0.0), float2(0.5, 0.0), float2(0.16666667163372039794921875, -4.9670538793122887000208720564842e-09), float2(0.0416666679084300994873046875, -1.2417634698280721750052180141211e-09), float2(0.008333333767950534820556640625, -4.3461720333759501500026090070605e-10), float2(0.001388888922519981861114501953125, -3.3631094437103215000206546392292e-11), float2(0.00019841270113829523324966430664062, -2.7255968749334558154373553406913e-12), float2(2.4801587642286904156208038330078e-05, -3.4069960936668197692966941758641e-13), float2(2.7557318844628753140568733215332e-06, 3.7935712242972291496911907415779e-14), float2(2.7557319981497130356729030609131e-07, -7.5751122090511949225266619123431e-15), float2(2.5052107943679402524139732122421e-08, 4.4176230446483664635048960178665e-16), float2(2.0876755879584152353345416486263e-09, 1.1082839147459852308270911169785e-16), float2(1.6059044372074282591711380518973e-10, -5.3525265115627256262654729002115e-18), float2(1.147074536050896043093416665215e-11, 2.3722076892312380547612072484442e-19), float2(7.6471636098127127034729255683487e-13, 1.2200710471178287732698915322299e-20), float2(4.779477256132945439670578480218e-14, 7.625444044486429832936822076437e-22), float2(2.8114573589663703623298118827734e-15, -1.0462084739763657794534194576036e-22), float2(1.5619206814541513076918799463044e-16, 1.5404471465941992767529961911953e-24), float2(8.2206350784765213506911918361908e-18, 1.6814780968558980371442752815229e-25) });
constant spvUnsafeArray<uint, 24> _768 = spvUnsafeArray<uint, 24>({ 162u, 41721u, 10680707u, 2734261102u, 4186140238u, 2205044292u, 1850622997u, 1313084713u, 1142237692u, 355073063u, 704390999u, 4230436817u, 660066805u, 1473377588u, 3522507997u, 4113882560u, 886948059u, 3720403810u, 3235603093u, 3680671129u, 1653971260u, 2509847619u, 2570863504u, 1011060801u });

static inline __attribute__((always_inline))
uint flat_workgroup(thread uint3& gl_WorkGroupID, thread uint3& gl_NumWorkGroups)
{
    return (gl_WorkGroupID.y * gl_NumWorkGroups.x) + gl_WorkGroupID.x;
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
float2 wg_sum_df(thread const float2& v, thread uint3& gl_LocalInvocationID, threadgroup spvUnsafeArray<float2, _491>& red_df)
{
    uint lid = gl_LocalInvocationID.x;
    red_df[lid] = v;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint s = _503; s > 0u; s = s >> uint(1))
    {
        if (lid < s)
        {
            float2 param = red_df[lid];
            float2 param_1 = red_df[lid + s];
            red_df[lid] = df_add(param, param_1);
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    float2 r = red_df[0];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    return r;
}

static inline __attribute__((always_inline))
float div_rn(thread const float& a, thread const float& b)
{
    uint ua = as_type<uint>(a);
    uint ub = as_type<uint>(b);
    uint ea = (ua >> uint(23)) & 255u;
    uint eb = (ub >> uint(23)) & 255u;
    if ((((ea == 0u) || (ea == 255u)) || (eb == 0u)) || (eb == 255u))
    {
        return a / b;
    }
    uint ma = (ua & 8388607u) | 8388608u;
    uint mb = (ub & 8388607u) | 8388608u;
    int e = (int(ea) - int(eb)) + 127;
    if (ma < mb)
    {
        ma = ma << uint(1);
        e--;
    }
    if ((e <= 0) || (e >= 255))
    {
        return a / b;
    }
    uint q = 0u;
    uint r = ma;
    for (int i = 0; i < 24; i++)
    {
        q = q << uint(1);
        if (r >= mb)
        {
            r -= mb;
            q |= 1u;
        }
        r = r << uint(1);
    }
    bool _171 = r > mb;
    bool _184;
    if (!_171)
    {
        bool _177 = r == mb;
        bool _183;
        if (_177)
        {
            _183 = (q & 1u) != 0u;
        }
        else
        {
            _183 = _177;
        }
        _184 = _183;
    }
    else
    {
        _184 = _171;
    }
    if (_184)
    {
        q++;
        if (q == 16777216u)
        {
            q = q >> uint(1);
            e++;
            if (e >= 255)
            {
                return a / b;
            }
        }
    }
    uint _sign = (ua ^ ub) & 2147483648u;
    return as_type<float>((_sign | (uint(e) << uint(23))) | (q & 8388607u));
}

static inline __attribute__((always_inline))
float2 two_prod(thread const float& a, thread const float& b)
{
    float p = spvFMul(a, b);
    float ca = spvFMul(4097.0, a);
    float ah = spvFSub(ca, spvFSub(ca, a));
    float al = spvFSub(a, ah);
    float cb = spvFMul(4097.0, b);
    float bh = spvFSub(cb, spvFSub(cb, b));
    float bl = spvFSub(b, bh);
    float e = spvFAdd(spvFAdd(spvFAdd(spvFSub(spvFMul(ah, bh), p), spvFMul(ah, bl)), spvFMul(al, bh)), spvFMul(al, bl));
    return float2(p, e);
}

static inline __attribute__((always_inline))
float df_div(thread const float2& a, thread const float& d)
{
    float param = a.x;
    float param_1 = d;
    float q1 = div_rn(param, param_1);
    float param_2 = q1;
    float param_3 = d;
    float2 p = two_prod(param_2, param_3);
    float r = spvFAdd(spvFSub(spvFSub(a.x, p.x), p.y), a.y);
    float q = spvFAdd(q1, r / d);
    return q;
}

static inline __attribute__((always_inline))
float sqrt_rn(thread const float& x)
{
    float s = sqrt(x);
    for (int i = 0; i < 2; i++)
    {
        float up = as_type<float>(as_type<uint>(s) + 1u);
        float dn = as_type<float>(as_type<uint>(s) - 1u);
        float hu = spvFMul(spvFSub(up, s), 0.5);
        float hd = spvFMul(spvFSub(s, dn), 0.5);
        float param = s;
        float param_1 = s;
        float2 s2 = two_prod(param, param_1);
        float2 param_2 = s2;
        float2 param_3 = float2(s * (2.0 * hu), hu * hu);
        float2 param_4 = df_add(param_2, param_3);
        float2 param_5 = float2(-x, 0.0);
        float2 hi = df_add(param_4, param_5);
        float2 param_6 = s2;
        float2 param_7 = float2(-(s * (2.0 * hd)), hd * hd);
        float2 param_8 = df_add(param_6, param_7);
        float2 param_9 = float2(-x, 0.0);
        float2 lo = df_add(param_8, param_9);
        bool _441 = hi.x < 0.0;
        bool _454;
        if (!_441)
        {
            bool _447 = hi.x == 0.0;
            bool _453;
            if (_447)
            {
                _453 = hi.y < 0.0;
            }
            else
            {
                _453 = _447;
            }
            _454 = _453;
        }
        else
        {
            _454 = _441;
        }
        if (_454)
        {
            s = up;
        }
        else
        {
            bool _461 = lo.x > 0.0;
            bool _474;
            if (!_461)
            {
                bool _467 = lo.x == 0.0;
                bool _473;
                if (_467)
                {
                    _473 = lo.y > 0.0;
                }
                else
                {
                    _473 = _467;
                }
                _474 = _473;
            }
            else
            {
                _474 = _461;
            }
            if (_474)
            {
                s = dn;
            }
            else
            {
                break;
            }
        }
    }
    return s;
}

kernel void forma_rms_norm(constant Push& pc [[buffer(0)]], device X& _593 [[buffer(1)]], device Y& _650 [[buffer(2)]], uint3 gl_WorkGroupID [[threadgroup_position_in_grid]], uint3 gl_NumWorkGroups [[threadgroups_per_grid]], uint3 gl_LocalInvocationID [[thread_position_in_threadgroup]])
{
    threadgroup spvUnsafeArray<float2, _491> red_df;
    threadgroup spvUnsafeArray<float, _770> red_buf;
    uint row = flat_workgroup(gl_WorkGroupID, gl_NumWorkGroups);
    if (row >= pc.rows)
    {
        return;
    }
    uint lid = gl_LocalInvocationID.x;
    uint wg = gl_WorkGroupSize.x;
    uint xb = pc.x_off + (row * pc.cols);
    uint yb = pc.y_off + (row * pc.cols);
    float n = float(pc.cols);
    float2 s = float2(0.0);
    for (uint i = lid; i < pc.cols; i += wg)
    {
        float v = spvFMul(_593.x[xb + i], _593.x[xb + i]);
        float2 param = s;
        float2 param_1 = float2(v, 0.0);
        s = df_add(param, param_1);
    }
    float2 param_2 = s;
    float2 _618 = wg_sum_df(param_2, gl_LocalInvocationID, red_df);
    float2 param_3 = _618;
    float param_4 = n;
    float mean = df_div(param_3, param_4);
    float param_5 = mean + pc.eps;
    float param_6 = 1.0;
    float param_7 = sqrt_rn(param_5);
    float scale = div_rn(param_6, param_7);
    for (uint i_1 = lid; i_1 < pc.cols; i_1 += wg)
    {
        _650.y[yb + i_1] = _593.x[xb + i_1] * scale;
    }
}

