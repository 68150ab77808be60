// tensorfrost WGSL prelude: the helpers generated WebGPU kernels call, with the semantics of
// the op table's numpy references (tensorfrost/ir/ops_math.py) and of prelude.shader, which
// this file follows helper for helper (32-bit values only). WGSL has no overloading: each
// helper carries the kind of its values in its name (ops_math.value_code). It has no
// macros either (infinity and NaN are functions), no `?:` (select), and no isnan / isinf
// (NaN and infinity tests look at the bits). Blocks are separated by blank lines; a kernel
// includes only the blocks it uses.

fn tf_inf() -> f32 { return bitcast<f32>(0x7F800000u); }

fn tf_nan() -> f32 { return bitcast<f32>(0x7FC00000u); }

fn tf_isnan(a: f32) -> bool { return (bitcast<u32>(a) & 0x7FFFFFFFu) > 0x7F800000u; }

fn tf_isinf(a: f32) -> bool { return (bitcast<u32>(a) & 0x7FFFFFFFu) == 0x7F800000u; }

fn tf_clamp_index(i: i32, n: i32) -> i32 { return clamp(i, 0, max(n - 1, 0)); }

fn tf_uabs(a: i32) -> u32 { return select(u32(a), 0u - u32(a), a < 0); }

fn tf_div_f32(a: f32, b: f32) -> f32 { return a / b; }
fn tf_div_i32(a: i32, b: i32) -> i32 {
    if (b == 0) { return 0; }
    let q = i32(tf_uabs(a) / tf_uabs(b));
    return select(q, -q, (a < 0) != (b < 0));
}
fn tf_div_u32(a: u32, b: u32) -> u32 { return select(a / max(b, 1u), 0u, b == 0u); }

// floor(log2(v)) of a finite v > 0, from its bits
fn tf_exponent(v: f32) -> i32 {
    let b = bitcast<u32>(v) & 0x7FFFFFFFu;
    return select(i32(firstLeadingBit(b)) - 149, i32(b >> 23u) - 127, b >= 0x00800000u);
}

// C's fmod, exact: subtract |b| * 2^k for k from the exponent gap down (each step is exact)
fn tf_mod_f32(a: f32, b: f32) -> f32 {
    var x = abs(a);
    var t = abs(b);
    if (tf_isinf(x) || t == 0.0 || tf_isnan(a) || tf_isnan(b)) { return tf_nan(); }
    if (x >= t) {
        var k = tf_exponent(x) - tf_exponent(t);
        for (var s = k; s > 0; s -= 64) { t *= bitcast<f32>(u32(127 + min(s, 64)) << 23u); }
        for (; k >= 0; k -= 1) {
            if (x >= t) { x -= t; }
            t *= 0.5;
        }
    }
    return select(x, -x, bitcast<i32>(a) < 0);
}
fn tf_mod_i32(a: i32, b: i32) -> i32 {
    if (b == 0) { return 0; }
    let r = i32(tf_uabs(a) % tf_uabs(b));
    return select(r, -r, a < 0);
}
fn tf_mod_u32(a: u32, b: u32) -> u32 { return select(a % max(b, 1u), 0u, b == 0u); }

// numpy's floor_divide: the quotient of a - fmod(a, b) (exact), one less where the remainder's
// sign differs from b's, rounded to the nearest integer; x // 0 is x / 0.
fn tf_floordiv_f32(a: f32, b: f32) -> f32 {
    if (b == 0.0) { return a / b; }
    let m = tf_mod_f32(a, b);
    var d = (a - m) / b;
    if (m != 0.0 && (b < 0.0) != (m < 0.0)) { d -= 1.0; }
    if (d == 0.0) { return bitcast<f32>(bitcast<u32>(a / b) & 0x80000000u); }
    let f = floor(d);
    return select(f, f + 1.0, d - f > 0.5);
}
fn tf_floordiv_i32(a: i32, b: i32) -> i32 {
    let q = tf_div_i32(a, b);
    return select(q, q - 1, b != 0 && tf_mod_i32(a, b) != 0 && (a < 0) != (b < 0));
}
fn tf_floordiv_u32(a: u32, b: u32) -> u32 { return tf_div_u32(a, b); }

