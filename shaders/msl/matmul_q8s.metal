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

struct W
{
    uint w[1];
};

constant uint FORM_tmp [[function_constant(1)]];
constant uint FORM = is_function_constant_defined(FORM_tmp) ? FORM_tmp : 0u;
constant bool _341 = (FORM == 1u);
constant bool _346 = (FORM == 2u);
constant uint _347 = _346 ? 9u : 1u;
constant bool _350 = (FORM == 1u);
constant bool _351 = (FORM == 2u);
constant bool _352 = (_350 || _351);
constant bool _360 = (FORM == 3u);
constant bool _390 = (FORM == 1u);
constant bool _391 = (FORM == 2u);
constant bool _392 = (_390 || _391);
constant bool _433 = (FORM == 2u);
constant bool _550 = (FORM == 1u);
constant bool _551 = (FORM == 2u);
constant bool _552 = (_550 || _551);
constant bool _573 = (FORM == 2u);
constant bool _585 = (FORM == 3u);
constant bool _594 = (FORM == 0u);

struct Push
{
    uint rows;
    uint nchunks;
    uint ncols;
    uint w_off;
    uint a_off;
    uint y_off;
    uint y_stride;
};

struct A
{
    uint act[1];
};

struct Y
{
    float y[1];
};

constant uint _1122_tmp [[function_constant(0)]];
constant uint _1122 = is_function_constant_defined(_1122_tmp) ? _1122_tmp : 1u;
constant uint3 gl_WorkGroupSize [[maybe_unused]] = uint3(_1122, 1u, 1u);

constant spvUnsafeArray<float2, 20> _1180 = spvUnsafeArray<float2, 20>({ float2(1.0, 0.0), float2(1.0, 0.0), float2(0.5, 0.0), float2(0.16666667163372039794921875, -4.9670538793122887000208720564842e-09), float2(0.0416666679084300994873046875, -1.2417634698280721750052180141211e-09), float2(0.008333333767950534820556640625, -4.3461720333759501500026090070605e-10), float2(0.001388888922519981861114501953125, -3.3631094437103215000206546392292e-11), float2(0.00019841270113829523324966430664062, -2.7255968749334558154373553406913e-12), float2(2.4801587642286904156208038330078e-05, -3.4069960936668197692966941758641e-13), float2(2.7557318844628753140568733215332e-06, 3.7935712242972291496911907415779e-14), float2(2.7557319981497130356729030609131e-07, -7.5751122090511949225266619123431e-15), float2(2.5052107943679402524139732122421e-08, 4.4176230446483664635048960178665e-16), float2(2.0876755879584152353345416486263e-09, 1.1082839147459852308270911169785e-16), float2(1.6059044372074282591711380518973e-10, -5.3525265115627256262654729002115e-18), float2(1.147074536050896043093416665215e-11, 2.3722076892312380547612072484442e-19), float2(7.6471636098127127034729255683487e-13, 1.2200710471178287732698915322299e-20), float2(4.779477256132945439670578480218e-14, 7.625444044486429832936822076437e-22), float2(2.8114573589663703623298118827734e-15, -1.0462084739763657794534194576036e-22), float2(1.5619206814541513076918799463044e-16, 1.5404471465941992767529961911953e-24), float2(8.2206350784765213506911918361908e-18, 1.6814780968558980371442752815229e-25) });
constant spvUnsafeArray<uint, 24> _1228 = spvUnsafeArray<uint, 24>({ 162u, 41721u, 10680707u, 2734261102u, 4186140238u, 2205044292u, 1850622997u, 1313084713u, 1142237692u, 355073063u, 704390999u, 4230436817u, 660066805u, 1473377588u, 3522507997u, 4113882560u, 886948059u, 3720403810u, 3235603093u, 3680671129u, 1653971260u, 2509847619u, 2570863504u, 1011060801u });

static inline __attribute__((always_inline))
void decode_chunk(thread const uint& base, thread const uint& j, thread spvUnsafeArray<uint, 8>& q, thread float4& smm, device W& _296)
{
    for (uint k = 0u; k < 8u; k++)
    {
        q[k] = _296.w[base + k];
    }
    smm = float4(as_type<float>(_296.w[base + 8u]), as_type<float>(_296.w[base + 9u]), as_type<float>(_296.w[base + 10u]), as_type<float>(_296.w[base + 11u]));
}

static inline __attribute__((always_inline))
int i8(thread const uint& v, thread const uint& b)
{
    return extract_bits(int(v), uint(int(8u * b)), uint(8));
}

