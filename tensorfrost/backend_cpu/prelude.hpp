// tensorfrost C++ prelude: the helpers every generated program uses.
// Semantics match the op table's numpy references (tensorfrost/ir/ops_math.py).
// Only light C headers: parsing <cmath> or <string> would cost more than compiling a
// kernel. Math comes from GCC builtins and libm (declared below).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TF_INF __builtin_inff()
#define TF_NAN __builtin_nanf("")

struct tf_arg {
    void* data;
    int32_t shape[8];
    int32_t rank;
};

// Where the message of a failed check goes (set by tf_main from the caller's buffer).
// The globals are C++17 inline variables: a large program is compiled as several units
// (in parallel), which must share one copy.
inline char* tf_error_out = nullptr;
inline int tf_error_size = 0;

// The message `format` with {0}, {1}... replaced by `values` ({{ and }}: Python's escapes of
// braces) into out[0, size), cut short there and ended by a 0 (when size > 0). Returns the
// whole message's length, so that a caller can make room for all of it.
static long long tf_format(char* out, long long size, const char* format, const long long* values, int count) {
    long long used = 0;
    auto put = [&](char c) {
        if (used + 1 < size) out[used] = c;
        ++used;
    };
    for (const char* p = format; *p; ++p) {
        if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
            put(*p++);
        } else if (p[0] == '{' && p[1] >= '0' && p[1] <= '9' && p[2] == '}') {
            int k = p[1] - '0';
            char number[24] = "?";
            if (k < count) snprintf(number, sizeof(number), "%lld", values[k]);
            for (const char* q = number; *q; ++q) put(*q);
            p += 2;
        } else {
            put(*p);
        }
    }
    if (size > 0) out[used < size ? used : size - 1] = 0;
    return used;
}

// Report a failed check into the caller's buffer (runtime.py sizes it for the program's
// longest message). Returns 1, the status the host function returns (buffers are freed by
// their destructors).
static int tf_fail(const char* format, const long long* values, int count) {
    if (tf_error_out && tf_error_size > 0) tf_format(tf_error_out, tf_error_size, format, values, count);
    return 1;
}

// Where buffers come from: the caller passes its allocator (a pool that reuses freed
// buffers); without one, plain aligned_alloc / free.
// It also carries the flag a Ctrl-C sets (pool.c), checked between kernels.
// And the process's worker threads (pool.c), which run kernels' rows: tf_parallel.
// And the counters of the optimizations that fire at run time (tensorfrost/optimizations.py).
typedef void (*tf_task_fn)(void* context, long long begin, long long end);
typedef void (*tf_parallel_fn)(long long count, tf_task_fn fn, void* context);
struct tf_allocator {
    void* (*alloc)(long long bytes);
    void (*release)(void* data);
    volatile int* interrupted;
    tf_parallel_fn parallel;
    long long* counters;
};
inline void* tf_default_alloc(long long bytes) { return aligned_alloc(64, (size_t)bytes); }
inline void tf_default_release(void* data) { free(data); }
inline tf_allocator tf_allocator_in_use = {tf_default_alloc, tf_default_release, nullptr, nullptr, nullptr};

// Optimization `k` (its index in optimizations.NAMES) fired once.
#define TF_COUNT(k) \
    if (tf_allocator_in_use.counters) __atomic_fetch_add(&tf_allocator_in_use.counters[k], 1, __ATOMIC_RELAXED)

// fn(context, begin, end) over the tasks [0, count), on the worker threads (OpenMP's without
// them). One function, not part of the template below: an OpenMP region in the template
// was outlined again for every kernel, about a third of g++'s time on a small kernel.
static void tf_parallel_tasks(long long count, tf_task_fn fn, void* context) {
    if (tf_allocator_in_use.parallel) {
        tf_allocator_in_use.parallel(count, fn, context);
        return;
    }
    #pragma omp parallel for schedule(static)
    for (long long k = 0; k < count; k++) fn(context, k, k + 1);
}

// body(begin, end) over the tasks [0, count).
template <class F> static inline void tf_parallel(long long count, F body) {
    tf_parallel_tasks(count, [](void* f, long long begin, long long end) { (*(F*)f)(begin, end); }, &body);
}

// Status 2: stopped by Ctrl-C (the caller raises KeyboardInterrupt).
#define TF_STOP_IF_INTERRUPTED() \
    if (tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) return 2

