// tensorfrost shader prelude, 64-bit dtypes (GLSL only): float64 (GL_ARB_gpu_shader_fp64)
// and int64 / uint64 (GL_ARB_gpu_shader_int64) arithmetic and conversions. A kernel
// includes these blocks only where it computes in those dtypes (shader.select_prelude).
// Blocks as in prelude.shader.

// -- float64 (GL_ARB_gpu_shader_fp64): arithmetic, rounding, conversions. GLSL has no double
// exp, log, sin...: the emitter refuses those (shader.py) rather than compute in float32.
#define TF_INF64 packDouble2x32(uvec2(0u, 0x7FF00000u))

#define TF_NAN64 packDouble2x32(uvec2(0u, 0x7FF80000u))

bool tf_isnan_f64(double a) {
    uvec2 w = unpackDouble2x32(a);
    uint high = w.y & 0x7FFFFFFFu;
    return high > 0x7FF00000u || (high == 0x7FF00000u && w.x != 0u);
}

bool tf_isinf(double a) {
    uvec2 w = unpackDouble2x32(a);
    return (w.y & 0x7FFFFFFFu) == 0x7FF00000u && w.x == 0u;
}

bool tf_signbit(double a) { return (unpackDouble2x32(a).y & 0x80000000u) != 0u; }

double tf_div_f64(double a, double b) { return a / b; }

int tf_exponent_f64(double v) {
    uvec2 w = unpackDouble2x32(v);
    uint high = w.y & 0x7FFFFFFFu;
    if (high >= 0x00100000u) return int(high >> 20) - 1023;
    return high != 0u ? findMSB(high) - 1042 : findMSB(w.x) - 1074;
}

// C's fmod, exact, as the float one
double tf_mod_f64(double a, double b) {
    precise double x = abs(a);
    precise double t = abs(b);
    if (tf_isinf(a) || t == 0.0lf || tf_isnan_f64(a) || tf_isnan_f64(b)) return TF_NAN64;
    if (x >= t) {
        int k = tf_exponent_f64(x) - tf_exponent_f64(t);
        for (int s = k; s > 0; s -= 512) t *= packDouble2x32(uvec2(0u, uint(1023 + min(s, 512)) << 20));
        for (; k >= 0; k--) {
            if (x >= t) x -= t;
            t *= 0.5lf;
        }
    }
    return tf_signbit(a) ? -x : x;
}

double tf_floordiv_f64(double a, double b) {  // as the float one (prelude.shader)
    if (b == 0.0lf) return a / b;
    double m = tf_mod_f64(a, b);
    double d = (a - m) / b;
    if (m != 0.0lf && (b < 0.0lf) != (m < 0.0lf)) d -= 1.0lf;
    if (d == 0.0lf) return tf_signbit(a / b) ? -0.0lf : 0.0lf;
    double f = floor(d);
    return d - f > 0.5lf ? f + 1.0lf : f;
}

double tf_min_f64(double a, double b) { return (a < b || tf_isnan_f64(a)) ? a : b; }

double tf_max_f64(double a, double b) { return (a > b || tf_isnan_f64(a)) ? a : b; }

double tf_clamp_f64(double x, double lo, double hi) { return tf_min_f64(tf_max_f64(x, lo), hi); }

double tf_abs_f64(double a) { return abs(a); }

double tf_sign_f64(double a) { return a > 0.0lf ? 1.0lf : (a < 0.0lf ? -1.0lf : a); }

double tf_floor_f64(double a) { return floor(a); }

// (llvmpipe's double ceil and roundEven give +0 for -0.3: a zero takes a's sign, as C's)
double tf_signed_zero(double r, double a) {
    return r == 0.0lf ? packDouble2x32(uvec2(0u, unpackDouble2x32(a).y & 0x80000000u)) : r;
}

double tf_ceil_f64(double a) { return tf_signed_zero(ceil(a), a); }

double tf_round_f64(double a) { return tf_signed_zero(roundEven(a), a); }

