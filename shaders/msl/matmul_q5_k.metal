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
constant bool _549 = (FORM == 5u);
constant uint _551 = _549 ? 2u : 9u;
constant bool _580 = (FORM == 5u);
constant bool _602 = (FORM == 5u);

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

constant bool _1265 = (FORM == 5u);
constant bool _1297 = (FORM == 5u);

struct Y
{
    float y[1];
};

constant uint _1434_tmp [[function_constant(0)]];
constant uint _1434 = is_function_constant_defined(_1434_tmp) ? _1434_tmp : 1u;
constant uint3 gl_WorkGroupSize [[maybe_unused]] = uint3(_1434, 1u, 1u);

constant spvUnsafeArray<int, 8> _1200 = spvUnsafeArray<int, 8>({ 0, 0, 0, 0, 0, 0, 0, 0 });
constant spvUnsafeArray<int, 4> _1202 = spvUnsafeArray<int, 4>({ 0, 0, 0, 0 });
constant spvUnsafeArray<float2, 20> _1492 = spvUnsafeArray<float2, 20>({ float2(1.0, 0.0), float2(1.0, 0.0), float2(0.5, 0.0), float2(0.16666667163372039794921875, -4.9670538793122887000208720564842e-09), float2(0.0416666679084300994873046875, -1.2417634698280721750052180141211e-09), float2(0.008333333767950534820556640625, -4.3461720333759501500026090070605e-10), float2(0.001388888922519981861114501953125, -3.3631094437103215000206546392292e-11), float2(0.00019841270113829523324966430664062, -2.7255968749334558154373553406913e-12), float2(2.4801587642286904156208038330078e-05, -3.4069960936668197692966941758641e-13), float2(2.7557318844628753140568733215332e-06, 3.7935712242972291496911907415779e-14), float2(2.7557319981497130356729030609131e-07, -7.5751122090511949225266619123431e-15), float2(2.5052107943679402524139732122421e-08, 4.4176230446483664635048960178665e-16), float2(2.0876755879584152353345416486263e-09, 1.1082839147459852308270911169785e-16), float2(1.6059044372074282591711380518973e-10, -5.3525265115627256262654729002115e-18), float2(1.147074536050896043093416665215e-11, 2.3722076892312380547612072484442e-19), float2(7.6471636098127127034729255683487e-13, 1.2200710471178287732698915322299e-20), float2(4.779477256132945439670578480218e-14, 7.625444044486429832936822076437e-22), float2(2.8114573589663703623298118827734e-15, -1.0462084739763657794534194576036e-22), float2(1.5619206814541513076918799463044e-16, 1.5404471465941992767529961911953e-24), float2(8.2206350784765213506911918361908e-18, 1.6814780968558980371442752815229e-25) });
constant spvUnsafeArray<uint, 24> _1540 = spvUnsafeArray<uint, 24>({ 162u, 41721u, 10680707u, 2734261102u, 4186140238u, 2205044292u, 1850622997u, 1313084713u, 1142237692u, 355073063u, 704390999u, 4230436817u, 660066805u, 1473377588u, 3522507997u, 4113882560u, 886948059u, 3720403810u, 3235603093u, 3680671129u, 1653971260u, 2509847619u, 2570863504u, 1011060801u });

static inline __attribute__((always_inline))
uint byte_at(thread const uint& base, thread const uint& i, device W& _346)
{
    return (_346.w[base + (i >> uint(2))] >> (8u * (i & 3u))) & 255u;
}

static inline __attribute__((always_inline))
uint2 scale_min_k4(thread const uint& base, thread const uint& j, device W& _346)
{
    if (j < 4u)
    {
        uint param = base;
        uint param_1 = 4u + j;
        uint param_2 = base;
        uint param_3 = 8u + j;
        return uint2(byte_at(param, param_1, _346) & 63u, byte_at(param_2, param_3, _346) & 63u);
    }
    uint param_4 = base;
    uint param_5 = 8u + j;
    uint a = byte_at(param_4, param_5, _346);
    uint param_6 = base;
    uint param_7 = j;
    uint lo = byte_at(param_6, param_7, _346);
    uint param_8 = base;
    uint param_9 = 4u + j;
    uint hi = byte_at(param_8, param_9, _346);
    return uint2((a & 15u) | ((lo >> uint(6)) << uint(4)), (a >> uint(4)) | ((hi >> uint(6)) << uint(4)));
}

