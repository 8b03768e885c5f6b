// numeric.glsl: float arithmetic with results that do not depend on the GPU.
//
// Vulkan guarantees correctly rounded +, - and * on float32, but only 2.5 ulp for division and loose bounds for
// exp, tanh, sin and cos (3 + 2|x| ulp, or 2^-11 absolute). llama.cpp's CPU, forma's reference, rounds
// activations to 8-bit integers and to F16, where a last-bit difference in a scale flips a rounding; so the
// helpers below compute what matters with integer arithmetic or with only correctly rounded operations:
//   f16_bits, f16_round   F32 → F16, round to nearest even, as gguf/quant.F32ToF16 (NaN → 0x7E00, overflow → Inf)
//   bf16_round            F32 → BF16, round to nearest even, quiet NaNs (gguf/quant.F32ToBF16)
//   bf16_madd             one of VDPBF16PS's additions: denormals as zero, exact product, one rounding, tiny
//                         results flushed (gguf/quant.BF16MulAdd)
//   div_rn                a / b correctly rounded (integer long division) for normal operands and results
//   fmaf                  a fused multiply-add: the GPU's where a probe found it fused, else exactly emulated
//   tail_f32              one of the elements ggml_vec_dot_f32 adds after its vector loop
//   vexpf, expf_rn        ggml_v_expf in the AVX-512 form of the reference build, bit for bit; exp correctly
//                         rounded (C's expf, for the elements ggml's vector loops leave)
//   tanh_rn               tanh correctly rounded (computed in double-float), as llama.cpp's libm
//   libm_sincos           cosf and sinf as GNU libc computes them (in double-float)
//   two_sum, df_*         double-float (hi + lo) arithmetic, exact to about 2^-48: where ggml sums in double
//                         (norms, softmax), a double-float sum rounds to the same float32 but for rare ties
//   sqrt_rn               a correctly rounded square root
// Variables that must not be contracted into fused multiply-adds are declared precise.
#ifndef FORMA_NUMERIC_GLSL
#define FORMA_NUMERIC_GLSL

// f16_bits rounds f to the nearest IEEE half (ties to even) and returns its bit pattern.
uint f16_bits(float f) {
    uint u = floatBitsToUint(f);
    uint sign = (u >> 16) & 0x8000u;
    uint a = u & 0x7fffffffu;
    if (a > 0x7f800000u) {
        return sign | 0x7e00u; // NaN
    }
    if (a >= 0x477ff000u) {
        return sign | 0x7c00u; // |f| >= 65520 rounds to Inf
    }
    if (a >= 0x38800000u) { // a normal half: rebias, round away 13 bits to even
        uint v = a - 0x38000000u;
        v += 0x0fffu + ((v >> 13) & 1u);
        return sign | (v >> 13);
    }
    // A subnormal half or zero: the value in units of 2^-24, rounded to even.
    uint e = a >> 23;
    if (e < 102u) {
        return sign; // below 2^-25
    }
    uint m = (a & 0x7fffffu) | 0x800000u;
    uint s = 126u - e; // 14…24
    uint q = m >> s;
    uint rem = m & ((1u << s) - 1u);
    uint half_ = 1u << (s - 1u);
    if (rem > half_ || (rem == half_ && (q & 1u) != 0u)) {
        q += 1u;
    }
    return sign | q;
}

// f16_value widens the half whose bits are the low 16 bits of h.
float f16_value(uint h) {
    return unpackHalf2x16(h).x;
}

float f16_round(float f) {
    return f16_value(f16_bits(f));
}

// bf16_round rounds f to the nearest bfloat16 (ties to even), widened back to float.
float bf16_round(float f) {
    uint u = floatBitsToUint(f);
    uint h;
    if ((u & 0x7fffffffu) > 0x7f800000u) {
        h = (u >> 16) | 64u;
    } else {
        h = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    }
    return uintBitsToFloat(h << 16);
}

