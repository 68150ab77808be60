// float32 math of our own: sin, cos, tan, asin, acos, atan, atan2, sinh, cosh, tanh, exp,
// exp2, log, log2, pow.
//
// Why not libm: glibc's vector functions (libmvec) and its scalar ones round differently in
// the last bits, so a value's sin depended on whether g++ vectorized its loop, on the
// array's size and on the element's position (a loop's scalar tail). These compute in
// double and return the float nearest that (within 1 ulp of the correctly rounded result),
// with no branches, calls or traps: g++ inlines and vectorizes them like any arithmetic, and
// a lane of a vector gets the same bits as a scalar (the build uses -ffp-contract=off, and
// every step is an IEEE operation that rounds once). Special values follow C's functions.

static inline double tf_fm_from_bits(uint64_t b) { double d; __builtin_memcpy(&d, &b, 8); return d; }
static inline uint64_t tf_fm_bits(double d) { uint64_t b; __builtin_memcpy(&b, &d, 8); return b; }
static inline uint32_t tf_fm_bits32(float f) { uint32_t b; __builtin_memcpy(&b, &f, 4); return b; }
static inline float tf_fm_from_bits32(uint32_t b) { float f; __builtin_memcpy(&f, &b, 4); return f; }
static inline bool tf_fm_negative(float x) { return (tf_fm_bits32(x) >> 31) != 0; }  // -0 too
static inline float tf_fm_magnitude(float x) { return tf_fm_from_bits32(tf_fm_bits32(x) & 0x7fffffffu); }
static inline bool tf_fm_finite(float x) { return (tf_fm_bits32(x) & 0x7f800000u) != 0x7f800000u; }

// c0 + x (c1 + x (c2 + ...)): a polynomial by Horner's rule
static inline double tf_fm_horner(double, double c) { return c; }
template <typename... Rest> static inline double tf_fm_horner(double x, double c, Rest... rest) {
    return c + x * tf_fm_horner(x, rest...);
}

#define TF_FM_PI_2 0x1.921fb54442d18p0
#define TF_FM_LN2 0x1.62e42fefa39efp-1

// 2^t (t clamped to [-200, 200], beyond every float's range; NaN stays NaN)
static inline double tf_fm_exp2(double t) {
    t = t < -200.0 ? -200.0 : t;
    t = t > 200.0 ? 200.0 : t;
    const double shifted = t + 0x1.8p52;  // t rounded to an integer k, in the low bits
    const double k = shifted - 0x1.8p52;
    const double x = (t - k) * TF_FM_LN2;  // 2^(t - k) = e^x, |x| <= 0.35: Taylor to x^10 (3e-13)
    const double p = tf_fm_horner(x, 1.0, 1.0, 0.5, 1.0 / 6.0, 1.0 / 24.0, 1.0 / 120.0,
                                  1.0 / 720.0, 1.0 / 5040.0, 1.0 / 40320.0, 1.0 / 362880.0,
                                  1.0 / 3628800.0);
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
    const double z = s * s;
    const double p = tf_fm_horner(z, 1.0, 1.0 / 3.0, 1.0 / 5.0, 1.0 / 7.0, 1.0 / 9.0, 1.0 / 11.0,
                                  1.0 / 13.0, 1.0 / 15.0);  // (to s^15: 4e-14)
    return 2.0 * s * p;
}

// C's results where log's argument is 0 (-inf), negative (NaN), +inf or NaN (itself)
static inline double tf_fm_log_special(float x, double r) {
    const double d = x;
    r = d == __builtin_inf() ? d : r;
    r = d == 0.0 ? -__builtin_inf() : r;
    r = d < 0.0 ? __builtin_nan("") : r;
    return d != d ? d : r;
}

static inline double tf_fm_log2_double(double d) {  // d >= 0, from a float (so normal in double)
    double e;
    const double m = tf_fm_log_mantissa(d, &e);
    double r = e + m * (1.0 / TF_FM_LN2);
    r = d == __builtin_inf() ? d : r;
    r = d == 0.0 ? -__builtin_inf() : r;
    return d != d ? d : r;
}