static inline __attribute__((always_inline))
void decode_chunk(thread const uint& base, thread const uint& j, thread spvUnsafeArray<uint, 8>& q, thread float4& smm, device W& _346)
{
    uint g = j >> uint(1);
    uint sh = 4u * (j & 1u);
    for (uint k = 0u; k < 8u; k++)
    {
        uint lo = (_346.w[((base + 12u) + (8u * g)) + k] >> sh) & 252645135u;
        uint hi = ((_346.w[(base + 4u) + k] >> j) & 16843009u) << uint(4);
        q[k] = lo | hi;
    }
    float2 dm = float2(as_type<half2>(_346.w[base]));
    uint param = base;
    uint param_1 = j;
    uint2 sm = scale_min_k4(param, param_1, _346);
    float s = dm.x * float(sm.x);
    float m = -(dm.y * float(sm.y));
    smm = float4(s, s, m, m);
}

static inline __attribute__((always_inline))
void decode_kchunk(thread const uint& base, thread const uint& j, thread spvUnsafeArray<uint, 8>& q, thread int3& scm, device W& _346)
{
    uint param = base;
    uint param_1 = j;
    spvUnsafeArray<uint, 8> param_2;
    float4 param_3;
    decode_chunk(param, param_1, param_2, param_3, _346);
    q = param_2;
    float4 smm = param_3;
    uint param_4 = base;
    uint param_5 = j;
    uint2 sm = scale_min_k4(param_4, param_5, _346);
    scm = int3(int(sm.x), int(sm.x), int(sm.y));
}

