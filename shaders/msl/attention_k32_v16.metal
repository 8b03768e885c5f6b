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

constant bool NATIVE_FMA_tmp [[function_constant(7)]];
constant bool NATIVE_FMA = is_function_constant_defined(NATIVE_FMA_tmp) ? NATIVE_FMA_tmp : false;
#ifndef SPIRV_CROSS_CONSTANT_ID_0
#define SPIRV_CROSS_CONSTANT_ID_0 1u
#endif
constant uint _1377 = SPIRV_CROSS_CONSTANT_ID_0;
constant uint3 gl_WorkGroupSize [[maybe_unused]] = uint3(_1377, 1u, 1u);
constant uint _1379 = _1377;
constant uint _1417 = _1377;
constant uint _1426 = _1377;
constant uint _1427 = (_1426 / 2u);

struct K
{
    uint kc[1];
};

struct V
{
    uint vc[1];
};

struct Push
{
    uint n;
    uint heads;
    uint kv_heads;
    uint size;
    uint vsize;
    uint ctx;
    uint window;
    uint q_off;
    uint k_off;
    uint v_off;
    uint pos_off;
    uint y_off;
    uint paged;
    uint page_size;
    uint max_pages;
    uint seq_off;
    uint pages_off;
    uint vstride;
    uint sinks;
    uint sinks_off;
    float scale;
    float softcap;
    float cap_inv;
};

struct T
{
    int pages[1];
};

struct P
{
    int pos[1];
};

struct S
{
    int seq[1];
};

struct Q
{
    float q[1];
};

struct SK
{
    float sink[1];
};

struct Y
{
    float y[1];
};

constant spvUnsafeArray<float2, 20> _760 = spvUnsafeArray<float2, 20>({ float2(1.0, 0.0), float2(1.0, 0.0), float2(0.5, 0.0), float2(0.16666667163372039794921875, -4.9670538793122887000208720564842e-09), float2(0.0416666679084300994873046875, -1.2417634698280721750052180141211e-09), float2(0.008333333767950534820556640625, -4.3461720333759501500026090070605e-10), float2(0.001388888922519981861114501953125, -3.3631094437103215000206546392292e-11), float2(0.00019841270113829523324966430664062, -2.7255968749334558154373553406913e-12), float2(2.4801587642286904156208038330078e-05, -3.4069960936668197692966941758641e-13), float2(2.7557318844628753140568733215332e-06, 3.7935712242972291496911907415779e-14), float2(2.7557319981497130356729030609131e-07, -7.5751122090511949225266619123431e-15), float2(2.5052107943679402524139732122421e-08, 4.4176230446483664635048960178665e-16), float2(2.0876755879584152353345416486263e-09, 1.1082839147459852308270911169785e-16), float2(1.6059044372074282591711380518973e-10, -5.3525265115627256262654729002115e-18), float2(1.147074536050896043093416665215e-11, 2.3722076892312380547612072484442e-19), float2(7.6471636098127127034729255683487e-13, 1.2200710471178287732698915322299e-20), float2(4.779477256132945439670578480218e-14, 7.625444044486429832936822076437e-22), float2(2.8114573589663703623298118827734e-15, -1.0462084739763657794534194576036e-22), float2(1.5619206814541513076918799463044e-16, 1.5404471465941992767529961911953e-24), float2(8.2206350784765213506911918361908e-18, 1.6814780968558980371442752815229e-25) });
constant spvUnsafeArray<uint, 24> _2275 = spvUnsafeArray<uint, 24>({ 162u, 41721u, 10680707u, 2734261102u, 4186140238u, 2205044292u, 1850622997u, 1313084713u, 1142237692u, 355073063u, 704390999u, 4230436817u, 660066805u, 1473377588u, 3522507997u, 4113882560u, 886948059u, 3720403810u, 3235603093u, 3680671129u, 1653971260u, 2509847619u, 2570863504u, 1011060801u });

static inline __attribute__((always_inline))
uint flat_workgroup(thread uint3& gl_WorkGroupID, thread uint3& gl_NumWorkGroups)
{
    return (gl_WorkGroupID.y * gl_NumWorkGroups.x) + gl_WorkGroupID.x;
}

static inline __attribute__((always_inline))
uint row(thread const uint& c, constant Push& pc, device T& _1538, thread uint& table_row)
{
    if (pc.paged == 0u)
    {
        return c;
    }
    uint pg = uint(clamp(_1538.pages[(pc.pages_off + table_row) + (c / pc.page_size)], 0, int(pc.ctx / pc.page_size) - 1));
    return (pg * pc.page_size) + (c % pc.page_size);
}