static inline float tf_exp_f32(float x) { return (float)tf_fm_exp2((double)x * 0x1.71547652b82fep0); }
static inline float tf_exp2_f32(float x) { return (float)tf_fm_exp2((double)x); }

static inline float tf_log_f32(float x) {
    double e;
    const double m = tf_fm_log_mantissa((double)x, &e);
    return (float)tf_fm_log_special(x, e * TF_FM_LN2 + m);
}

static inline float tf_log2_f32(float x) {
    double e;
    const double m = tf_fm_log_mantissa((double)x, &e);
    return (float)tf_fm_log_special(x, e + m * (1.0 / TF_FM_LN2));
}

static inline float tf_pow_f32(float x, float y) {
    double r = tf_fm_exp2((double)y * tf_fm_log2_double((double)tf_fm_magnitude(x)));
    const bool integer = y == __builtin_truncf(y);  // (the infinities count as even integers)
    const bool odd = integer && __builtin_truncf(y * 0.5f) * 2.0f != y;
    r = tf_fm_negative(x) && odd ? -r : r;
    r = x < 0.0f && tf_fm_finite(x) && !integer ? __builtin_nan("") : r;
    r = (x == -1.0f && !tf_fm_finite(y) && y == y) ? 1.0 : r;
    return (x == 1.0f || y == 0.0f) ? 1.0f : (float)r;
}

// 2/pi in 24-bit pieces: 2/pi = sum of tf_fm_two_over_pi[i] 2^(-24 (i + 1))
static const double tf_fm_two_over_pi[9] = {10680707.0, 7228996.0, 1387004.0, 2578385.0, 16069853.0,
                                            12639074.0, 9804092.0, 4427841.0, 16666979.0};

// a = |x| as r + q pi/2 with |r| <= pi/4 (a little more) and q in {0, 1, 2, 3}
static inline double tf_fm_reduce(float a, double* quadrant) {
    // below 2^24: k pi/2 with pi/2 in three parts, k times the first two exact
    const double d = a;
    const double k = __builtin_rint(d * 0x1.45f306dc9c883p-1);
    const double near = ((d - k * 0x1.921fb54p0) - k * 0x1.10b4611p-30) - k * 0x1.4c4c6628b80dcp-59;
    // from 2^24: a = m 2^e (m < 2^24, e >= 1) exactly, times 2/pi modulo 4 from the five
    // pieces that reach below 2^2 and above 2^-118
    const uint32_t bits = tf_fm_bits32(a);
    const int32_t raw = (int32_t)(bits >> 23) - 150;
    const int32_t e = raw < 1 ? 1 : raw;
    const int32_t dropped = ((e - 2) * 2731) >> 16;  // (e - 2) / 24: pieces whose terms are multiples of 4
    const int32_t first = dropped < 0 ? 0 : dropped;
    const double m = (double)(int32_t)((bits & 0x7fffffu) | 0x800000u);
    const double scale = (double)tf_fm_from_bits32((uint32_t)(e - 24 * (first + 1) + 127) << 23);  // 2^[-23, 1]
    const double t0 = m * tf_fm_two_over_pi[first] * scale;
    const double t1 = m * tf_fm_two_over_pi[first + 1] * scale * 0x1p-24;
    const double t2 = m * tf_fm_two_over_pi[first + 2] * scale * 0x1p-48;
    const double t3 = m * tf_fm_two_over_pi[first + 3] * scale * 0x1p-72;
    const double t4 = m * tf_fm_two_over_pi[first + 4] * scale * 0x1p-96;
    // t0, t1 modulo 4 and their sum are exact; t2 joins as a sum with its rounding error
    const double high = (t0 - 4.0 * __builtin_floor(t0 * 0.25)) + (t1 - 4.0 * __builtin_floor(t1 * 0.25));
    const double k1 = __builtin_rint(high);
    const double h = high - k1;
    const double s = h + t2;
    const double back = s - h;
    const double error = (h - (s - back)) + (t2 - back);
    const double k2 = __builtin_rint(s);
    const double far = ((s - k2) + ((t3 + t4) + error)) * TF_FM_PI_2;
    const bool is_far = d >= 0x1p24;
    const double turns = is_far ? k1 + k2 : k;
    *quadrant = turns - 4.0 * __builtin_floor(turns * 0.25);
    return is_far ? far : near;
}

