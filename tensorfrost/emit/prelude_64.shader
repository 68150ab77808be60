// tensorfrost shader prelude, 64-bit dtypes (GLSL only): float64 (GL_ARB_gpu_shader_fp64)
// and int64 / uint64 (GL_ARB_gpu_shader_int64) arithmetic and conversions. A kernel
// includes these blocks only where it computes in those dtypes (shader.select_prelude).
// Blocks as in prelude.shader.

// -- float64 (GL_ARB_gpu_shader_fp64): arithmetic, rounding, conversions. GLSL has no double
// exp, log, sin...: the emitter refuses those (shader.py) rather than compute in float32.
#define TF_INF64 packDouble2x32(uvec2(0u, 0x7FF00000u))

#define TF_NAN64 packDouble2x32(uvec2(0u, 0x7FF80000u))

bool tf_isnan(double a) {
    uvec2 w = unpackDouble2x32(a);
    uint high = w.y & 0x7FFFFFFFu;
    return high > 0x7FF00000u || (high == 0x7FF00000u && w.x != 0u);
}

bool tf_isinf(double a) {
    uvec2 w = unpackDouble2x32(a);
    return (w.y & 0x7FFFFFFFu) == 0x7FF00000u && w.x == 0u;
}

bool tf_signbit(double a) { return (unpackDouble2x32(a).y & 0x80000000u) != 0u; }

double tf_div(double a, double b) { return a / b; }

int tf_exponent(double v) {
    uvec2 w = unpackDouble2x32(v);
    uint high = w.y & 0x7FFFFFFFu;
    if (high >= 0x00100000u) return int(high >> 20) - 1023;
    return high != 0u ? findMSB(high) - 1042 : findMSB(w.x) - 1074;
}

// C's fmod, exact, as the float one
double tf_mod(double a, double b) {
    precise double x = abs(a);
    precise double t = abs(b);
    if (tf_isinf(a) || t == 0.0lf || tf_isnan(a) || tf_isnan(b)) return TF_NAN64;
    if (x >= t) {
        int k = tf_exponent(x) - tf_exponent(t);
        for (int s = k; s > 0; s -= 512) t *= packDouble2x32(uvec2(0u, uint(1023 + min(s, 512)) << 20));
        for (; k >= 0; k--) {
            if (x >= t) x -= t;
            t *= 0.5lf;
        }
    }
    return tf_signbit(a) ? -x : x;
}

double tf_floordiv(double a, double b) {  // as the float one (prelude.shader)
    if (b == 0.0lf) return a / b;
    double m = tf_mod(a, b);
    double d = (a - m) / b;
    if (m != 0.0lf && (b < 0.0lf) != (m < 0.0lf)) d -= 1.0lf;
    if (d == 0.0lf) return tf_signbit(a / b) ? -0.0lf : 0.0lf;
    double f = floor(d);
    return d - f > 0.5lf ? f + 1.0lf : f;
}

double tf_min(double a, double b) { return (a < b || tf_isnan(a)) ? a : b; }

double tf_max(double a, double b) { return (a > b || tf_isnan(a)) ? a : b; }

double tf_clamp(double x, double lo, double hi) { return tf_min(tf_max(x, lo), hi); }

double tf_abs(double a) { return abs(a); }

double tf_sign(double a) { return a > 0.0lf ? 1.0lf : (a < 0.0lf ? -1.0lf : a); }

double tf_floor(double a) { return floor(a); }

// (llvmpipe's double ceil and roundEven give +0 for -0.3: a zero takes a's sign, as C's)
double tf_signed_zero(double r, double a) {
    return r == 0.0lf ? packDouble2x32(uvec2(0u, unpackDouble2x32(a).y & 0x80000000u)) : r;
}

double tf_ceil(double a) { return tf_signed_zero(ceil(a), a); }

double tf_round(double a) { return tf_signed_zero(roundEven(a), a); }

double tf_trunc(double a) { return trunc(a); }

double tf_frac(double a) { return a - floor(a); }

double tf_sqrt(double a) { return a < 0.0lf ? TF_NAN64 : sqrt(a); }

double tf_rsqrt(double a) { return 1.0lf / tf_sqrt(a); }

double tf_rcp(double a) { return 1.0lf / a; }

double tf_lerp(double a, double b, double t) { return a + (b - a) * t; }

double tf_smoothstep(double e0, double e1, double x) {
    double t = tf_clamp((x - e0) / (e1 - e0), 0.0lf, 1.0lf);
    return t * t * (3.0lf - 2.0lf * t);
}

double tf_fma(double a, double b, double c) { return a * b + c; }

double tf_add(double a, double b) { return a + b; }