double tf_trunc_f64(double a) { return trunc(a); }

double tf_frac_f64(double a) { return a - floor(a); }

double tf_sqrt_f64(double a) { return a < 0.0lf ? TF_NAN64 : sqrt(a); }

double tf_rsqrt_f64(double a) { return 1.0lf / tf_sqrt_f64(a); }

double tf_rcp_f64(double a) { return 1.0lf / a; }

double tf_lerp_f64(double a, double b, double t) { return a + (b - a) * t; }

double tf_smoothstep_f64(double e0, double e1, double x) {
    double t = tf_clamp_f64((x - e0) / (e1 - e0), 0.0lf, 1.0lf);
    return t * t * (3.0lf - 2.0lf * t);
}

double tf_fma_f64(double a, double b, double c) { return a * b + c; }

double tf_add_f64(double a, double b) { return a + b; }

double tf_to_float64_f32(float a) { return double(a); }
double tf_to_float64_i32(int a) { return double(a); }
double tf_to_float64_u32(uint a) { return double(a); }
double tf_to_float64_b(bool a) { return a ? 1.0lf : 0.0lf; }
double tf_to_float64_f64(double a) { return a; }

float tf_to_float_f64(double a) { return float(a); }

int tf_to_int_f64(double a) { return (a >= -2147483648.0lf && a < 2147483648.0lf) ? int(a) : int(0x80000000u); }

uint tf_to_uint_f64(double a) {
    double t = trunc(abs(a));
    if (!(t < 9223372036854775808.0lf)) return 0u;
    uint u = uint(t - floor(t / 4294967296.0lf) * 4294967296.0lf);
    return a < 0.0lf ? 0u - u : u;
}

bool tf_to_bool_f64(double a) { return a != 0.0lf; }

// a double as a float rounded to odd: rounding that to a 16-bit float then rounds the double
// correctly (no double rounding)
float tf_f64_to_f32_odd(double d) {
    float f = float(d);
    if (double(f) != d && !tf_isnan_f64(d)) {
        uint bits = floatBitsToUint(f);
        if (abs(double(f)) > abs(d)) bits -= 1u;
        f = uintBitsToFloat(bits | 1u);
    }
    return f;
}

float tf_to_float16_f64(double a) { return tf_round_float16(tf_f64_to_f32_odd(a)); }

float tf_to_bfloat16_f64(double a) { return tf_round_bfloat16(tf_f64_to_f32_odd(a)); }

int tf_to_int8_f64(double a) { return bitfieldExtract(tf_to_int_f64(a), 0, 8); }
int tf_to_int16_f64(double a) { return bitfieldExtract(tf_to_int_f64(a), 0, 16); }
uint tf_to_uint8_f64(double a) { return bitfieldExtract(tf_to_uint_f64(a), 0, 8); }
uint tf_to_uint16_f64(double a) { return bitfieldExtract(tf_to_uint_f64(a), 0, 16); }

// -- int64 / uint64 (GL_ARB_gpu_shader_int64): they wrap as numpy's; x / 0 and x % 0 are 0,
// and division goes through magnitudes (INT64_MIN / -1 wraps instead of trapping)
uint64_t tf_uabs_i64(int64_t a) { return a < 0l ? 0ul - uint64_t(a) : uint64_t(a); }

int64_t tf_div_i64(int64_t a, int64_t b) {
    if (b == 0l) return 0l;
    int64_t q = int64_t(tf_uabs_i64(a) / tf_uabs_i64(b));
    return (a < 0l) != (b < 0l) ? -q : q;
}
uint64_t tf_div_u64(uint64_t a, uint64_t b) { return b == 0ul ? 0ul : a / b; }

int64_t tf_mod_i64(int64_t a, int64_t b) {
    if (b == 0l) return 0l;
    int64_t r = int64_t(tf_uabs_i64(a) % tf_uabs_i64(b));
    return a < 0l ? -r : r;
}
uint64_t tf_mod_u64(uint64_t a, uint64_t b) { return b == 0ul ? 0ul : a % b; }

