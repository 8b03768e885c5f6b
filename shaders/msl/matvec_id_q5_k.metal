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
    uint k;
    uint bcast;
    uint identity;
    uint ids_off;
    uint e0;
    uint e1;
    uint e_units;
};

struct IDS
{
    int ids[1];
};

struct W
{
    uint w[1];
};

constant uint FORM_tmp [[function_constant(1)]];
constant uint FORM = is_function_constant_defined(FORM_tmp) ? FORM_tmp : 0u;
constant bool _676 = (FORM == 5u);
constant uint _677 = _676 ? 2u : 9u;
constant bool _705 = (FORM == 5u);
constant bool _727 = (FORM == 5u);

struct A
{
    uint act[1];
};

#ifndef SPIRV_CROSS_CONSTANT_ID_0
#define SPIRV_CROSS_CONSTANT_ID_0 1u
#endif
constant uint _1084 = SPIRV_CROSS_CONSTANT_ID_0;
constant uint3 gl_WorkGroupSize [[maybe_unused]] = uint3(_1084, 1u, 1u);
constant uint _1135 = _1084;
constant uint _1136 = (_1135 / 8u);
constant uint _1137 = (_1136 * 8u);
constant uint _1138 = (_1137 * 9u);
constant bool _1245 = (FORM == 5u);
constant bool _1277 = (FORM == 5u);
constant uint _1320 = _1084;
constant uint _1321 = (_1320 * 9u);

struct Y
{
    float y[1];
};

constant spvUnsafeArray<int, 8> _1209 = spvUnsafeArray<int, 8>({ 0, 0, 0, 0, 0, 0, 0, 0 });
constant spvUnsafeArray<int, 4> _1211 = spvUnsafeArray<int, 4>({ 0, 0, 0, 0 });
constant spvUnsafeArray<float2, 20> _1567 = spvUnsafeArray<float2, 20>({ float2(1.0, 0.0), float2(1.0, 0.0), float2(0.5, 0.0), float2(0.16666667163372039794921875, -4.9670538793122887000208720564842e-09), float2(0.0416666679084300994873046875, -1.2417634698280721750052180141211e-09), float2(0.008333333767950534820556640625, -4.3461720333759501500026090070605e-10), float2(0.001388888922519981861114501953125, -3.3631094437103215000206546392292e-11), float2(0.00019841270113829523324966430664062, -2.7255968749334558154373553406913e-12), float2(2.4801587642286904156208038330078e-05, -3.4069960936668197692966941758641e-13), float2(2.7557318844628753140568733215332e-06, 3.7935712242972291496911907415779e-14), float2(2.7557319981497130356729030609131e-07, -7.5751122090511949225266619123431e-15), float2(2.5052107943679402524139732122421e-08, 4.4176230446483664635048960178665e-16), float2(2.0876755879584152353345416486263e-09, 1.1082839147459852308270911169785e-16), float2(1.6059044372074282591711380518973e-10, -5.3525265115627256262654729002115e-18), float2(1.147074536050896043093416665215e-11, 2.3722076892312380547612072484442e-19), float2(7.6471636098127127034729255683487e-13, 1.2200710471178287732698915322299e-20), float2(4.779477256132945439670578480218e-14, 7.625444044486429832936822076437e-22), float2(2.8114573589663703623298118827734e-15, -1.0462084739763657794534194576036e-22), float2(1.5619206814541513076918799463044e-16, 1.5404471465941992767529961911953e-24), float2(8.2206350784765213506911918361908e-18, 1.6814780968558980371442752815229e-25) });
constant spvUnsafeArray<uint, 24> _1615 = spvUnsafeArray<uint, 24>({ 162u, 41721u, 10680707u, 2734261102u, 4186140238u, 2205044292u, 1850622997u, 1313084713u, 1142237692u, 355073063u, 704390999u, 4230436817u, 660066805u, 1473377588u, 3522507997u, 4113882560u, 886948059u, 3720403810u, 3235603093u, 3680671129u, 1653971260u, 2509847619u, 2570863504u, 1011060801u });

static inline __attribute__((always_inline))
uint flat_workgroup(thread uint3& gl_WorkGroupID, thread uint3& gl_NumWorkGroups)
{
    return (gl_WorkGroupID.y * gl_NumWorkGroups.x) + gl_WorkGroupID.x;
}

