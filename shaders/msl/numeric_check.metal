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

template<typename T, typename U, typename V>
[[clang::optnone]] T spvMulExtended(V l, V r)
{
    return T{U(l * r), U(mulhi(l, r))};
}

struct ResType
{
    uint _m0;
    uint _m1;
};

constant bool NATIVE_FMA_tmp [[function_constant(7)]];
constant bool NATIVE_FMA = is_function_constant_defined(NATIVE_FMA_tmp) ? NATIVE_FMA_tmp : false;
constant uint _1999_tmp [[function_constant(0)]];
constant uint _1999 = is_function_constant_defined(_1999_tmp) ? _1999_tmp : 1u;
constant uint3 gl_WorkGroupSize [[maybe_unused]] = uint3(_1999, 1u, 1u);

struct Push
{
    uint n;
};

struct A
{
    float a[1];
};

constant uint FN_tmp [[function_constant(1)]];
constant uint FN = is_function_constant_defined(FN_tmp) ? FN_tmp : 0u;
constant bool _2029 = (FN == 0u);
constant bool _2036 = (FN == 1u);
constant bool _2045 = (FN == 2u);
constant bool _2054 = (FN == 3u);
constant bool _2061 = (FN == 4u);
constant bool _2069 = (FN == 5u);

struct B
{
    float b[1];
};

constant bool _2085 = (FN == 6u);
constant bool _2093 = (FN == 7u);
constant bool _2100 = (FN == 8u);

struct C
{
    float c[1];
};

constant bool _2120 = (FN == 9u);
constant bool _2128 = (FN == 11u);

struct Y
{
    float y[1];
};

constant spvUnsafeArray<float2, 20> _899 = spvUnsafeArray<float2, 20>({ float2(1.0, 0.0), float2(1.0, 0.0), float2(0.5, 0.0), float2(0.16666667163372039794921875, -4.9670538793122887000208720564842e-09), float2(0.0416666679084300994873046875, -1.2417634698280721750052180141211e-09), float2(0.008333333767950534820556640625, -4.3461720333759501500026090070605e-10), float2(0.001388888922519981861114501953125, -3.3631094437103215000206546392292e-11), float2(0.00019841270113829523324966430664062, -2.7255968749334558154373553406913e-12), float2(2.4801587642286904156208038330078e-05, -3.4069960936668197692966941758641e-13), float2(2.7557318844628753140568733215332e-06, 3.7935712242972291496911907415779e-14), float2(2.7557319981497130356729030609131e-07, -7.5751122090511949225266619123431e-15), float2(2.5052107943679402524139732122421e-08, 4.4176230446483664635048960178665e-16), float2(2.0876755879584152353345416486263e-09, 1.1082839147459852308270911169785e-16), float2(1.6059044372074282591711380518973e-10, -5.3525265115627256262654729002115e-18), float2(1.147074536050896043093416665215e-11, 2.3722076892312380547612072484442e-19), float2(7.6471636098127127034729255683487e-13, 1.2200710471178287732698915322299e-20), float2(4.779477256132945439670578480218e-14, 7.625444044486429832936822076437e-22), float2(2.8114573589663703623298118827734e-15, -1.0462084739763657794534194576036e-22), float2(1.5619206814541513076918799463044e-16, 1.5404471465941992767529961911953e-24), float2(8.2206350784765213506911918361908e-18, 1.6814780968558980371442752815229e-25) });
constant spvUnsafeArray<uint, 24> _1365 = spvUnsafeArray<uint, 24>({ 162u, 41721u, 10680707u, 2734261102u, 4186140238u, 2205044292u, 1850622997u, 1313084713u, 1142237692u, 355073063u, 704390999u, 4230436817u, 660066805u, 1473377588u, 3522507997u, 4113882560u, 886948059u, 3720403810u, 3235603093u, 3680671129u, 1653971260u, 2509847619u, 2570863504u, 1011060801u });