double tf_to_float64(float a) { return double(a); }
double tf_to_float64(int a) { return double(a); }
double tf_to_float64(uint a) { return double(a); }
double tf_to_float64(bool a) { return a ? 1.0lf : 0.0lf; }
double tf_to_float64(double a) { return a; }

float tf_to_float(double a) { return float(a); }

int tf_to_int(double a) { return (a >= -2147483648.0lf && a < 2147483648.0lf) ? int(a) : int(0x80000000u); }

uint tf_to_uint(double a) {
    double t = trunc(abs(a));
    if (!(t < 9223372036854775808.0lf)) return 0u;
    uint u = uint(t - floor(t / 4294967296.0lf) * 4294967296.0lf);
    return a < 0.0lf ? 0u - u : u;
}

bool tf_to_bool(double a) { return a != 0.0lf; }

// a double as a float rounded to odd: rounding that to a 16-bit float then rounds the double
// correctly (no double rounding)
float tf_f64_to_f32_odd(double d) {
    float f = float(d);
    if (double(f) != d && !tf_isnan(d)) {
        uint bits = floatBitsToUint(f);
        if (abs(double(f)) > abs(d)) bits -= 1u;
        f = uintBitsToFloat(bits | 1u);
    }
    return f;
}

float tf_to_float16(double a) { return tf_round_float16(tf_f64_to_f32_odd(a)); }

float tf_to_bfloat16(double a) { return tf_round_bfloat16(tf_f64_to_f32_odd(a)); }

int tf_to_int8(double a) { return bitfieldExtract(tf_to_int(a), 0, 8); }
int tf_to_int16(double a) { return bitfieldExtract(tf_to_int(a), 0, 16); }
uint tf_to_uint8(double a) { return bitfieldExtract(tf_to_uint(a), 0, 8); }
uint tf_to_uint16(double a) { return bitfieldExtract(tf_to_uint(a), 0, 16); }

// -- int64 / uint64 (GL_ARB_gpu_shader_int64): they wrap as numpy's; x / 0 and x % 0 are 0,
// and division goes through magnitudes (INT64_MIN / -1 wraps instead of trapping)
uint64_t tf_uabs(int64_t a) { return a < 0l ? 0ul - uint64_t(a) : uint64_t(a); }

int64_t tf_div(int64_t a, int64_t b) {
    if (b == 0l) return 0l;
    int64_t q = int64_t(tf_uabs(a) / tf_uabs(b));
    return (a < 0l) != (b < 0l) ? -q : q;
}
uint64_t tf_div(uint64_t a, uint64_t b) { return b == 0ul ? 0ul : a / b; }

int64_t tf_mod(int64_t a, int64_t b) {
    if (b == 0l) return 0l;
    int64_t r = int64_t(tf_uabs(a) % tf_uabs(b));
    return a < 0l ? -r : r;
}
uint64_t tf_mod(uint64_t a, uint64_t b) { return b == 0ul ? 0ul : a % b; }

int64_t tf_floordiv(int64_t a, int64_t b) {
    int64_t q = tf_div(a, b);
    return (b != 0l && tf_mod(a, b) != 0l && (a < 0l) != (b < 0l)) ? q - 1l : q;
}
uint64_t tf_floordiv(uint64_t a, uint64_t b) { return b == 0ul ? 0ul : a / b; }

int64_t tf_min(int64_t a, int64_t b) { return a < b ? a : b; }
uint64_t tf_min(uint64_t a, uint64_t b) { return a < b ? a : b; }

int64_t tf_max(int64_t a, int64_t b) { return a > b ? a : b; }
uint64_t tf_max(uint64_t a, uint64_t b) { return a > b ? a : b; }

int64_t tf_clamp(int64_t x, int64_t lo, int64_t hi) { return tf_min(tf_max(x, lo), hi); }
uint64_t tf_clamp(uint64_t x, uint64_t lo, uint64_t hi) { return tf_min(tf_max(x, lo), hi); }

int64_t tf_abs(int64_t a) { return a < 0l ? -a : a; }
uint64_t tf_abs(uint64_t a) { return a; }

int64_t tf_sign(int64_t a) { return a > 0l ? 1l : (a < 0l ? -1l : 0l); }
uint64_t tf_sign(uint64_t a) { return a > 0ul ? 1ul : 0ul; }

int64_t tf_and(int64_t a, int64_t b) { return a & b; }
uint64_t tf_and(uint64_t a, uint64_t b) { return a & b; }

int64_t tf_or(int64_t a, int64_t b) { return a | b; }
uint64_t tf_or(uint64_t a, uint64_t b) { return a | b; }

int64_t tf_xor(int64_t a, int64_t b) { return a ^ b; }
uint64_t tf_xor(uint64_t a, uint64_t b) { return a ^ b; }