// Bytes of a buffer of `count` elements of `element_bytes`: at least one 32-bit word, a
// multiple of 64 bytes.
static inline long long tf_buffer_bytes(long long count, int element_bytes = 4) {
    long long bytes = (count > 0 ? count * element_bytes : 1);
    return (bytes + 63) / 64 * 64;
}

// A buffer of `count` elements (32-bit words unless `element_bytes` says otherwise), freed
// when it goes out of scope unless released as an output. If it cannot be allocated,
// `data` is null and the error message is set.
struct tf_buffer {
    void* data = nullptr;
    long long bytes = 0;
    explicit tf_buffer(long long count, const char* name, int element_bytes = 4) {
        if (count > 2147483647LL) {
            tf_fail("buffer {0} has more elements than the 2147483647 a tensor can hold", &count, 1);
            return;
        }
        bytes = tf_buffer_bytes(count, element_bytes);
        data = tf_allocator_in_use.alloc(bytes);
        if (!data && tf_error_out) snprintf(tf_error_out, (size_t)tf_error_size,
                                            "out of memory allocating %lld bytes for %s", bytes, name);
    }
    tf_buffer(const tf_buffer&) = delete;
    tf_buffer& operator=(const tf_buffer&) = delete;
    ~tf_buffer() { reset(); }
    void* release() { void* d = data; data = nullptr; return d; }
    void reset() { if (data) tf_allocator_in_use.release(data); data = nullptr; }
};

static inline int32_t tf_min_index(int32_t a, int32_t b) { return a < b ? a : b; }
static inline int32_t tf_max_index(int32_t a, int32_t b) { return a > b ? a : b; }
// As max then min, not nested ?: which GCC if-converts into masked loads that stop it from
// vectorizing a row whose loads clamp their row index (a fused stencil chain's kernels).
static inline int32_t tf_clamp_index(int32_t i, int32_t n) {
    const int32_t hi = n > 0 ? n - 1 : 0;
    const int32_t low = i > 0 ? i : 0;
    return low < hi ? low : hi;
}

// Helpers named by the kind of value they take (ops_math.value_code: _f32 for float and the
// 16-bit floats, _f64, _i32 for int8 to int32, _i64, _u32, _u64, _b): the op table says which
// one an op's operands call, and spells inline what C++ has built in.

// Wrapping signed arithmetic (as numpy's): signed overflow is undefined in C++, so data
// values use these; index arithmetic, which cannot overflow, is left plain so that the
// compiler can analyze addresses (-fwrapv would forbid that everywhere).
#define TF_WRAPPING(code, T, U) \
    static inline T tf_wrap_add_##code(T a, T b) { return (T)((U)a + (U)b); } \
    static inline T tf_wrap_sub_##code(T a, T b) { return (T)((U)a - (U)b); } \
    static inline T tf_wrap_mul_##code(T a, T b) { return (T)((U)a * (U)b); } \
    static inline T tf_wrap_neg_##code(T a) { return (T)((U)0 - (U)a); } \
    static inline T tf_wrap_fma_##code(T a, T b, T c) { return (T)((U)a * (U)b + (U)c); }
TF_WRAPPING(i32, int32_t, uint32_t)
TF_WRAPPING(i64, int64_t, uint64_t)
#undef TF_WRAPPING

// Integer arithmetic with C semantics made total: x / 0 == 0 and x % 0 == 0, INT_MIN / -1
// wraps; floordiv is numpy's floor_divide.
#define TF_SIGNED(code, T, U) \
    static inline T tf_div_##code(T a, T b) { return b == 0 ? 0 : (b == -1 ? (T)((U)0 - (U)a) : a / b); } \
    static inline T tf_mod_##code(T a, T b) { return (b == 0 || b == -1) ? 0 : a % b; } \
    static inline T tf_floordiv_##code(T a, T b) { \
        if (b == 0) return 0; \
        const T q = tf_div_##code(a, b); \
        return (b != -1 && a % b != 0 && ((a < 0) != (b < 0))) ? (T)((U)q - 1) : q; \
    } \
    static inline T tf_abs_##code(T a) { return a < 0 ? (T)((U)0 - (U)a) : a; } \
    static inline T tf_sign_##code(T a) { return (T)((a > 0) - (a < 0)); }
