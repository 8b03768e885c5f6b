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

constant uint _885_tmp [[function_constant(0)]];
constant uint _885 = is_function_constant_defined(_885_tmp) ? _885_tmp : 1u;
constant uint3 gl_WorkGroupSize [[maybe_unused]] = uint3(_885, 1u, 1u);

struct Push
{
    uint n;
    uint nb;
    uint a_off;
    uint b_off;
    uint y_off;
    float f;
    float inv;
};

struct A
{
    float a[1];
};

struct Y
{
    float y[1];
};

constant bool NATIVE_FMA_tmp [[function_constant(7)]];
constant bool NATIVE_FMA = is_function_constant_defined(NATIVE_FMA_tmp) ? NATIVE_FMA_tmp : false;

struct B
{
    float b[1];
};

constant spvUnsafeArray<float2, 20> _664 = spvUnsafeArray<float2, 20>({ float2(1.0, 0.0), float2(1.0, 0.0), float2(0.5, 0.0), float2(0.16666667163372039794921875, -4.9670538793122887000208720564842e-09), float2(0.0416666679084300994873046875, -1.2417634698280721750052180141211e-09), float2(0.008333333767950534820556640625, -4.3461720333759501500026090070605e-10), float2(0.001388888922519981861114501953125, -3.3631094437103215000206546392292e-11), float2(0.00019841270113829523324966430664062, -2.7255968749334558154373553406913e-12), float2(2.4801587642286904156208038330078e-05, -3.4069960936668197692966941758641e-13), float2(2.7557318844628753140568733215332e-06, 3.7935712242972291496911907415779e-14), float2(2.7557319981497130356729030609131e-07, -7.5751122090511949225266619123431e-15), float2(2.5052107943679402524139732122421e-08, 4.4176230446483664635048960178665e-16), float2(2.0876755879584152353345416486263e-09, 1.1082839147459852308270911169785e-16), float2(1.6059044372074282591711380518973e-10, -5.3525265115627256262654729002115e-18), float2(1.147074536050896043093416665215e-11, 2.3722076892312380547612072484442e-19), float2(7.6471636098127127034729255683487e-13, 1.2200710471178287732698915322299e-20), float2(4.779477256132945439670578480218e-14, 7.625444044486429832936822076437e-22), float2(2.8114573589663703623298118827734e-15, -1.0462084739763657794534194576036e-22), float2(1.5619206814541513076918799463044e-16, 1.5404471465941992767529961911953e-24), float2(8.2206350784765213506911918361908e-18, 1.6814780968558980371442752815229e-25) });
constant spvUnsafeArray<uint, 24> _979 = spvUnsafeArray<uint, 24>({ 162u, 41721u, 10680707u, 2734261102u, 4186140238u, 2205044292u, 1850622997u, 1313084713u, 1142237692u, 355073063u, 704390999u, 4230436817u, 660066805u, 1473377588u, 3522507997u, 4113882560u, 886948059u, 3720403810u, 3235603093u, 3680671129u, 1653971260u, 2509847619u, 2570863504u, 1011060801u });

static inline __attribute__((always_inline))
uint flat_workgroup(thread uint3& gl_WorkGroupID, thread uint3& gl_NumWorkGroups)
{
    return (gl_WorkGroupID.y * gl_NumWorkGroups.x) + gl_WorkGroupID.x;
}

