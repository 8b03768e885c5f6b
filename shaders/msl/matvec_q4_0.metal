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

struct Push
{
    uint rows;
    uint nchunks;
    uint ncols;
    uint w_off;
    uint a_off;
    uint y_off;
    uint y_stride;
    uint tpr;
};

struct W
{
    uint w[1];
};

constant uint FORM_tmp [[function_constant(1)]];
constant uint FORM = is_function_constant_defined(FORM_tmp) ? FORM_tmp : 0u;
constant bool _422 = (FORM == 1u);
constant bool _427 = (FORM == 2u);
constant uint _428 = _427 ? 9u : 1u;
constant bool _431 = (FORM == 1u);
constant bool _432 = (FORM == 2u);
constant bool _433 = (_431 || _432);
constant bool _441 = (FORM == 3u);
constant bool _489 = (FORM == 1u);
constant bool _490 = (FORM == 2u);
constant bool _491 = (_489 || _490);
constant bool _529 = (FORM == 2u);
constant bool _645 = (FORM == 1u);
constant bool _646 = (FORM == 2u);
constant bool _647 = (_645 || _646);
constant bool _668 = (FORM == 2u);
constant bool _680 = (FORM == 3u);
constant bool _689 = (FORM == 0u);

struct A
{
    uint act[1];
};

#ifndef SPIRV_CROSS_CONSTANT_ID_0
#define SPIRV_CROSS_CONSTANT_ID_0 1u
#endif
constant uint _809 = SPIRV_CROSS_CONSTANT_ID_0;
constant uint3 gl_WorkGroupSize [[maybe_unused]] = uint3(_809, 1u, 1u);
constant uint _860 = _809;
constant uint _861 = (_860 / 8u);
constant uint _862 = (_861 * 8u);
constant uint _863 = (_862 * 9u);
constant uint _982 = _809;
constant uint _983 = (_982 * 9u);

struct Y
{
    float y[1];
};

constant spvUnsafeArray<float2, 20> _1229 = spvUnsafeArray<float2, 20>({ float2(1.0, 0.0), float2(1.0, 0.0), float2(0.5, 0.0), float2(0.16666667163372039794921875, -4.9670538793122887000208720564842e-09), float2(0.0416666679084300994873046875, -1.2417634698280721750052180141211e-09), float2(0.008333333767950534820556640625, -4.3461720333759501500026090070605e-10), float2(0.001388888922519981861114501953125, -3.3631094437103215000206546392292e-11), float2(0.00019841270113829523324966430664062, -2.7255968749334558154373553406913e-12), float2(2.4801587642286904156208038330078e-05, -3.4069960936668197692966941758641e-13), float2(2.7557318844628753140568733215332e-06, 3.7935712242972291496911907415779e-14), float2(2.7557319981497130356729030609131e-07, -7.5751122090511949225266619123431e-15), float2(2.5052107943679402524139732122421e-08, 4.4176230446483664635048960178665e-16), float2(2.0876755879584152353345416486263e-09, 1.1082839147459852308270911169785e-16), float2(1.6059044372074282591711380518973e-10, -5.3525265115627256262654729002115e-18), float2(1.147074536050896043093416665215e-11, 2.3722076892312380547612072484442e-19), float2(7.6471636098127127034729255683487e-13, 1.2200710471178287732698915322299e-20), float2(4.779477256132945439670578480218e-14, 7.625444044486429832936822076437e-22), float2(2.8114573589663703623298118827734e-15, -1.0462084739763657794534194576036e-22), float2(1.5619206814541513076918799463044e-16, 1.5404471465941992767529961911953e-24), float2(8.2206350784765213506911918361908e-18, 1.6814780968558980371442752815229e-25) });
constant spvUnsafeArray<uint, 24> _1277 = spvUnsafeArray<uint, 24>({ 162u, 41721u, 10680707u, 2734261102u, 4186140238u, 2205044292u, 1850622997u, 1313084713u, 1142237692u, 355073063u, 704390999u, 4230436817u, 660066805u, 1473377588u, 3522507997u, 4113882560u, 886948059u, 3720403810u, 3235603093u, 3680671129u, 1653971260u, 2509847619u, 2570863504u, 1011060801u });

static inline __attribute__((always_inline))
uint flat_workgroup(thread uint3& gl_WorkGroupID, thread uint3& gl_NumWorkGroups)
{
    return (gl_WorkGroupID.y * gl_NumWorkGroups.x) + gl_WorkGroupID.x;
}