#define TF_UNSIGNED(code, T) \
    static inline T tf_div_##code(T a, T b) { return b == 0 ? 0 : a / b; } \
    static inline T tf_mod_##code(T a, T b) { return b == 0 ? 0 : a % b; } \
    static inline T tf_floordiv_##code(T a, T b) { return b == 0 ? 0 : a / b; } \
    static inline T tf_sign_##code(T a) { return a > 0 ? 1 : 0; }
TF_SIGNED(i32, int32_t, uint32_t)
TF_SIGNED(i64, int64_t, uint64_t)
TF_UNSIGNED(u32, uint32_t)
TF_UNSIGNED(u64, uint64_t)
#undef TF_SIGNED
#undef TF_UNSIGNED

// Shifts by an amount taken modulo the bits (8- and 16-bit values are masked by the op table)
static inline int32_t tf_shl_i32(int32_t a, int32_t b) { return (int32_t)((uint32_t)a << (b & 31)); }
static inline uint32_t tf_shl_u32(uint32_t a, uint32_t b) { return a << (b & 31u); }
static inline int32_t tf_shr_i32(int32_t a, int32_t b) { return a >> (b & 31); }
static inline uint32_t tf_shr_u32(uint32_t a, uint32_t b) { return a >> (b & 31u); }
static inline int64_t tf_shl_i64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a << (b & 63)); }
static inline uint64_t tf_shl_u64(uint64_t a, uint64_t b) { return a << (b & 63u); }
static inline int64_t tf_shr_i64(int64_t a, int64_t b) { return a >> (b & 63); }
static inline uint64_t tf_shr_u64(uint64_t a, uint64_t b) { return a >> (b & 63u); }

// numpy's floor_divide of floats: the quotient of a - fmod(a, b) (exact), one less where the
// remainder's sign differs from b's, rounded to the nearest integer; x // 0 is x / 0.
template <class F> static inline F tf_float_floordiv(F a, F b, F m) {
    if (b == 0) return a / b;
    F d = (a - m) / b;
    if (m != 0 && (b < 0) != (m < 0)) d -= 1;
    if (d == 0) return __builtin_copysign(0.0, (double)(a / b));
    const F f = (F)__builtin_floor((double)d);
    return d - f > (F)0.5 ? f + 1 : f;
}
static inline float tf_floordiv_f32(float a, float b) { return tf_float_floordiv(a, b, __builtin_fmodf(a, b)); }
static inline double tf_floordiv_f64(double a, double b) { return tf_float_floordiv(a, b, __builtin_fmod(a, b)); }
static inline float tf_sign_f32(float a) { return a > 0.0f ? 1.0f : (a < 0.0f ? -1.0f : a); }
static inline double tf_sign_f64(double a) { return a > 0.0 ? 1.0 : (a < 0.0 ? -1.0 : a); }

// min / max propagate NaN, as numpy's minimum / maximum do (for integers a != a is false).
#define TF_ORDER(code, T) \
    static inline T tf_min_##code(T a, T b) { return (a < b || a != a) ? a : b; } \
    static inline T tf_max_##code(T a, T b) { return (a > b || a != a) ? a : b; } \
    static inline T tf_clamp_##code(T x, T lo, T hi) { return tf_min_##code(tf_max_##code(x, lo), hi); }
TF_ORDER(f32, float)
TF_ORDER(f64, double)
TF_ORDER(i32, int32_t)
TF_ORDER(i64, int64_t)
TF_ORDER(u32, uint32_t)
TF_ORDER(u64, uint64_t)
#undef TF_ORDER

static inline uint32_t tf_reversebits(uint32_t v) {
    v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
    v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
    v = ((v >> 4) & 0x0F0F0F0Fu) | ((v & 0x0F0F0F0Fu) << 4);
    v = ((v >> 8) & 0x00FF00FFu) | ((v & 0x00FF00FFu) << 8);
    return (v >> 16) | (v << 16);
}

