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
    uint n;
    uint heads;
    uint size;
    uint dims;
    uint neox;
    uint has_ff;
    uint x_off;
    uint pos_off;
    uint ff_off;
    uint y_off;
    float theta_scale;
    float freq_scale;
    float ext_factor;
    float mscale;
    float corr0;
    float corr1;
};

constant uint _729_tmp [[function_constant(0)]];
constant uint _729 = is_function_constant_defined(_729_tmp) ? _729_tmp : 1u;
constant uint3 gl_WorkGroupSize [[maybe_unused]] = uint3(_729, 1u, 1u);

struct P
{
    int pos[1];
};

struct F
{
    float ff[1];
};

struct X
{
    float x[1];
};

struct Y
{
    float y[1];
};

constant spvUnsafeArray<float2, 20> _476 = spvUnsafeArray<float2, 20>({ float2(1.0, 0.0), float2(1.0, 0.0), float2(0.5, 0.0), float2(0.16666667163372039794921875, -4.9670538793122887000208720564842e-09), float2(0.0416666679084300994873046875, -1.2417634698280721750052180141211e-09), float2(0.008333333767950534820556640625, -4.3461720333759501500026090070605e-10), float2(0.001388888922519981861114501953125, -3.3631094437103215000206546392292e-11), float2(0.00019841270113829523324966430664062, -2.7255968749334558154373553406913e-12), float2(2.4801587642286904156208038330078e-05, -3.4069960936668197692966941758641e-13), float2(2.7557318844628753140568733215332e-06, 3.7935712242972291496911907415779e-14), float2(2.7557319981497130356729030609131e-07, -7.5751122090511949225266619123431e-15), float2(2.5052107943679402524139732122421e-08, 4.4176230446483664635048960178665e-16), float2(2.0876755879584152353345416486263e-09, 1.1082839147459852308270911169785e-16), float2(1.6059044372074282591711380518973e-10, -5.3525265115627256262654729002115e-18), float2(1.147074536050896043093416665215e-11, 2.3722076892312380547612072484442e-19), float2(7.6471636098127127034729255683487e-13, 1.2200710471178287732698915322299e-20), float2(4.779477256132945439670578480218e-14, 7.625444044486429832936822076437e-22), float2(2.8114573589663703623298118827734e-15, -1.0462084739763657794534194576036e-22), float2(1.5619206814541513076918799463044e-16, 1.5404471465941992767529961911953e-24), float2(8.2206350784765213506911918361908e-18, 1.6814780968558980371442752815229e-25) });

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
    bool _177 = r > mb;
    bool _190;
    if (!_177)
    {
        bool _183 = r == mb;
        bool _189;
        if (_183)
        {
            _189 = (q & 1u) != 0u;
        }
        else
        {
            _189 = _183;
        }
        _190 = _189;
    }
    else
    {
        _190 = _177;
    }
    if (_190)
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
float2 sincos_rn(thread const float& x)
{
    float k = rint(x * 0.636619746685028076171875);
    float param = k;
    float param_1 = 1.57079637050628662109375;
    float2 param_2 = float2(x, 0.0);
    float2 param_3 = -two_prod(param, param_1);
    float2 r = df_add(param_2, param_3);
    float param_4 = k;
    float param_5 = -4.3711388286737928865477442741394e-08;
    float2 param_6 = r;
    float2 param_7 = -two_prod(param_4, param_5);
    r = df_add(param_6, param_7);
    float param_8 = k;
    float param_9 = -1.7151245100058818728039344847502e-15;
    float2 param_10 = r;
    float2 param_11 = -two_prod(param_8, param_9);
    r = df_add(param_10, param_11);
    float2 param_12 = r;
    float2 param_13 = r;
    float2 z = df_mul(param_12, param_13);
    float2 sp = float2(0.0);
    float2 cp = float2(0.0);
    float2 _493;
    for (int i = 9; i >= 0; i--)
    {
        float2 c = _476[(2 * i) + 1];
        float2 param_14 = sp;
        float2 param_15 = z;
        if ((i & 1) == 1)
        {
            _493 = -c;
        }
        else
        {
            _493 = c;
        }
        float2 param_16 = df_mul(param_14, param_15);
        float2 param_17 = _493;
        sp = df_add(param_16, param_17);
    }
    float2 _528;
    for (int i_1 = 9; i_1 >= 0; i_1--)
    {
        float2 c_1 = _476[2 * i_1];
        float2 param_18 = cp;
        float2 param_19 = z;
        if ((i_1 & 1) == 1)
        {
            _528 = -c_1;
        }
        else
        {
            _528 = c_1;
        }
        float2 param_20 = df_mul(param_18, param_19);
        float2 param_21 = _528;
        cp = df_add(param_20, param_21);
    }
    float2 param_22 = sp;
    float2 param_23 = r;
    float s = df_mul(param_22, param_23).x;
    float c_2 = cp.x;
    int q = int(k) & 3;
    if (q == 0)
    {
        return float2(c_2, s);
    }
    else
    {
        if (q == 1)
        {
            return float2(-s, c_2);
        }
        else
        {
            if (q == 2)
            {
                return float2(-c_2, -s);
            }
        }
    }
    return float2(s, -c_2);
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
    bool _625 = t.y != 0.0;
    bool _631;
    if (_625)
    {
        _631 = u.y != 0.0;
    }
    else
    {
        _631 = _625;
    }
    if (_631)
    {
        float up = as_type<float>(as_type<uint>(abs(r)) + 1u);
        float dn = as_type<float>(as_type<uint>(abs(r)) - 1u);
        float nb = ((u.y > 0.0) == (r > 0.0)) ? up : dn;
        float half_ = spvFMul(spvFSub(nb, abs(r)), 0.5);
        bool _667 = abs(u.y) == abs(half_);
        bool _677;
        if (_667)
        {
            _677 = (t.y > 0.0) == (u.y > 0.0);
        }
        else
        {
            _677 = _667;
        }
        if (_677)
        {
            float _682;
            if (r > 0.0)
            {
                _682 = nb;
            }
            else
            {
                _682 = -nb;
            }
            r = _682;
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

kernel void forma_rope(constant Push& pc [[buffer(0)]], device P& _773 [[buffer(1)]], device F& _811 [[buffer(2)]], device X& _943 [[buffer(3)]], device Y& _990 [[buffer(4)]], uint3 gl_WorkGroupID [[threadgroup_position_in_grid]], uint3 gl_NumWorkGroups [[threadgroups_per_grid]], uint3 gl_LocalInvocationID [[thread_position_in_threadgroup]])
{
    uint per = max((pc.dims / 2u), (pc.size - pc.dims));
    uint u = (flat_workgroup(gl_WorkGroupID, gl_NumWorkGroups) * gl_WorkGroupSize.x) + gl_LocalInvocationID.x;
    if (u >= (pc.n * per))
    {
        return;
    }
    uint t = u / per;
    uint k = u % per;
    uint base = (t * pc.heads) * pc.size;
    if (k < (pc.dims / 2u))
    {
        float theta = float(_773.pos[pc.pos_off + t]);
        for (uint j = 0u; j < k; j++)
        {
            theta = spvFMul(theta, pc.theta_scale);
        }
        float _805;
        if (pc.has_ff != 0u)
        {
            float param = theta;
            float param_1 = _811.ff[pc.ff_off + k];
            _805 = div_rn(param, param_1);
        }
        else
        {
            _805 = theta;
        }
        float extrap = _805;
        float interp = spvFMul(pc.freq_scale, extrap);
        float th = interp;
        if (pc.ext_factor != 0.0)
        {
            float param_2 = spvFSub(float(k), pc.corr0);
            float param_3 = fast::max(0.001000000047497451305389404296875, spvFSub(pc.corr1, pc.corr0));
            float ramp = div_rn(param_2, param_3);
            float _mix = spvFMul(spvFSub(1.0, fast::min(1.0, fast::max(0.0, ramp))), pc.ext_factor);
            th = spvFAdd(spvFMul(interp, spvFSub(1.0, _mix)), spvFMul(extrap, _mix));
        }
        float param_4 = th;
        float2 cs = sincos_rn(param_4);
        float c = spvFMul(cs.x, pc.mscale);
        float s = spvFMul(cs.y, pc.mscale);
        uint _897;
        if (pc.neox != 0u)
        {
            _897 = k;
        }
        else
        {
            _897 = 2u * k;
        }
        uint i0 = _897;
        uint _909;
        if (pc.neox != 0u)
        {
            _909 = k + (pc.dims / 2u);
        }
        else
        {
            _909 = (2u * k) + 1u;
        }
        uint i1 = _909;
        for (uint h = 0u; h < pc.heads; h++)
        {
            uint b = base + (h * pc.size);
            float x0 = _943.x[(pc.x_off + b) + i0];
            float x1 = _943.x[(pc.x_off + b) + i1];
            float p0 = spvFMul(x1, s);
            float p1 = spvFMul(x1, c);
            float param_5 = x0;
            float param_6 = c;
            float param_7 = -p0;
            float y0 = fmaf(param_5, param_6, param_7);
            float param_8 = x0;
            float param_9 = s;
            float param_10 = p1;
            float y1 = fmaf(param_8, param_9, param_10);
            _990.y[(pc.y_off + b) + i0] = y0;
            _990.y[(pc.y_off + b) + i1] = y1;
        }
    }
    if (k < (pc.size - pc.dims))
    {
        for (uint h_1 = 0u; h_1 < pc.heads; h_1++)
        {
            uint e = ((base + (h_1 * pc.size)) + pc.dims) + k;
            _990.y[pc.y_off + e] = _943.x[pc.x_off + e];
        }
    }
}