static inline __attribute__((always_inline))
bool id_setup(thread const uint& x_row, thread uint3& gl_WorkGroupID, constant Push& pc, device IDS& _395, thread uint& w_base, thread uint& x_base, thread uint& y_base)
{
    uint p = gl_WorkGroupID.z;
    uint _383;
    if (pc.identity != 0u)
    {
        _383 = p % pc.k;
    }
    else
    {
        _383 = uint(max(_395.ids[pc.ids_off + p], 0));
    }
    uint e = _383;
    bool _412 = e < pc.e0;
    bool _421;
    if (!_412)
    {
        _421 = e >= pc.e1;
    }
    else
    {
        _421 = _412;
    }
    if (_421)
    {
        return false;
    }
    w_base = pc.w_off + ((e - pc.e0) * pc.e_units);
    uint _448;
    if (pc.bcast != 0u)
    {
        _448 = p / pc.k;
    }
    else
    {
        _448 = p;
    }
    x_base = pc.a_off + (_448 * x_row);
    y_base = pc.y_off + (p * pc.y_stride);
    return true;
}

static inline __attribute__((always_inline))
uint byte_at(thread const uint& base, thread const uint& i, device W& _477)
{
    return (_477.w[base + (i >> uint(2))] >> (8u * (i & 3u))) & 255u;
}

static inline __attribute__((always_inline))
uint2 scale_min_k4(thread const uint& base, thread const uint& j, device W& _477)
{
    if (j < 4u)
    {
        uint param = base;
        uint param_1 = 4u + j;
        uint param_2 = base;
        uint param_3 = 8u + j;
        return uint2(byte_at(param, param_1, _477) & 63u, byte_at(param_2, param_3, _477) & 63u);
    }
    uint param_4 = base;
    uint param_5 = 8u + j;
    uint a = byte_at(param_4, param_5, _477);
    uint param_6 = base;
    uint param_7 = j;
    uint lo = byte_at(param_6, param_7, _477);
    uint param_8 = base;
    uint param_9 = 4u + j;
    uint hi = byte_at(param_8, param_9, _477);
    return uint2((a & 15u) | ((lo >> uint(6)) << uint(4)), (a >> uint(4)) | ((hi >> uint(6)) << uint(4)));
}

static inline __attribute__((always_inline))
void decode_chunk(thread const uint& base, thread const uint& j, thread spvUnsafeArray<uint, 8>& q, thread float4& smm, device W& _477)
{
    uint g = j >> uint(1);
    uint sh = 4u * (j & 1u);
    for (uint k = 0u; k < 8u; k++)
    {
        uint lo = (_477.w[((base + 12u) + (8u * g)) + k] >> sh) & 252645135u;
        uint hi = ((_477.w[(base + 4u) + k] >> j) & 16843009u) << uint(4);
        q[k] = lo | hi;
    }
    float2 dm = float2(as_type<half2>(_477.w[base]));
    uint param = base;
    uint param_1 = j;
    uint2 sm = scale_min_k4(param, param_1, _477);
    float s = dm.x * float(sm.x);
    float m = -(dm.y * float(sm.y));
    smm = float4(s, s, m, m);
}

static inline __attribute__((always_inline))
void decode_kchunk(thread const uint& base, thread const uint& j, thread spvUnsafeArray<uint, 8>& q, thread int3& scm, device W& _477)
{
    uint param = base;
    uint param_1 = j;
    spvUnsafeArray<uint, 8> param_2;
    float4 param_3;
    decode_chunk(param, param_1, param_2, param_3, _477);
    q = param_2;
    float4 smm = param_3;
    uint param_4 = base;
    uint param_5 = j;
    uint2 sm = scale_min_k4(param_4, param_5, _477);
    scm = int3(int(sm.x), int(sm.x), int(sm.y));
}

static inline __attribute__((always_inline))
void act_chunk(thread const uint& c, thread const uint& ch, thread spvUnsafeArray<uint, 8>& a, thread float2& ds, constant Push& pc, thread uint& x_base, device A& _1059)
{
    uint ab = x_base + (((c * pc.nchunks) + ch) * 10u);
    for (uint k = 0u; k < 8u; k++)
    {
        a[k] = _1059.act[ab + k];
    }
    ds = float2(as_type<float>(_1059.act[ab + 8u]), as_type<float>(_1059.act[ab + 9u]));
}

static inline __attribute__((always_inline))
int i8(thread const uint& v, thread const uint& b)
{
    return extract_bits(int(v), uint(int(8u * b)), uint(8));
}

static inline __attribute__((always_inline))
int2 kchunk_sum(thread const spvUnsafeArray<uint, 8>& q, thread const int3& scm, thread const spvUnsafeArray<uint, 8>& a)
{
    int s0 = 0;
    int s1 = 0;
    int sum = 0;
    for (uint k = 0u; k < 8u; k++)
    {
        for (uint b = 0u; b < 4u; b++)
        {
            uint param = a[k];
            uint param_1 = b;
            int y = i8(param, param_1);
            if (k < 4u)
            {
                uint param_2 = q[k];
                uint param_3 = b;
                s0 += (i8(param_2, param_3) * y);
            }
            else
            {
                uint param_4 = q[k];
                uint param_5 = b;
                s1 += (i8(param_4, param_5) * y);
            }
            sum += y;
        }
    }
    return int2((scm.x * s0) + (scm.y * s1), scm.z * sum);
}

