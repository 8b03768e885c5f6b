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
constant uint _420 = SPIRV_CROSS_CONSTANT_ID_0;
constant uint3 gl_WorkGroupSize [[maybe_unused]] = uint3(_420, 1u, 1u);

struct X
{
    float x[1];
};

constant uint _543 = _420;
constant uint _544 = (_543 * 8u);

struct Y
{
    float y[1];
};

constant bool NATIVE_FMA_tmp [[function_constant(7)]];
constant bool NATIVE_FMA = is_function_constant_defined(NATIVE_FMA_tmp) ? NATIVE_FMA_tmp : false;

constant spvUnsafeArray<float2, 20> _742 = spvUnsafeArray<float2, 20>({ float2(1.0, 0.0), float2(1.0, 0.0), float2(0.5, 0.0), float2(0.16666667163372039794921875, -4.9670538793122887000208720564842e-09), float2(0.0416666679084300994873046875, -1.2417634698280721750052180141211e-09), float2(0.008333333767950534820556640625, -4.3461720333759501500026090070605e-10), float2(0.001388888922519981861114501953125, -3.3631094437103215000206546392292e-11), float2(0.00019841270113829523324966430664062, -2.7255968749334558154373553406913e-12), float2(2.4801587642286904156208038330078e-05, -3.4069960936668197692966941758641e-13), float2(2.7557318844628753140568733215332e-06, 3.7935712242972291496911907415779e-14), float2(2.7557319981497130356729030609131e-07, -7.5751122090511949225266619123431e-15), float2(2.5052107943679402524139732122421e-08, 4.4176230446483664635048960178665e-16), float2(2.0876755879584152353345416486263e-09, 1.1082839147459852308270911169785e-16), float2(1.6059044372074282591711380518973e-10, -5.3525265115627256262654729002115e-18), float2(1.147074536050896043093416665215e-11, 2.3722076892312380547612072484442e-19), float2(7.6471636098127127034729255683487e-13, 1.2200710471178287732698915322299e-20), float2(4.779477256132945439670578480218e-14, 7.625444044486429832936822076437e-22), float2(2.8114573589663703623298118827734e-15, -1.0462084739763657794534194576036e-22), float2(1.5619206814541513076918799463044e-16, 1.5404471465941992767529961911953e-24), float2(8.2206350784765213506911918361908e-18, 1.6814780968558980371442752815229e-25) });
constant spvUnsafeArray<uint, 24> _790 = spvUnsafeArray<uint, 24>({ 162u, 41721u, 10680707u, 2734261102u, 4186140238u, 2205044292u, 1850622997u, 1313084713u, 1142237692u, 355073063u, 704390999u, 4230436817u, 660066805u, 1473377588u, 3522507997u, 4113882560u, 886948059u, 3720403810u, 3235603093u, 3680671129u, 1653971260u, 2509847619u, 2570863504u, 1011060801u });

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
float welem(thread const uint& e, device W& _398)
{
    return as_type<float>(((_398.w[e >> uint(1)] >> (16u * (e & 1u))) & 65535u) << uint(16));
}