// double math through glibc's scalar libm (float32's is our own, float_math.hpp, appended
// to this prelude). Not declared SIMD-capable: libmvec's vector versions round differently
// from these, and a value's result must not depend on whether its loop was vectorized. They
// are distinct names bound to the same symbols, so GCC does not merge sin and cos of one
// value into sincos.
#define TF_LIBM(name, args) extern "C" __attribute__((const, nothrow)) double tf_libm_##name args __asm__(#name);
TF_LIBM(sin, (double)) TF_LIBM(cos, (double)) TF_LIBM(tan, (double)) TF_LIBM(asin, (double))
TF_LIBM(acos, (double)) TF_LIBM(atan, (double)) TF_LIBM(sinh, (double)) TF_LIBM(cosh, (double))
TF_LIBM(tanh, (double)) TF_LIBM(exp, (double)) TF_LIBM(exp2, (double)) TF_LIBM(log, (double))
TF_LIBM(log2, (double)) TF_LIBM(pow, (double, double)) TF_LIBM(atan2, (double, double))
#undef TF_LIBM

static inline float tf_smoothstep_f32(float e0, float e1, float x) {
    const float t = tf_clamp_f32((x - e0) / (e1 - e0), 0.0f, 1.0f);
    return t * t * (3.0f - 2.0f * t);
}
static inline double tf_smoothstep_f64(double e0, double e1, double x) {
    const double t = tf_clamp_f64((x - e0) / (e1 - e0), 0.0, 1.0);
    return t * t * (3.0 - 2.0 * t);
}

// 16-bit floats: float16 (IEEE half) and bfloat16 bits from a float32, rounded to nearest
// even (as numpy and ml_dtypes round), and back. Their values compute in float32. No
// branches (results chosen by bit masks), so that loops converting them vectorize.
static inline float tf_f16_to_f32(uint16_t h) {
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, em = h & 0x7FFFu;
    uint32_t bits = em << 13;
    float f;
    memcpy(&f, &bits, 4);
    f *= 0x1p112f;  // rebias the exponent; exact, and right for subnormal halves too
    uint32_t out;
    memcpy(&out, &f, 4);
    const uint32_t special = 0u - (uint32_t)(em >= 0x7C00u);  // inf, NaN: all ones
    out = (out & ~special) | ((0x7F800000u | ((em & 0x3FFu) << 13)) & special);
    out |= sign;
    memcpy(&f, &out, 4);
    return f;
}
static inline uint16_t tf_f32_to_f16(float fl) {
    uint32_t f;
    memcpy(&f, &fl, 4);
    const uint32_t sign = f & 0x80000000u;
    f ^= sign;
    const uint32_t magic = 126u << 23;  // 0.5f: adding it rounds a subnormal half's value into the low bits
    float t;
    memcpy(&t, &f, 4);
    float m;
    memcpy(&m, &magic, 4);
    t += m;
    uint32_t tb;
    memcpy(&tb, &t, 4);
    const uint32_t sub = tb - magic;
    const uint32_t norm = (f - (112u << 23) + 0xFFFu + ((f >> 13) & 1u)) >> 13;  // (rebiased, nearest even)
    const uint32_t small = 0u - (uint32_t)(f < (113u << 23)), big = 0u - (uint32_t)(f >= (143u << 23));
    const uint32_t nan = 0u - (uint32_t)(f > 0x7F800000u);
    uint32_t o = (sub & small) | (norm & ~small);
    o = (o & ~big) | (((0x7E00u & nan) | (0x7C00u & ~nan)) & big);
    return (uint16_t)(o | (sign >> 16));
}
static inline float tf_bf16_to_f32(uint16_t h) {
    const uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}
static inline uint16_t tf_f32_to_bf16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    const uint32_t nan = 0u - (uint32_t)((x & 0x7FFFFFFFu) > 0x7F800000u);  // NaN stays (quiet) NaN
    const uint32_t rounded = (x + 0x7FFFu + ((x >> 16) & 1u)) >> 16;
    return (uint16_t)((rounded & ~nan) | (((x >> 16) | 0x40u) & nan));
}
// A double as a float rounded to odd: then rounding that float to a 16-bit float gives the
// double correctly rounded (no double rounding: float32 has more than 2 * 11 + 2 bits).
static inline float tf_f64_to_f32_odd(double d) {
    float f = (float)d;
    if ((double)f != d && d == d) {
        uint32_t bits;
        memcpy(&bits, &f, 4);
        if (__builtin_fabs((double)f) > __builtin_fabs(d)) bits -= 1;  // rounded away from zero: back toward it
        bits |= 1u;
        memcpy(&f, &bits, 4);
    }
    return f;
}