// bf16_daz returns f with a denormal taken as a zero of its sign.
float bf16_daz(float f) {
    uint u = floatBitsToUint(f);
    return (u & 0x7f800000u) == 0u ? uintBitsToFloat(u & 0x80000000u) : f;
}

// bf16_madd returns acc + w·x as one of VDPBF16PS's two additions computes it (AVX-512 BF16, the reference
// build's BF16 dot; gguf/quant.BF16MulAdd): denormal inputs and accumulator taken as zero, the product exact
// (even beyond float32's range), the sum rounded once to nearest even, and a result under 2^-126 after that
// rounding (with an unbounded exponent) flushed to a zero of its sign. GPU arithmetic is exact or correctly
// rounded only between the normals (GPUs may flush denormals), so the few sums that could leave that range
// are taken scaled by 2^±64: with the accumulator at 2^-100 or more, or the product, no sum of the two is tiny
// (the finer of their steps is 2^-124 or more unless one is under half the other), and a product under 2^-189
// is below half an ulp of any normal accumulator.
float bf16_madd(float acc, float w, float x) {
    acc = bf16_daz(acc);
    w = bf16_daz(w);
    x = bf16_daz(x);
    const float two64 = uintBitsToFloat(0x5f800000u), twom64 = uintBitsToFloat(0x1f800000u);
    precise float p = w * x;
    bool finite = !isinf(w) && !isinf(x) && !isnan(w) && !isnan(x);
    if (finite && isinf(p)) { // the exact product is beyond float32's range
        if (isinf(acc)) {
            return acc;
        }
        precise float ps = (w * twom64) * x;
        precise float s = acc * twom64 + ps;
        precise float r = s * two64;
        return r;
    }
    if (!finite || w == 0.0 || x == 0.0 || !(abs(acc) < uintBitsToFloat(0x0d800000u)) ||
        abs(p) >= uintBitsToFloat(0x0d800000u)) { // 2^-100
        precise float r = acc + p;
        return r;
    }
    precise float ps = (w * two64) * x; // exact for products of 2^-190 or more
    uint sign = (floatBitsToUint(w) ^ floatBitsToUint(x)) & 0x80000000u;
    if (acc == 0.0) { // the product, or a zero of its sign when under 2^-126
        return abs(ps) >= uintBitsToFloat(0x20800000u) ? p : uintBitsToFloat(sign);
    }
    if (abs(ps) < uintBitsToFloat(0x01000000u)) { // 2^-125: a product under 2^-189
        return acc;
    }
    precise float s = acc * two64 + ps;
    if (abs(s) < uintBitsToFloat(0x20800000u)) { // 2^-62
        return uintBitsToFloat(floatBitsToUint(s) & 0x80000000u);
    }
    precise float r = s * twom64;
    return r;
}

// div_rn returns a / b rounded to nearest even. Operands and result must be normal floats for the exact path;
// zeros, subnormals, infinities and NaNs fall back to the GPU's division (never reached by forma's callers with
// finite activations, except a zero dividend, which is exact either way).
float div_rn(float a, float b) {
    uint ua = floatBitsToUint(a), ub = floatBitsToUint(b);
    uint ea = (ua >> 23) & 0xffu, eb = (ub >> 23) & 0xffu;
    if (ea == 0u || ea == 255u || eb == 0u || eb == 255u) {
        return a / b;
    }
    uint ma = (ua & 0x7fffffu) | 0x800000u;
    uint mb = (ub & 0x7fffffu) | 0x800000u;
    int e = int(ea) - int(eb) + 127;
    if (ma < mb) {
        ma <<= 1;
        e -= 1;
    }
    if (e <= 0 || e >= 255) {
        return a / b;
    }
    // mb <= ma < 2mb: 24 quotient bits, then round by the remainder.
    uint q = 0u, r = ma;
    for (int i = 0; i < 24; i++) {
        q <<= 1;
        if (r >= mb) {
            r -= mb;
            q |= 1u;
        }
        r <<= 1;
    }
    if (r > mb || (r == mb && (q & 1u) != 0u)) {
        q += 1u;
        if (q == 0x1000000u) {
            q >>= 1;
            e += 1;
            if (e >= 255) {
                return a / b;
            }
        }
    }
    uint sign = (ua ^ ub) & 0x80000000u;
    return uintBitsToFloat(sign | (uint(e) << 23) | (q & 0x7fffffu));
}