static inline __attribute__((always_inline))
uint flat_workgroup(thread uint3& gl_WorkGroupID, thread uint3& gl_NumWorkGroups)
{
    return (gl_WorkGroupID.y * gl_NumWorkGroups.x) + gl_WorkGroupID.x;
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
    float2 p = _899[last];
    int _907 = last - 1;
    for (int i = _907; i >= first; i--)
    {
        float2 param = p;
        float2 param_1 = r;
        float2 param_2 = df_mul(param, param_1);
        float2 param_3 = _899[i];
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
    bool _562 = r > mb;
    bool _575;
    if (!_562)
    {
        bool _568 = r == mb;
        bool _574;
        if (_568)
        {
            _574 = (q & 1u) != 0u;
        }
        else
        {
            _574 = _568;
        }
        _575 = _574;
    }
    else
    {
        _575 = _562;
    }
    if (_575)
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
        float _962;
        if (a == 0.0)
        {
            _962 = x;
        }
        else
        {
            _962 = sign(x);
        }
        return _962;
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
    float _1060;
    if (x < 0.0)
    {
        _1060 = -th.x;
    }
    else
    {
        _1060 = th.x;
    }
    return _1060;
}

static inline __attribute__((always_inline))
float libm_poly(thread const float2& r, thread const float2& r2, thread const bool& sine, thread const bool& flip)
{
    if (sine)
    {
        float2 param = r;
        float2 param_1 = r2;
        float2 r3 = df_mul(param, param_1);
        float2 param_2 = r2;
        float2 param_3 = float2(-0.00019517299369908869266510009765625, 3.8852315462079012320373294642195e-12);
        float2 param_4 = float2(0.00833217799663543701171875, 1.4950340965214081734302453696728e-10);
        float2 param_5 = df_mul(param_2, param_3);
        float2 s1 = df_add(param_4, param_5);
        float2 param_6 = r3;
        float2 param_7 = r2;
        float2 r7 = df_mul(param_6, param_7);
        float2 param_8 = r3;
        float2 param_9 = float2(-0.16666655242443084716796875, 2.9874200890844804234802722930908e-09);
        float2 param_10 = r;
        float2 param_11 = df_mul(param_8, param_9);
        float2 s = df_add(param_10, param_11);
        float2 param_12 = r7;
        float2 param_13 = s1;
        float2 param_14 = s;
        float2 param_15 = df_mul(param_12, param_13);
        return df_add(param_14, param_15).x;
    }
    float f = flip ? (-1.0) : 1.0;
    float2 param_16 = r2;
    float2 param_17 = r2;
    float2 r4 = df_mul(param_16, param_17);
    float2 param_18 = r2;
    float2 param_19 = float2(2.4390450562350451946258544921875e-05, 1.4121409391224665208497413004807e-13) * f;
    float2 param_20 = float2(-0.001388676348142325878143310546875, -3.1295278868359588386738323606551e-11) * f;
    float2 param_21 = df_mul(param_18, param_19);
    float2 c2 = df_add(param_20, param_21);
    float2 param_22 = r2;
    float2 param_23 = float2(-0.5, 2.7489177600870107198716141283512e-09) * f;
    float2 param_24 = df_mul(param_22, param_23);
    float param_25 = f;
    float2 c1 = df_addf(param_24, param_25);
    float2 param_26 = r4;
    float2 param_27 = r2;
    float2 r6 = df_mul(param_26, param_27);
    float2 param_28 = r4;
    float2 param_29 = float2(0.0416666232049465179443359375, 1.1939799149374152875680010765791e-10) * f;
    float2 param_30 = c1;
    float2 param_31 = df_mul(param_28, param_29);
    float2 c = df_add(param_30, param_31);
    float2 param_32 = r6;
    float2 param_33 = c2;
    float2 param_34 = c;
    float2 param_35 = df_mul(param_32, param_33);
    return df_add(param_34, param_35).x;
}

static inline __attribute__((always_inline))
float2 libm_sincos(thread const float& x)
{
    uint top = (as_type<uint>(x) >> uint(20)) & 2047u;
    if (top < 1012u)
    {
        if (top < 920u)
        {
            return float2(1.0, x);
        }
        float2 r = float2(x, 0.0);
        float param = x;
        float param_1 = x;
        float2 r2 = two_prod(param, param_1);
        float2 param_2 = r;
        float2 param_3 = r2;
        bool param_4 = false;
        bool param_5 = false;
        float2 param_6 = r;
        float2 param_7 = r2;
        bool param_8 = true;
        bool param_9 = false;
        return float2(libm_poly(param_2, param_3, param_4, param_5), libm_poly(param_6, param_7, param_8, param_9));
    }
    int n;
    float2 r_1;
    int q;
    if (top < 1071u)
    {
        float2 param_10 = float2(10680707.0, 0.4308817386627197265625);
        float param_11 = x;
        float2 v = df_mulf(param_10, param_11);
        float _1264;
        if (v.x >= 0.0)
        {
            _1264 = floor(v.y);
        }
        else
        {
            _1264 = ceil(v.y);
        }
        n = ((int(v.x) + int(_1264)) + 8388608) >> 24;
        float fn = float(n);
        float param_12 = fn;
        float param_13 = 1.57079637050628662109375;
        float2 param_14 = float2(x, 0.0);
        float2 param_15 = -two_prod(param_12, param_13);
        r_1 = df_add(param_14, param_15);
        float param_16 = fn;
        float param_17 = -4.3711388286737928865477442741394e-08;
        float2 param_18 = r_1;
        float2 param_19 = -two_prod(param_16, param_17);
        r_1 = df_add(param_18, param_19);
        float param_20 = fn;
        float param_21 = -1.7763568394002504646778106689453e-15;
        float2 param_22 = r_1;
        float2 param_23 = -two_prod(param_20, param_21);
        r_1 = df_add(param_22, param_23);
        q = n;
    }
    else
    {
        uint xi = as_type<uint>(x);
        uint k = (xi >> uint(26)) & 15u;
        uint m = ((xi & 16777215u) | 8388608u) << ((xi >> uint(23)) & 7u);
        uint r0 = m * _1365[k];
        ResType _1382 = spvMulExtended<ResType, uint>(m, _1365[k + 4u]);
        uint l1 = _1382._m0;
        uint h1 = _1382._m1;
        ResType _1394 = spvMulExtended<ResType, uint>(m, _1365[k + 8u]);
        uint l2 = _1394._m0;
        uint h2 = _1394._m1;
        uint lo = h2 + l1;
        uint hi = (r0 + h1) + uint(lo < h2);
        uint un = (hi + 536870912u) >> uint(30);
        hi -= (un << uint(30));
        n = int(un);
        q = n + int(xi >> uint(31));
        bool neg = (hi & 2147483648u) != 0u;
        if (neg)
        {
            lo = (~lo) + 1u;
            hi = (~hi) + uint(lo == 0u);
        }
        float param_24 = float(hi >> uint(8)) * 1099511627776.0;
        float param_25 = float(((hi & 255u) << uint(16)) | (lo >> uint(16))) * 65536.0;
        float2 param_26 = two_sum(param_24, param_25);
        float param_27 = float(lo & 65535u);
        float2 v_1 = df_addf(param_26, param_27);
        float2 param_28 = v_1;
        float2 param_29 = float2(3.406121674870522594096001155195e-19, -9.4783964285677388201129678740081e-27);
        r_1 = df_mul(param_28, param_29);
        if (neg)
        {
            r_1 = -r_1;
        }
    }
    if (((q + 1) & 2) != 0)
    {
        r_1 = -r_1;
    }
    float2 param_30 = r_1;
    float2 param_31 = r_1;
    float2 r2_1 = df_mul(param_30, param_31);
    bool flip = (q & 2) != 0;
    float2 param_32 = r_1;
    float2 param_33 = r2_1;
    bool param_34 = (n & 1) != 0;
    bool param_35 = flip;
    float2 param_36 = r_1;
    float2 param_37 = r2_1;
    bool param_38 = (n & 1) == 0;
    bool param_39 = flip;
    return float2(libm_poly(param_32, param_33, param_34, param_35), libm_poly(param_36, param_37, param_38, param_39));
}

static inline __attribute__((always_inline))
float fma_exact(thread const float& a, thread const float& b, thread const float& c)
{
    float param = a;
    float param_1 = b;
    float2 p = two_prod(param, param_1);
    float param_2 = p.x;
    float param_3 = c;
    float2 s = two_sum(param_2, param_3);
    float param_4 = s.y;
    float param_5 = p.y;
    float2 t = two_sum(param_4, param_5);
    float param_6 = s.x;
    float param_7 = t.x;
    float2 u = two_sum(param_6, param_7);
    float r = u.x;
    bool _1560 = t.y != 0.0;
    bool _1566;
    if (_1560)
    {
        _1566 = u.y != 0.0;
    }
    else
    {
        _1566 = _1560;
    }
    if (_1566)
    {
        float up = as_type<float>(as_type<uint>(abs(r)) + 1u);
        float dn = as_type<float>(as_type<uint>(abs(r)) - 1u);
        float nb = ((u.y > 0.0) == (r > 0.0)) ? up : dn;
        float half_ = spvFMul(spvFSub(nb, abs(r)), 0.5);
        bool _1602 = abs(u.y) == abs(half_);
        bool _1612;
        if (_1602)
        {
            _1612 = (t.y > 0.0) == (u.y > 0.0);
        }
        else
        {
            _1612 = _1602;
        }
        if (_1612)
        {
            float _1617;
            if (r > 0.0)
            {
                _1617 = nb;
            }
            else
            {
                _1617 = -nb;
            }
            r = _1617;
        }
    }
    return r;
}

static inline __attribute__((always_inline))
float fmaf(thread const float& a, thread const float& b, thread const float& c)
{
    if (NATIVE_FMA)
    {
        float r = fma(a, b, c);
        return r;
    }
    float param = a;
    float param_1 = b;
    float param_2 = c;
    return fma_exact(param, param_1, param_2);
}

static inline __attribute__((always_inline))
float vexpf(thread const float& x)
{
    float param = x;
    float param_1 = 1.44269502162933349609375;
    float param_2 = 12582912.0;
    float z = fmaf(param, param_1, param_2);
    float n = spvFSub(z, 12582912.0);
    float param_3 = -n;
    float param_4 = 0.693145751953125;
    float param_5 = x;
    float b = fmaf(param_3, param_4, param_5);
    float param_6 = -n;
    float param_7 = 1.4286067653301870450377464294434e-06;
    float param_8 = b;
    b = fmaf(param_6, param_7, param_8);
    float u = spvFMul(b, b);
    float param_9 = 0.00824739038944244384765625;
    float param_10 = b;
    float param_11 = 0.0418997667729854583740234375;
    float param_12 = 0.16668395698070526123046875;
    float param_13 = b;
    float param_14 = 0.4999912679195404052734375;
    float param_15 = fmaf(param_9, param_10, param_11);
    float param_16 = u;
    float param_17 = fmaf(param_12, param_13, param_14);
    float param_18 = 0.99999940395355224609375;
    float param_19 = b;
    float param_20 = 1.0;
    float param_21 = fmaf(param_15, param_16, param_17);
    float param_22 = u;
    float param_23 = fmaf(param_18, param_19, param_20);
    float j = fmaf(param_21, param_22, param_23);
    if (isnan(n))
    {
        return n;
    }
    if (!((n <= 192.0) && (n >= (-192.0))))
    {
        float _1727;
        if (n <= 0.0)
        {
            _1727 = 0.0;
        }
        else
        {
            _1727 = as_type<float>(2139095040u);
        }
        return _1727;
    }
    int ni = int(n);
    if ((ni >= (-126)) && (ni <= 127))
    {
        float r = spvFMul(j, as_type<float>(uint(ni + 127) << uint(23)));
        return r;
    }
    int h = ni / 2;
    float r_1 = spvFMul(spvFMul(j, as_type<float>(uint(h + 127) << uint(23))), as_type<float>(uint((ni - h) + 127) << uint(23)));
    return r_1;
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
        bool _1953 = hi.x < 0.0;
        bool _1966;
        if (!_1953)
        {
            bool _1959 = hi.x == 0.0;
            bool _1965;
            if (_1959)
            {
                _1965 = hi.y < 0.0;
            }
            else
            {
                _1965 = _1959;
            }
            _1966 = _1965;
        }
        else
        {
            _1966 = _1953;
        }
        if (_1966)
        {
            s = up;
        }
        else
        {
            bool _1973 = lo.x > 0.0;
            bool _1986;
            if (!_1973)
            {
                bool _1979 = lo.x == 0.0;
                bool _1985;
                if (_1979)
                {
                    _1985 = lo.y > 0.0;
                }
                else
                {
                    _1985 = _1979;
                }
                _1986 = _1985;
            }
            else
            {
                _1986 = _1973;
            }
            if (_1986)
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
    bool _221 = rem > half_;
    bool _234;
    if (!_221)
    {
        bool _227 = rem == half_;
        bool _233;
        if (_227)
        {
            _233 = (q & 1u) != 0u;
        }
        else
        {
            _233 = _227;
        }
        _234 = _233;
    }
    else
    {
        _234 = _221;
    }
    if (_234)
    {
        q++;
    }
    return _sign | q;
}

static inline __attribute__((always_inline))
float bf16_round(thread const float& f)
{
    uint u = as_type<uint>(f);
    uint h;
    if ((u & 2147483647u) > 2139095040u)
    {
        h = (u >> uint(16)) | 64u;
    }
    else
    {
        h = ((u + 32767u) + ((u >> uint(16)) & 1u)) >> uint(16);
    }
    return as_type<float>(h << uint(16));
}

static inline __attribute__((always_inline))
float2 df_exp(thread const float& y)
{
    float k = rint(y * 1.44269502162933349609375);
    float param = k;
    float param_1 = 0.693147182464599609375;
    float2 param_2 = float2(y, 0.0);
    float2 param_3 = -two_prod(param, param_1);
    float2 r = df_add(param_2, param_3);
    float param_4 = k;
    float param_5 = -1.9046542121259335544891655445099e-09;
    float2 param_6 = r;
    float2 param_7 = -two_prod(param_4, param_5);
    r = df_add(param_6, param_7);
    float2 param_8 = r;
    float param_9 = -(k * (-8.7831837385893393906066695109303e-17));
    r = df_addf(param_8, param_9);
    float2 param_10 = r;
    int param_11 = 0;
    int param_12 = 14;
    float2 t = df_exp_taylor(param_10, param_11, param_12);
    int ki = int(k);
    int h = ki / 2;
    float s1 = as_type<float>(uint(h + 127) << uint(23));
    float s2 = as_type<float>(uint((ki - h) + 127) << uint(23));
    return float2((t.x * s1) * s2, (t.y * s1) * s2);
}

static inline __attribute__((always_inline))
float expf_rn(thread const float& x)
{
    if (x > 88.72283935546875)
    {
        return as_type<float>(2139095040u);
    }
    if (x < (-103.97208404541015625))
    {
        return 0.0;
    }
    float param = x;
    float2 e = df_exp(param);
    float r = spvFAdd(e.x, e.y);
    return r;
}

static inline __attribute__((always_inline))
float bf16_daz(thread const float& f)
{
    uint u = as_type<uint>(f);
    float _277;
    if ((u & 2139095040u) == 0u)
    {
        _277 = as_type<float>(u & 2147483648u);
    }
    else
    {
        _277 = f;
    }
    return _277;
}

static inline __attribute__((always_inline))
float bf16_madd(thread float& acc, thread float& w, thread float& x)
{
    float param = acc;
    acc = bf16_daz(param);
    float param_1 = w;
    w = bf16_daz(param_1);
    float param_2 = x;
    x = bf16_daz(param_2);
    float two64 = as_type<float>(1602224128u);
    float twom64 = as_type<float>(528482304u);
    float p = spvFMul(w, x);
    bool _311 = !isinf(w);
    bool _317;
    if (_311)
    {
        _317 = !isinf(x);
    }
    else
    {
        _317 = _311;
    }
    bool _323;
    if (_317)
    {
        _323 = !isnan(w);
    }
    else
    {
        _323 = _317;
    }
    bool _329;
    if (_323)
    {
        _329 = !isnan(x);
    }
    else
    {
        _329 = _323;
    }
    bool finite = _329;
    bool _335;
    if (finite)
    {
        _335 = isinf(p);
    }
    else
    {
        _335 = finite;
    }
    if (_335)
    {
        if (isinf(acc))
        {
            return acc;
        }
        float ps = spvFMul(spvFMul(w, twom64), x);
        float s = spvFAdd(spvFMul(acc, twom64), ps);
        float r = spvFMul(s, two64);
        return r;
    }
    bool _370 = ((!finite) || (w == 0.0)) || (x == 0.0);
    bool _380;
    if (!_370)
    {
        _380 = !(abs(acc) < as_type<float>(226492416u));
    }
    else
    {
        _380 = _370;
    }
    bool _388;
    if (!_380)
    {
        _388 = abs(p) >= as_type<float>(226492416u);
    }
    else
    {
        _388 = _380;
    }
    if (_388)
    {
        float r_1 = spvFAdd(acc, p);
        return r_1;
    }
    float ps_1 = spvFMul(spvFMul(w, two64), x);
    uint _sign = (as_type<uint>(w) ^ as_type<uint>(x)) & 2147483648u;
    if (acc == 0.0)
    {
        float _419;
        if (abs(ps_1) >= as_type<float>(545259520u))
        {
            _419 = p;
        }
        else
        {
            _419 = as_type<float>(_sign);
        }
        return _419;
    }
    if (abs(ps_1) < as_type<float>(16777216u))
    {
        return acc;
    }
    float s_1 = spvFAdd(spvFMul(acc, two64), ps_1);
    if (abs(s_1) < as_type<float>(545259520u))
    {
        return as_type<float>(as_type<uint>(s_1) & 2147483648u);
    }
    float r_2 = spvFMul(s_1, twom64);
    return r_2;
}

kernel void forma_numeric_check(constant Push& pc [[buffer(0)]], device A& _2022 [[buffer(1)]], device B& _2075 [[buffer(2)]], device C& _2107 [[buffer(3)]], device Y& _2156 [[buffer(4)]], uint3 gl_WorkGroupID [[threadgroup_position_in_grid]], uint3 gl_NumWorkGroups [[threadgroups_per_grid]], uint3 gl_LocalInvocationID [[thread_position_in_threadgroup]])
{
    uint i = (flat_workgroup(gl_WorkGroupID, gl_NumWorkGroups) * gl_WorkGroupSize.x) + gl_LocalInvocationID.x;
    if (i >= pc.n)
    {
        return;
    }
    float x = _2022.a[i];
    float r = 0.0;
    if (_2029)
    {
        float param = x;
        r = tanh_rn(param);
    }
    else
    {
        if (_2036)
        {
            float param_1 = x;
            r = libm_sincos(param_1).x;
        }
        else
        {
            if (_2045)
            {
                float param_2 = x;
                r = libm_sincos(param_2).y;
            }
            else
            {
                if (_2054)
                {
                    float param_3 = x;
                    r = vexpf(param_3);
                }
                else
                {
                    if (_2061)
                    {
                        float param_4 = x;
                        r = sqrt_rn(param_4);
                    }
                    else
                    {
                        if (_2069)
                        {
                            float param_5 = x;
                            float param_6 = _2075.b[i];
                            r = div_rn(param_5, param_6);
                        }
                        else
                        {
                            if (_2085)
                            {
                                float param_7 = x;
                                r = float(f16_bits(param_7));
                            }
                            else
                            {
                                if (_2093)
                                {
                                    float param_8 = x;
                                    r = bf16_round(param_8);
                                }
                                else
                                {
                                    if (_2100)
                                    {
                                        float param_9 = x;
                                        float param_10 = _2075.b[i];
                                        float param_11 = _2107.c[i];
                                        r = fma_exact(param_9, param_10, param_11);
                                    }
                                    else
                                    {
                                        if (_2120)
                                        {
                                            float param_12 = x;
                                            r = expf_rn(param_12);
                                        }
                                        else
                                        {
                                            if (_2128)
                                            {
                                                float param_13 = x;
                                                float param_14 = _2075.b[i];
                                                float param_15 = _2107.c[i];
                                                float _2141 = bf16_madd(param_13, param_14, param_15);
                                                r = _2141;
                                            }
                                            else
                                            {
                                                float f = fma(x, _2075.b[i], _2107.c[i]);
                                                r = f;
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    _2156.y[i] = r;
}