// Conversions the op table does not spell as C++ casts: floats to integers (out of range:
// INT32_MIN / INT64_MIN, or for unsigned targets through int64, as numpy does on x86; smaller
// ints then wrap from the int32 / uint32), and anything to a 16-bit float (rounded once).
#define TF_FLOAT_TO_INT(code, F) \
    static inline int32_t tf_to_int_##code(F a) { \
        return (a >= (F)-2147483648.0 && a < (F)2147483648.0) ? (int32_t)a : (int32_t)0x80000000u; \
    } \
    static inline uint32_t tf_to_uint_##code(F a) { \
        return (__builtin_isfinite(a) && __builtin_fabs((double)a) < 9223372036854775808.0) ? (uint32_t)(int64_t)a : 0u; \
    } \
    static inline int64_t tf_to_int64_##code(F a) { \
        const double d = (double)a; \
        return (d >= -9223372036854775808.0 && d < 9223372036854775808.0) ? (int64_t)d : (int64_t)(1ull << 63); \
    } \
    static inline uint64_t tf_to_uint64_##code(F a) { \
        const double d = (double)a; \
        if (!(d >= -9223372036854775808.0 && d < 18446744073709551616.0)) return 0u; /* (NaN too) */ \
        return d >= 9223372036854775808.0 ? (uint64_t)d : (uint64_t)(int64_t)d; \
    } \
    static inline int8_t tf_to_int8_##code(F a) { return (int8_t)tf_to_int_##code(a); } \
    static inline int16_t tf_to_int16_##code(F a) { return (int16_t)tf_to_int_##code(a); } \
    static inline uint8_t tf_to_uint8_##code(F a) { return (uint8_t)tf_to_uint_##code(a); } \
    static inline uint16_t tf_to_uint16_##code(F a) { return (uint16_t)tf_to_uint_##code(a); }
TF_FLOAT_TO_INT(f32, float)
TF_FLOAT_TO_INT(f64, double)
#undef TF_FLOAT_TO_INT
// A 64-bit integer as a float rounded to odd (its top 24 bits, the last one sticky): as
// for doubles, a 16-bit float rounded from it is the integer correctly rounded.
static inline float tf_u64_to_f32_odd(uint64_t u) {
    if (u < (1ull << 24)) return (float)u;
    const int shift = 40 - __builtin_clzll(u);  // the bits below the top 24
    const uint64_t top = (u >> shift) | (uint64_t)((u & ((1ull << shift) - 1)) != 0);
    return (float)top * (float)(1ull << shift);
}
static inline float tf_i64_to_f32_odd(int64_t a) {
    const float f = tf_u64_to_f32_odd(a < 0 ? 0ull - (uint64_t)a : (uint64_t)a);
    return a < 0 ? -f : f;
}
// To a 16-bit float: from a float32 value rounded to odd where the source has more bits
// (int32 and uint32 through double, which holds them exactly).
#define TF_TO_HALF(name, pack, unpack) \
    static inline float tf_to_##name##_f32(float a) { return unpack(pack(a)); } \
    static inline float tf_to_##name##_f64(double a) { return unpack(pack(tf_f64_to_f32_odd(a))); } \
    static inline float tf_to_##name##_i32(int32_t a) { return unpack(pack(tf_f64_to_f32_odd((double)a))); } \
    static inline float tf_to_##name##_u32(uint32_t a) { return unpack(pack(tf_f64_to_f32_odd((double)a))); } \
    static inline float tf_to_##name##_i64(int64_t a) { return unpack(pack(tf_i64_to_f32_odd(a))); } \
    static inline float tf_to_##name##_u64(uint64_t a) { return unpack(pack(tf_u64_to_f32_odd(a))); } \
    static inline float tf_to_##name##_b(bool a) { return a ? 1.0f : 0.0f; }
TF_TO_HALF(float16, tf_f32_to_f16, tf_f16_to_f32)
TF_TO_HALF(bfloat16, tf_f32_to_bf16, tf_bf16_to_f32)
#undef TF_TO_HALF
// The bits of a 32-bit value as another 32-bit type (asfloat, asint, asuint)
template <class To, class From> static inline To tf_bitcast(From a) {
    static_assert(sizeof(To) == sizeof(From), "a bit cast keeps the size");
    To r;
    memcpy(&r, &a, sizeof(To));
    return r;
}