// two_sum returns (s, e) with s = fl(a + b) and a + b = s + e exactly.
vec2 two_sum(float a, float b) {
    precise float s = a + b;
    precise float bb = s - a;
    precise float e = (a - (s - bb)) + (b - bb);
    return vec2(s, e);
}

// df_add adds two double-float numbers (hi, lo), normalised so that hi = fl(hi + lo).
vec2 df_add(vec2 a, vec2 b) {
    vec2 s = two_sum(a.x, b.x);
    precise float e = s.y + (a.y + b.y);
    return two_sum(s.x, e);
}

// two_prod returns (p, e) with p = fl(a·b) and a·b = p + e exactly (Dekker's split; no fused multiply-add).
vec2 two_prod(float a, float b) {
    precise float p = a * b;
    precise float ca = 4097.0 * a;
    precise float ah = ca - (ca - a);
    precise float al = a - ah;
    precise float cb = 4097.0 * b;
    precise float bh = cb - (cb - b);
    precise float bl = b - bh;
    precise float e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    return vec2(p, e);
}

// df_div returns (hi + lo) / d rounded to float32 (d a positive normal float).
float df_div(vec2 a, float d) {
    float q1 = div_rn(a.x, d);
    vec2 p = two_prod(q1, d);
    precise float r = ((a.x - p.x) - p.y) + a.y;
    precise float q = q1 + r / d;
    return q;
}

// df_recip returns 1 / (hi + lo) rounded to float32 (hi positive and normal).
float df_recip(vec2 a) {
    float q1 = div_rn(1.0, a.x);
    vec2 p = two_prod(q1, a.x);
    precise float r = ((1.0 - p.x) - p.y) - q1 * a.y;
    precise float q = q1 + r * q1;
    return q;
}

vec2 df_addf(vec2 a, float b) {
    vec2 s = two_sum(a.x, b);
    precise float e = s.y + a.y;
    return two_sum(s.x, e);
}

vec2 df_mul(vec2 a, vec2 b) {
    vec2 p = two_prod(a.x, b.x);
    precise float e = p.y + (a.x * b.y + a.y * b.x);
    return two_sum(p.x, e);
}

vec2 df_mulf(vec2 a, float b) {
    vec2 p = two_prod(a.x, b);
    precise float e = p.y + a.y * b;
    return two_sum(p.x, e);
}

// df_divv returns a / b in double-float (b.x normal).
vec2 df_divv(vec2 a, vec2 b) {
    float q1 = div_rn(a.x, b.x);
    vec2 r = df_add(a, -df_mulf(b, q1));
    float q2 = r.x / b.x;
    vec2 q = two_sum(q1, q2);
    r = df_add(a, -df_mul(b, q));
    return df_addf(q, r.x / b.x);
}

