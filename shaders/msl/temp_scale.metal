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

constant uint _196_tmp [[function_constant(0)]];
constant uint _196 = is_function_constant_defined(_196_tmp) ? _196_tmp : 1u;
constant uint3 gl_WorkGroupSize [[maybe_unused]] = uint3(_196, 1u, 1u);

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

struct B
{
    float b[1];
};

struct Y
{
    float y[1];
};

constant bool NATIVE_FMA_tmp [[function_constant(7)]];
constant bool NATIVE_FMA = is_function_constant_defined(NATIVE_FMA_tmp) ? NATIVE_FMA_tmp : false;

constant spvUnsafeArray<float2, 20> _338 = spvUnsafeArray<float2, 20>({ float2(1.0, 0.0), float2(1.0, 0.0), float2(0.5, 0.0), float2(0.16666667163372039794921875, -4.9670538793122887000208720564842e-09), float2(0.0416666679084300994873046875, -1.2417634698280721750052180141211e-09), float2(0.008333333767950534820556640625, -4.3461720333759501500026090070605e-10), float2(0.001388888922519981861114501953125, -3.3631094437103215000206546392292e-11), float2(0.00019841270113829523324966430664062, -2.7255968749334558154373553406913e-12), float2(2.4801587642286904156208038330078e-05, -3.4069960936668197692966941758641e-13), float2(2.7557318844628753140568733215332e-06, 3.7935712242972291496911907415779e-14), float2(2.7557319981497130356729030609131e-07, -7.5751122090511949225266619123431e-15), float2(2.5052107943679402524139732122421e-08, 4.4176230446483664635048960178665e-16), float2(2.0876755879584152353345416486263e-09, 1.1082839147459852308270911169785e-16), float2(1.6059044372074282591711380518973e-10, -5.3525265115627256262654729002115e-18), float2(1.147074536050896043093416665215e-11, 2.3722076892312380547612072484442e-19), float2(7.6471636098127127034729255683487e-13, 1.2200710471178287732698915322299e-20), float2(4.779477256132945439670578480218e-14, 7.625444044486429832936822076437e-22), float2(2.8114573589663703623298118827734e-15, -1.0462084739763657794534194576036e-22), float2(1.5619206814541513076918799463044e-16, 1.5404471465941992767529961911953e-24), float2(8.2206350784765213506911918361908e-18, 1.6814780968558980371442752815229e-25) });
constant spvUnsafeArray<uint, 24> _386 = spvUnsafeArray<uint, 24>({ 162u, 41721u, 10680707u, 2734261102u, 4186140238u, 2205044292u, 1850622997u, 1313084713u, 1142237692u, 355073063u, 704390999u, 4230436817u, 660066805u, 1473377588u, 3522507997u, 4113882560u, 886948059u, 3720403810u, 3235603093u, 3680671129u, 1653971260u, 2509847619u, 2570863504u, 1011060801u });

static inline __attribute__((always_inline))
uint flat_workgroup(thread uint3& gl_WorkGroupID, thread uint3& gl_NumWorkGroups)
{
    return (gl_WorkGroupID.y * gl_NumWorkGroups.x) + gl_WorkGroupID.x;
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
    bool _142 = r > mb;
    bool _155;
    if (!_142)
    {
        bool _148 = r == mb;
        bool _154;
        if (_148)
        {
            _154 = (q & 1u) != 0u;
        }
        else
        {
            _154 = _148;
        }
        _155 = _154;
    }
    else
    {
        _155 = _142;
    }
    if (_155)
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

kernel void forma_temp_scale(constant Push& pc [[buffer(0)]], device A& _219 [[buffer(1)]], device B& _232 [[buffer(2)]], device Y& _272 [[buffer(3)]], uint3 gl_WorkGroupID [[threadgroup_position_in_grid]], uint3 gl_NumWorkGroups [[threadgroups_per_grid]], uint3 gl_LocalInvocationID [[thread_position_in_threadgroup]])
{
    uint i = (flat_workgroup(gl_WorkGroupID, gl_NumWorkGroups) * gl_WorkGroupSize.x) + gl_LocalInvocationID.x;
    if (i >= pc.n)
    {
        return;
    }
    float x = _219.a[pc.a_off + i];
    float p = float(as_type<int>(_232.b[pc.b_off + (i / pc.nb)]));
    float param = p;
    float param_1 = pc.inv;
    float k = floor(div_rn(param, param_1));
    float t = spvFAdd(spvFMul(log(spvFAdd(k, 1.0)), pc.f), 1.0);
    float r = spvFMul(x, t);
    _272.y[pc.y_off + i] = r;
}

