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

struct W
{
    uint w[1];
};

struct Push
{
    uint rows;
    uint cols;
    uint ncols;
    uint w_off;
    uint x_off;
    uint y_off;
    uint y_stride;
};

struct X
{
    float x[1];
};

struct Y
{
    float y[1];
};

constant uint _422_tmp [[function_constant(0)]];
constant uint _422 = is_function_constant_defined(_422_tmp) ? _422_tmp : 1u;
constant uint3 gl_WorkGroupSize [[maybe_unused]] = uint3(_422, 1u, 1u);
constant bool NATIVE_FMA_tmp [[function_constant(7)]];
constant bool NATIVE_FMA = is_function_constant_defined(NATIVE_FMA_tmp) ? NATIVE_FMA_tmp : false;

constant spvUnsafeArray<float2, 20> _481 = spvUnsafeArray<float2, 20>({ float2(1.0, 0.0), float2(1.0, 0.0), float2(0.5, 0.0), float2(0.16666667163372039794921875, -4.9670538793122887000208720564842e-09), float2(0.0416666679084300994873046875, -1.2417634698280721750052180141211e-09), float2(0.008333333767950534820556640625, -4.3461720333759501500026090070605e-10), float2(0.001388888922519981861114501953125, -3.3631094437103215000206546392292e-11), float2(0.00019841270113829523324966430664062, -2.7255968749334558154373553406913e-12), float2(2.4801587642286904156208038330078e-05, -3.4069960936668197692966941758641e-13), float2(2.7557318844628753140568733215332e-06, 3.7935712242972291496911907415779e-14), float2(2.7557319981497130356729030609131e-07, -7.5751122090511949225266619123431e-15), float2(2.5052107943679402524139732122421e-08, 4.4176230446483664635048960178665e-16), float2(2.0876755879584152353345416486263e-09, 1.1082839147459852308270911169785e-16), float2(1.6059044372074282591711380518973e-10, -5.3525265115627256262654729002115e-18), float2(1.147074536050896043093416665215e-11, 2.3722076892312380547612072484442e-19), float2(7.6471636098127127034729255683487e-13, 1.2200710471178287732698915322299e-20), float2(4.779477256132945439670578480218e-14, 7.625444044486429832936822076437e-22), float2(2.8114573589663703623298118827734e-15, -1.0462084739763657794534194576036e-22), float2(1.5619206814541513076918799463044e-16, 1.5404471465941992767529961911953e-24), float2(8.2206350784765213506911918361908e-18, 1.6814780968558980371442752815229e-25) });
constant spvUnsafeArray<uint, 24> _529 = spvUnsafeArray<uint, 24>({ 162u, 41721u, 10680707u, 2734261102u, 4186140238u, 2205044292u, 1850622997u, 1313084713u, 1142237692u, 355073063u, 704390999u, 4230436817u, 660066805u, 1473377588u, 3522507997u, 4113882560u, 886948059u, 3720403810u, 3235603093u, 3680671129u, 1653971260u, 2509847619u, 2570863504u, 1011060801u });

static inline __attribute__((always_inline))
float welem(thread const uint& e, device W& _96)
{
    return float2(as_type<half2>(_96.w[e >> uint(1)] >> (16u * (e & 1u)))).x;
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

kernel void forma_matmul_f16(device W& _96 [[buffer(0)]], constant Push& pc [[buffer(1)]], device X& _278 [[buffer(2)]], device Y& _404 [[buffer(3)]], uint3 gl_LocalInvocationID [[thread_position_in_threadgroup]], uint3 gl_WorkGroupID [[threadgroup_position_in_grid]])
{
    threadgroup spvUnsafeArray<float, 1056> sw;
    threadgroup spvUnsafeArray<float, 264> sx;
    uint lid = gl_LocalInvocationID.x;
    uint m0 = gl_WorkGroupID.x * 32u;
    uint n0 = gl_WorkGroupID.y * 8u;
    uint m = lid % 32u;
    uint ng = lid / 32u;
    spvUnsafeArray<spvUnsafeArray<float, 16>, 2> acc;
    for (uint i = 0u; i < 2u; i++)
    {
        for (uint l = 0u; l < 16u; l++)
        {
            acc[i][l] = 0.0;
        }
    }
    for (uint k0 = 0u; k0 < pc.cols; k0 += 32u)
    {
        for (uint idx = lid; idx < 1024u; idx += 128u)
        {
            uint r = idx / 32u;
            uint k = idx % 32u;
            float v = 0.0;
            bool _199 = (m0 + r) < pc.rows;
            bool _208;
            if (_199)
            {
                _208 = (k0 + k) < pc.cols;
            }
            else
            {
                _208 = _199;
            }
            if (_208)
            {
                uint param = ((pc.w_off + ((m0 + r) * pc.cols)) + k0) + k;
                v = welem(param, _96);
            }
            sw[(r * 33u) + k] = v;
        }
        for (uint idx_1 = lid; idx_1 < 256u; idx_1 += 128u)
        {
            uint r_1 = idx_1 / 32u;
            uint k_1 = idx_1 % 32u;
            float v_1 = 0.0;
            bool _263 = (n0 + r_1) < pc.ncols;
            bool _272;
            if (_263)
            {
                _272 = (k0 + k_1) < pc.cols;
            }
            else
            {
                _272 = _263;
            }
            if (_272)
            {
                v_1 = _278.x[((pc.x_off + ((n0 + r_1) * pc.cols)) + k0) + k_1];
            }
            sx[(r_1 * 33u) + k_1] = v_1;
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
        uint kn = min(32u, (pc.cols - k0));
        for (uint k_2 = 0u; k_2 < kn; k_2++)
        {
            float wv = sw[(m * 33u) + k_2];
            for (uint i_1 = 0u; i_1 < 2u; i_1++)
            {
                float xv = sx[(((ng * 2u) + i_1) * 33u) + k_2];
                float p = spvFMul(wv, xv);
                float s = spvFAdd(acc[i_1][k_2 % 16u], p);
                acc[i_1][k_2 % 16u] = s;
            }
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    uint row = m0 + m;
    if (row < pc.rows)
    {
        for (uint i_2 = 0u; i_2 < 2u; i_2++)
        {
            uint col = (n0 + (ng * 2u)) + i_2;
            if (col < pc.ncols)
            {
                spvUnsafeArray<float, 16> param_1 = acc[i_2];
                _404.y[(pc.y_off + (col * pc.y_stride)) + row] = reduce16(param_1);
            }
        }
    }
}

