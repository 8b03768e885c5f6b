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

// Implementation of the unsigned GLSL findMSB() function
template<typename T>
inline T spvFindUMSB(T x)
{
    return select(clz(T(0)) - (clz(x) + T(1)), T(-1), x == T(0));
}

struct X
{
    float x[1];
};

struct Push
{
    uint rows;
    uint m;
    uint k;
    uint x_off;
    uint y_off;
};

struct Y
{
    int y[1];
};

constant uint _683_tmp [[function_constant(0)]];
constant uint _683 = is_function_constant_defined(_683_tmp) ? _683_tmp : 1u;
constant uint3 gl_WorkGroupSize [[maybe_unused]] = uint3(_683, 1u, 1u);

static inline __attribute__((always_inline))
uint flat_workgroup(thread uint3& gl_WorkGroupID, thread uint3& gl_NumWorkGroups)
{
    return (gl_WorkGroupID.y * gl_NumWorkGroups.x) + gl_WorkGroupID.x;
}

static inline __attribute__((always_inline))
bool less(thread const int& i, thread const int& j, device X& _64, thread uint& xb)
{
    return _64.x[xb + uint(i)] > _64.x[xb + uint(j)];
}

static inline __attribute__((always_inline))
void adjust_heap(thread const int& f, thread int& hole, thread const int& n, thread const int& v, device X& _64, thread uint& xb, threadgroup spvUnsafeArray<int, 1024>& a)
{
    int top = hole;
    int child = hole;
    while (child < ((n - 1) / 2))
    {
        child = 2 * (child + 1);
        int param = a[f + child];
        int param_1 = a[(f + child) - 1];
        if (less(param, param_1, _64, xb))
        {
            child--;
        }
        a[f + hole] = a[f + child];
        hole = child;
    }
    bool _150 = (n & 1) == 0;
    bool _158;
    if (_150)
    {
        _158 = child == ((n - 2) / 2);
    }
    else
    {
        _158 = _150;
    }
    if (_158)
    {
        child = 2 * (child + 1);
        a[f + hole] = a[(f + child) - 1];
        hole = child - 1;
    }
    int parent = (hole - 1) / 2;
    for (;;)
    {
        bool _187 = hole > top;
        bool _199;
        if (_187)
        {
            int param_2 = a[f + parent];
            int param_3 = v;
            _199 = less(param_2, param_3, _64, xb);
        }
        else
        {
            _199 = _187;
        }
        if (_199)
        {
            a[f + hole] = a[f + parent];
            hole = parent;
            parent = (hole - 1) / 2;
            continue;
        }
        else
        {
            break;
        }
    }
    a[f + hole] = v;
}

static inline __attribute__((always_inline))
void heap_sort(thread const int& f, thread const int& l, device X& _64, thread uint& xb, threadgroup spvUnsafeArray<int, 1024>& a)
{
    int n = l - f;
    int _225 = (n - 2) / 2;
    for (int parent = _225; n >= 2; parent--)
    {
        int param = f;
        int param_1 = parent;
        int param_2 = n;
        int param_3 = a[f + parent];
        adjust_heap(param, param_1, param_2, param_3, _64, xb, a);
        if (parent == 0)
        {
            break;
        }
    }
    int _255 = n - 1;
    for (int last = _255; last > 0; last--)
    {
        int v = a[f + last];
        a[f + last] = a[f];
        int param_4 = f;
        int param_5 = 0;
        int param_6 = last;
        int param_7 = v;
        adjust_heap(param_4, param_5, param_6, param_7, _64, xb, a);
    }
}

static inline __attribute__((always_inline))
void swap(thread const int& i, thread const int& j, threadgroup spvUnsafeArray<int, 1024>& a)
{
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
}