static inline __attribute__((always_inline))
void kchunk_lanes(thread const uint& j, thread const spvUnsafeArray<uint, 8>& q, thread const int3& scm, thread const spvUnsafeArray<uint, 8>& a, thread spvUnsafeArray<int, 8>& lanes, thread spvUnsafeArray<int, 4>& mins)
{
    int sum = 0;
    int s0 = 0;
    int s1 = 0;
    int _793;
    for (uint k = 0u; k < 8u; k++)
    {
        if (k < 4u)
        {
            _793 = scm.x;
        }
        else
        {
            _793 = scm.y;
        }
        int sc = _793;
        for (uint b = 0u; b < 4u; b++)
        {
            uint param = a[k];
            uint param_1 = b;
            int y = i8(param, param_1);
            uint param_2 = q[k];
            uint param_3 = b;
            lanes[k] += ((sc * i8(param_2, param_3)) * y);
            sum += y;
        }
    }
    uint _842 = j / 2u;
    mins[_842] += (scm.z * sum);
}

static inline __attribute__((always_inline))
float2 kblock_dm(thread const uint& base, device W& _477)
{
    return float2(as_type<half2>(_477.w[base]));
}

static inline __attribute__((always_inline))
void kblock_pairs(thread const float2& dm, thread const float& yd, thread const spvUnsafeArray<int2, 8>& cs, thread spvUnsafeArray<float2, 9>& t)
{
    float d = spvFMul(dm.x, yd);
    float dmin = spvFMul(dm.y, yd);
    for (uint p = 0u; p < 4u; p++)
    {
        t[p] = float2(float(cs[2u * p].x + cs[(2u * p) + 1u].x), d);
        t[4u + p] = float2(float(cs[2u * p].y + cs[(2u * p) + 1u].y), dmin);
    }
    for (uint k = 8u; k < 9u; k++)
    {
        t[k] = float2(0.0);
    }
}

static inline __attribute__((always_inline))
void kblock_terms(thread const float2& dm, thread const float& yd, thread const spvUnsafeArray<int, 8>& lanes, thread const spvUnsafeArray<int, 4>& mins, thread spvUnsafeArray<float2, 9>& t)
{
    float d = spvFMul(dm.x, yd);
    for (uint l = 0u; l < 8u; l++)
    {
        t[l] = float2(float(lanes[l]), d);
    }
    float dmin = spvFMul(dm.y, yd);
    t[8] = float2(float(((mins[0] + mins[1]) + mins[2]) + mins[3]), -dmin);
}

static inline __attribute__((always_inline))
uint nused()
{
    return _677;
}

static inline __attribute__((always_inline))
uint nterms()
{
    if (_705)
    {
        return 8u;
    }
    return nused();
}

static inline __attribute__((always_inline))
uint term_index(thread const uint& k, thread const uint& j)
{
    uint _715;
    if (nterms() == nused())
    {
        _715 = k;
    }
    else
    {
        _715 = (4u * k) + j;
    }
    return _715;
}