// 1/k! in double-float, k = 0…19.
const vec2 INV_FACT[20] = vec2[20](vec2(1.0, 0.0), vec2(1.0, 0.0), vec2(0.5, 0.0),
    vec2(0.1666666716337204, -4.967053879312289e-09), vec2(0.0416666679084301, -1.2417634698280722e-09),
    vec2(0.008333333767950535, -4.34617203337595e-10), vec2(0.0013888889225199819, -3.3631094437103215e-11),
    vec2(0.00019841270113829523, -2.725596874933456e-12), vec2(2.4801587642286904e-05, -3.40699609366682e-13),
    vec2(2.7557318844628753e-06, 3.793571224297229e-14), vec2(2.755731998149713e-07, -7.575112209051195e-15),
    vec2(2.5052107943679403e-08, 4.4176230446483665e-16), vec2(2.0876755879584152e-09, 1.1082839147459852e-16),
    vec2(1.6059044372074283e-10, -5.352526511562726e-18), vec2(1.147074536050896e-11, 2.372207689231238e-19),
    vec2(7.647163609812713e-13, 1.2200710471178288e-20), vec2(4.7794772561329454e-14, 7.62544404448643e-22),
    vec2(2.8114573589663704e-15, -1.0462084739763658e-22), vec2(1.5619206814541513e-16, 1.5404471465941993e-24),
    vec2(8.220635078476521e-18, 1.681478096855898e-25));

// df_exp_taylor returns Σ_{i=first}^{last} r^i/i! for a double-float r (Horner).
vec2 df_exp_taylor(vec2 r, int first, int last) {
    vec2 p = INV_FACT[last];
    for (int i = last - 1; i >= first; i--) {
        p = df_add(df_mul(p, r), INV_FACT[i]);
    }
    for (int i = 0; i < first; i++) {
        p = df_mul(p, r);
    }
    return p;
}

// tanh_rn returns tanh(x) correctly rounded (to within double-float error): tanh|x| = -E/(2 + E) with
// E = exp(-2|x|) - 1 in double-float, by the series of expm1 for small |x| and exp·2^k otherwise.
float tanh_rn(float x) {
    float a = abs(x);
    if (a > 9.1 || a == 0.0) {
        return a == 0.0 ? x : sign(x);
    }
    float y = -2.0 * a;
    vec2 e;
    if (a < 0.35) {
        e = df_exp_taylor(vec2(y, 0.0), 1, 17);
    } else {
        float k = roundEven(y * 1.4426950216293335);
        vec2 r = df_add(vec2(y, 0.0), -two_prod(k, 0.6931471824645996));
        r = df_add(r, -two_prod(k, -1.9046542121259336e-09));
        r = df_addf(r, -(k * -8.78318373858934e-17));
        vec2 t = df_exp_taylor(r, 0, 14);
        float scale = exp2(k); // exact: k is an integer in [-27, 0]
        e = df_addf(vec2(t.x * scale, t.y * scale), -1.0);
    }
    vec2 th = df_divv(-e, df_addf(e, 2.0));
    return x < 0.0 ? -th.x : th.x;
}

// Coefficients of GNU libc's sinf/cosf polynomials (double constants as double-float pairs): cos r ≈ 1 + r²·c1
// + r⁴·c2 + r⁶·(c3 + r²·c4), sin r ≈ r + r³·s1 + r⁷·(s2 + r²·s3) with the grouping below.
const vec2 LIBM_C1 = vec2(-5.000000000e-01, 2.748917760e-09);
const vec2 LIBM_C2 = vec2(4.166662320e-02, 1.193979915e-10);
const vec2 LIBM_C3 = vec2(-1.388676348e-03, -3.129527887e-11);
const vec2 LIBM_C4 = vec2(2.439045056e-05, 1.412140939e-13);
const vec2 LIBM_S1 = vec2(-1.666665524e-01, 2.987420089e-09);
const vec2 LIBM_S2 = vec2(8.332177997e-03, 1.495034097e-10);
const vec2 LIBM_S3 = vec2(-1.951729937e-04, 3.885231546e-12);
// 4/π in 32-bit words for the large reduction.
const uint LIBM_4PI[24] = uint[24](0xa2u, 0xa2f9u, 0xa2f983u, 0xa2f9836eu, 0xf9836e4eu, 0x836e4e44u, 0x6e4e4415u,
    0x4e441529u, 0x441529fcu, 0x1529fc27u, 0x29fc2757u, 0xfc2757d1u, 0x2757d1f5u, 0x57d1f534u, 0xd1f534ddu,
    0xf534ddc0u, 0x34ddc0dbu, 0xddc0db62u, 0xc0db6295u, 0xdb629599u, 0x6295993cu, 0x95993c43u, 0x993c4390u,
    0x3c439041u);

