// The math core library (math_core.py): float32 sin, cos and tan for the units that call
// them (float_math.hpp declares them there), as a scalar function each and as vector
// functions of x86's vector function ABI, the names g++ calls from a vectorized loop (as it
// calls glibc's libmvec): _ZGV<isa>N<lanes>v_<name>. A vector whose lanes are all below 2^24
// skips the reduction of larger arguments, which inline branch-free code computes in every
// lane (half of sin's time); a lane's bits are the scalar function's either way.
#include <immintrin.h>

#define TF_MATH_NAME(NAME) TF_MATH_STRING(TF_MATH_CORE) "_" #NAME
#define TF_MATH_STRING2(x) #x
#define TF_MATH_STRING(x) TF_MATH_STRING2(x)

#define TF_MATH_SCALAR(NAME)                                                                  \
    extern "C" __attribute__((visibility("default"))) float tf_math_##NAME(float x)           \
        __asm__(TF_MATH_NAME(NAME));                                                          \
    float tf_math_##NAME(float x) { return tf_fm_##NAME(x); }

// (g++ vectorizes the loops over the lanes; `large` is true for NaN and the infinities too)
#define TF_MATH_VECTOR_FUNCTION(NAME, ISA, VECTOR, LANES)                                            \
    extern "C" __attribute__((visibility("default"))) VECTOR tf_math_##NAME##_##ISA(VECTOR v) \
        __asm__("_ZGV" #ISA "N" #LANES "v_" TF_MATH_NAME(NAME));                              \
    VECTOR tf_math_##NAME##_##ISA(VECTOR v) {                                                 \
        float in[LANES], out[LANES];                                                          \
        __builtin_memcpy(in, &v, sizeof in);                                                  \
        bool large = false;                                                                   \
        for (int i = 0; i < LANES; i++) large |= !(tf_fm_magnitude(in[i]) < 0x1p24f);        \
        if (large) {                                                                          \
            for (int i = 0; i < LANES; i++) out[i] = tf_fm_##NAME(in[i]);                     \
        } else {                                                                              \
            for (int i = 0; i < LANES; i++) out[i] = tf_fm_##NAME(in[i], false);              \
        }                                                                                     \
        __builtin_memcpy(&v, out, sizeof out);                                                \
        return v;                                                                             \
    }

#define TF_MATH_FUNCTIONS(ISA, VECTOR, LANES) \
    TF_MATH_VECTOR_FUNCTION(sin, ISA, VECTOR, LANES) TF_MATH_VECTOR_FUNCTION(cos, ISA, VECTOR, LANES) \
    TF_MATH_VECTOR_FUNCTION(tan, ISA, VECTOR, LANES)

TF_MATH_SCALAR(sin)
TF_MATH_SCALAR(cos)
TF_MATH_SCALAR(tan)
// every ISA whose versions g++ may call under these flags (it picks by the loop's vectors)
TF_MATH_FUNCTIONS(b, __m128, 4)
#ifdef __AVX__
TF_MATH_FUNCTIONS(c, __m256, 8)
#endif
#ifdef __AVX2__
TF_MATH_FUNCTIONS(d, __m256, 8)
#endif
#ifdef __AVX512F__
TF_MATH_FUNCTIONS(e, __m512, 16)
#endif