static inline uint32_t tf_pcg(uint32_t v) {
    uint32_t state = v * 747796405u + 2891336453u;
    uint32_t word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}
static inline float tf_pcgf(uint32_t v) { return (float)(tf_pcg(v) >> 8) * (1.0f / 16777216.0f); }

// Atomics. Floats and min/max use compare-and-swap loops on the element's bits.
template <int Bytes> struct tf_bits_of;
template <> struct tf_bits_of<1> { typedef uint8_t type; };
template <> struct tf_bits_of<2> { typedef uint16_t type; };
template <> struct tf_bits_of<4> { typedef uint32_t type; };
template <> struct tf_bits_of<8> { typedef uint64_t type; };
template <class T, class F> static inline void tf_atomic_cas(T* p, T v, F combine) {
    typedef typename tf_bits_of<sizeof(T)>::type W;
    W* word = reinterpret_cast<W*>(p);
    W old = __atomic_load_n(word, __ATOMIC_RELAXED);
    while (true) {
        T current;
        memcpy(&current, &old, sizeof(T));
        T next = combine(current, v);
        W next_bits;
        memcpy(&next_bits, &next, sizeof(T));
        if (next_bits == old) return;
        if (__atomic_compare_exchange_n(word, &old, next_bits, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return;
    }
}
static inline void tf_atomic_add_f32(float* p, float v) { tf_atomic_cas(p, v, [](float a, float b) { return a + b; }); }
static inline void tf_atomic_add_f64(double* p, double v) { tf_atomic_cas(p, v, [](double a, double b) { return a + b; }); }
// (integers: GCC's atomic arithmetic wraps, signed ones too)
template <class T> static inline void tf_atomic_add(T* p, T v) { __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
// (min / max as tf_min_* / tf_max_*: NaN propagates)
template <class T> static inline void tf_atomic_min(T* p, T v) {
    tf_atomic_cas(p, v, [](T a, T b) { return (a < b || a != a) ? a : b; });
}
template <class T> static inline void tf_atomic_max(T* p, T v) {
    tf_atomic_cas(p, v, [](T a, T b) { return (a > b || a != a) ? a : b; });
}
template <class T> static inline void tf_atomic_and(T* p, T v) { __atomic_fetch_and(p, v, __ATOMIC_RELAXED); }
template <class T> static inline void tf_atomic_or(T* p, T v) { __atomic_fetch_or(p, v, __ATOMIC_RELAXED); }
template <class T> static inline void tf_atomic_xor(T* p, T v) { __atomic_fetch_xor(p, v, __ATOMIC_RELAXED); }
// A 16-bit float's element: combined in float32, rounded by `pack`.
template <class Pack, class Unpack, class F>
static inline void tf_atomic_packed(uint16_t* p, float v, Pack pack, Unpack unpack, F combine) {
    uint16_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (true) {
        const uint16_t next = pack(combine(unpack(old), v));
        if (next == old) return;
        if (__atomic_compare_exchange_n(p, &old, next, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return;
    }
}
template <class P, class U> static inline void tf_atomic_add_packed(uint16_t* p, float v, P pack, U unpack) {
    tf_atomic_packed(p, v, pack, unpack, [](float a, float b) { return a + b; });
}
template <class P, class U> static inline void tf_atomic_min_packed(uint16_t* p, float v, P pack, U unpack) {
    tf_atomic_packed(p, v, pack, unpack, [](float a, float b) { return tf_min_f32(a, b); });
}
template <class P, class U> static inline void tf_atomic_max_packed(uint16_t* p, float v, P pack, U unpack) {
    tf_atomic_packed(p, v, pack, unpack, [](float a, float b) { return tf_max_f32(a, b); });
}

// An exact size (a double: host arithmetic on sizes computed without wrapping) as the
// long long an error message prints, saturated where it does not fit.
#ifndef TF_EXACT_VALUE  // (the runtime of codegen's C++ may include the cpu prelude too)
#define TF_EXACT_VALUE
static inline long long tf_exact_value(double v) {
    return v >= 9.2e18 ? 9223372036854775807LL : v <= -9.2e18 ? (-9223372036854775807LL - 1) : (long long)v;
}
#endif