static inline __attribute__((always_inline))
void block_terms(thread const spvUnsafeArray<uint, 8>& q, thread const float4& smm, thread const spvUnsafeArray<uint, 8>& a, thread const float& da, thread const float& sa, thread spvUnsafeArray<float2, 9>& t)
{
    int a0 = 0;
    int a1 = 0;
    spvUnsafeArray<int, 8> lane;
    for (uint k = 0u; k < 8u; k++)
    {
        lane[k] = 0;
        for (uint b = 0u; b < 4u; b++)
        {
            uint param = a[k];
            uint param_1 = b;
            int y = i8(param, param_1);
            uint param_2 = q[k];
            uint param_3 = b;
            lane[k] += (i8(param_2, param_3) * y);
            if (k < 4u)
            {
                a0 += y;
            }
            else
            {
                a1 += y;
            }
        }
    }
    for (uint k_1 = 0u; k_1 < 9u; k_1++)
    {
        t[k_1] = float2(0.0);
    }
    int s = ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
    float dd = spvFMul(smm.x, da);
    if (_552)
    {
        for (uint k_2 = 0u; k_2 < 8u; k_2++)
        {
            t[k_2] = float2(dd, float(lane[k_2]));
        }
        if (_573)
        {
            float ms = spvFMul(smm.z, sa);
            t[8] = float2(ms, 0.0);
        }
    }
    else
    {
        if (_585)
        {
            t[0] = float2(float(s), dd);
        }
        else
        {
            if (_594)
            {
                float dd2 = spvFMul(da, smm.x);
                float r = spvFMul(dd2, float(s));
                t[0] = float2(r, 0.0);
            }
            else
            {
                int i0 = (lane[0] + lane[1]) + (lane[2] + lane[3]);
                int i1 = (lane[4] + lane[5]) + (lane[6] + lane[7]);
                float r_1 = (da * ((smm.x * float(i0)) + (smm.y * float(i1)))) + (da * ((smm.z * float(a0)) + (smm.w * float(a1))));
                t[0] = float2(r_1, 0.0);
            }
        }
    }
}

static inline __attribute__((always_inline))
uint nused()
{
    if (_341)
    {
        return 8u;
    }
    return _347;
}