static inline __attribute__((always_inline))
bool fused(thread const uint& k)
{
    return true;
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
    bool _282 = t.y != 0.0;
    bool _288;
    if (_282)
    {
        _288 = u.y != 0.0;
    }
    else
    {
        _288 = _282;
    }
    if (_288)
    {
        float up = as_type<float>(as_type<uint>(abs(r)) + 1u);
        float dn = as_type<float>(as_type<uint>(abs(r)) - 1u);
        float nb = ((u.y > 0.0) == (r > 0.0)) ? up : dn;
        float half_ = spvFMul(spvFSub(nb, abs(r)), 0.5);
        bool _325 = abs(u.y) == abs(half_);
        bool _335;
        if (_325)
        {
            _335 = (t.y > 0.0) == (u.y > 0.0);
        }
        else
        {
            _335 = _325;
        }
        if (_335)
        {
            float _340;
            if (r > 0.0)
            {
                _340 = nb;
            }
            else
            {
                _340 = -nb;
            }
            r = _340;
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
    if (_727)
    {
        float d = spvFSub(acc[0], acc[1]);
        return d;
    }
    float h0 = spvFAdd(acc[0], acc[4]);
    float h1 = spvFAdd(acc[1], acc[5]);
    float h2 = spvFAdd(acc[2], acc[6]);
    float h3 = spvFAdd(acc[3], acc[7]);
    float h = spvFAdd(spvFAdd(h0, h2), spvFAdd(h1, h3));
    h = spvFAdd(h, acc[8]);
    return h;
}

kernel void forma_matvec_id_q5_k(constant Push& pc [[buffer(0)]], device IDS& _395 [[buffer(1)]], device W& _477 [[buffer(2)]], device A& _1059 [[buffer(3)]], device Y& _1494 [[buffer(4)]], uint3 gl_WorkGroupID [[threadgroup_position_in_grid]], uint3 gl_NumWorkGroups [[threadgroups_per_grid]], uint3 gl_LocalInvocationID [[thread_position_in_threadgroup]])
{
    threadgroup spvUnsafeArray<float, _1138> accs;
    threadgroup spvUnsafeArray<float2, _1321> contrib;
    uint lid = gl_LocalInvocationID.x;
    uint wg = gl_WorkGroupSize.x;
    uint rpw = wg / pc.tpr;
    uint lane = lid % pc.tpr;
    uint slot = lid / pc.tpr;
    uint row0 = flat_workgroup(gl_WorkGroupID, gl_NumWorkGroups) * rpw;
    uint row = row0 + slot;
    uint nblocks = pc.nchunks / 8u;
    uint param = pc.nchunks * 10u;
    uint w_base;
    uint x_base;
    uint y_base;
    bool _1118 = id_setup(param, gl_WorkGroupID, pc, _395, w_base, x_base, y_base);
    if (!_1118)
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
    int3 param_4;
    float2 ds;
    spvUnsafeArray<uint, 8> param_7;
    float2 param_8;
    spvUnsafeArray<int2, 8> cs;
    spvUnsafeArray<float2, 9> param_22;
    spvUnsafeArray<float2, 9> param_28;
    for (uint b0 = 0u; b0 < nblocks; b0 += pc.tpr)
    {
        uint blk = b0 + lane;
        bool valid = (row < pc.rows) && (blk < nblocks);
        uint base = w_base + (((row * nblocks) + blk) * 44u);
        for (uint c = 0u; c < pc.ncols; c++)
        {
            for (uint k = 0u; k < 9u; k++)
            {
                v[k] = float2(0.0);
            }
            if (valid)
            {
                spvUnsafeArray<int, 8> lanes = spvUnsafeArray<int, 8>({ 0, 0, 0, 0, 0, 0, 0, 0 });
                spvUnsafeArray<int, 4> mins = spvUnsafeArray<int, 4>({ 0, 0, 0, 0 });
                for (uint j = 0u; j < 8u; j++)
                {
                    uint param_1 = base;
                    uint param_2 = j;
                    decode_kchunk(param_1, param_2, param_3, param_4, _477);
                    spvUnsafeArray<uint, 8> q = param_3;
                    int3 scm = param_4;
                    uint param_5 = c;
                    uint param_6 = (blk * 8u) + j;
                    act_chunk(param_5, param_6, param_7, param_8, pc, x_base, _1059);
                    spvUnsafeArray<uint, 8> a = param_7;
                    ds = param_8;
                    if (_1245)
                    {
                        spvUnsafeArray<uint, 8> param_9 = q;
                        int3 param_10 = scm;
                        spvUnsafeArray<uint, 8> param_11 = a;
                        cs[j] = kchunk_sum(param_9, param_10, param_11);
                    }
                    else
                    {
                        uint param_12 = j;
                        spvUnsafeArray<uint, 8> param_13 = q;
                        int3 param_14 = scm;
                        spvUnsafeArray<uint, 8> param_15 = a;
                        spvUnsafeArray<int, 8> param_16 = lanes;
                        spvUnsafeArray<int, 4> param_17 = mins;
                        kchunk_lanes(param_12, param_13, param_14, param_15, param_16, param_17);
                        lanes = param_16;
                        mins = param_17;
                    }
                }
                if (_1277)
                {
                    uint param_18 = base;
                    float2 param_19 = kblock_dm(param_18, _477);
                    float param_20 = ds.x;
                    spvUnsafeArray<int2, 8> param_21 = cs;
                    kblock_pairs(param_19, param_20, param_21, param_22);
                    v = param_22;
                }
                else
                {
                    uint param_23 = base;
                    float2 param_24 = kblock_dm(param_23, _477);
                    float param_25 = ds.x;
                    spvUnsafeArray<int, 8> param_26 = lanes;
                    spvUnsafeArray<int, 4> param_27 = mins;
                    kblock_terms(param_24, param_25, param_26, param_27, param_28);
                    v = param_28;
                }
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
                    for (uint j_1 = 0u; j_1 < (nt / nu); j_1++)
                    {
                        uint param_29 = k_2;
                        uint param_30 = j_1;
                        uint param_31 = k_2;
                        float param_32 = acc;
                        float2 param_33 = contrib[(((s * pc.tpr) + l) * 9u) + term_index(param_29, param_30)];
                        acc = apply_term(param_31, param_32, param_33);
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
            spvUnsafeArray<float, 9> param_34 = acc_1;
            _1494.y[(y_base + (c_1 * pc.y_stride)) + r] = finish(param_34);
        }
    }
}

