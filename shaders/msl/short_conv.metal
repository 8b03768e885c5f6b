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
constant uint _255_tmp [[function_constant(0)]];
constant uint _255 = is_function_constant_defined(_255_tmp) ? _255_tmp : 1u;
constant uint3 gl_WorkGroupSize [[maybe_unused]] = uint3(_255, 1u, 1u);

struct Push
{
    uint n;
    uint d;
    uint taps;
    uint unfused;
    uint paged;
    uint page_size;
    uint max_pages;
    uint c_off;
    uint w_off;
    uint pos_off;
    uint seq_off;
    uint pages_off;
    uint y_off;
};

struct P
{
    int pos[1];
};

struct T
{
    int pages[1];
};

struct S
{
    int seq[1];
};

struct C
{
    float cache[1];
};

struct W
{
    float w[1];
};

struct Y
{
    float y[1];
};

constant spvUnsafeArray<float2, 20> _509 = spvUnsafeArray<float2, 20>({ float2(1.0, 0.0), float2(1.0, 0.0), float2(0.5, 0.0), float2(0.16666667163372039794921875, -4.9670538793122887000208720564842e-09), float2(0.0416666679084300994873046875, -1.2417634698280721750052180141211e-09), float2(0.008333333767950534820556640625, -4.3461720333759501500026090070605e-10), float2(0.001388888922519981861114501953125, -3.3631094437103215000206546392292e-11), float2(0.00019841270113829523324966430664062, -2.7255968749334558154373553406913e-12), float2(2.4801587642286904156208038330078e-05, -3.4069960936668197692966941758641e-13), float2(2.7557318844628753140568733215332e-06, 3.7935712242972291496911907415779e-14), float2(2.7557319981497130356729030609131e-07, -7.5751122090511949225266619123431e-15), float2(2.5052107943679402524139732122421e-08, 4.4176230446483664635048960178665e-16), float2(2.0876755879584152353345416486263e-09, 1.1082839147459852308270911169785e-16), float2(1.6059044372074282591711380518973e-10, -5.3525265115627256262654729002115e-18), float2(1.147074536050896043093416665215e-11, 2.3722076892312380547612072484442e-19), float2(7.6471636098127127034729255683487e-13, 1.2200710471178287732698915322299e-20), float2(4.779477256132945439670578480218e-14, 7.625444044486429832936822076437e-22), float2(2.8114573589663703623298118827734e-15, -1.0462084739763657794534194576036e-22), float2(1.5619206814541513076918799463044e-16, 1.5404471465941992767529961911953e-24), float2(8.2206350784765213506911918361908e-18, 1.6814780968558980371442752815229e-25) });
constant spvUnsafeArray<uint, 24> _557 = spvUnsafeArray<uint, 24>({ 162u, 41721u, 10680707u, 2734261102u, 4186140238u, 2205044292u, 1850622997u, 1313084713u, 1142237692u, 355073063u, 704390999u, 4230436817u, 660066805u, 1473377588u, 3522507997u, 4113882560u, 886948059u, 3720403810u, 3235603093u, 3680671129u, 1653971260u, 2509847619u, 2570863504u, 1011060801u });

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
    bool _164 = t.y != 0.0;
    bool _170;
    if (_164)
    {
        _170 = u.y != 0.0;
    }
    else
    {
        _170 = _164;
    }
    if (_170)
    {
        float up = as_type<float>(as_type<uint>(abs(r)) + 1u);
        float dn = as_type<float>(as_type<uint>(abs(r)) - 1u);
        float nb = ((u.y > 0.0) == (r > 0.0)) ? up : dn;
        float half_ = spvFMul(spvFSub(nb, abs(r)), 0.5);
        bool _207 = abs(u.y) == abs(half_);
        bool _217;
        if (_207)
        {
            _217 = (t.y > 0.0) == (u.y > 0.0);
        }
        else
        {
            _217 = _207;
        }
        if (_217)
        {
            float _222;
            if (r > 0.0)
            {
                _222 = nb;
            }
            else
            {
                _222 = -nb;
            }
            r = _222;
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

kernel void forma_short_conv(constant Push& pc [[buffer(0)]], device P& _295 [[buffer(1)]], device T& _344 [[buffer(2)]], device S& _351 [[buffer(3)]], device C& _387 [[buffer(4)]], device W& _405 [[buffer(5)]], device Y& _445 [[buffer(6)]], uint3 gl_WorkGroupID [[threadgroup_position_in_grid]], uint3 gl_NumWorkGroups [[threadgroups_per_grid]], uint3 gl_LocalInvocationID [[thread_position_in_threadgroup]])
{
    uint i = (flat_workgroup(gl_WorkGroupID, gl_NumWorkGroups) * gl_WorkGroupSize.x) + gl_LocalInvocationID.x;
    if (i >= (pc.n * pc.d))
    {
        return;
    }
    uint t = i / pc.d;
    uint ch = i % pc.d;
    int first = (_295.pos[pc.pos_off + t] - int(pc.taps)) + 1;
    float sum = 0.0;
    for (uint k = 0u; k < pc.taps; k++)
    {
        int c = first + int(k);
        if (c < 0)
        {
            continue;
        }
        uint row = uint(c);
        if (pc.paged != 0u)
        {
            int pg = _344.pages[(pc.pages_off + (uint(_351.seq[pc.seq_off + t]) * pc.max_pages)) + (row / pc.page_size)];
            row = (uint(pg) * pc.page_size) + (row % pc.page_size);
        }
        float x = _387.cache[(pc.c_off + (row * pc.d)) + ch];
        float wk = _405.w[(pc.w_off + (ch * pc.taps)) + k];
        if (k < pc.unfused)
        {
            float p = spvFMul(x, wk);
            sum = spvFAdd(sum, p);
        }
        else
        {
            float param = x;
            float param_1 = wk;
            float param_2 = sum;
            sum = fmaf(param, param_1, param_2);
        }
    }
    _445.y[pc.y_off + i] = sum;
}