fn tf_min_f32(a: f32, b: f32) -> f32 { return select(b, a, a < b || tf_isnan(a)); }
fn tf_min_i32(a: i32, b: i32) -> i32 { return min(a, b); }
fn tf_min_u32(a: u32, b: u32) -> u32 { return min(a, b); }

fn tf_max_f32(a: f32, b: f32) -> f32 { return select(b, a, a > b || tf_isnan(a)); }
fn tf_max_i32(a: i32, b: i32) -> i32 { return max(a, b); }
fn tf_max_u32(a: u32, b: u32) -> u32 { return max(a, b); }
fn tf_min_b(a: bool, b: bool) -> bool { return a && b; }
fn tf_max_b(a: bool, b: bool) -> bool { return a || b; }

fn tf_clamp_f32(x: f32, lo: f32, hi: f32) -> f32 { return tf_min_f32(tf_max_f32(x, lo), hi); }
fn tf_clamp_i32(x: i32, lo: i32, hi: i32) -> i32 { return tf_min_i32(tf_max_i32(x, lo), hi); }
fn tf_clamp_u32(x: u32, lo: u32, hi: u32) -> u32 { return tf_min_u32(tf_max_u32(x, lo), hi); }
fn tf_clamp_b(x: bool, lo: bool, hi: bool) -> bool { return tf_min_b(tf_max_b(x, lo), hi); }

fn tf_abs_f32(a: f32) -> f32 { return abs(a); }
fn tf_abs_i32(a: i32) -> i32 { return select(a, -a, a < 0); }
fn tf_abs_u32(a: u32) -> u32 { return a; }

fn tf_sign_f32(a: f32) -> f32 { return select(select(a, -1.0, a < 0.0), 1.0, a > 0.0); }
fn tf_sign_i32(a: i32) -> i32 { return select(select(0, -1, a < 0), 1, a > 0); }
fn tf_sign_u32(a: u32) -> u32 { return select(0u, 1u, a > 0u); }

fn tf_and_b(a: bool, b: bool) -> bool { return a && b; }
fn tf_and_i32(a: i32, b: i32) -> i32 { return a & b; }
fn tf_and_u32(a: u32, b: u32) -> u32 { return a & b; }

fn tf_or_b(a: bool, b: bool) -> bool { return a || b; }
fn tf_or_i32(a: i32, b: i32) -> i32 { return a | b; }
fn tf_or_u32(a: u32, b: u32) -> u32 { return a | b; }

fn tf_xor_b(a: bool, b: bool) -> bool { return a != b; }
fn tf_xor_i32(a: i32, b: i32) -> i32 { return a ^ b; }
fn tf_xor_u32(a: u32, b: u32) -> u32 { return a ^ b; }

fn tf_not_b(a: bool) -> bool { return !a; }
fn tf_not_i32(a: i32) -> i32 { return ~a; }
fn tf_not_u32(a: u32) -> u32 { return ~a; }

fn tf_shl_i32(a: i32, b: i32) -> i32 { return i32(u32(a) << u32(b & 31)); }
fn tf_shl_u32(a: u32, b: u32) -> u32 { return a << (b & 31u); }

fn tf_shr_i32(a: i32, b: i32) -> i32 { return a >> u32(b & 31); }
fn tf_shr_u32(a: u32, b: u32) -> u32 { return a >> (b & 31u); }

fn tf_reversebits(v: u32) -> u32 { return reverseBits(v); }

fn tf_floor_f32(a: f32) -> f32 { return floor(a); }

fn tf_ceil_f32(a: f32) -> f32 { return ceil(a); }

fn tf_round_f32(a: f32) -> f32 { return round(a); }

fn tf_trunc_f32(a: f32) -> f32 { return trunc(a); }

fn tf_frac_f32(a: f32) -> f32 { return a - floor(a); }

// v, hidden from the compiler behind tf_zero (a 0 it cannot see, which emit/wgsl.py sets): WGSL has
// no `precise`, and Mesa rewrites inexact float code, folding the error terms of the double-float
// steps below to 0 (x + y - x to y, two Cody-Waite steps into one with ln 2 rounded: 64 ulp)
fn tf_hide(v: f32) -> f32 { return bitcast<f32>(bitcast<u32>(v) | tf_zero); }