static inline __attribute__((always_inline))
float kval(thread const uint& e, device K& _1464)
{
    return as_type<float>(_1464.kc[e]);
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
    bool _967 = t.y != 0.0;
    bool _973;
    if (_967)
    {
        _973 = u.y != 0.0;
    }
    else
    {
        _973 = _967;
    }
    if (_973)
    {
        float up = as_type<float>(as_type<uint>(abs(r)) + 1u);
        float dn = as_type<float>(as_type<uint>(abs(r)) - 1u);
        float nb = ((u.y > 0.0) == (r > 0.0)) ? up : dn;
        float half_ = spvFMul(spvFSub(nb, abs(r)), 0.5);
        bool _1009 = abs(u.y) == abs(half_);
        bool _1019;
        if (_1009)
        {
            _1019 = (t.y > 0.0) == (u.y > 0.0);
        }
        else
        {
            _1019 = _1009;
        }
        if (_1019)
        {
            float _1024;
            if (r > 0.0)
            {
                _1024 = nb;
            }
            else
            {
                _1024 = -nb;
            }
            r = _1024;
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
float kchain(thread const uint& off, thread const uint& l, thread const uint& np, device K& _1464, threadgroup spvUnsafeArray<float, 640>& sq)
{
    float a = 0.0;
    for (uint i = l; i < np; i += 64u)
    {
        uint param = off + i;
        float param_1 = sq[i];
        float param_2 = kval(param, _1464);
        float param_3 = a;
        a = fmaf(param_1, param_2, param_3);
    }
    return a;
}

static inline __attribute__((always_inline))
float reduce16(thread const spvUnsafeArray<float, 16>& l)
{
    spvUnsafeArray<float, 8> t;
    for (uint i = 0u; i < 8u; i++)
    {
        float v = spvFAdd(l[i], l[i + 8u]);
        t[i] = v;
    }
    float u0 = spvFAdd(t[0], t[4]);
    float u1 = spvFAdd(t[1], t[5]);
    float u2 = spvFAdd(t[2], t[6]);
    float u3 = spvFAdd(t[3], t[7]);
    float r = spvFAdd(spvFAdd(u0, u2), spvFAdd(u1, u3));
    return r;
}

static inline __attribute__((always_inline))
float tail_f32(thread const float& sum, thread const float& a, thread const float& b, thread const bool& rounded)
{
    if (rounded)
    {
        float p = spvFMul(a, b);
        float r = spvFAdd(sum, p);
        return r;
    }
    float param = a;
    float param_1 = b;
    float param_2 = sum;
    return fmaf(param, param_1, param_2);
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
    float2 p = _760[last];
    int _768 = last - 1;
    for (int i = _768; i >= first; i--)
    {
        float2 param = p;
        float2 param_1 = r;
        float2 param_2 = df_mul(param, param_1);
        float2 param_3 = _760[i];
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
    bool _386 = r > mb;
    bool _399;
    if (!_386)
    {
        bool _392 = r == mb;
        bool _398;
        if (_392)
        {
            _398 = (q & 1u) != 0u;
        }
        else
        {
            _398 = _392;
        }
        _399 = _398;
    }
    else
    {
        _399 = _386;
    }
    if (_399)
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
        float _823;
        if (a == 0.0)
        {
            _823 = x;
        }
        else
        {
            _823 = sign(x);
        }
        return _823;
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
    float _921;
    if (x < 0.0)
    {
        _921 = -th.x;
    }
    else
    {
        _921 = th.x;
    }
    return _921;
}

static inline __attribute__((always_inline))
float score(thread const uint& cell, thread const uint& g, device K& _1464, threadgroup spvUnsafeArray<float, 640>& sq, constant Push& pc, device T& _1538, thread uint& table_row)
{
    uint param = cell;
    uint off = pc.k_off + (((row(param, pc, _1538, table_row) * pc.kv_heads) + g) * pc.size);
    uint np = pc.size & 4294967232u;
    spvUnsafeArray<float, 16> r;
    for (uint e = 0u; e < 16u; e++)
    {
        uint param_1 = off;
        uint param_2 = e;
        uint param_3 = np;
        uint param_4 = off;
        uint param_5 = e + 32u;
        uint param_6 = np;
        uint param_7 = off;
        uint param_8 = e + 16u;
        uint param_9 = np;
        uint param_10 = off;
        uint param_11 = e + 48u;
        uint param_12 = np;
        float v = spvFAdd(spvFAdd(kchain(param_1, param_2, param_3, _1464, sq), kchain(param_4, param_5, param_6, _1464, sq)), spvFAdd(kchain(param_7, param_8, param_9, _1464, sq), kchain(param_10, param_11, param_12, _1464, sq)));
        r[e] = v;
    }
    spvUnsafeArray<float, 16> param_13 = r;
    float s = reduce16(param_13);
    for (uint d = np; d < pc.size; d++)
    {
        uint param_14 = off + d;
        float param_15 = s;
        float param_16 = sq[d];
        float param_17 = kval(param_14, _1464);
        bool param_18 = (d - np) < ((pc.size - np) & 4294967288u);
        s = tail_f32(param_15, param_16, param_17, param_18);
    }
    if (pc.softcap > 0.0)
    {
        float t = spvFMul(s, pc.cap_inv);
        float param_19 = t;
        s = spvFMul(tanh_rn(param_19), pc.softcap);
    }
    float res = spvFMul(s, pc.scale);
    return res;
}

static inline __attribute__((always_inline))
float wg_max(thread float& v, threadgroup spvUnsafeArray<float, _1379>& red_buf, thread uint& gl_SubgroupID, thread uint& gl_NumSubgroups)
{
    v = simd_max(v);
    bool _1374 = simd_is_first();
    if (_1374)
    {
        red_buf[gl_SubgroupID] = v;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    float s = red_buf[0];
    for (uint i = 1u; i < gl_NumSubgroups; i++)
    {
        s = fast::max(s, red_buf[i]);
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    return s;
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
        float _1156;
        if (n <= 0.0)
        {
            _1156 = 0.0;
        }
        else
        {
            _1156 = as_type<float>(2139095040u);
        }
        return _1156;
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
float2 wg_sum_df(thread const float2& v, thread uint3& gl_LocalInvocationID, threadgroup spvUnsafeArray<float2, _1417>& red_df)
{
    uint lid = gl_LocalInvocationID.x;
    red_df[lid] = v;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint s = _1427; s > 0u; s = s >> uint(1))
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
float df_recip(thread const float2& a)
{
    float param = 1.0;
    float param_1 = a.x;
    float q1 = div_rn(param, param_1);
    float param_2 = q1;
    float param_3 = a.x;
    float2 p = two_prod(param_2, param_3);
    float r = spvFSub(spvFSub(spvFSub(1.0, p.x), p.y), spvFMul(q1, a.y));
    float q = spvFAdd(q1, spvFMul(r, q1));
    return q;
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
    bool _250 = rem > half_;
    bool _263;
    if (!_250)
    {
        bool _256 = rem == half_;
        bool _262;
        if (_256)
        {
            _262 = (q & 1u) != 0u;
        }
        else
        {
            _262 = _256;
        }
        _263 = _262;
    }
    else
    {
        _263 = _250;
    }
    if (_263)
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
float vval(thread const uint& e, device V& _1475)
{
    return float2(as_type<half2>(_1475.vc[e >> uint(1)] >> (16u * (e & 1u)))).x;
}

kernel void forma_attention_k32_v16(device K& _1464 [[buffer(0)]], device V& _1475 [[buffer(1)]], constant Push& pc [[buffer(2)]], device T& _1538 [[buffer(3)]], device P& _1767 [[buffer(4)]], device S& _1789 [[buffer(5)]], device Q& _1850 [[buffer(6)]], device SK& _1919 [[buffer(7)]], device Y& _2211 [[buffer(8)]], uint3 gl_WorkGroupID [[threadgroup_position_in_grid]], uint3 gl_NumWorkGroups [[threadgroups_per_grid]], uint gl_SubgroupID [[simdgroup_index_in_threadgroup]], uint gl_NumSubgroups [[simdgroups_per_threadgroup]], uint3 gl_LocalInvocationID [[thread_position_in_threadgroup]])
{
    threadgroup spvUnsafeArray<float, _1379> red_buf;
    threadgroup spvUnsafeArray<float2, _1417> red_df;
    threadgroup spvUnsafeArray<float, 640> sq;
    threadgroup spvUnsafeArray<float, 2048> sc;
    uint u = flat_workgroup(gl_WorkGroupID, gl_NumWorkGroups);
    uint table_row;
    if (u >= (pc.n * pc.heads))
    {
        return;
    }
    uint lid = gl_LocalInvocationID.x;
    uint i = u / pc.heads;
    uint h = u % pc.heads;
    uint g = h / (pc.heads / pc.kv_heads);
    uint _1751;
    if (pc.paged != 0u)
    {
        _1751 = pc.max_pages * pc.page_size;
    }
    else
    {
        _1751 = pc.ctx;
    }
    uint cells = _1751;
    uint p = uint(clamp(_1767.pos[pc.pos_off + i], 0, int(cells) - 1));
    uint _1783;
    if (pc.paged != 0u)
    {
        _1783 = uint(max(_1789.seq[pc.seq_off + i], 0)) * pc.max_pages;
    }
    else
    {
        _1783 = 0u;
    }
    table_row = _1783;
    bool _1807 = pc.window > 0u;
    bool _1815;
    if (_1807)
    {
        _1815 = (p + 1u) > pc.window;
    }
    else
    {
        _1815 = _1807;
    }
    uint _1816;
    if (_1815)
    {
        _1816 = (p + 1u) - pc.window;
    }
    else
    {
        _1816 = 0u;
    }
    uint first = _1816;
    uint nk = (p + 1u) - first;
    bool kept = nk <= 2048u;
    for (uint d = lid; d < pc.size; d += 128u)
    {
        float v = _1850.q[(pc.q_off + (u * pc.size)) + d];
        sq[d] = v;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    float lm = as_type<float>(4286578688u);
    for (uint j = lid; j < nk; j += 128u)
    {
        uint param = first + j;
        uint param_1 = g;
        float s = score(param, param_1, _1464, sq, pc, _1538, table_row);
        if (kept)
        {
            sc[j] = s;
        }
        lm = fast::max(lm, s);
    }
    float param_2 = lm;
    float _1907 = wg_max(param_2, red_buf, gl_SubgroupID, gl_NumSubgroups);
    float m = _1907;
    float _1913;
    if (pc.sinks != 0u)
    {
        _1913 = _1919.sink[pc.sinks_off + h];
    }
    else
    {
        _1913 = 0.0;
    }
    float sk = _1913;
    if (pc.sinks != 0u)
    {
        m = fast::max(m, sk);
    }
    float2 ls = float2(0.0);
    uint _1943 = (first / 16u) + lid;
    float _1977;
    spvUnsafeArray<float, 16> grp;
    for (uint gi = _1943; gi <= (p / 16u); gi += 128u)
    {
        for (uint l = 0u; l < 16u; l++)
        {
            uint c = (gi * 16u) + l;
            float e = 0.0;
            if ((c >= first) && (c <= p))
            {
                if (kept)
                {
                    _1977 = sc[c - first];
                }
                else
                {
                    uint param_3 = c;
                    uint param_4 = g;
                    _1977 = score(param_3, param_4, _1464, sq, pc, _1538, table_row);
                }
                float param_5 = spvFSub(_1977, m);
                e = vexpf(param_5);
                if (kept)
                {
                    sc[c - first] = e;
                }
            }
            grp[l] = e;
        }
        spvUnsafeArray<float, 16> param_6 = grp;
        float2 param_7 = ls;
        float2 param_8 = float2(reduce16(param_6), 0.0);
        ls = df_add(param_7, param_8);
    }
    float2 param_9 = ls;
    float2 _2023 = wg_sum_df(param_9, gl_LocalInvocationID, red_df);
    float2 tot = _2023;
    if (pc.sinks != 0u)
    {
        float param_10 = spvFSub(sk, m);
        float2 param_11 = tot;
        float2 param_12 = float2(expf_rn(param_10), 0.0);
        tot = df_add(param_11, param_12);
    }
    float2 param_13 = tot;
    float inv = df_recip(param_13);
    spvUnsafeArray<float, 5> acc;
    for (uint k = 0u; k < 5u; k++)
    {
        acc[k] = 0.0;
    }
    float _2085;
    for (uint c0 = 0u; c0 < nk; c0 += 2048u)
    {
        uint cn = min(2048u, (nk - c0));
        for (uint j_1 = lid; j_1 < cn; j_1 += 128u)
        {
            if (kept)
            {
                _2085 = sc[j_1];
            }
            else
            {
                uint param_14 = (first + c0) + j_1;
                uint param_15 = g;
                float param_16 = spvFSub(score(param_14, param_15, _1464, sq, pc, _1538, table_row), m);
                _2085 = vexpf(param_16);
            }
            float e_1 = _2085;
            float pj = spvFMul(e_1, inv);
            float param_17 = pj;
            sc[j_1] = f16_round(param_17);
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
        for (uint k_1 = 0u; k_1 < 5u; k_1++)
        {
            uint d_1 = lid + (k_1 * 128u);
            if (d_1 < pc.vsize)
            {
                float a = acc[k_1];
                for (uint j_2 = 0u; j_2 < cn; j_2++)
                {
                    uint param_18 = (first + c0) + j_2;
                    uint param_19 = (pc.v_off + (((row(param_18, pc, _1538, table_row) * pc.kv_heads) + g) * pc.vstride)) + d_1;
                    float prod = spvFMul(sc[j_2], vval(param_19, _1475));
                    a += prod;
                }
                acc[k_1] = a;
            }
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    for (uint k_2 = 0u; k_2 < 5u; k_2++)
    {
        uint d_2 = lid + (k_2 * 128u);
        if (d_2 < pc.vsize)
        {
            _2211.y[(pc.y_off + (u * pc.vsize)) + d_2] = acc[k_2];
        }
    }
}