static inline __attribute__((always_inline))
bool id_setup(thread const uint& x_row, thread uint& w_base, constant Push& pc, thread uint& x_base, thread uint& y_base)
{
    w_base = pc.w_off;
    x_base = pc.a_off;
    y_base = pc.y_off;
    return true;
}

static inline __attribute__((always_inline))
float f16_value(thread const uint& h)
{
    return float2(as_type<half2>(h)).x;
}

static inline __attribute__((always_inline))
uint i8x4_sub(thread const uint& x, thread const uint& b)
{
    return ((x | 2155905152u) - (b * 16843009u)) ^ 2155905152u;
}

static inline __attribute__((always_inline))
void decode_chunk(thread const uint& base, thread const uint& j, thread spvUnsafeArray<uint, 8>& q, thread float4& smm, device W& _365)
{
    uint param = _365.w[base];
    float d = f16_value(param);
    for (uint k = 0u; k < 4u; k++)
    {
        uint v = _365.w[(base + 1u) + k];
        uint param_1 = v & 252645135u;
        uint param_2 = 8u;
        q[k] = i8x4_sub(param_1, param_2);
        uint param_3 = (v >> uint(4)) & 252645135u;
        uint param_4 = 8u;
        q[k + 4u] = i8x4_sub(param_3, param_4);
    }
    smm = float4(d, d, 0.0, 0.0);
}