static inline __attribute__((always_inline))
int partition_pivot(thread const int& f, thread const int& l, device X& _64, thread uint& xb, threadgroup spvUnsafeArray<int, 1024>& a)
{
    int mid = f + ((l - f) / 2);
    int x1 = f + 1;
    int y1 = mid;
    int z1 = l - 1;
    int pick = y1;
    int param = a[x1];
    int param_1 = a[y1];
    if (less(param, param_1, _64, xb))
    {
        int param_2 = a[y1];
        int param_3 = a[z1];
        if (less(param_2, param_3, _64, xb))
        {
            pick = y1;
        }
        else
        {
            int param_4 = a[x1];
            int param_5 = a[z1];
            if (less(param_4, param_5, _64, xb))
            {
                pick = z1;
            }
            else
            {
                pick = x1;
            }
        }
    }
    else
    {
        int param_6 = a[x1];
        int param_7 = a[z1];
        if (less(param_6, param_7, _64, xb))
        {
            pick = x1;
        }
        else
        {
            int param_8 = a[y1];
            int param_9 = a[z1];
            if (less(param_8, param_9, _64, xb))
            {
                pick = z1;
            }
        }
    }
    int param_10 = f;
    int param_11 = pick;
    swap(param_10, param_11, a);
    int lo = f + 1;
    int hi = l;
    while (true)
    {
        for (;;)
        {
            int param_12 = a[lo];
            int param_13 = a[f];
            bool _396 = less(param_12, param_13, _64, xb);
            if (_396)
            {
                lo++;
                continue;
            }
            else
            {
                break;
            }
        }
        hi--;
        for (;;)
        {
            int param_14 = a[f];
            int param_15 = a[hi];
            bool _414 = less(param_14, param_15, _64, xb);
            if (_414)
            {
                hi--;
                continue;
            }
            else
            {
                break;
            }
        }
        if (lo >= hi)
        {
            return lo;
        }
        int param_16 = lo;
        int param_17 = hi;
        swap(param_16, param_17, a);
        lo++;
    }
    return lo;
}

static inline __attribute__((always_inline))
void linear_insert(thread int& i, device X& _64, thread uint& xb, threadgroup spvUnsafeArray<int, 1024>& a)
{
    int v = a[i];
    for (;;)
    {
        int _444 = i - 1;
        int param = v;
        int param_1 = a[_444];
        bool _450 = less(param, param_1, _64, xb);
        if (_450)
        {
            a[i] = a[i - 1];
            i--;
            continue;
        }
        else
        {
            break;
        }
    }
    a[i] = v;
}

kernel void forma_topk(device X& _64 [[buffer(0)]], constant Push& pc [[buffer(1)]], device Y& _665 [[buffer(2)]], uint3 gl_WorkGroupID [[threadgroup_position_in_grid]], uint3 gl_NumWorkGroups [[threadgroups_per_grid]], uint3 gl_LocalInvocationID [[thread_position_in_threadgroup]])
{
    threadgroup spvUnsafeArray<int, 1024> a;
    uint row = flat_workgroup(gl_WorkGroupID, gl_NumWorkGroups);
    bool _472 = row >= pc.rows;
    uint xb;
    bool _480;
    if (!_472)
    {
        _480 = gl_LocalInvocationID.x != 0u;
    }
    else
    {
        _480 = _472;
    }
    if (_480)
    {
        return;
    }
    xb = pc.x_off + (row * pc.m);
    int n = int(pc.m);
    for (int i = 0; i < n; i++)
    {
        a[i] = i;
    }
    int depth0 = 2 * int(spvFindUMSB(uint(n)));
    int top = 0;
    spvUnsafeArray<int, 64> sf;
    sf[0] = 0;
    spvUnsafeArray<int, 64> sl;
    sl[0] = n;
    spvUnsafeArray<int, 64> sd;
    sd[0] = depth0;
    top = 1;
    while (top > 0)
    {
        top--;
        int f = sf[top];
        int l = sl[top];
        int d = sd[top];
        while ((l - f) > 16)
        {
            if (d == 0)
            {
                int param = f;
                int param_1 = l;
                heap_sort(param, param_1, _64, xb, a);
                break;
            }
            d--;
            int param_2 = f;
            int param_3 = l;
            int _575 = partition_pivot(param_2, param_3, _64, xb, a);
            int cut = _575;
            sf[top] = cut;
            sl[top] = l;
            sd[top] = d;
            top++;
            l = cut;
        }
    }
    int n16 = min(n, 16);
    for (int i_1 = 1; i_1 < n16; i_1++)
    {
        int v = a[i_1];
        int param_4 = v;
        int param_5 = a[0];
        if (less(param_4, param_5, _64, xb))
        {
            for (int j = i_1; j > 0; j--)
            {
                a[j] = a[j - 1];
            }
            a[0] = v;
        }
        else
        {
            int param_6 = i_1;
            linear_insert(param_6, _64, xb, a);
        }
    }
    for (int i_2 = n16; i_2 < n; i_2++)
    {
        int param_7 = i_2;
        linear_insert(param_7, _64, xb, a);
    }
    for (uint j_1 = 0u; j_1 < pc.k; j_1++)
    {
        _665.y[(pc.y_off + (row * pc.k)) + j_1] = a[j_1];
    }
}