// libm_poly is GNU libc's sinf_poly: the sine polynomial of r (r2 = r²) when sine, else the cosine polynomial,
// whose coefficients flip sign when flip; rounded to float once.
float libm_poly(vec2 r, vec2 r2, bool sine, bool flip) {
    if (sine) {
        vec2 r3 = df_mul(r, r2);
        vec2 s1 = df_add(LIBM_S2, df_mul(r2, LIBM_S3));
        vec2 r7 = df_mul(r3, r2);
        vec2 s = df_add(r, df_mul(r3, LIBM_S1));
        return df_add(s, df_mul(r7, s1)).x;
    }
    float f = flip ? -1.0 : 1.0;
    vec2 r4 = df_mul(r2, r2);
    vec2 c2 = df_add(f * LIBM_C3, df_mul(r2, f * LIBM_C4));
    vec2 c1 = df_addf(df_mul(r2, f * LIBM_C1), f);
    vec2 r6 = df_mul(r4, r2);
    vec2 c = df_add(c1, df_mul(r4, f * LIBM_C2));
    return df_add(c, df_mul(r6, c2)).x;
}

// libm_sincos returns (cosf x, sinf x) as GNU libc computes them (gguf's internal/libm: argument reduction to
// [-π/4, π/4] and polynomials in float64, here in double-float, whose last bits differ from float64's; the
// float32 results are the same but where float64's value lies within about 2^-46 of a rounding boundary, about
// one angle in a few million). Finite x.
vec2 libm_sincos(float x) {
    uint top = (floatBitsToUint(x) >> 20) & 0x7ffu;
    if (top < 0x3f4u) { // |x| < π/4
        if (top < 0x398u) { // |x| < 2^-12
            return vec2(1.0, x);
        }
        vec2 r = vec2(x, 0.0), r2 = two_prod(x, x);
        return vec2(libm_poly(r, r2, false, false), libm_poly(r, r2, true, false));
    }
    vec2 r;
    int n, q;
    if (top < 0x42fu) { // |x| < 120: n = round(x·2/π) as glibc forms it, r = x - n·π/2 (π/2 as a double)
        // x·(2/π)·2^24, truncated to an integer: hi is one (|hi| ≥ 2^23), lo holds the fraction
        vec2 v = df_mulf(vec2(1.068070700e+07, 4.308817387e-01), x);
        n = (int(v.x) + int(v.x >= 0.0 ? floor(v.y) : ceil(v.y)) + 0x800000) >> 24;
        float fn = float(n);
        r = df_add(vec2(x, 0.0), -two_prod(fn, 1.570796371e+00));
        r = df_add(r, -two_prod(fn, -4.371138829e-08));
        r = df_add(r, -two_prod(fn, -1.776356839e-15));
        q = n;
    } else { // 4/π·x as a 2.62 fixed-point number, its nearest multiple of 4 taken off
        uint xi = floatBitsToUint(x);
        uint k = (xi >> 26) & 15u;
        uint m = ((xi & 0xffffffu) | 0x800000u) << ((xi >> 23) & 7u);
        uint r0 = m * LIBM_4PI[k], h1, l1, h2, l2;
        umulExtended(m, LIBM_4PI[k + 4u], h1, l1);
        umulExtended(m, LIBM_4PI[k + 8u], h2, l2);
        uint lo = h2 + l1;
        uint hi = r0 + h1 + (lo < h2 ? 1u : 0u);
        uint un = (hi + 0x20000000u) >> 30;
        hi -= un << 30;
        n = int(un);
        q = n + int(xi >> 31);
        bool neg = (hi & 0x80000000u) != 0u;
        if (neg) { // |(int64) hi:lo|
            lo = ~lo + 1u;
            hi = ~hi + (lo == 0u ? 1u : 0u);
        }
        // hi:lo < 2^63 in three exact floats of 24, 24 and 16 bits
        vec2 v = df_addf(two_sum(float(hi >> 8) * 1099511627776.0, float(((hi & 0xffu) << 16) | (lo >> 16)) * 65536.0),
            float(lo & 0xffffu));
        r = df_mul(v, vec2(3.406121675e-19, -9.478396429e-27)); // ·2π·2^-64
        if (neg) {
            r = -r;
        }
    }
    if (((q + 1) & 2) != 0) { // the sine's sign in quadrant q
        r = -r;
    }
    vec2 r2 = df_mul(r, r);
    bool flip = (q & 2) != 0;
    return vec2(libm_poly(r, r2, (n & 1) != 0, flip), libm_poly(r, r2, (n & 1) == 0, flip));
}

