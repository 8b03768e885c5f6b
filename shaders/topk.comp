// topk: per row of x [rows, m] (F32), the indices of its k largest values in the order of ggml's descending
// argsort: libstdc++'s std::sort of the indices with the comparator x[a] > x[b], step for step — introsort with
// median-of-three pivots (the recursion on the right part kept on an explicit stack: the parts are disjoint, so
// the order they are sorted in does not matter), heap sort past the depth limit 2·⌊log2 m⌋, then insertion
// sort with runs of 16 — as the CPU backend's argsortDesc. One workgroup per row; its first invocation sorts
// in shared memory (m ≤ MAXM).
// Bindings: 0 = x, 1 = y (int).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(push_constant) uniform Push {
    uint rows;
    uint m;
    uint k;
    uint x_off;
    uint y_off;
} pc;

layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { int y[]; };

#define MAXM 1024u
#define THRESHOLD 16
shared int a[MAXM];
uint xb;

bool less(int i, int j) { return x[xb + uint(i)] > x[xb + uint(j)]; }

void swap(int i, int j) {
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
}

// adjust_heap is std::__adjust_heap then std::__push_heap on the heap a[f…f+n).
void adjust_heap(int f, int hole, int n, int v) {
    int top = hole, child = hole;
    while (child < (n - 1) / 2) {
        child = 2 * (child + 1);
        if (less(a[f + child], a[f + child - 1])) {
            child--;
        }
        a[f + hole] = a[f + child];
        hole = child;
    }
    if ((n & 1) == 0 && child == (n - 2) / 2) {
        child = 2 * (child + 1);
        a[f + hole] = a[f + child - 1];
        hole = child - 1;
    }
    int parent = (hole - 1) / 2;
    while (hole > top && less(a[f + parent], v)) {
        a[f + hole] = a[f + parent];
        hole = parent;
        parent = (hole - 1) / 2;
    }
    a[f + hole] = v;
}

void heap_sort(int f, int l) {
    int n = l - f;
    for (int parent = (n - 2) / 2; n >= 2; parent--) {
        adjust_heap(f, parent, n, a[f + parent]);
        if (parent == 0) {
            break;
        }
    }
    for (int last = n - 1; last > 0; last--) {
        int v = a[f + last];
        a[f + last] = a[f];
        adjust_heap(f, 0, last, v);
    }
}

// partition_pivot is std::__unguarded_partition_pivot.
int partition_pivot(int f, int l) {
    int mid = f + (l - f) / 2;
    int x1 = f + 1, y1 = mid, z1 = l - 1, pick = y1;
    if (less(a[x1], a[y1])) {
        if (less(a[y1], a[z1])) {
            pick = y1;
        } else if (less(a[x1], a[z1])) {
            pick = z1;
        } else {
            pick = x1;
        }
    } else if (less(a[x1], a[z1])) {
        pick = x1;
    } else if (less(a[y1], a[z1])) {
        pick = z1;
    }
    swap(f, pick);
    int lo = f + 1, hi = l;
    while (true) {
        while (less(a[lo], a[f])) {
            lo++;
        }
        hi--;
        while (less(a[f], a[hi])) {
            hi--;
        }
        if (lo >= hi) {
            return lo;
        }
        swap(lo, hi);
        lo++;
    }
    return lo;
}

void linear_insert(int i) {
    int v = a[i];
    while (less(v, a[i - 1])) {
        a[i] = a[i - 1];
        i--;
    }
    a[i] = v;
}

void main() {
    uint row = flat_workgroup();
    if (row >= pc.rows || gl_LocalInvocationID.x != 0u) {
        return;
    }
    xb = pc.x_off + row * pc.m;
    int n = int(pc.m);
    for (int i = 0; i < n; i++) {
        a[i] = i;
    }
    int depth0 = 2 * findMSB(uint(n));
    int sf[64], sl[64], sd[64];
    int top = 0;
    sf[0] = 0;
    sl[0] = n;
    sd[0] = depth0;
    top = 1;
    while (top > 0) {
        top--;
        int f = sf[top], l = sl[top], d = sd[top];
        while (l - f > THRESHOLD) {
            if (d == 0) {
                heap_sort(f, l);
                break;
            }
            d--;
            int cut = partition_pivot(f, l);
            sf[top] = cut;
            sl[top] = l;
            sd[top] = d;
            top++;
            l = cut;
        }
    }
    int n16 = min(n, THRESHOLD);
    for (int i = 1; i < n16; i++) {
        int v = a[i];
        if (less(v, a[0])) {
            for (int j = i; j > 0; j--) {
                a[j] = a[j - 1];
            }
            a[0] = v;
        } else {
            linear_insert(i);
        }
    }
    for (int i = n16; i < n; i++) {
        linear_insert(i);
    }
    for (uint j = 0u; j < pc.k; j++) {
        y[pc.y_off + row * pc.k + j] = a[j];
    }
}