int64_t tf_floordiv_i64(int64_t a, int64_t b) {
    int64_t q = tf_div_i64(a, b);
    return (b != 0l && tf_mod_i64(a, b) != 0l && (a < 0l) != (b < 0l)) ? q - 1l : q;
}
uint64_t tf_floordiv_u64(uint64_t a, uint64_t b) { return b == 0ul ? 0ul : a / b; }

int64_t tf_min_i64(int64_t a, int64_t b) { return a < b ? a : b; }
uint64_t tf_min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

int64_t tf_max_i64(int64_t a, int64_t b) { return a > b ? a : b; }
uint64_t tf_max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

int64_t tf_clamp_i64(int64_t x, int64_t lo, int64_t hi) { return tf_min_i64(tf_max_i64(x, lo), hi); }
uint64_t tf_clamp_u64(uint64_t x, uint64_t lo, uint64_t hi) { return tf_min_u64(tf_max_u64(x, lo), hi); }

int64_t tf_abs_i64(int64_t a) { return a < 0l ? -a : a; }
uint64_t tf_abs_u64(uint64_t a) { return a; }

int64_t tf_sign_i64(int64_t a) { return a > 0l ? 1l : (a < 0l ? -1l : 0l); }
uint64_t tf_sign_u64(uint64_t a) { return a > 0ul ? 1ul : 0ul; }

int64_t tf_and_i64(int64_t a, int64_t b) { return a & b; }
uint64_t tf_and_u64(uint64_t a, uint64_t b) { return a & b; }

int64_t tf_or_i64(int64_t a, int64_t b) { return a | b; }
uint64_t tf_or_u64(uint64_t a, uint64_t b) { return a | b; }

int64_t tf_xor_i64(int64_t a, int64_t b) { return a ^ b; }
uint64_t tf_xor_u64(uint64_t a, uint64_t b) { return a ^ b; }

int64_t tf_not_i64(int64_t a) { return ~a; }
uint64_t tf_not_u64(uint64_t a) { return ~a; }

int64_t tf_shl_i64(int64_t a, int64_t b) { return int64_t(uint64_t(a) << uint(b & 63l)); }
uint64_t tf_shl_u64(uint64_t a, uint64_t b) { return a << uint(b & 63ul); }

int64_t tf_shr_i64(int64_t a, int64_t b) { return a >> uint(b & 63l); }
uint64_t tf_shr_u64(uint64_t a, uint64_t b) { return a >> uint(b & 63ul); }

int64_t tf_fma_i64(int64_t a, int64_t b, int64_t c) { return a * b + c; }
uint64_t tf_fma_u64(uint64_t a, uint64_t b, uint64_t c) { return a * b + c; }

int64_t tf_add_i64(int64_t a, int64_t b) { return a + b; }
uint64_t tf_add_u64(uint64_t a, uint64_t b) { return a + b; }

int64_t tf_to_int64_f32(float a) {
    return (a >= -9223372036854775808.0 && a < 9223372036854775808.0) ? int64_t(a) : int64_t(0x8000000000000000ul);
}
int64_t tf_to_int64_i32(int a) { return int64_t(a); }
int64_t tf_to_int64_u32(uint a) { return int64_t(uint64_t(a)); }
int64_t tf_to_int64_b(bool a) { return a ? 1l : 0l; }
int64_t tf_to_int64_i64(int64_t a) { return a; }
int64_t tf_to_int64_u64(uint64_t a) { return int64_t(a); }

uint64_t tf_to_uint64_f32(float a) {
    if (!(a >= -9223372036854775808.0 && a < 18446744073709551616.0)) return 0ul;
    return a >= 9223372036854775808.0 ? uint64_t(a) : uint64_t(int64_t(a));
}
uint64_t tf_to_uint64_i32(int a) { return uint64_t(int64_t(a)); }
uint64_t tf_to_uint64_u32(uint a) { return uint64_t(a); }
uint64_t tf_to_uint64_b(bool a) { return a ? 1ul : 0ul; }
uint64_t tf_to_uint64_i64(int64_t a) { return uint64_t(a); }
uint64_t tf_to_uint64_u64(uint64_t a) { return a; }