static inline __attribute__((always_inline))
void act_chunk(thread const uint& c, thread const uint& ch, thread spvUnsafeArray<uint, 8>& a, thread float2& ds, constant Push& pc, thread uint& x_base, device A& _784)
{
    uint ab = x_base + (((c * pc.nchunks) + ch) * 10u);
    for (uint k = 0u; k < 8u; k++)
    {
        a[k] = _784.act[ab + k];
    }
    ds = float2(as_type<float>(_784.act[ab + 8u]), as_type<float>(_784.act[ab + 9u]));
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
    if (_647)
    {
        for (uint k_2 = 0u; k_2 < 8u; k_2++)
        {
            t[k_2] = float2(dd, float(lane[k_2]));
        }
        if (_668)
        {
            float ms = spvFMul(smm.z, sa);
            t[8] = float2(ms, 0.0);
        }
    }
    else
    {
        if (_680)
        {
            t[0] = float2(float(s), dd);
        }
        else
        {
            if (_689)
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
    if (_422)
    {
        return 8u;
    }
    return _428;
}

static inline __attribute__((always_inline))
uint nterms()
{
    return nused();
}

static inline __attribute__((always_inline))
uint term_index(thread const uint& k, thread const uint& j)
{
    uint _477;
    if (nterms() == nused())
    {
        _477 = k;
    }
    else
    {
        _477 = (4u * k) + j;
    }
    return _477;
}

static inline __attribute__((always_inline))
bool fused(thread const uint& k)
{
    bool _436 = _433 && (k < 8u);
    bool _445;
    if (!_436)
    {
        _445 = _441 && (k == 0u);
    }
    else
    {
        _445 = _436;
    }
    return _445;
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
    bool _243 = t.y != 0.0;
    bool _249;
    if (_243)
    {
        _249 = u.y != 0.0;
    }
    else
    {
        _249 = _243;
    }
    if (_249)
    {
        float up = as_type<float>(as_type<uint>(abs(r)) + 1u);
        float dn = as_type<float>(as_type<uint>(abs(r)) - 1u);
        float nb = ((u.y > 0.0) == (r > 0.0)) ? up : dn;
        float half_ = spvFMul(spvFSub(nb, abs(r)), 0.5);
        bool _286 = abs(u.y) == abs(half_);
        bool _296;
        if (_286)
        {
            _296 = (t.y > 0.0) == (u.y > 0.0);
        }
        else
        {
            _296 = _286;
        }
        if (_296)
        {
            float _301;
            if (r > 0.0)
            {
                _301 = nb;
            }
            else
            {
                _301 = -nb;
            }
            r = _301;
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
    if (_491)
    {
        float r0 = spvFAdd(acc[4], acc[0]);
        float r1 = spvFAdd(acc[5], acc[1]);
        float r2 = spvFAdd(acc[6], acc[2]);
        float r3 = spvFAdd(acc[7], acc[3]);
        float r = spvFAdd(spvFAdd(r0, r2), spvFAdd(r1, r3));
        if (_529)
        {
            r = spvFAdd(r, acc[8]);
        }
        return r;
    }
    return acc[0];
}

kernel void forma_matvec_q4_0(constant Push& pc [[buffer(0)]], device W& _365 [[buffer(1)]], device A& _784 [[buffer(2)]], device Y& _1156 [[buffer(3)]], uint3 gl_WorkGroupID [[threadgroup_position_in_grid]], uint3 gl_NumWorkGroups [[threadgroups_per_grid]], uint3 gl_LocalInvocationID [[thread_position_in_threadgroup]])
{
    threadgroup spvUnsafeArray<float, _863> accs;
    threadgroup spvUnsafeArray<float2, _983> contrib;
    uint lid = gl_LocalInvocationID.x;
    uint wg = gl_WorkGroupSize.x;
    uint rpw = wg / pc.tpr;
    uint lane = lid % pc.tpr;
    uint slot = lid / pc.tpr;
    uint row0 = flat_workgroup(gl_WorkGroupID, gl_NumWorkGroups) * rpw;
    uint row = row0 + slot;
    uint nblocks = pc.nchunks / 1u;
    uint param = pc.nchunks * 10u;
    uint w_base;
    uint x_base;
    uint y_base;
    bool _843 = id_setup(param, w_base, pc, x_base, y_base);
    if (!_843)
    {
        return;
    }
    for (uint t = lid; t < ((rpw * 8u) * 9u); t += wg)
    {
        accs[t] = 0.0;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    spvUnsafeArray<float2, 9> v;
    spvUnsafeArray<uint, 8> param_3;
    float4 param_4;
    spvUnsafeArray<uint, 8> param_7;
    float2 param_8;
    spvUnsafeArray<float2, 9> param_14;
    for (uint b0 = 0u; b0 < nblocks; b0 += pc.tpr)
    {
        uint blk = b0 + lane;
        bool valid = (row < pc.rows) && (blk < nblocks);
        uint base = w_base + (((row * nblocks) + blk) * 5u);
        for (uint c = 0u; c < pc.ncols; c++)
        {
            for (uint k = 0u; k < 9u; k++)
            {
                v[k] = float2(0.0);
            }
            if (valid)
            {
                uint param_1 = base;
                uint param_2 = 0u;
                decode_chunk(param_1, param_2, param_3, param_4, _365);
                spvUnsafeArray<uint, 8> q = param_3;
                float4 smm = param_4;
                uint param_5 = c;
                uint param_6 = blk;
                act_chunk(param_5, param_6, param_7, param_8, pc, x_base, _784);
                spvUnsafeArray<uint, 8> a = param_7;
                float2 ds = param_8;
                spvUnsafeArray<uint, 8> param_9 = q;
                float4 param_10 = smm;
                spvUnsafeArray<uint, 8> param_11 = a;
                float param_12 = ds.x;
                float param_13 = ds.y;
                block_terms(param_9, param_10, param_11, param_12, param_13, param_14);
                v = param_14;
            }
            uint nu = nused();
            uint nt = nterms();
            for (uint k_1 = 0u; k_1 < nt; k_1++)
            {
                contrib[(lid * 9u) + k_1] = v[k_1];
            }
            threadgroup_barrier(mem_flags::mem_threadgroup);
            uint n = min(pc.tpr, (nblocks - b0));
            for (uint t_1 = lid; t_1 < (rpw * nu); t_1 += wg)
            {
                uint s = t_1 / nu;
                uint k_2 = t_1 % nu;
                float acc = accs[(((s * 8u) + c) * 9u) + k_2];
                for (uint l = 0u; l < n; l++)
                {
                    for (uint j = 0u; j < (nt / nu); j++)
                    {
                        uint param_15 = k_2;
                        uint param_16 = j;
                        uint param_17 = k_2;
                        float param_18 = acc;
                        float2 param_19 = contrib[(((s * pc.tpr) + l) * 9u) + term_index(param_15, param_16)];
                        acc = apply_term(param_17, param_18, param_19);
                    }
                }
                accs[(((s * 8u) + c) * 9u) + k_2] = acc;
            }
            threadgroup_barrier(mem_flags::mem_threadgroup);
        }
    }
    spvUnsafeArray<float, 9> acc_1;
    for (uint t_2 = lid; t_2 < (rpw * pc.ncols); t_2 += wg)
    {
        uint s_1 = t_2 / pc.ncols;
        uint c_1 = t_2 % pc.ncols;
        uint r = row0 + s_1;
        if (r < pc.rows)
        {
            for (uint k_3 = 0u; k_3 < 9u; k_3++)
            {
                acc_1[k_3] = accs[(((s_1 * 8u) + c_1) * 9u) + k_3];
            }
            spvUnsafeArray<float, 9> param_20 = acc_1;
            _1156.y[(y_base + (c_1 * pc.y_stride)) + r] = finish(param_20);
        }
    }
}