static inline double tf_fm_sin_poly(double r) {  // |r| <= 0.8: Taylor to r^13 (4e-14)
    const double z = r * r;
    const double p = tf_fm_horner(z, 1.0 / 6.0, -1.0 / 120.0, 1.0 / 5040.0, -1.0 / 362880.0,
                                  1.0 / 39916800.0, -1.0 / 6227020800.0);
    return r - r * z * p;
}

static inline double tf_fm_cos_poly(double r) {  // |r| <= 0.8: Taylor to r^14 (2e-15)
    const double z = r * r;
    const double p = tf_fm_horner(z, -0.5, 1.0 / 24.0, -1.0 / 720.0, 1.0 / 40320.0,
                                  -1.0 / 3628800.0, 1.0 / 479001600.0, -1.0 / 87178291200.0);
    return 1.0 + z * p;
}

static inline float tf_sin_f32(float x) {
    double q;
    const double r = tf_fm_reduce(tf_fm_magnitude(x), &q);
    const double s = tf_fm_sin_poly(r), c = tf_fm_cos_poly(r);
    double v = q == 0.0 ? s : q == 1.0 ? c : q == 2.0 ? -s : -c;
    v = tf_fm_negative(x) ? -v : v;
    return tf_fm_finite(x) ? (float)v : x - x;
}

static inline float tf_cos_f32(float x) {
    double q;
    const double r = tf_fm_reduce(tf_fm_magnitude(x), &q);
    const double s = tf_fm_sin_poly(r), c = tf_fm_cos_poly(r);
    const double v = q == 0.0 ? c : q == 1.0 ? -s : q == 2.0 ? -c : s;
    return tf_fm_finite(x) ? (float)v : x - x;
}

static inline float tf_tan_f32(float x) {
    double q;
    const double r = tf_fm_reduce(tf_fm_magnitude(x), &q);
    const double s = tf_fm_sin_poly(r), c = tf_fm_cos_poly(r);
    double v = (q == 0.0 || q == 2.0) ? s / c : -c / s;
    v = tf_fm_negative(x) ? -v : v;
    return tf_fm_finite(x) ? (float)v : x - x;
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

static inline float tf_sinh_f32(float x) {
    const double a = tf_fm_magnitude(x);
    const double e = tf_fm_exp(a);
    const double z = a * a;  // below 2^-10, e - 1/e would cancel: Taylor to a^5
    double v = a < 0x1p-10 ? a + a * z * (1.0 / 6.0 + z * (1.0 / 120.0)) : 0.5 * (e - 1.0 / e);
    v = tf_fm_negative(x) ? -v : v;
    return (float)v;
}

static inline float tf_cosh_f32(float x) {
    const double e = tf_fm_exp(tf_fm_magnitude(x));
    return (float)(0.5 * (e + 1.0 / e));
}

static inline float tf_tanh_f32(float x) {
    const double a = tf_fm_magnitude(x);
    const double z = a * a;  // below 2^-10, 1 - 2 / (e^2a + 1) would cancel: Taylor to a^7
    double v = a < 0x1p-10 ? a - a * z * (1.0 / 3.0 - z * (2.0 / 15.0 - z * (17.0 / 315.0)))
                           : 1.0 - 2.0 / (tf_fm_exp(2.0 * a) + 1.0);
    v = tf_fm_negative(x) ? -v : v;
    return (float)v;
}
#undef TF_FM_PI_2
#undef TF_FM_LN2
