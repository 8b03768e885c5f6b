// numeric.glsl: float arithmetic with results that do not depend on the GPU.
//
// Vulkan guarantees correctly rounded +, - and * on float32, but only 2.5 ulp for division and loose bounds for
// exp, tanh, sin and cos (3 + 2|x| ulp, or 2^-11 absolute). llama.cpp's CPU, forma's reference, rounds
// activations to 8-bit integers and to F16, where a last-bit difference in a scale flips a rounding; so the
// helpers below compute what matters with integer arithmetic or with only correctly rounded operations:
//   f16_bits, f16_round   F32 → F16, round to nearest even, as gguf/quant.F32ToF16 (NaN → 0x7E00, overflow → Inf)
//   bf16_round            F32 → BF16, round to nearest even, quiet NaNs (gguf/quant.F32ToBF16)
//   div_rn                a / b correctly rounded (integer long division) for normal operands and results
//   fmaf                  a fused multiply-add: the GPU's where a probe found it fused, else exactly emulated
//   tail_f32              one of the elements ggml_vec_dot_f32 adds after its vector loop
//   vexpf, expf_rn        ggml_v_expf in the AVX-512 form of the reference build, bit for bit; exp correctly
//                         rounded (C's expf, for the elements ggml's vector loops leave)
//   tanh_rn, sincos_rn    tanh, cos and sin correctly rounded (computed in double-float), as llama.cpp's libm
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

// sincos_rn returns (cos x, sin x) correctly rounded (to within double-float error) for |x| < 2^24: x - k·π/2
// with π/2 in three float parts and exact products, then the Taylor series in double-float.
vec2 sincos_rn(float x) {
    float k = roundEven(x * 0.6366197466850281);
    vec2 r = df_add(vec2(x, 0.0), -two_prod(k, 1.5707963705062866));
    r = df_add(r, -two_prod(k, -4.371138828673793e-08));
    r = df_add(r, -two_prod(k, -1.7151245100058819e-15));
    vec2 z = df_mul(r, r);
    vec2 sp = vec2(0.0), cp = vec2(0.0);
    for (int i = 9; i >= 0; i--) { // sin r = r·Σ (-z)^i/(2i+1)!
        vec2 c = INV_FACT[2 * i + 1];
        sp = df_add(df_mul(sp, z), (i & 1) == 1 ? -c : c);
    }
    for (int i = 9; i >= 0; i--) { // cos r = Σ (-z)^i/(2i)!
        vec2 c = INV_FACT[2 * i];
        cp = df_add(df_mul(cp, z), (i & 1) == 1 ? -c : c);
    }
    float s = df_mul(sp, r).x, c = cp.x;
    int q = int(k) & 3;
    if (q == 0) {
        return vec2(c, s);
    } else if (q == 1) {
        return vec2(-s, c);
    } else if (q == 2) {
        return vec2(-c, -s);
    }
    return vec2(s, -c);
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
