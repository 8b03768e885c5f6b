// numeric.glsl: float arithmetic with results that do not depend on the GPU.
//
// Vulkan guarantees correctly rounded +, - and * on float32, but only 2.5 ulp for division and loose bounds for
// exp, tanh, sin and cos (3 + 2|x| ulp, or 2^-11 absolute). llama.cpp's CPU, forma's reference, rounds
// activations to 8-bit integers and to F16, where a last-bit difference in a scale flips a rounding; so the
// helpers below compute what matters with integer arithmetic or with only correctly rounded operations:
//   f16_bits, f16_round   F32 → F16, round to nearest even, as gguf/quant.F32ToF16 (NaN → 0x7E00, overflow → Inf)
//   bf16_round            F32 → BF16, round to nearest even, quiet NaNs (gguf/quant.F32ToBF16)
//   div_rn                a / b correctly rounded (integer long division) for normal operands and results
//   fexp                  exp by ggml's ggml_v_expf algorithm (within a few ulp, no fused multiply-add needed)
//   ftanh                 tanh from fexp, with a series near 0
//   fsincos               (cos, sin) with Cody-Waite reduction by π/2 and Cephes' float polynomials
//   two_sum, df_add       double-float (hi + lo) sums, exact to about 2^-48: where ggml sums in double (norms,
//                         softmax), a double-float sum rounds to the same float32 but for rare ties
//   df_div, sqrt_rn       double-float / float, and a correctly rounded square root
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

// fexp is ggml_v_expf's algorithm: x = n·ln2 + b with |b| ≤ ln2/2, exp(b) - 1 by a degree-5 polynomial,
// scaled by 2^n (in two factors near the ends of the exponent range).
float fexp(float x) {
    if (x > 88.72283935546875) {
        return uintBitsToFloat(0x7f800000u);
    }
    if (x < -103.97208404541015625) {
        return 0.0;
    }
    precise float z = x * 1.44269502162933349609375 + 12582912.0;
    precise float n = z - 12582912.0;
    precise float b = x - n * 0.693145751953125;
    b = b - n * 1.428606765330187e-06;
    precise float u = b * b;
    precise float j = ((0.008247390389442444 * b + 0.04189976677298546) * u
                       + (0.16668395698070526 * b + 0.4999912679195404)) * u
                      + 0.9999994039535522 * b;
    int ni = int(n);
    if (ni >= -125 && ni <= 127) {
        precise float k = uintBitsToFloat(uint(ni + 127) << 23);
        return k * j + k;
    }
    // 2^n = 2^(n-s)·2^s with both factors normal.
    int s = ni > 0 ? 64 : -64;
    precise float k = uintBitsToFloat(uint(ni - s + 127) << 23);
    precise float r = k * j + k;
    return r * uintBitsToFloat(uint(s + 127) << 23);
}

// ftanh: odd series below 0.2 (error far below an ulp), else 1 - 2/(exp(2|x|) + 1).
float ftanh(float x) {
    float a = abs(x);
    if (a < 0.2) {
        precise float z = x * x;
        precise float p = ((((-0.0218694885361552 * z + 0.0539682539682540) * z - 0.1333333333333333) * z
                            + 0.3333333333333333) * z);
        return x - x * p;
    }
    if (a > 9.1) {
        return sign(x); // tanh(9.1) rounds to 1 in float32
    }
    precise float e = fexp(2.0 * a);
    precise float t = 1.0 - 2.0 / (e + 1.0);
    return x < 0.0 ? -t : t;
}

// fsincos returns (cos x, sin x): x - k·π/2 in three parts (exact products for |k| < 2^16), then Cephes'
// sinf/cosf polynomials on [-π/4, π/4].
vec2 fsincos(float x) {
    precise float kf = roundEven(x * 0.636619772367581343);
    precise float r = ((x - kf * 1.5703125) - kf * 4.837512969970703125e-4) - kf * 7.54978995489188216e-8;
    precise float z = r * r;
    precise float s = r + r * z * ((-1.9515295891e-4 * z + 8.3321608736e-3) * z - 1.6666654611e-1);
    precise float c = 1.0 - 0.5 * z + z * z * ((2.443315711809948e-5 * z - 1.388731625493765e-3) * z + 4.166664568298827e-2);
    int q = int(kf) & 3;
    if (q == 0) {
        return vec2(c, s);
    } else if (q == 1) {
        return vec2(-s, c);
    } else if (q == 2) {
        return vec2(-c, -s);
    }
    return vec2(s, -c);
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