static inline __attribute__((always_inline))
float2 kblock_dm(thread const uint& base, device W& _346)
{
    return float2(as_type<half2>(_346.w[base]));
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
    int _670;
    for (uint k = 0u; k < 8u; k++)
    {
        if (k < 4u)
        {
            _670 = scm.x;
        }
        else
        {
            _670 = scm.y;
        }
        int sc = _670;
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
    uint _719 = j / 2u;
    mins[_719] += (scm.z * sum);
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
    return _551;
}

static inline __attribute__((always_inline))
uint nterms()
{
    if (_580)
    {
        return 8u;
    }
    return nused();
}

static inline __attribute__((always_inline))
uint term_index(thread const uint& k, thread const uint& j)
{
    uint _590;
    if (nterms() == nused())
    {
        _590 = k;
    }
    else
    {
        _590 = (4u * k) + j;
    }
    return _590;
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
    bool _255 = t.y != 0.0;
    bool _261;
    if (_255)
    {
        _261 = u.y != 0.0;
    }
    else
    {
        _261 = _255;
    }
    if (_261)
    {
        float up = as_type<float>(as_type<uint>(abs(r)) + 1u);
        float dn = as_type<float>(as_type<uint>(abs(r)) - 1u);
        float nb = ((u.y > 0.0) == (r > 0.0)) ? up : dn;
        float half_ = spvFMul(spvFSub(nb, abs(r)), 0.5);
        bool _298 = abs(u.y) == abs(half_);
        bool _308;
        if (_298)
        {
            _308 = (t.y > 0.0) == (u.y > 0.0);
        }
        else
        {
            _308 = _298;
        }
        if (_308)
        {
            float _313;
            if (r > 0.0)
            {
                _313 = nb;
            }
            else
            {
                _313 = -nb;
            }
            r = _313;
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
    if (_602)
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

kernel void forma_matmul_q5_k(device W& _346 [[buffer(0)]], constant Push& pc [[buffer(1)]], device A& _1159 [[buffer(2)]], device Y& _1415 [[buffer(3)]], uint3 gl_LocalInvocationID [[thread_position_in_threadgroup]], uint3 gl_WorkGroupID [[threadgroup_position_in_grid]])
{
    threadgroup spvUnsafeArray<float2, 16> sdm;
    threadgroup spvUnsafeArray<uint, 1408> sw;
    threadgroup spvUnsafeArray<uint, 2560> sa;
    uint lid = gl_LocalInvocationID.x;
    uint m0 = gl_WorkGroupID.x * 16u;
    uint n0 = gl_WorkGroupID.y * 32u;
    uint m = lid % 16u;
    uint ng = lid / 16u;
    uint bpr = pc.nchunks / 8u;
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
    int3 param_3;
    spvUnsafeArray<uint, 8> q_1;
    spvUnsafeArray<uint, 8> a;
    spvUnsafeArray<int2, 8> cs;
    spvUnsafeArray<float2, 9> t;
    spvUnsafeArray<float2, 9> param_17;
    spvUnsafeArray<float2, 9> param_22;
    for (uint k0 = 0u; k0 < pc.nchunks; k0 += 8u)
    {
        for (uint idx = lid; idx < 128u; idx += 128u)
        {
            uint mm = idx / 8u;
            uint c = idx % 8u;
            uint row = m0 + mm;
            uint ch = k0 + c;
            for (uint k_1 = 0u; k_1 < 8u; k_1++)
            {
                q[k_1] = 0u;
            }
            uint sb = idx * 11u;
            int3 scm = int3(0);
            if (row < pc.rows)
            {
                uint param = pc.w_off + (((row * bpr) + (ch / 8u)) * 44u);
                uint param_1 = c;
                decode_kchunk(param, param_1, param_2, param_3, _346);
                q = param_2;
                scm = param_3;
                if (c == 0u)
                {
                    uint param_4 = pc.w_off + (((row * bpr) + (ch / 8u)) * 44u);
                    sdm[mm] = kblock_dm(param_4, _346);
                }
            }
            sw[sb + 8u] = uint(scm.x);
            sw[sb + 9u] = uint(scm.y);
            sw[sb + 10u] = uint(scm.z);
            for (uint k_2 = 0u; k_2 < 8u; k_2++)
            {
                sw[sb + k_2] = q[k_2];
            }
        }
        for (uint idx_1 = lid; idx_1 < 2560u; idx_1 += 128u)
        {
            uint n = idx_1 / 80u;
            uint rest = idx_1 % 80u;
            uint c_1 = rest / 10u;
            uint col = n0 + n;
            uint ch_1 = k0 + c_1;
            uint v = 0u;
            bool _1146 = col < pc.ncols;
            bool _1153;
            if (_1146)
            {
                _1153 = ch_1 < pc.nchunks;
            }
            else
            {
                _1153 = _1146;
            }
            if (_1153)
            {
                v = _1159.act[(pc.a_off + (((col * pc.nchunks) + ch_1) * 10u)) + (rest % 10u)];
            }
            sa[idx_1] = v;
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
        for (uint i_1 = 0u; i_1 < 4u; i_1++)
        {
            uint nb = (((ng * 4u) + i_1) * 8u) * 10u;
            spvUnsafeArray<int, 8> lanes = spvUnsafeArray<int, 8>({ 0, 0, 0, 0, 0, 0, 0, 0 });
            spvUnsafeArray<int, 4> mins = spvUnsafeArray<int, 4>({ 0, 0, 0, 0 });
            for (uint c_2 = 0u; c_2 < 8u; c_2++)
            {
                uint sb_1 = ((m * 8u) + c_2) * 11u;
                uint ab = nb + (c_2 * 10u);
                for (uint k_3 = 0u; k_3 < 8u; k_3++)
                {
                    q_1[k_3] = sw[sb_1 + k_3];
                    a[k_3] = sa[ab + k_3];
                }
                int3 scm_1 = int3(int(sw[sb_1 + 8u]), int(sw[sb_1 + 9u]), int(sw[sb_1 + 10u]));
                if (_1265)
                {
                    spvUnsafeArray<uint, 8> param_5 = q_1;
                    int3 param_6 = scm_1;
                    spvUnsafeArray<uint, 8> param_7 = a;
                    cs[c_2] = kchunk_sum(param_5, param_6, param_7);
                }
                else
                {
                    uint param_8 = c_2;
                    spvUnsafeArray<uint, 8> param_9 = q_1;
                    int3 param_10 = scm_1;
                    spvUnsafeArray<uint, 8> param_11 = a;
                    spvUnsafeArray<int, 8> param_12 = lanes;
                    spvUnsafeArray<int, 4> param_13 = mins;
                    kchunk_lanes(param_8, param_9, param_10, param_11, param_12, param_13);
                    lanes = param_12;
                    mins = param_13;
                }
            }
            if (_1297)
            {
                float2 param_14 = sdm[m];
                float param_15 = as_type<float>(sa[nb + 8u]);
                spvUnsafeArray<int2, 8> param_16 = cs;
                kblock_pairs(param_14, param_15, param_16, param_17);
                t = param_17;
            }
            else
            {
                float2 param_18 = sdm[m];
                float param_19 = as_type<float>(sa[nb + 8u]);
                spvUnsafeArray<int, 8> param_20 = lanes;
                spvUnsafeArray<int, 4> param_21 = mins;
                kblock_terms(param_18, param_19, param_20, param_21, param_22);
                t = param_22;
            }
            for (uint k_4 = 0u; k_4 < nused(); k_4++)
            {
                for (uint j = 0u; j < (nterms() / nused()); j++)
                {
                    uint param_23 = k_4;
                    uint param_24 = j;
                    uint param_25 = k_4;
                    float param_26 = acc[i_1][k_4];
                    float2 param_27 = t[term_index(param_23, param_24)];
                    acc[i_1][k_4] = apply_term(param_25, param_26, param_27);
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
                spvUnsafeArray<float, 9> param_28 = acc[i_2];
                _1415.y[(pc.y_off + (col_1 * pc.y_stride)) + row_1] = finish(param_28);
            }
        }
    }
}