float tf_to_float_i64(int64_t a) { return float(a); }
float tf_to_float_u64(uint64_t a) { return float(a); }

int tf_to_int_i64(int64_t a) { return int(unpackUint2x32(uint64_t(a)).x); }
int tf_to_int_u64(uint64_t a) { return int(unpackUint2x32(a).x); }

uint tf_to_uint_i64(int64_t a) { return unpackUint2x32(uint64_t(a)).x; }
uint tf_to_uint_u64(uint64_t a) { return unpackUint2x32(a).x; }

bool tf_to_bool_i64(int64_t a) { return a != 0l; }
bool tf_to_bool_u64(uint64_t a) { return a != 0ul; }

float tf_u64_to_f32_odd(uint64_t u) {
    uvec2 w = unpackUint2x32(u);
    if (w.y == 0u) return tf_u32_to_f32_odd(w.x);
    int drop = findMSB(w.y) + 9;  // (the top bit is 32 + findMSB(w.y); 24 are kept)
    uint kept = uint(u >> uint(drop)) | ((u & ((1ul << uint(drop)) - 1ul)) != 0ul ? 1u : 0u);
    return float(kept) * uintBitsToFloat(uint(127 + drop) << 23);
}

float tf_i64_to_f32_odd(int64_t a) {
    float f = tf_u64_to_f32_odd(a < 0l ? 0ul - uint64_t(a) : uint64_t(a));
    return a < 0l ? -f : f;
}

float tf_to_float16_i64(int64_t a) { return tf_round_float16(tf_i64_to_f32_odd(a)); }
float tf_to_float16_u64(uint64_t a) { return tf_round_float16(tf_u64_to_f32_odd(a)); }

float tf_to_bfloat16_i64(int64_t a) { return tf_round_bfloat16(tf_i64_to_f32_odd(a)); }
float tf_to_bfloat16_u64(uint64_t a) { return tf_round_bfloat16(tf_u64_to_f32_odd(a)); }

int tf_to_int8_i64(int64_t a) { return bitfieldExtract(tf_to_int_i64(a), 0, 8); }
int tf_to_int8_u64(uint64_t a) { return bitfieldExtract(tf_to_int_u64(a), 0, 8); }
int tf_to_int16_i64(int64_t a) { return bitfieldExtract(tf_to_int_i64(a), 0, 16); }
int tf_to_int16_u64(uint64_t a) { return bitfieldExtract(tf_to_int_u64(a), 0, 16); }
uint tf_to_uint8_i64(int64_t a) { return bitfieldExtract(tf_to_uint_i64(a), 0, 8); }
uint tf_to_uint8_u64(uint64_t a) { return bitfieldExtract(tf_to_uint_u64(a), 0, 8); }
uint tf_to_uint16_i64(int64_t a) { return bitfieldExtract(tf_to_uint_i64(a), 0, 16); }
uint tf_to_uint16_u64(uint64_t a) { return bitfieldExtract(tf_to_uint_u64(a), 0, 16); }

// -- float64 and int64 together
double tf_to_float64_i64(int64_t a) { return double(a); }
double tf_to_float64_u64(uint64_t a) { return double(a); }

int64_t tf_to_int64_f64(double a) {
    return (a >= -9223372036854775808.0lf && a < 9223372036854775808.0lf) ? int64_t(a)
                                                                          : int64_t(0x8000000000000000ul);
}

uint64_t tf_to_uint64_f64(double a) {
    if (!(a >= -9223372036854775808.0lf && a < 18446744073709551616.0lf)) return 0ul;
    return a >= 9223372036854775808.0lf ? uint64_t(a) : uint64_t(int64_t(a));
}