static inline __attribute__((always_inline))
bool fused(thread const uint& k)
{
    bool _355 = _352 && (k < 8u);
    bool _364;
    if (!_355)
    {
        _364 = _360 && (k == 0u);
    }
    else
    {
        _364 = _355;
    }
    return _364;
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
    bool _196 = t.y != 0.0;
    bool _202;
    if (_196)
    {
        _202 = u.y != 0.0;
    }
    else
    {
        _202 = _196;
    }
    if (_202)
    {
        float up = as_type<float>(as_type<uint>(abs(r)) + 1u);
        float dn = as_type<float>(as_type<uint>(abs(r)) - 1u);
        float nb = ((u.y > 0.0) == (r > 0.0)) ? up : dn;
        float half_ = spvFMul(spvFSub(nb, abs(r)), 0.5);
        bool _239 = abs(u.y) == abs(half_);
        bool _249;
        if (_239)
        {
            _249 = (t.y > 0.0) == (u.y > 0.0);
        }
        else
        {
            _249 = _239;
        }
        if (_249)
        {
            float _254;
            if (r > 0.0)
            {
                _254 = nb;
            }
            else
            {
                _254 = -nb;
            }
            r = _254;
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
float apply_term(thread const uint& k, thread const float& acc, thread const float2& t)
{
    uint param = k;
    if (fused(param))
    {
        float param_1 = t.x;
        float param_2 = t.y;
        float param_3 = acc;
        return fmaf(param_1, param_2, param_3);
    }
    float r = spvFAdd(acc, t.x);
    return r;
}

static inline __attribute__((always_inline))
float finish(thread const spvUnsafeArray<float, 9>& acc)
{
    if (_392)
    {
        float r0 = spvFAdd(acc[4], acc[0]);
        float r1 = spvFAdd(acc[5], acc[1]);
        float r2 = spvFAdd(acc[6], acc[2]);
        float r3 = spvFAdd(acc[7], acc[3]);
        float r = spvFAdd(spvFAdd(r0, r2), spvFAdd(r1, r3));
        if (_433)
        {
            r = spvFAdd(r, acc[8]);
        }
        return r;
    }
    return acc[0];
}

kernel void forma_matmul_q8s(device W& _296 [[buffer(0)]], constant Push& pc [[buffer(1)]], device A& _899 [[buffer(2)]], device Y& _1103 [[buffer(3)]], uint3 gl_LocalInvocationID [[thread_position_in_threadgroup]], uint3 gl_WorkGroupID [[threadgroup_position_in_grid]])
{
    threadgroup spvUnsafeArray<uint, 1536> sw;
    threadgroup spvUnsafeArray<uint, 640> sa;
    uint lid = gl_LocalInvocationID.x;
    uint m0 = gl_WorkGroupID.x * 32u;
    uint n0 = gl_WorkGroupID.y * 16u;
    uint m = lid % 32u;
    uint ng = lid / 32u;
    uint bpr = pc.nchunks / 1u;
    spvUnsafeArray<spvUnsafeArray<float, 9>, 4> acc;
    for (uint i = 0u; i < 4u; i++)
    {
        for (uint k = 0u; k < 9u; k++)
        {
            acc[i][k] = 0.0;
        }
    }
    spvUnsafeArray<uint, 8> q;
    spvUnsafeArray<uint, 8> param_2;
    float4 param_3;
    spvUnsafeArray<uint, 8> q_1;
    spvUnsafeArray<uint, 8> a;
    spvUnsafeArray<float2, 9> param_9;
    for (uint k0 = 0u; k0 < pc.nchunks; k0 += 4u)
    {
        for (uint idx = lid; idx < 128u; idx += 128u)
        {
            uint mm = idx / 4u;
            uint c = idx % 4u;
            uint row = m0 + mm;
            uint ch = k0 + c;
            for (uint k_1 = 0u; k_1 < 8u; k_1++)
            {
                q[k_1] = 0u;
            }
            uint sb = idx * 12u;
            float4 smm = float4(0.0);
            bool _780 = row < pc.rows;
            bool _787;
            if (_780)
            {
                _787 = ch < pc.nchunks;
            }
            else
            {
                _787 = _780;
            }
            if (_787)
            {
                uint param = pc.w_off + (((row * bpr) + ch) * 12u);
                uint param_1 = 0u;
                decode_chunk(param, param_1, param_2, param_3, _296);
                q = param_2;
                smm = param_3;
            }
            sw[sb + 8u] = as_type<uint>(smm.x);
            sw[sb + 9u] = as_type<uint>(smm.y);
            sw[sb + 10u] = as_type<uint>(smm.z);
            sw[sb + 11u] = as_type<uint>(smm.w);
            for (uint k_2 = 0u; k_2 < 8u; k_2++)
            {
                sw[sb + k_2] = q[k_2];
            }
        }
        for (uint idx_1 = lid; idx_1 < 640u; idx_1 += 128u)
        {
            uint n = idx_1 / 40u;
            uint rest = idx_1 % 40u;
            uint c_1 = rest / 10u;
            uint col = n0 + n;
            uint ch_1 = k0 + c_1;
            uint v = 0u;
            bool _886 = col < pc.ncols;
            bool _893;
            if (_886)
            {
                _893 = ch_1 < pc.nchunks;
            }
            else
            {
                _893 = _886;
            }
            if (_893)
            {
                v = _899.act[(pc.a_off + (((col * pc.nchunks) + ch_1) * 10u)) + (rest % 10u)];
            }
            sa[idx_1] = v;
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
        for (uint i_1 = 0u; i_1 < 4u; i_1++)
        {
            uint nb = (((ng * 4u) + i_1) * 4u) * 10u;
            for (uint c_2 = 0u; c_2 < 4u; c_2++)
            {
                if ((k0 + c_2) >= pc.nchunks)
                {
                    break;
                }
                uint sb_1 = ((m * 4u) + c_2) * 12u;
                uint ab = nb + (c_2 * 10u);
                for (uint k_3 = 0u; k_3 < 8u; k_3++)
                {
                    q_1[k_3] = sw[sb_1 + k_3];
                    a[k_3] = sa[ab + k_3];
                }
                float4 smm_1 = float4(as_type<float>(sw[sb_1 + 8u]), as_type<float>(sw[sb_1 + 9u]), as_type<float>(sw[sb_1 + 10u]), as_type<float>(sw[sb_1 + 11u]));
                spvUnsafeArray<uint, 8> param_4 = q_1;
                float4 param_5 = smm_1;
                spvUnsafeArray<uint, 8> param_6 = a;
                float param_7 = as_type<float>(sa[ab + 8u]);
                float param_8 = as_type<float>(sa[ab + 9u]);
                block_terms(param_4, param_5, param_6, param_7, param_8, param_9);
                spvUnsafeArray<float2, 9> t = param_9;
                for (uint k_4 = 0u; k_4 < nused(); k_4++)
                {
                    uint param_10 = k_4;
                    float param_11 = acc[i_1][k_4];
                    float2 param_12 = t[k_4];
                    acc[i_1][k_4] = apply_term(param_10, param_11, param_12);
                }
            }
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    uint row_1 = m0 + m;
    if (row_1 < pc.rows)
    {
        for (uint i_2 = 0u; i_2 < 4u; i_2++)
        {
            uint col_1 = (n0 + (ng * 4u)) + i_2;
            if (col_1 < pc.ncols)
            {
                spvUnsafeArray<float, 9> param_13 = acc[i_2];
                _1103.y[(pc.y_off + (col_1 * pc.y_stride)) + row_1] = finish(param_13);
            }
        }
    }
}

