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

// Bytes of a buffer of `count` 32-bit words: at least one word, a multiple of 64 bytes.
static inline long long tf_buffer_bytes(long long count) {
    long long bytes = (count > 0 ? count : 1) * 4;
    return (bytes + 63) / 64 * 64;
}

// A buffer of 32-bit words, freed when it goes out of scope unless released as an output.
// If it cannot be allocated, `data` is null and the error message is set.
struct tf_buffer {
    void* data = nullptr;
    long long bytes = 0;
    explicit tf_buffer(long long count, const char* name) {
        if (count > 2147483647LL) {
            tf_fail("buffer {0} has more elements than the 2147483647 a tensor can hold", &count, 1);
            return;
        }
        bytes = tf_buffer_bytes(count);
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

// Wrapping int32 arithmetic (as numpy's): signed overflow is undefined in C++, so data
// values use these; index arithmetic, which cannot overflow, is left plain so that the
// compiler can analyze addresses (-fwrapv would forbid that everywhere).
static inline int32_t tf_wrap_add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static inline int32_t tf_wrap_sub(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }
static inline int32_t tf_wrap_mul(int32_t a, int32_t b) { return (int32_t)((uint32_t)a * (uint32_t)b); }
static inline int32_t tf_wrap_neg(int32_t a) { return (int32_t)(0u - (uint32_t)a); }
static inline int32_t tf_wrap_fma(int32_t a, int32_t b, int32_t c) { return tf_wrap_add(tf_wrap_mul(a, b), c); }

// Arithmetic with C semantics made total: x / 0 == 0 and x % 0 == 0 for integers.
static inline float tf_div(float a, float b) { return a / b; }
static inline int32_t tf_div(int32_t a, int32_t b) {
    return b == 0 ? 0 : (b == -1 ? (int32_t)(0u - (uint32_t)a) : a / b);
}
static inline uint32_t tf_div(uint32_t a, uint32_t b) { return b == 0 ? 0u : a / b; }
static inline float tf_mod(float a, float b) { return __builtin_fmodf(a, b); }
static inline int32_t tf_mod(int32_t a, int32_t b) { return (b == 0 || b == -1) ? 0 : a % b; }
static inline uint32_t tf_mod(uint32_t a, uint32_t b) { return b == 0 ? 0u : a % b; }
static inline float tf_floordiv(float a, float b) { return __builtin_floorf(a / b); }
static inline int32_t tf_floordiv(int32_t a, int32_t b) {
    if (b == 0) return 0;
    int32_t q = tf_div(a, b);
    return (b != -1 && a % b != 0 && ((a < 0) != (b < 0))) ? tf_wrap_sub(q, 1) : q;
}
static inline uint32_t tf_floordiv(uint32_t a, uint32_t b) { return b == 0 ? 0u : a / b; }

// min / max propagate NaN, as numpy's minimum / maximum do.
static inline float tf_min(float a, float b) { return (a < b || a != a) ? a : b; }
static inline float tf_max(float a, float b) { return (a > b || a != a) ? a : b; }
static inline int32_t tf_min(int32_t a, int32_t b) { return a < b ? a : b; }
static inline int32_t tf_max(int32_t a, int32_t b) { return a > b ? a : b; }
static inline uint32_t tf_min(uint32_t a, uint32_t b) { return a < b ? a : b; }
static inline uint32_t tf_max(uint32_t a, uint32_t b) { return a > b ? a : b; }
template <class T> static inline T tf_clamp(T x, T lo, T hi) { return tf_min(tf_max(x, lo), hi); }

static inline float tf_abs(float a) { return __builtin_fabsf(a); }
static inline int32_t tf_abs(int32_t a) { return a < 0 ? (int32_t)(0u - (uint32_t)a) : a; }
static inline uint32_t tf_abs(uint32_t a) { return a; }
static inline float tf_sign(float a) { return a > 0.0f ? 1.0f : (a < 0.0f ? -1.0f : a); }
static inline int32_t tf_sign(int32_t a) { return (a > 0) - (a < 0); }
static inline uint32_t tf_sign(uint32_t a) { return a > 0u ? 1u : 0u; }

template <class T> static inline T tf_and(T a, T b) { return a & b; }
template <class T> static inline T tf_or(T a, T b) { return a | b; }
template <class T> static inline T tf_xor(T a, T b) { return a ^ b; }
static inline bool tf_not(bool a) { return !a; }
static inline int32_t tf_not(int32_t a) { return ~a; }
static inline uint32_t tf_not(uint32_t a) { return ~a; }
static inline int32_t tf_shl(int32_t a, int32_t b) { return (int32_t)((uint32_t)a << (b & 31)); }
static inline uint32_t tf_shl(uint32_t a, uint32_t b) { return a << (b & 31u); }
static inline int32_t tf_shr(int32_t a, int32_t b) { return a >> (b & 31); }
static inline uint32_t tf_shr(uint32_t a, uint32_t b) { return a >> (b & 31u); }
static inline uint32_t tf_reversebits(uint32_t v) {
    v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
    v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
    v = ((v >> 4) & 0x0F0F0F0Fu) | ((v & 0x0F0F0F0Fu) << 4);
    v = ((v >> 8) & 0x00FF00FFu) | ((v & 0x00FF00FFu) << 8);
    return (v >> 16) | (v << 16);
}

// Float math through glibc's libm, declared so that the compiler may call libmvec's SIMD
// versions (_ZGVeN16v_sinf...) in vectorized loops. They are distinct names bound to the
// same symbols, so GCC does not merge sin and cos of one value into sincosf (which stays
// scalar), and const so that calls do not block vectorization. libmvec is within 4 ulp.
#if defined(__x86_64__) && defined(_OPENMP)
#define TF_LIBM(name, args) _Pragma("omp declare simd notinbranch") \
    extern "C" __attribute__((const, nothrow)) float tf_libm_##name args __asm__(#name);
#else
#define TF_LIBM(name, args) extern "C" __attribute__((const, nothrow)) float tf_libm_##name args __asm__(#name);
#endif
TF_LIBM(sinf, (float)) TF_LIBM(cosf, (float)) TF_LIBM(tanf, (float)) TF_LIBM(asinf, (float))
TF_LIBM(acosf, (float)) TF_LIBM(atanf, (float)) TF_LIBM(sinhf, (float)) TF_LIBM(coshf, (float))
TF_LIBM(tanhf, (float)) TF_LIBM(expf, (float)) TF_LIBM(exp2f, (float)) TF_LIBM(logf, (float))
TF_LIBM(log2f, (float)) TF_LIBM(powf, (float, float)) TF_LIBM(atan2f, (float, float))

static inline float tf_floor(float a) { return __builtin_floorf(a); }
static inline float tf_ceil(float a) { return __builtin_ceilf(a); }
static inline float tf_round(float a) { return __builtin_rintf(a); }
static inline float tf_trunc(float a) { return __builtin_truncf(a); }
static inline float tf_frac(float a) { return a - __builtin_floorf(a); }
static inline float tf_exp(float a) { return tf_libm_expf(a); }
static inline float tf_exp2(float a) { return tf_libm_exp2f(a); }
static inline float tf_log(float a) { return tf_libm_logf(a); }
static inline float tf_log2(float a) { return tf_libm_log2f(a); }
static inline float tf_sqrt(float a) { return __builtin_sqrtf(a); }
static inline float tf_rsqrt(float a) { return 1.0f / __builtin_sqrtf(a); }
static inline float tf_rcp(float a) { return 1.0f / a; }
static inline float tf_sin(float a) { return tf_libm_sinf(a); }
static inline float tf_cos(float a) { return tf_libm_cosf(a); }
static inline float tf_tan(float a) { return tf_libm_tanf(a); }
static inline float tf_asin(float a) { return tf_libm_asinf(a); }
static inline float tf_acos(float a) { return tf_libm_acosf(a); }
static inline float tf_atan(float a) { return tf_libm_atanf(a); }
static inline float tf_sinh(float a) { return tf_libm_sinhf(a); }
static inline float tf_cosh(float a) { return tf_libm_coshf(a); }
static inline float tf_tanh(float a) { return tf_libm_tanhf(a); }
static inline float tf_pow(float a, float b) { return tf_libm_powf(a, b); }
static inline float tf_atan2(float a, float b) { return tf_libm_atan2f(a, b); }
static inline float tf_lerp(float a, float b, float t) { return a + (b - a) * t; }
static inline float tf_smoothstep(float e0, float e1, float x) {
    float t = tf_clamp((x - e0) / (e1 - e0), 0.0f, 1.0f);
    return t * t * (3.0f - 2.0f * t);
}
template <class T> static inline T tf_fma(T a, T b, T c) { return a * b + c; }

// Conversions: out-of-range floats give INT32_MIN (int) or wrap through int64 (uint),
// as numpy does on x86.
static inline float tf_to_float(float a) { return a; }
static inline float tf_to_float(int32_t a) { return (float)a; }
static inline float tf_to_float(uint32_t a) { return (float)a; }
static inline float tf_to_float(bool a) { return a ? 1.0f : 0.0f; }
static inline int32_t tf_to_int(float a) {
    return (a >= -2147483648.0f && a < 2147483648.0f) ? (int32_t)a : (int32_t)0x80000000u;
}
static inline int32_t tf_to_int(int32_t a) { return a; }
static inline int32_t tf_to_int(uint32_t a) { return (int32_t)a; }
static inline int32_t tf_to_int(bool a) { return a ? 1 : 0; }
static inline uint32_t tf_to_uint(float a) {
    return (__builtin_isfinite(a) && __builtin_fabsf(a) < 9.2e18f) ? (uint32_t)(int64_t)a : 0u;
}
static inline uint32_t tf_to_uint(int32_t a) { return (uint32_t)a; }
static inline uint32_t tf_to_uint(uint32_t a) { return a; }
static inline uint32_t tf_to_uint(bool a) { return a ? 1u : 0u; }
template <class T> static inline bool tf_to_bool(T a) { return a != 0; }
template <class T> static inline float tf_asfloat(T a) { float r; memcpy(&r, &a, 4); return r; }
template <class T> static inline int32_t tf_asint(T a) { int32_t r; memcpy(&r, &a, 4); return r; }
template <class T> static inline uint32_t tf_asuint(T a) { uint32_t r; memcpy(&r, &a, 4); return r; }

static inline uint32_t tf_pcg(uint32_t v) {
    uint32_t state = v * 747796405u + 2891336453u;
    uint32_t word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}
static inline float tf_pcgf(uint32_t v) { return (float)(tf_pcg(v) >> 8) * (1.0f / 16777216.0f); }

// Atomics. Floats and min/max use compare-and-swap loops on the 32-bit word.
template <class T, class F> static inline void tf_atomic_cas(T* p, T v, F combine) {
    uint32_t* word = reinterpret_cast<uint32_t*>(p);
    uint32_t old = __atomic_load_n(word, __ATOMIC_RELAXED);
    while (true) {
        T current;
        memcpy(&current, &old, 4);
        T next = combine(current, v);
        uint32_t next_bits;
        memcpy(&next_bits, &next, 4);
        if (next_bits == old) return;
        if (__atomic_compare_exchange_n(word, &old, next_bits, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return;
    }
}
static inline void tf_atomic_add(float* p, float v) { tf_atomic_cas(p, v, [](float a, float b) { return a + b; }); }
static inline void tf_atomic_add(int32_t* p, int32_t v) {
    __atomic_fetch_add(reinterpret_cast<uint32_t*>(p), (uint32_t)v, __ATOMIC_RELAXED);
}
static inline void tf_atomic_add(uint32_t* p, uint32_t v) { __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
template <class T> static inline void tf_atomic_min(T* p, T v) { tf_atomic_cas(p, v, [](T a, T b) { return tf_min(a, b); }); }
template <class T> static inline void tf_atomic_max(T* p, T v) { tf_atomic_cas(p, v, [](T a, T b) { return tf_max(a, b); }); }
template <class T> static inline void tf_atomic_and(T* p, T v) { __atomic_fetch_and(p, v, __ATOMIC_RELAXED); }
template <class T> static inline void tf_atomic_or(T* p, T v) { __atomic_fetch_or(p, v, __ATOMIC_RELAXED); }
template <class T> static inline void tf_atomic_xor(T* p, T v) { __atomic_fetch_xor(p, v, __ATOMIC_RELAXED); }

// An exact size (a double: host arithmetic on sizes computed without wrapping) as the
// long long an error message prints, saturated where it does not fit.
#ifndef TF_EXACT_VALUE  // (the runtime of codegen's C++ may include the cpu prelude too)
#define TF_EXACT_VALUE
static inline long long tf_exact_value(double v) {
    return v >= 9.2e18 ? 9223372036854775807LL : v <= -9.2e18 ? (-9223372036854775807LL - 1) : (long long)v;
}
#endif
