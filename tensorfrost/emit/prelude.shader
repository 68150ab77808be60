// tensorfrost shader prelude: the helpers generated GLSL and HLSL kernels call, with the
// semantics of the op table's numpy references (tensorfrost/ir/ops_math.py) and of the C++
// prelude. Written in GLSL; hlsl.py respells it (bit casts, fma -> mad, vec2 -> float2,
// the compare-and-swap) and both spell `tf_exponent_t`, the exponent type of frexp and
// ldexp (int in GLSL, float in HLSL). Blocks are separated by blank lines; a kernel includes
// only the blocks it uses. NaN tests look at the bits, so that drivers compiling with fast
// math keep them. HLSL's mad may or may not be fused, so pow's double-float steps may lose
// a few bits there.
// The other dtypes' helpers follow in prelude_16.shader (8- and 16-bit), prelude_64.shader
// (float64, int64 / uint64), prelude_fp64_exp.shader and prelude_fp64_trig.shader (float64
// transcendentals), read in that order after this file (GLSL only). A block that spells
// `double` needs fp64, one that spells `int64_t` / `uint64_t` needs GL_ARB_gpu_shader_int64
// (features.block_needs).

#define TF_INF uintBitsToFloat(0x7F800000u)

#define TF_NAN uintBitsToFloat(0x7FC00000u)

bool tf_isnan(float a) { return (floatBitsToUint(a) & 0x7FFFFFFFu) > 0x7F800000u; }

int tf_clamp_index(int i, int n) { return clamp(i, 0, max(n - 1, 0)); }

uint tf_uabs(int a) { return a < 0 ? 0u - uint(a) : uint(a); }

float tf_div_f32(float a, float b) { return a / b; }
int tf_div_i32(int a, int b) {
    if (b == 0) return 0;
    int q = int(tf_uabs(a) / tf_uabs(b));
    return (a < 0) != (b < 0) ? -q : q;
}
uint tf_div_u32(uint a, uint b) { return b == 0u ? 0u : a / b; }

// floor(log2(v)) of a finite v > 0, from its bits (frexp may flush a subnormal)
int tf_exponent(float v) {
    uint b = floatBitsToUint(v) & 0x7FFFFFFFu;
    return b >= 0x00800000u ? int(b >> 23) - 127 : findMSB(b) - 149;
}

// C's fmod, exact: subtract |b| * 2^k for k from the exponent gap down (each step is exact:
// |b| * 2^k is scaled up by exact multiplies and halved, subnormal |b| too)
float tf_mod_f32(float a, float b) {
    precise float x = abs(a);
    precise float t = abs(b);
    if (isinf(x) || t == 0.0 || tf_isnan(a) || tf_isnan(b)) return TF_NAN;
    if (x >= t) {
        int k = tf_exponent(x) - tf_exponent(t);
        for (int s = k; s > 0; s -= 64) t *= uintBitsToFloat(uint(127 + min(s, 64)) << 23);
        for (; k >= 0; k--) {
            if (x >= t) x -= t;
            t *= 0.5;
        }
    }
    return floatBitsToInt(a) < 0 ? -x : x;
}
int tf_mod_i32(int a, int b) {
    if (b == 0) return 0;
    int r = int(tf_uabs(a) % tf_uabs(b));
    return a < 0 ? -r : r;
}
uint tf_mod_u32(uint a, uint b) { return b == 0u ? 0u : a % b; }