// fma_exact is a·b + c rounded once, from Dekker's exact product and exact sums; the one case where adding
// the low parts rounds twice (a tie) is decided by the last remainder's sign. Vulkan does not promise that
// fma() is fused (lavapipe splits it), and llama.cpp's kernels depend on fused multiply-adds. (Below about 1e-30
// a product's low part is subnormal, which GPUs flush.)
float fma_exact(float a, float b, float c) {
    vec2 p = two_prod(a, b);
    vec2 s = two_sum(p.x, c);
    vec2 t = two_sum(s.y, p.y);
    vec2 u = two_sum(s.x, t.x);
    float r = u.x;
    if (t.y != 0.0 && u.y != 0.0) {
        float up = uintBitsToFloat(floatBitsToUint(abs(r)) + 1u), dn = uintBitsToFloat(floatBitsToUint(abs(r)) - 1u);
        // A tie between r and its neighbour towards u.y, broken by t.y.
        float nb = (u.y > 0.0) == (r > 0.0) ? up : dn;
        precise float half_ = (nb - abs(r)) * 0.5;
        if (abs(u.y) == abs(half_) && (t.y > 0.0) == (u.y > 0.0)) {
            r = r > 0.0 ? nb : -nb;
        }
    }
    return r;
}

// NATIVE_FMA is set by the backend when a probe found the device's fma() fused (every GPU forma targets; not
// lavapipe). fmaf is then fma(), else fma_exact.
layout(constant_id = 7) const bool NATIVE_FMA = false;

float fmaf(float a, float b, float c) {
    if (NATIVE_FMA) {
        precise float r = fma(a, b, c);
        return r;
    }
    return fma_exact(a, b, c);
}

// tail_f32 adds a·b to sum as the reference build's ggml_vec_dot_f32 adds an element after its last 64-element
// step: with the product rounded first (rounded: the first (left & ~7) such elements, which its compiler
// vectorized in blocks of 16 and 8), else fused.
float tail_f32(float sum, float a, float b, bool rounded) {
    if (rounded) {
        precise float p = a * b;
        precise float r = sum + p;
        return r;
    }
    return fmaf(a, b, sum);
}

