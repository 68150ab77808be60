// float32 math of our own: sin, cos, tan, asin, acos, atan, atan2, sinh, cosh, tanh, exp,
// exp2, log, log2, pow.
//
// Why not libm: glibc's vector functions (libmvec) and its scalar ones round differently in
// the last bits, so a value's sin depended on whether g++ vectorized its loop, on the
// array's size and on the element's position (a loop's scalar tail). These compute in
// double, with polynomials fitted for a relative error under 2^-40, and return the float
// nearest that: within 1 ulp of the correctly rounded result, almost always equal to it. No
// branches, calls or traps: g++ inlines and vectorizes them like any arithmetic, and a lane
// of a vector gets the same bits as a scalar (the build uses -ffp-contract=off, and every
// step is an IEEE operation that rounds once: the polynomials' fused multiply-adds too,
// where the CPU has them). Special values follow C. (tools/fit_float_math.py fits the
// polynomials.)

static inline double tf_fm_from_bits(uint64_t b) { double d; __builtin_memcpy(&d, &b, 8); return d; }
static inline uint64_t tf_fm_bits(double d) { uint64_t b; __builtin_memcpy(&b, &d, 8); return b; }
static inline uint32_t tf_fm_bits32(float f) { uint32_t b; __builtin_memcpy(&b, &f, 4); return b; }
static inline float tf_fm_from_bits32(uint32_t b) { float f; __builtin_memcpy(&f, &b, 4); return f; }
static inline bool tf_fm_negative(float x) { return (tf_fm_bits32(x) >> 31) != 0; }  // -0 too
static inline float tf_fm_magnitude(float x) { return tf_fm_from_bits32(tf_fm_bits32(x) & 0x7fffffffu); }
static inline bool tf_fm_finite(float x) { return (tf_fm_bits32(x) & 0x7f800000u) != 0x7f800000u; }

// a b + c, rounded once where the CPU fuses it (so the same in every lane), else twice
#ifdef __FMA__
static inline double tf_fm_mad(double a, double b, double c) { return __builtin_fma(a, b, c); }
#else
static inline double tf_fm_mad(double a, double b, double c) { return a * b + c; }
#endif

// c0 + x (c1 + x (c2 + ...)): a polynomial by Horner's rule
static inline double tf_fm_horner(double, double c) { return c; }
template <typename... Rest> static inline double tf_fm_horner(double x, double c, Rest... rest) {
    return tf_fm_mad(x, tf_fm_horner(x, rest...), c);
}

#define TF_FM_PI_2 0x1.921fb54442d18p0
#define TF_FM_LN2 0x1.62e42fefa39efp-1

// 2^t (t clamped to [-200, 200], beyond every float's range; NaN stays NaN)
static inline double tf_fm_exp2(double t) {
    t = t < -200.0 ? -200.0 : t;
    t = t > 200.0 ? 200.0 : t;
    const double shifted = t + 0x1.8p52;  // t rounded to an integer k, in the low bits
    const double k = shifted - 0x1.8p52;
    const double f = t - k;  // 2^f, |f| <= 1/2: 1 + f P(f) (2^-40)
    const double p = tf_fm_mad(f, tf_fm_horner(f, 0x1.62e42fef89d11p-1, 0x1.ebfbdff8edeb7p-3,
                                               0x1.c6b08dced3e78p-5, 0x1.3b2ab5ed6df40p-7,
                                               0x1.5d874d0679010p-10, 0x1.430aa884f0aa0p-13,
                                               0x1.00d853873ee00p-16, 0x1.61c4eeee7a400p-20), 1.0);
    const uint64_t exponent = tf_fm_bits(shifted) - tf_fm_bits(0x1.8p52) + 1023;  // k + 1023
    return p * tf_fm_from_bits(exponent << 52);
}

// log(m) for d = m 2^e, m in [sqrt(1/2), sqrt(2)); d positive, finite and normal
static inline double tf_fm_log_mantissa(double d, double* e) {
    const uint64_t b = tf_fm_bits(d);
    const double biased = tf_fm_from_bits((b >> 52) | 0x4330000000000000ull) - 0x1p52;
    const double m = tf_fm_from_bits((b & 0xfffffffffffffull) | 0x3ff0000000000000ull);  // [1, 2)
    const bool high = m > 0x1.6a09e667f3bcdp0;
    const double mantissa = high ? m * 0.5 : m;
    *e = high ? biased - 1022.0 : biased - 1023.0;
    const double s = (mantissa - 1.0) / (mantissa + 1.0);  // log m = 2 atanh s, |s| <= 0.172
    const double z = s * s;  // 2 s + 2 s z R(z) (2^-51: pow multiplies its error by up to 150)
    const double p = tf_fm_horner(z, 0x1.5555555553955p-2, 0x1.999999a2979b5p-3, 0x1.2492417462808p-3,
                                  0x1.c7227a45aac1bp-4, 0x1.732bd516ceccdp-4, 0x1.587bb07f23d2cp-4);
    return tf_fm_mad(2.0 * s, z * p, 2.0 * s);
}