// exp(hi + lo) with Cody-Waite range reduction and Cephes' expf polynomial, within 2 ulp (as
// prelude.shader's): the clamp keeps 2^n in two normal factors (inf above 88.73, 0 below -103.98)
fn tf_exp_df(hi: f32, lo: f32) -> f32 {
    let x = clamp(hi, -104.0, 89.0);
    let n = round(x * 1.44269504);
    var r = fma(n, -0.693145752, x);
    r = fma(tf_hide(n), -1.42860677e-6, r) + lo;
    let p = fma(fma(fma(fma(fma(fma(r, 1.9875691500e-4, 1.3981999507e-3), r, 8.3334519073e-3), r,
                4.1665795894e-2), r, 1.6666665459e-1), r, 5.0000001201e-1), r * r, r) + 1.0;
    let e = i32(n);
    let h = e >> 1u;
    let y = p * bitcast<f32>((h + 127) << 23u) * bitcast<f32>((e - h + 127) << 23u);
    return select(y, hi, tf_isnan(hi));
}

fn tf_exp_f32(a: f32) -> f32 { return tf_exp_df(a, 0.0); }

fn tf_exp2_f32(a: f32) -> f32 { return exp2(a); }

fn tf_log_f32(a: f32) -> f32 {
    if (a < 0.0 || tf_isnan(a)) { return tf_nan(); }
    if (a == 0.0) { return -tf_inf(); }
    return log(a);
}

fn tf_log2_f32(a: f32) -> f32 {
    if (a < 0.0 || tf_isnan(a)) { return tf_nan(); }
    if (a == 0.0) { return -tf_inf(); }
    return log2(a);
}

fn tf_sqrt_f32(a: f32) -> f32 { return select(sqrt(a), tf_nan(), a < 0.0); }

fn tf_rsqrt_f32(a: f32) -> f32 { return 1.0 / tf_sqrt_f32(a); }

fn tf_rcp_f32(a: f32) -> f32 { return 1.0 / a; }

fn tf_sin_f32(a: f32) -> f32 { return sin(a); }

fn tf_cos_f32(a: f32) -> f32 { return cos(a); }

fn tf_tan_f32(a: f32) -> f32 { return tan(a); }

// asin, acos, atan: Cephes' single precision polynomials (drivers may be far less exact)
fn tf_asin_f32(a: f32) -> f32 {
    let x = abs(a);
    if (!(x <= 1.0)) { return tf_nan(); }
    let big = x > 0.5;
    let z = select(x * x, 0.5 * (1.0 - x), big);
    let s = select(x, sqrt(z), big);
    let p = fma(((((4.2163199048e-2 * z + 2.4181311049e-2) * z + 4.5470025998e-2) * z + 7.4953002686e-2) * z
                 + 1.6666752422e-1) * z, s, s);
    let r = select(p, 1.57079632679 - 2.0 * p, big);
    return select(r, -r, a < 0.0);
}

fn tf_acos_f32(a: f32) -> f32 {
    if (!(abs(a) <= 1.0)) { return tf_nan(); }
    if (a < -0.5) { return 3.14159265359 - 2.0 * tf_asin_f32(sqrt(0.5 * (1.0 + a))); }
    if (a > 0.5) { return 2.0 * tf_asin_f32(sqrt(0.5 * (1.0 - a))); }
    return 1.57079632679 - tf_asin_f32(a);
}