// numpy's floor_divide: the quotient of a - fmod(a, b) (exact), one less where the remainder's
// sign differs from b's, rounded to the nearest integer; x // 0 is x / 0.
float tf_floordiv_f32(float a, float b) {
    if (b == 0.0) return a / b;
    float m = tf_mod_f32(a, b);
    float d = (a - m) / b;
    if (m != 0.0 && (b < 0.0) != (m < 0.0)) d -= 1.0;
    if (d == 0.0) return uintBitsToFloat(floatBitsToUint(a / b) & 0x80000000u);  // a signed zero
    float f = floor(d);
    return d - f > 0.5 ? f + 1.0 : f;
}
int tf_floordiv_i32(int a, int b) {
    int q = tf_div_i32(a, b);
    return (b != 0 && tf_mod_i32(a, b) != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}
uint tf_floordiv_u32(uint a, uint b) { return b == 0u ? 0u : a / b; }

float tf_min_f32(float a, float b) { return (a < b || tf_isnan(a)) ? a : b; }
int tf_min_i32(int a, int b) { return min(a, b); }
uint tf_min_u32(uint a, uint b) { return min(a, b); }

float tf_max_f32(float a, float b) { return (a > b || tf_isnan(a)) ? a : b; }
int tf_max_i32(int a, int b) { return max(a, b); }
uint tf_max_u32(uint a, uint b) { return max(a, b); }
bool tf_min_b(bool a, bool b) { return a && b; }
bool tf_max_b(bool a, bool b) { return a || b; }

float tf_clamp_f32(float x, float lo, float hi) { return tf_min_f32(tf_max_f32(x, lo), hi); }
int tf_clamp_i32(int x, int lo, int hi) { return tf_min_i32(tf_max_i32(x, lo), hi); }
uint tf_clamp_u32(uint x, uint lo, uint hi) { return tf_min_u32(tf_max_u32(x, lo), hi); }
bool tf_clamp_b(bool x, bool lo, bool hi) { return tf_min_b(tf_max_b(x, lo), hi); }

float tf_abs_f32(float a) { return abs(a); }
int tf_abs_i32(int a) { return a < 0 ? -a : a; }
uint tf_abs_u32(uint a) { return a; }

float tf_sign_f32(float a) { return a > 0.0 ? 1.0 : (a < 0.0 ? -1.0 : a); }
int tf_sign_i32(int a) { return sign(a); }
uint tf_sign_u32(uint a) { return a > 0u ? 1u : 0u; }

bool tf_and_b(bool a, bool b) { return a && b; }
int tf_and_i32(int a, int b) { return a & b; }
uint tf_and_u32(uint a, uint b) { return a & b; }

bool tf_or_b(bool a, bool b) { return a || b; }
int tf_or_i32(int a, int b) { return a | b; }
uint tf_or_u32(uint a, uint b) { return a | b; }

bool tf_xor_b(bool a, bool b) { return a != b; }
int tf_xor_i32(int a, int b) { return a ^ b; }
uint tf_xor_u32(uint a, uint b) { return a ^ b; }

bool tf_not_b(bool a) { return !a; }
int tf_not_i32(int a) { return ~a; }
uint tf_not_u32(uint a) { return ~a; }

int tf_shl_i32(int a, int b) { return int(uint(a) << uint(b & 31)); }
uint tf_shl_u32(uint a, uint b) { return a << (b & 31u); }

int tf_shr_i32(int a, int b) { return a >> (b & 31); }
uint tf_shr_u32(uint a, uint b) { return a >> (b & 31u); }

uint tf_reversebits(uint v) { return bitfieldReverse(v); }

float tf_floor_f32(float a) { return floor(a); }

float tf_ceil_f32(float a) { return ceil(a); }

float tf_round_f32(float a) { return roundEven(a); }

float tf_trunc_f32(float a) { return trunc(a); }

float tf_frac_f32(float a) { return a - floor(a); }

// exp(hi + lo) with Cody-Waite range reduction (drivers' exp(x) = exp2(x * log2(e)) loses
// digits: 64 ulp near |x| = 88 on llvmpipe) and Cephes' expf polynomial, within 2 ulp; no
// branches: the clamp keeps 2^n in two normal factors (inf above 88.73, 0 below -103.98),
// and ldexp, which cost 3x the built-in exp on llvmpipe, is two multiplies by exponent bits.
// `precise` keeps the compiler from reassociating the reduction steps.
float tf_exp_df(float hi, float lo) {
    float x = clamp(hi, -104.0, 89.0);
    float n = roundEven(x * 1.44269504);
    precise float r = fma(n, -0.693145752, x);
    r = fma(n, -1.42860677e-6, r) + lo;
    float p = fma(fma(fma(fma(fma(fma(r, 1.9875691500e-4, 1.3981999507e-3), r, 8.3334519073e-3), r,
                  4.1665795894e-2), r, 1.6666665459e-1), r, 5.0000001201e-1), r * r, r) + 1.0;
    int e = int(n);
    int h = e >> 1;
    float y = p * intBitsToFloat((h + 127) << 23) * intBitsToFloat((e - h + 127) << 23);
    return tf_isnan(hi) ? hi : y;
}

float tf_exp_f32(float a) { return tf_exp_df(a, 0.0); }

float tf_exp2_f32(float a) { return exp2(a); }

float tf_log_f32(float a) { return a < 0.0 || tf_isnan(a) ? TF_NAN : (a == 0.0 ? -TF_INF : log(a)); }

float tf_log2_f32(float a) { return a < 0.0 || tf_isnan(a) ? TF_NAN : (a == 0.0 ? -TF_INF : log2(a)); }

float tf_sqrt_f32(float a) { return a < 0.0 ? TF_NAN : sqrt(a); }

float tf_rsqrt_f32(float a) { return 1.0 / tf_sqrt_f32(a); }

float tf_rcp_f32(float a) { return 1.0 / a; }

float tf_sin_f32(float a) { return sin(a); }

float tf_cos_f32(float a) { return cos(a); }

float tf_tan_f32(float a) { return tan(a); }

// asin, acos, atan: Cephes' single precision polynomials (drivers may be far less exact)
float tf_asin_f32(float a) {
    float x = abs(a);
    if (!(x <= 1.0)) return TF_NAN;
    bool big = x > 0.5;
    float z = big ? 0.5 * (1.0 - x) : x * x;
    float s = big ? sqrt(z) : x;
    float p = fma(((((4.2163199048e-2 * z + 2.4181311049e-2) * z + 4.5470025998e-2) * z + 7.4953002686e-2) * z
                   + 1.6666752422e-1) * z, s, s);
    float r = big ? 1.57079632679 - 2.0 * p : p;
    return a < 0.0 ? -r : r;
}

float tf_acos_f32(float a) {
    if (!(abs(a) <= 1.0)) return TF_NAN;
    if (a < -0.5) return 3.14159265359 - 2.0 * tf_asin_f32(sqrt(0.5 * (1.0 + a)));
    if (a > 0.5) return 2.0 * tf_asin_f32(sqrt(0.5 * (1.0 - a)));
    return 1.57079632679 - tf_asin_f32(a);
}

float tf_atan_f32(float a) {
    float x = abs(a);
    float base = 0.0;
    if (x > 2.414213562373095) { base = 1.57079632679; x = -1.0 / x; }
    else if (x > 0.4142135623730950) { base = 0.785398163397; x = (x - 1.0) / (x + 1.0); }
    float z = x * x;
    float r = base + fma((((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z
                          - 3.33329491539e-1) * z, x, x);
    return tf_isnan(a) ? a : (a < 0.0 ? -r : r);
}

// sinh and cosh from exp(|x| / 2), squared, so that they overflow only where they should
float tf_sinh_f32(float a) {
    float x = abs(a);
    float r;
    if (x < 0.5) {
        float z = x * x;
        r = fma(z * (1.0 / 6.0 + z * (1.0 / 120.0 + z * (1.0 / 5040.0))), x, x);
    } else {
        float e = tf_exp_f32(0.5 * x);
        r = (0.5 * e) * e - 0.5 / (e * e);
    }
    return tf_isnan(a) ? a : (a < 0.0 ? -r : r);
}

float tf_cosh_f32(float a) {
    float e = tf_exp_f32(0.5 * abs(a));
    return tf_isnan(a) ? a : (0.5 * e) * e + 0.5 / (e * e);
}

// tanh from exp(-2|x|), which never overflows; near 0, where 1 - exp(-2|x|) would cancel
// (x = 1e-3 lost 4 digits), its Taylor series, good to 1e-9 relative below 0.125
float tf_tanh_f32(float a) {
    float x = abs(a);
    float r;
    if (x < 0.125) {
        float x2 = x * x;
        r = x * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 - x2 * (17.0 / 315.0))));
    } else {
        float t = exp(-2.0 * x);
        r = (1.0 - t) / (1.0 + t);
    }
    return tf_isnan(a) ? a : (a < 0.0 ? -r : r);
}