// C's results where log's argument is 0 (-inf), negative (NaN), +inf or NaN (itself)
static inline double tf_fm_log_special(float x, double r) {
    const double d = x;
    r = d == __builtin_inf() ? d : r;
    r = d == 0.0 ? -__builtin_inf() : r;
    r = d < 0.0 ? __builtin_nan("") : r;
    return d != d ? d : r;
}

static inline double tf_fm_log2(float x) {  // in double, with C's special values
    double e;
    const double m = tf_fm_log_mantissa((double)x, &e);
    return tf_fm_log_special(x, e + m * (1.0 / TF_FM_LN2));
}

static inline float tf_exp_f32(float x) { return (float)tf_fm_exp2((double)x * 0x1.71547652b82fep0); }
static inline float tf_exp2_f32(float x) { return (float)tf_fm_exp2((double)x); }

static inline float tf_log_f32(float x) {
    double e;
    const double m = tf_fm_log_mantissa((double)x, &e);
    return (float)tf_fm_log_special(x, e * TF_FM_LN2 + m);
}

static inline float tf_log2_f32(float x) { return (float)tf_fm_log2(x); }

static inline float tf_pow_f32(float x, float y) {
    double r = tf_fm_exp2((double)y * tf_fm_log2(tf_fm_magnitude(x)));
    const bool integer = y == __builtin_truncf(y);  // (the infinities count as even integers)
    const bool odd = integer && __builtin_truncf(y * 0.5f) * 2.0f != y;
    r = tf_fm_negative(x) && odd ? -r : r;
    r = x < 0.0f && tf_fm_finite(x) && !integer ? __builtin_nan("") : r;
    r = (x == -1.0f && !tf_fm_finite(y) && y == y) ? 1.0 : r;
    return (x == 1.0f || y == 0.0f) ? 1.0f : (float)r;
}

// Bits [8j - 1, 8j + 62] of 2/pi's binary fraction (bit i weighs 2^-i). A float's exponent
// picks two of them, 64 bits apart (and its low 3 bits shift the mantissa): the 96 bits of
// 2/pi that decide its turns modulo 4.
static const uint64_t tf_fm_two_over_pi[22] = {
    0x28be60db9391054aull, 0xbe60db9391054a7full, 0x60db9391054a7f09ull, 0xdb9391054a7f09d5ull,
    0x9391054a7f09d5f4ull, 0x91054a7f09d5f47dull, 0x054a7f09d5f47d4dull, 0x4a7f09d5f47d4d37ull,
    0x7f09d5f47d4d3770ull, 0x09d5f47d4d377036ull, 0xd5f47d4d377036d8ull, 0xf47d4d377036d8a5ull,
    0x7d4d377036d8a566ull, 0x4d377036d8a5664full, 0x377036d8a5664f10ull, 0x7036d8a5664f10e4ull,
    0x36d8a5664f10e410ull, 0xd8a5664f10e4107full, 0xa5664f10e4107f94ull, 0x664f10e4107f9458ull,
    0x4f10e4107f9458eaull, 0x10e4107f9458eaf7ull};

// a 2/pi modulo 4 (quarter turns) in units of 2^-62, for a >= 2^24 (a = m 2^e, e >= 1, with
// m an integer, so the bits of 2/pi that weigh 4 or more drop out); off by at most 2 units
static inline uint64_t tf_fm_quarter_turns(float a) {
    const uint32_t bits = tf_fm_bits32(a);
    const int32_t raw = (int32_t)(bits >> 23) - 150;
    const uint32_t e = raw < 1 ? 1u : (uint32_t)raw;
    const int32_t q = (int32_t)(e >> 3);  // (a signed index: g++ gathers with those)
    const uint64_t m = (uint64_t)((bits & 0x7fffffu) | 0x800000u) << (e & 7u);  // < 2^31
    const uint64_t low = tf_fm_two_over_pi[q + 8] >> 32;
    return m * tf_fm_two_over_pi[q] + ((m * low) >> 32);  // (modulo 2^64: whole turns drop out)
}