static inline __attribute__((always_inline))
uint f16_bits(thread const float& f)
{
    uint u = as_type<uint>(f);
    uint _sign = (u >> uint(16)) & 32768u;
    uint a = u & 2147483647u;
    if (a > 2139095040u)
    {
        return _sign | 32256u;
    }
    if (a >= 1199566848u)
    {
        return _sign | 31744u;
    }
    if (a >= 947912704u)
    {
        uint v = a - 939524096u;
        v += (4095u + ((v >> uint(13)) & 1u));
        return _sign | (v >> uint(13));
    }
    uint e = a >> uint(23);
    if (e < 102u)
    {
        return _sign;
    }
    uint m = (a & 8388607u) | 8388608u;
    uint s = 126u - e;
    uint q = m >> s;
    uint rem = m & ((1u << s) - 1u);
    uint half_ = 1u << (s - 1u);
    bool _188 = rem > half_;
    bool _201;
    if (!_188)
    {
        bool _194 = rem == half_;
        bool _200;
        if (_194)
        {
            _200 = (q & 1u) != 0u;
        }
        else
        {
            _200 = _194;
        }
        _201 = _200;
    }
    else
    {
        _201 = _188;
    }
    if (_201)
    {
        q++;
    }
    return _sign | q;
}

static inline __attribute__((always_inline))
float f16_value(thread const uint& h)
{
    return float2(as_type<half2>(h)).x;
}