// log(x) of a finite x > 0 as an unevaluated sum hi + lo, good to about 2^-40 (for pow):
// x = 2^e * m with m in [sqrt(1/2), sqrt(2)), log(m) = 2 atanh(s) with s = (m - 1) / (m + 1)
vec2 tf_log_df(float x) {
    tf_exponent_t e;
    float m = frexp(x, e);
    if (m < 0.70710678) { m *= 2.0; e -= tf_exponent_t(1); }
    precise float f = m - 1.0;
    precise float u = 2.0 + f;
    precise float u_lo = f - (u - 2.0);
    precise float s = f / u;
    precise float s_lo = (fma(-s, u, f) - s * u_lo) / u;
    float z = s * s;
    float tail = s * z * (2.0 / 3.0 + z * (2.0 / 5.0 + z * (2.0 / 7.0 + z * (2.0 / 9.0 + z * (2.0 / 11.0)))));
    float k = float(e);
    precise float a1 = k * 0.693145752;  // exact: few bits in both factors
    precise float hi = a1 + 2.0 * s;
    precise float b1 = hi - a1;
    precise float lo = fma(k, 1.42860677e-6, 2.0 * s_lo + tail) + ((a1 - (hi - b1)) + (2.0 * s - b1));
    precise float sum = hi + lo;
    return vec2(sum, lo - (sum - hi));
}