int64_t tf_not(int64_t a) { return ~a; }
uint64_t tf_not(uint64_t a) { return ~a; }

int64_t tf_shl(int64_t a, int64_t b) { return int64_t(uint64_t(a) << uint(b & 63l)); }
uint64_t tf_shl(uint64_t a, uint64_t b) { return a << uint(b & 63ul); }

int64_t tf_shr(int64_t a, int64_t b) { return a >> uint(b & 63l); }
uint64_t tf_shr(uint64_t a, uint64_t b) { return a >> uint(b & 63ul); }

int64_t tf_fma(int64_t a, int64_t b, int64_t c) { return a * b + c; }
uint64_t tf_fma(uint64_t a, uint64_t b, uint64_t c) { return a * b + c; }

int64_t tf_add(int64_t a, int64_t b) { return a + b; }
uint64_t tf_add(uint64_t a, uint64_t b) { return a + b; }

int64_t tf_to_int64(float a) {
    return (a >= -9223372036854775808.0 && a < 9223372036854775808.0) ? int64_t(a) : int64_t(0x8000000000000000ul);
}
int64_t tf_to_int64(int a) { return int64_t(a); }
int64_t tf_to_int64(uint a) { return int64_t(uint64_t(a)); }
int64_t tf_to_int64(bool a) { return a ? 1l : 0l; }
int64_t tf_to_int64(int64_t a) { return a; }
int64_t tf_to_int64(uint64_t a) { return int64_t(a); }

uint64_t tf_to_uint64(float a) {
    if (!(a >= -9223372036854775808.0 && a < 18446744073709551616.0)) return 0ul;
    return a >= 9223372036854775808.0 ? uint64_t(a) : uint64_t(int64_t(a));
}
uint64_t tf_to_uint64(int a) { return uint64_t(int64_t(a)); }
uint64_t tf_to_uint64(uint a) { return uint64_t(a); }
uint64_t tf_to_uint64(bool a) { return a ? 1ul : 0ul; }
uint64_t tf_to_uint64(int64_t a) { return uint64_t(a); }
uint64_t tf_to_uint64(uint64_t a) { return a; }

float tf_to_float(int64_t a) { return float(a); }
float tf_to_float(uint64_t a) { return float(a); }

int tf_to_int(int64_t a) { return int(unpackUint2x32(uint64_t(a)).x); }
int tf_to_int(uint64_t a) { return int(unpackUint2x32(a).x); }

uint tf_to_uint(int64_t a) { return unpackUint2x32(uint64_t(a)).x; }
uint tf_to_uint(uint64_t a) { return unpackUint2x32(a).x; }

bool tf_to_bool(int64_t a) { return a != 0l; }
bool tf_to_bool(uint64_t a) { return a != 0ul; }

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

float tf_to_float16(int64_t a) { return tf_round_float16(tf_i64_to_f32_odd(a)); }
float tf_to_float16(uint64_t a) { return tf_round_float16(tf_u64_to_f32_odd(a)); }

float tf_to_bfloat16(int64_t a) { return tf_round_bfloat16(tf_i64_to_f32_odd(a)); }
float tf_to_bfloat16(uint64_t a) { return tf_round_bfloat16(tf_u64_to_f32_odd(a)); }

int tf_to_int8(int64_t a) { return bitfieldExtract(tf_to_int(a), 0, 8); }
int tf_to_int8(uint64_t a) { return bitfieldExtract(tf_to_int(a), 0, 8); }
int tf_to_int16(int64_t a) { return bitfieldExtract(tf_to_int(a), 0, 16); }
int tf_to_int16(uint64_t a) { return bitfieldExtract(tf_to_int(a), 0, 16); }
uint tf_to_uint8(int64_t a) { return bitfieldExtract(tf_to_uint(a), 0, 8); }
uint tf_to_uint8(uint64_t a) { return bitfieldExtract(tf_to_uint(a), 0, 8); }
uint tf_to_uint16(int64_t a) { return bitfieldExtract(tf_to_uint(a), 0, 16); }
uint tf_to_uint16(uint64_t a) { return bitfieldExtract(tf_to_uint(a), 0, 16); }

// -- float64 and int64 together
double tf_to_float64(int64_t a) { return double(a); }
double tf_to_float64(uint64_t a) { return double(a); }

int64_t tf_to_int64(double a) {
    return (a >= -9223372036854775808.0lf && a < 9223372036854775808.0lf) ? int64_t(a)
                                                                          : int64_t(0x8000000000000000ul);
}

uint64_t tf_to_uint64(double a) {
    if (!(a >= -9223372036854775808.0lf && a < 18446744073709551616.0lf)) return 0ul;
    return a >= 9223372036854775808.0lf ? uint64_t(a) : uint64_t(int64_t(a));
}