fn tf_atan_f32(a: f32) -> f32 {
    var x = abs(a);
    var base = 0.0;
    if (x > 2.414213562373095) { base = 1.57079632679; x = -1.0 / x; }
    else if (x > 0.4142135623730950) { base = 0.785398163397; x = (x - 1.0) / (x + 1.0); }
    let z = x * x;
    let r = base + fma((((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z
                        - 3.33329491539e-1) * z, x, x);
    return select(select(r, -r, a < 0.0), a, tf_isnan(a));
}

// sinh and cosh from exp(|x| / 2), squared, so that they overflow only where they should
fn tf_sinh_f32(a: f32) -> f32 {
    let x = abs(a);
    var r: f32;
    if (x < 0.5) {
        let z = x * x;
        r = fma(z * (1.0 / 6.0 + z * (1.0 / 120.0 + z * (1.0 / 5040.0))), x, x);
    } else {
        let e = tf_exp_f32(0.5 * x);
        r = (0.5 * e) * e - 0.5 / (e * e);
    }
    return select(select(r, -r, a < 0.0), a, tf_isnan(a));
}

fn tf_cosh_f32(a: f32) -> f32 {
    let e = tf_exp_f32(0.5 * abs(a));
    return select((0.5 * e) * e + 0.5 / (e * e), a, tf_isnan(a));
}

// tanh from exp(-2|x|), which never overflows; near 0 its Taylor series
fn tf_tanh_f32(a: f32) -> f32 {
    let x = abs(a);
    var r: f32;
    if (x < 0.125) {
        let x2 = x * x;
        r = x * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 - x2 * (17.0 / 315.0))));
    } else {
        let t = exp(-2.0 * x);
        r = (1.0 - t) / (1.0 + t);
    }
    return select(select(r, -r, a < 0.0), a, tf_isnan(a));
}

// log(x) of a finite x > 0 as an unevaluated sum hi + lo, good to about 2^-40 (for pow)
fn tf_log_df(x: f32) -> vec2<f32> {
    let parts = frexp(x);
    var m = parts.fract;
    var e = parts.exp;
    if (m < 0.70710678) { m *= 2.0; e -= 1; }
    let f = m - 1.0;
    let u = tf_hide(2.0 + f);
    let u_lo = f - (u - 2.0);
    let s = f / u;
    let s_lo = (fma(-s, u, f) - s * u_lo) / u;
    let z = s * s;
    let tail = s * z * (2.0 / 3.0 + z * (2.0 / 5.0 + z * (2.0 / 7.0 + z * (2.0 / 9.0 + z * (2.0 / 11.0)))));
    let k = f32(e);
    let a1 = k * 0.693145752;
    let hi = tf_hide(a1 + 2.0 * s);
    let b1 = hi - a1;
    let lo = fma(k, 1.42860677e-6, 2.0 * s_lo + tail) + ((a1 - (hi - b1)) + (2.0 * s - b1));
    let sum = tf_hide(hi + lo);
    return vec2<f32>(sum, lo - (sum - hi));
}

fn tf_odd_integer(b: f32) -> bool { return abs(b) < 16777216.0 && b == trunc(b) && abs(b - 2.0 * trunc(0.5 * b)) == 1.0; }

// pow as C / numpy define it, also where the built-in pow is undefined (x <= 0)
fn tf_pow_f32(a: f32, b: f32) -> f32 {
    if (b == 0.0 || a == 1.0) { return 1.0; }
    if (tf_isnan(a) || tf_isnan(b)) { return tf_nan(); }
    let x = abs(a);
    if (tf_isinf(b)) {
        if (x == 1.0) { return 1.0; }
        return select(0.0, tf_inf(), (x > 1.0) == (b > 0.0));
    }
    if (a < 0.0 && !tf_isinf(a) && b != trunc(b)) { return tf_nan(); }
    var r: f32;
    if (x == 0.0) { r = select(tf_inf(), 0.0, b > 0.0); }
    else if (tf_isinf(x)) { r = select(0.0, tf_inf(), b > 0.0); }
    else {
        let l = tf_log_df(x);
        let hi = tf_hide(b * l.x);
        let lo = fma(b, l.x, -hi) + b * l.y;
        if (tf_isinf(hi)) { r = select(0.0, tf_inf(), hi > 0.0); } else { r = tf_exp_df(hi, lo); }
    }
    return select(r, -r, bitcast<i32>(a) < 0 && tf_odd_integer(b));
}