bool tf_odd_integer(float b) { return abs(b) < 16777216.0 && b == trunc(b) && abs(b - 2.0 * trunc(0.5 * b)) == 1.0; }

// pow as C / numpy define it, also where GLSL's pow is undefined (x <= 0); b * log(x) is
// formed in double-float so that large results keep their digits
float tf_pow_f32(float a, float b) {
    if (b == 0.0 || a == 1.0) return 1.0;
    if (tf_isnan(a) || tf_isnan(b)) return TF_NAN;
    float x = abs(a);
    if (isinf(b)) return x == 1.0 ? 1.0 : ((x > 1.0) == (b > 0.0) ? TF_INF : 0.0);
    if (a < 0.0 && !isinf(a) && b != trunc(b)) return TF_NAN;
    float r;
    if (x == 0.0) r = b > 0.0 ? 0.0 : TF_INF;
    else if (isinf(x)) r = b > 0.0 ? TF_INF : 0.0;
    else {
        vec2 l = tf_log_df(x);
        precise float hi = b * l.x;
        precise float lo = fma(b, l.x, -hi) + b * l.y;
        r = isinf(hi) ? (hi > 0.0 ? TF_INF : 0.0) : tf_exp_df(hi, lo);  // (an overflowed product: lo is NaN)
    }
    return floatBitsToInt(a) < 0 && tf_odd_integer(b) ? -r : r;
}

// atan2(y, x) with numpy's results for zeros and infinities
float tf_atan2_f32(float a, float b) {
    if (tf_isnan(a) || tf_isnan(b)) return TF_NAN;
    bool negative_a = floatBitsToInt(a) < 0;
    float r;
    if (b == 0.0 && a == 0.0) r = floatBitsToInt(b) < 0 ? 3.14159265359 : 0.0;
    else if (b == 0.0) r = 1.57079632679;
    else if (isinf(a) && isinf(b)) r = b > 0.0 ? 0.785398163397 : 2.35619449019;
    else {
        r = tf_atan_f32(abs(a / b));
        if (b < 0.0) r = 3.14159265359 - r;
    }
    return negative_a ? -r : r;
}