// sin(|x|), or cos(x) when `cosine`, as (-1)^n sin(r) with |r| <= pi/2: |x| = r + k pi (or
// r + (k + 1/2) pi, from which n = k + 1). Below 2^24, pi in three parts (k times the first
// two is exact); from 2^24, tf_fm_quarter_turns.
static inline double tf_fm_sin_turns(float x, bool cosine, bool large = true) {
    const float a = tf_fm_magnitude(x);
    const double d = a;
    const double k = __builtin_rint(tf_fm_mad(d, 0x1.45f306dc9c883p-2, cosine ? -0.5 : 0.0));
    const double kk = cosine ? k + 0.5 : k;
    const double near = ((d - kk * 0x1.921fb54p1) - kk * 0x1.10b461p-29) - kk * 0x1.a62633145c06ep-57;
    const double n = cosine ? k + 1.0 : k;
    const uint64_t turns = tf_fm_quarter_turns(a) + (cosine ? 1ull << 62 : 0ull);
    const uint64_t far_n = (turns + (1ull << 62)) >> 63;  // the nearest even count of quarters, halved, mod 2
    const double far = (double)(int64_t)(turns - (far_n << 63)) * 0x1.921fb54442d18p-62;
    const bool is_far = large && d >= 0x1p24;
    const double r = is_far ? far : near;
    const double z = r * r;  // sin r = r + r z Q(z) (2^-43)
    const double s = tf_fm_mad(r * z, tf_fm_horner(z, -0x1.5555555546f79p-3, 0x1.1111110a4a730p-7,
                                                   -0x1.a019fd53ad1a8p-13, 0x1.71dcf70e90400p-19,
                                                   -0x1.ae03b95700000p-26, 0x1.52d74e6000000p-33), r);
    // 0 or 1 (a double, not a bool: g++ vectorizes this select)
    const double odd = is_far ? (double)(int64_t)far_n : n - 2.0 * __builtin_floor(n * 0.5);
    return odd != 0.0 ? -s : s;
}

// sin, cos and tan, with the reduction from 2^24 or without it (`large`: for |x| < 2^24 both
// give the same bits)
static inline float tf_fm_sin(float x, bool large = true) {
    const double v = tf_fm_sin_turns(x, false, large);
    return tf_fm_finite(x) ? (float)(tf_fm_negative(x) ? -v : v) : x - x;
}

static inline float tf_fm_cos(float x, bool large = true) {
    return tf_fm_finite(x) ? (float)tf_fm_sin_turns(x, true, large) : x - x;
}

static inline float tf_fm_tan(float x, bool large = true) {  // each with its own reduction (exact near the poles)
    const double v = tf_fm_sin_turns(x, false, large) / tf_fm_sin_turns(x, true, large);
    return tf_fm_finite(x) ? (float)(tf_fm_negative(x) ? -v : v) : x - x;
}

// atan(a) for a >= 0 (inf too; NaN stays NaN): 1/a above 1, then two halvings of the
// angle (tan(t/2) = u / (1 + sqrt(1 + u^2))) to |u| <= tan(pi/16), then Taylor to u^19 (1e-15)
static inline double tf_fm_atan(double a) {
    const bool inverted = a > 1.0;
    double u = inverted ? 1.0 / a : a;
    u = u / (1.0 + __builtin_sqrt(1.0 + u * u));
    u = u / (1.0 + __builtin_sqrt(1.0 + u * u));
    const double z = u * u;
    const double p = tf_fm_horner(z, -1.0 / 3.0, 1.0 / 5.0, -1.0 / 7.0, 1.0 / 9.0, -1.0 / 11.0,
                                  1.0 / 13.0, -1.0 / 15.0, 1.0 / 17.0, -1.0 / 19.0);
    const double angle = 4.0 * (u + u * z * p);
    return inverted ? TF_FM_PI_2 - angle : angle;
}

static inline float tf_atan_f32(float x) {
    const double v = tf_fm_atan((double)tf_fm_magnitude(x));
    return (float)(tf_fm_negative(x) ? -v : v);
}