// vexpf is ggml_v_expf as llama.cpp's x86-64 AVX-512 build computes it (the reference data's): n = round(x·log2 e),
// b = x - n·ln 2 in two parts, j = 1 + b·c1 + b²·(…) with the "1 +" folded into the last fused multiply-add,
// and the result j·2^n rounded once; |n| > 192 gives 0 or +Inf.
float vexpf(float x) {
    float z = fmaf(x, 1.4426950216293335, 12582912.0);
    precise float n = z - 12582912.0;
    float b = fmaf(-n, 0.693145751953125, x);
    b = fmaf(-n, 1.428606765330187e-06, b);
    precise float u = b * b;
    float j = fmaf(fmaf(fmaf(0.008247390389442444, b, 0.04189976677298546), u,
                        fmaf(0.16668395698070526, b, 0.4999912679195404)), u, fmaf(0.9999994039535522, b, 1.0));
    if (isnan(n)) {
        return n;
    }
    if (!(n <= 192.0 && n >= -192.0)) {
        return n <= 0.0 ? 0.0 : uintBitsToFloat(0x7f800000u);
    }
    // j·2^n: one scaling when 2^n is normal, else two (j is near 1, so only subnormal results round).
    int ni = int(n);
    if (ni >= -126 && ni <= 127) {
        precise float r = j * uintBitsToFloat(uint(ni + 127) << 23);
        return r;
    }
    int h = ni / 2;
    precise float r = (j * uintBitsToFloat(uint(h + 127) << 23)) * uintBitsToFloat(uint(ni - h + 127) << 23);
    return r;
}

// df_exp returns e^y in double-float for y in [-104, 89]: y - k·ln2 in three parts, the Taylor series, 2^k.
vec2 df_exp(float y) {
    float k = roundEven(y * 1.4426950216293335);
    vec2 r = df_add(vec2(y, 0.0), -two_prod(k, 0.6931471824645996));
    r = df_add(r, -two_prod(k, -1.9046542121259336e-09));
    r = df_addf(r, -(k * -8.78318373858934e-17));
    vec2 t = df_exp_taylor(r, 0, 14);
    int ki = int(k), h = ki / 2;
    float s1 = uintBitsToFloat(uint(h + 127) << 23), s2 = uintBitsToFloat(uint(ki - h + 127) << 23);
    return vec2(t.x * s1 * s2, t.y * s1 * s2);
}

// expf_rn is exp correctly rounded (C's expf as glibc computes it but for rare arguments), which ggml uses for
// the elements its vector loops leave.
float expf_rn(float x) {
    if (x > 88.72283935546875) {
        return uintBitsToFloat(0x7f800000u);
    }
    if (x < -103.97208404541015625) {
        return 0.0;
    }
    vec2 e = df_exp(x);
    precise float r = e.x + e.y;
    return r;
}

// reduce16 adds 16 lanes as _mm512_reduce_add_ps (and quant.Reduce16): halves, then quarters, then pairs.
float reduce16(float l[16]) {
    float t[8];
    for (uint i = 0u; i < 8u; i++) {
        precise float v = l[i] + l[i + 8u];
        t[i] = v;
    }
    precise float u0 = t[0] + t[4], u1 = t[1] + t[5], u2 = t[2] + t[6], u3 = t[3] + t[7];
    precise float r = (u0 + u2) + (u1 + u3);
    return r;
}

// sqrt_rn is the correctly rounded square root of a positive normal float: the GPU's estimate, moved by an ulp
// when the exact square of the midpoint on either side shows it rounded the wrong way.
float sqrt_rn(float x) {
    float s = sqrt(x);
    for (int i = 0; i < 2; i++) {
        float up = uintBitsToFloat(floatBitsToUint(s) + 1u), dn = uintBitsToFloat(floatBitsToUint(s) - 1u);
        // (s + h)² - x with h half the gap above s: s² + s·2h + h², each exact, compared in double-float.
        precise float hu = (up - s) * 0.5, hd = (s - dn) * 0.5;
        vec2 s2 = two_prod(s, s);
        vec2 hi = df_add(df_add(s2, vec2(s * (2.0 * hu), hu * hu)), vec2(-x, 0.0));
        vec2 lo = df_add(df_add(s2, vec2(-(s * (2.0 * hd)), hd * hd)), vec2(-x, 0.0));
        if (hi.x < 0.0 || (hi.x == 0.0 && hi.y < 0.0)) {
            s = up;
        } else if (lo.x > 0.0 || (lo.x == 0.0 && lo.y > 0.0)) {
            s = dn;
        } else {
            break;
        }
    }
    return s;
}

#endif