static inline __attribute__((always_inline))
float f16_round(thread const float& f)
{
    float param = f;
    uint param_1 = f16_bits(param);
    return f16_value(param_1);
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
float2 two_sum(thread const float& a, thread const float& b)
{
    float s = spvFAdd(a, b);
    float bb = spvFSub(s, a);
    float e = spvFAdd(spvFSub(a, spvFSub(s, bb)), spvFSub(b, bb));
    return float2(s, e);
}

static inline __attribute__((always_inline))
float2 df_mul(thread const float2& a, thread const float2& b)
{
    float param = a.x;
    float param_1 = b.x;
    float2 p = two_prod(param, param_1);
    float e = spvFAdd(p.y, spvFAdd(spvFMul(a.x, b.y), spvFMul(a.y, b.x)));
    float param_2 = p.x;
    float param_3 = e;
    return two_sum(param_2, param_3);
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
float2 df_exp_taylor(thread const float2& r, thread const int& first, thread const int& last)
{
    float2 p = _664[last];
    int _672 = last - 1;
    for (int i = _672; i >= first; i--)
    {
        float2 param = p;
        float2 param_1 = r;
        float2 param_2 = df_mul(param, param_1);
        float2 param_3 = _664[i];
        p = df_add(param_2, param_3);
    }
    for (int i_1 = 0; i_1 < first; i_1++)
    {
        float2 param_4 = p;
        float2 param_5 = r;
        p = df_mul(param_4, param_5);
    }
    return p;
}

static inline __attribute__((always_inline))
float2 df_addf(thread const float2& a, thread const float& b)
{
    float param = a.x;
    float param_1 = b;
    float2 s = two_sum(param, param_1);
    float e = spvFAdd(s.y, a.y);
    float param_2 = s.x;
    float param_3 = e;
    return two_sum(param_2, param_3);
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
    bool _324 = r > mb;
    bool _337;
    if (!_324)
    {
        bool _330 = r == mb;
        bool _336;
        if (_330)
        {
            _336 = (q & 1u) != 0u;
        }
        else
        {
            _336 = _330;
        }
        _337 = _336;
    }
    else
    {
        _337 = _324;
    }
    if (_337)
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
float2 df_mulf(thread const float2& a, thread const float& b)
{
    float param = a.x;
    float param_1 = b;
    float2 p = two_prod(param, param_1);
    float e = spvFAdd(p.y, spvFMul(a.y, b));
    float param_2 = p.x;
    float param_3 = e;
    return two_sum(param_2, param_3);
}

static inline __attribute__((always_inline))
float2 df_divv(thread const float2& a, thread const float2& b)
{
    float param = a.x;
    float param_1 = b.x;
    float q1 = div_rn(param, param_1);
    float2 param_2 = b;
    float param_3 = q1;
    float2 param_4 = a;
    float2 param_5 = -df_mulf(param_2, param_3);
    float2 r = df_add(param_4, param_5);
    float q2 = r.x / b.x;
    float param_6 = q1;
    float param_7 = q2;
    float2 q = two_sum(param_6, param_7);
    float2 param_8 = b;
    float2 param_9 = q;
    float2 param_10 = a;
    float2 param_11 = -df_mul(param_8, param_9);
    r = df_add(param_10, param_11);
    float2 param_12 = q;
    float param_13 = r.x / b.x;
    return df_addf(param_12, param_13);
}

static inline __attribute__((always_inline))
float tanh_rn(thread const float& x)
{
    float a = abs(x);
    if ((a > 9.1000003814697265625) || (a == 0.0))
    {
        float _727;
        if (a == 0.0)
        {
            _727 = x;
        }
        else
        {
            _727 = sign(x);
        }
        return _727;
    }
    float y = (-2.0) * a;
    float2 e;
    if (a < 0.3499999940395355224609375)
    {
        float2 param = float2(y, 0.0);
        int param_1 = 1;
        int param_2 = 17;
        e = df_exp_taylor(param, param_1, param_2);
    }
    else
    {
        float k = rint(y * 1.44269502162933349609375);
        float param_3 = k;
        float param_4 = 0.693147182464599609375;
        float2 param_5 = float2(y, 0.0);
        float2 param_6 = -two_prod(param_3, param_4);
        float2 r = df_add(param_5, param_6);
        float param_7 = k;
        float param_8 = -1.9046542121259335544891655445099e-09;
        float2 param_9 = r;
        float2 param_10 = -two_prod(param_7, param_8);
        r = df_add(param_9, param_10);
        float2 param_11 = r;
        float param_12 = -(k * (-8.7831837385893393906066695109303e-17));
        r = df_addf(param_11, param_12);
        float2 param_13 = r;
        int param_14 = 0;
        int param_15 = 14;
        float2 t = df_exp_taylor(param_13, param_14, param_15);
        float scale = exp2(k);
        float2 param_16 = float2(t.x * scale, t.y * scale);
        float param_17 = -1.0;
        e = df_addf(param_16, param_17);
    }
    float2 param_18 = e;
    float param_19 = 2.0;
    float2 param_20 = -e;
    float2 param_21 = df_addf(param_18, param_19);
    float2 th = df_divv(param_20, param_21);
    float _825;
    if (x < 0.0)
    {
        _825 = -th.x;
    }
    else
    {
        _825 = th.x;
    }
    return _825;
}

static inline __attribute__((always_inline))
float gelu32(thread const float& x)
{
    float inner = spvFAdd(1.0, spvFMul(spvFMul(0.0447149984538555145263671875, x), x));
    float param = spvFMul(spvFMul(0.79788458347320556640625, x), inner);
    float t = tanh_rn(param);
    float r = spvFMul(spvFMul(0.5, x), spvFAdd(1.0, t));
    return r;
}

static inline __attribute__((always_inline))
float gelu_f16(thread const float& x)
{
    if (x <= (-10.0))
    {
        return 0.0;
    }
    if (x >= 10.0)
    {
        return x;
    }
    float param = x;
    float param_1 = f16_round(param);
    float param_2 = gelu32(param_1);
    return f16_round(param_2);
}

kernel void forma_gelu(constant Push& pc [[buffer(0)]], device A& _908 [[buffer(1)]], device Y& _924 [[buffer(2)]], uint3 gl_WorkGroupID [[threadgroup_position_in_grid]], uint3 gl_NumWorkGroups [[threadgroups_per_grid]], uint3 gl_LocalInvocationID [[thread_position_in_threadgroup]])
{
    uint i = (flat_workgroup(gl_WorkGroupID, gl_NumWorkGroups) * gl_WorkGroupSize.x) + gl_LocalInvocationID.x;
    if (i >= pc.n)
    {
        return;
    }
    float x = _908.a[pc.a_off + i];
    float param = x;
    float r = gelu_f16(param);
    _924.y[pc.y_off + i] = r;
}