float tf_lerp_f32(float a, float b, float t) { return a + (b - a) * t; }

float tf_smoothstep_f32(float e0, float e1, float x) {
    float t = tf_clamp_f32((x - e0) / (e1 - e0), 0.0, 1.0);
    return t * t * (3.0 - 2.0 * t);
}

float tf_fma_f32(float a, float b, float c) { return a * b + c; }
int tf_fma_i32(int a, int b, int c) { return a * b + c; }
uint tf_fma_u32(uint a, uint b, uint c) { return a * b + c; }

float tf_to_float_f32(float a) { return a; }
float tf_to_float_i32(int a) { return float(a); }
float tf_to_float_u32(uint a) { return float(a); }
float tf_to_float_b(bool a) { return a ? 1.0 : 0.0; }

// out-of-range floats give INT32_MIN, as numpy does on x86
int tf_to_int_f32(float a) { return (a >= -2147483648.0 && a < 2147483648.0) ? int(a) : int(0x80000000u); }
int tf_to_int_i32(int a) { return a; }
int tf_to_int_u32(uint a) { return int(a); }
int tf_to_int_b(bool a) { return a ? 1 : 0; }

// floats truncate, then wrap modulo 2^32 (through int64 on the CPU); outside int64 and
// non-finite give 0
uint tf_to_uint_f32(float a) {
    float t = trunc(abs(a));
    if (!(t < 9223372036854775808.0)) return 0u;
    uint u = uint(t - floor(t / 4294967296.0) * 4294967296.0);
    return a < 0.0 ? 0u - u : u;
}
uint tf_to_uint_i32(int a) { return uint(a); }
uint tf_to_uint_u32(uint a) { return a; }
uint tf_to_uint_b(bool a) { return a ? 1u : 0u; }

bool tf_to_bool_f32(float a) { return a != 0.0; }
bool tf_to_bool_i32(int a) { return a != 0; }
bool tf_to_bool_u32(uint a) { return a != 0u; }
bool tf_to_bool_b(bool a) { return a; }

float tf_asfloat_f32(float a) { return a; }
float tf_asfloat_i32(int a) { return intBitsToFloat(a); }
float tf_asfloat_u32(uint a) { return uintBitsToFloat(a); }

int tf_asint_f32(float a) { return floatBitsToInt(a); }
int tf_asint_i32(int a) { return a; }
int tf_asint_u32(uint a) { return int(a); }

uint tf_asuint_f32(float a) { return floatBitsToUint(a); }
uint tf_asuint_i32(int a) { return uint(a); }
uint tf_asuint_u32(uint a) { return a; }

uint tf_pcg(uint v) {
    uint state = v * 747796405u + 2891336453u;
    uint word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

float tf_pcgf(uint v) { return float(tf_pcg(v) >> 8) * (1.0 / 16777216.0); }

float tf_add_f32(float a, float b) { return a + b; }
int tf_add_i32(int a, int b) { return a + b; }
uint tf_add_u32(uint a, uint b) { return a + b; }

// Atomic read-modify-write of a 32-bit word with compare-and-swap: `combine` runs on the
// decoded values, so float add / min / max are exact for negative values and NaN too.
#define TF_ATOMIC_CAS(word, value, combine, decode, encode) { \
    uint tf_seen = word; \
    for (;;) { \
        uint tf_next = encode(combine(decode(tf_seen), value)); \
        if (tf_next == tf_seen) break; \
        uint tf_prior = atomicCompSwap(word, tf_seen, tf_next); \
        if (tf_prior == tf_seen) break; \
        tf_seen = tf_prior; \
    } \
}