static inline float tf_atan2_f32(float y, float x) {
    const double ay = tf_fm_magnitude(y), ax = tf_fm_magnitude(x);
    double v = tf_fm_atan(ay / ax);
    v = (ay == 0.0 && ax == 0.0) ? 0.0 : v;
    v = (ay == __builtin_inf() && ax == __builtin_inf()) ? TF_FM_PI_2 * 0.5 : v;
    v = tf_fm_negative(x) ? 2.0 * TF_FM_PI_2 - v : v;
    return (float)(tf_fm_negative(y) ? -v : v);
}

static inline float tf_asin_f32(float x) {  // atan(x / sqrt(1 - x^2)); 1 - x^2 is exact in double
    const double a = tf_fm_magnitude(x);
    const double v = tf_fm_atan(a / __builtin_sqrt(1.0 - a * a));
    return (float)(tf_fm_negative(x) ? -v : v);
}

static inline float tf_acos_f32(float x) {  // 2 atan(sqrt((1 - x) / (1 + x))), with no cancellation
    const double d = x;
    return (float)(2.0 * tf_fm_atan(__builtin_sqrt((1.0 - d) / (1.0 + d))));
}

// e^a for sinh, cosh and tanh (a = |x|)
static inline double tf_fm_exp(double a) { return tf_fm_exp2(a * 0x1.71547652b82fep0); }

// below 1 (sinh) and 1/2 (tanh), where e^a - 1/e^a and 1 - 2 / (e^2a + 1) would cancel:
// a + a z P(z), z = a^2 (2^-43, 2^-42)
static inline float tf_sinh_f32(float x) {
    const double a = tf_fm_magnitude(x);
    const double e = tf_fm_exp(a);
    const double z = a * a;
    const double small = tf_fm_mad(a * z, tf_fm_horner(z, 0x1.5555555576cf6p-3, 0x1.111110f2e87b9p-7,
                                                       0x1.a01a24c019f60p-13, 0x1.71cc6fdd04400p-19,
                                                       0x1.b68b578b40000p-26), a);
    const double v = a < 1.0 ? small : 0.5 * (e - 1.0 / e);
    return (float)(tf_fm_negative(x) ? -v : v);
}

static inline float tf_cosh_f32(float x) {
    const double e = tf_fm_exp(tf_fm_magnitude(x));
    return (float)(0.5 * (e + 1.0 / e));
}

static inline float tf_tanh_f32(float x) {
    const double a = tf_fm_magnitude(x);
    const double z = a * a;
    const double small = tf_fm_mad(a * z, tf_fm_horner(z, -0x1.5555555437292p-2, 0x1.1111102b8d1cap-3,
                                                       -0x1.ba1b24c755e52p-5, 0x1.663f13d77fed7p-6,
                                                       -0x1.214c0300cb34dp-7, 0x1.c025b01b6ee30p-9,
                                                       -0x1.0341f7bf61042p-10), a);
    const double v = a < 0.5 ? small : 1.0 - 2.0 / (tf_fm_exp(2.0 * a) + 1.0);
    return (float)(tf_fm_negative(x) ? -v : v);
}
#undef TF_FM_PI_2
#undef TF_FM_LN2

#if defined(TF_MATH_CORE) && !defined(TF_MATH_CORE_LIBRARY)
// A unit that math_core.py links to the math core library calls its sin, cos and tan: its
// vectors take the reduction from 2^24 only when a lane needs it (the same bits either way).
#define TF_MATH_STRING2(x) #x
#define TF_MATH_STRING(x) TF_MATH_STRING2(x)
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define TF_MATH_VECTOR __attribute__((simd("notinbranch")))  // (vectorized loops call its vector versions)
#else
#define TF_MATH_VECTOR
#endif
extern "C" TF_MATH_VECTOR __attribute__((const, nothrow)) float tf_sin_f32(float) __asm__(TF_MATH_STRING(TF_MATH_CORE) "_sin");
extern "C" TF_MATH_VECTOR __attribute__((const, nothrow)) float tf_cos_f32(float) __asm__(TF_MATH_STRING(TF_MATH_CORE) "_cos");
extern "C" TF_MATH_VECTOR __attribute__((const, nothrow)) float tf_tan_f32(float) __asm__(TF_MATH_STRING(TF_MATH_CORE) "_tan");
#else
static inline float tf_sin_f32(float x) { return tf_fm_sin(x); }
static inline float tf_cos_f32(float x) { return tf_fm_cos(x); }
static inline float tf_tan_f32(float x) { return tf_fm_tan(x); }
#endif