// atan2(y, x) with numpy's results for zeros and infinities
fn tf_atan2_f32(a: f32, b: f32) -> f32 {
    if (tf_isnan(a) || tf_isnan(b)) { return tf_nan(); }
    var r: f32;
    if (b == 0.0 && a == 0.0) { r = select(0.0, 3.14159265359, bitcast<i32>(b) < 0); }
    else if (b == 0.0) { r = 1.57079632679; }
    else if (tf_isinf(a) && tf_isinf(b)) { r = select(2.35619449019, 0.785398163397, b > 0.0); }
    else {
        r = tf_atan_f32(abs(a / b));
        if (b < 0.0) { r = 3.14159265359 - r; }
    }
    return select(r, -r, bitcast<i32>(a) < 0);
}

fn tf_lerp_f32(a: f32, b: f32, t: f32) -> f32 { return a + (b - a) * t; }

fn tf_smoothstep_f32(e0: f32, e1: f32, x: f32) -> f32 {
    let t = tf_clamp_f32((x - e0) / (e1 - e0), 0.0, 1.0);
    return t * t * (3.0 - 2.0 * t);
}

fn tf_fma_f32(a: f32, b: f32, c: f32) -> f32 { return a * b + c; }
fn tf_fma_i32(a: i32, b: i32, c: i32) -> i32 { return a * b + c; }
fn tf_fma_u32(a: u32, b: u32, c: u32) -> u32 { return a * b + c; }

fn tf_to_float_f32(a: f32) -> f32 { return a; }
fn tf_to_float_i32(a: i32) -> f32 { return f32(a); }
fn tf_to_float_u32(a: u32) -> f32 { return f32(a); }
fn tf_to_float_b(a: bool) -> f32 { return select(0.0, 1.0, a); }

// out-of-range floats give INT32_MIN, as numpy does on x86
fn tf_to_int_f32(a: f32) -> i32 { return select(i32(0x80000000u), i32(a), a >= -2147483648.0 && a < 2147483648.0); }
fn tf_to_int_i32(a: i32) -> i32 { return a; }
fn tf_to_int_u32(a: u32) -> i32 { return i32(a); }
fn tf_to_int_b(a: bool) -> i32 { return select(0, 1, a); }

// floats truncate, then wrap modulo 2^32 (through int64 on the CPU); outside int64 and
// non-finite give 0
fn tf_to_uint_f32(a: f32) -> u32 {
    let t = trunc(abs(a));
    if (!(t < 9223372036854775808.0)) { return 0u; }
    let u = u32(t - floor(t / 4294967296.0) * 4294967296.0);
    return select(u, 0u - u, a < 0.0);
}
fn tf_to_uint_i32(a: i32) -> u32 { return u32(a); }
fn tf_to_uint_u32(a: u32) -> u32 { return a; }
fn tf_to_uint_b(a: bool) -> u32 { return select(0u, 1u, a); }

fn tf_to_bool_f32(a: f32) -> bool { return !(a == 0.0); }  // (NaN is true: see ops_math's ne)
fn tf_to_bool_i32(a: i32) -> bool { return a != 0; }
fn tf_to_bool_u32(a: u32) -> bool { return a != 0u; }
fn tf_to_bool_b(a: bool) -> bool { return a; }

fn tf_asfloat_f32(a: f32) -> f32 { return a; }
fn tf_asfloat_i32(a: i32) -> f32 { return bitcast<f32>(a); }
fn tf_asfloat_u32(a: u32) -> f32 { return bitcast<f32>(a); }

fn tf_asint_f32(a: f32) -> i32 { return bitcast<i32>(a); }
fn tf_asint_i32(a: i32) -> i32 { return a; }
fn tf_asint_u32(a: u32) -> i32 { return bitcast<i32>(a); }

fn tf_asuint_f32(a: f32) -> u32 { return bitcast<u32>(a); }
fn tf_asuint_i32(a: i32) -> u32 { return bitcast<u32>(a); }
fn tf_asuint_u32(a: u32) -> u32 { return a; }

fn tf_pcg(v: u32) -> u32 {
    let state = v * 747796405u + 2891336453u;
    let word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

fn tf_pcgf(v: u32) -> f32 { return f32(tf_pcg(v) >> 8u) * (1.0 / 16777216.0); }

fn tf_add_f32(a: f32, b: f32) -> f32 { return a + b; }
fn tf_add_i32(a: i32, b: i32) -> i32 { return a + b; }
fn tf_add_u32(a: u32, b: u32) -> u32 { return a + b; }