static inline __attribute__((always_inline))
float bf16_daz(thread const float& f)
{
    uint u = as_type<uint>(f);
    float _75;
    if ((u & 2139095040u) == 0u)
    {
        _75 = as_type<float>(u & 2147483648u);
    }
    else
    {
        _75 = f;
    }
    return _75;
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
    bool _110 = !isinf(w);
    bool _116;
    if (_110)
    {
        _116 = !isinf(x);
    }
    else
    {
        _116 = _110;
    }
    bool _122;
    if (_116)
    {
        _122 = !isnan(w);
    }
    else
    {
        _122 = _116;
    }
    bool _128;
    if (_122)
    {
        _128 = !isnan(x);
    }
    else
    {
        _128 = _122;
    }
    bool finite = _128;
    bool _134;
    if (finite)
    {
        _134 = isinf(p);
    }
    else
    {
        _134 = finite;
    }
    if (_134)
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
    bool _169 = ((!finite) || (w == 0.0)) || (x == 0.0);
    bool _179;
    if (!_169)
    {
        _179 = !(abs(acc) < as_type<float>(226492416u));
    }
    else
    {
        _179 = _169;
    }
    bool _187;
    if (!_179)
    {
        _187 = abs(p) >= as_type<float>(226492416u);
    }
    else
    {
        _187 = _179;
    }
    if (_187)
    {
        float r_1 = spvFAdd(acc, p);
        return r_1;
    }
    float ps_1 = spvFMul(spvFMul(w, two64), x);
    uint _sign = (as_type<uint>(w) ^ as_type<uint>(x)) & 2147483648u;
    if (acc == 0.0)
    {
        float _218;
        if (abs(ps_1) >= as_type<float>(545259520u))
        {
            _218 = p;
        }
        else
        {
            _218 = as_type<float>(_sign);
        }
        return _218;
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

kernel void forma_matvec_bf16(constant Push& pc [[buffer(0)]], device W& _398 [[buffer(1)]], device X& _512 [[buffer(2)]], device Y& _673 [[buffer(3)]], uint3 gl_WorkGroupID [[threadgroup_position_in_grid]], uint3 gl_NumWorkGroups [[threadgroups_per_grid]], uint3 gl_LocalInvocationID [[thread_position_in_threadgroup]])
{
    threadgroup spvUnsafeArray<float, _544> lanes;
    uint lid = gl_LocalInvocationID.x;
    uint wg = gl_WorkGroupSize.x;
    uint nl = pc.tpr;
    uint _step = 2u * nl;
    uint lane = lid % nl;
    uint slot = lid / nl;
    uint row = (flat_workgroup(gl_WorkGroupID, gl_NumWorkGroups) * (wg / nl)) + slot;
    uint param = pc.cols;
    uint w_base;
    uint x_base;
    uint y_base;
    bool _449 = id_setup(param, w_base, pc, x_base, y_base);
    if (!_449)
    {
        return;
    }
    uint np = pc.cols & (~(_step - 1u));
    uint base = w_base + (row * pc.cols);
    for (uint c = 0u; c < pc.ncols; c++)
    {
        float acc = 0.0;
        if (row < pc.rows)
        {
            uint xb = x_base + (c * pc.cols);
            uint _494 = 2u * lane;
            for (uint k = _494; k < np; k += _step)
            {
                uint param_1 = (base + k) + 1u;
                float param_2 = acc;
                float param_3 = welem(param_1, _398);
                float param_4 = _512.x[(xb + k) + 1u];
                float _524 = bf16_madd(param_2, param_3, param_4);
                acc = _524;
                uint param_5 = base + k;
                float param_6 = acc;
                float param_7 = welem(param_5, _398);
                float param_8 = _512.x[xb + k];
                float _539 = bf16_madd(param_6, param_7, param_8);
                acc = _539;
            }
        }
        lanes[(((slot * 8u) + c) * nl) + lane] = acc;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    bool _565 = lane < pc.ncols;
    bool _572;
    if (_565)
    {
        _572 = row < pc.rows;
    }
    else
    {
        _572 = _565;
    }
    if (_572)
    {
        uint c_1 = lane;
        uint lb = ((slot * 8u) + c_1) * nl;
        spvUnsafeArray<float, 16> r;
        for (uint e = 0u; e < 16u; e++)
        {
            r[e] = lanes[lb + e];
        }
        spvUnsafeArray<float, 16> param_9 = r;
        float sum = reduce16(param_9);
        for (uint e_1 = 0u; e_1 < 16u; e_1++)
        {
            r[e_1] = lanes[(lb + 16u) + e_1];
        }
        spvUnsafeArray<float, 16> param_10 = r;
        float2 param_11 = float2(sum, 0.0);
        float2 param_12 = float2(reduce16(param_10), 0.0);
        float2 s = df_add(param_11, param_12);
        for (uint k_1 = np; k_1 < pc.cols; k_1++)
        {
            uint param_13 = base + k_1;
            float p = spvFMul(welem(param_13, _398), _512.x[(x_base + (c_1 * pc.cols)) + k_1]);
            float2 param_14 = s;
            float2 param_15 = float2(p, 0.0);
            s = df_add(param_14, param_15);
        }
        _673.y[(y_base + (c_1 * pc.y_stride)) + row] = s.x;
    }
}

