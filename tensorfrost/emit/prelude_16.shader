// tensorfrost shader prelude, 8- and 16-bit dtypes (GLSL only): 16-bit floats' bits and
// rounding, conversions to the 8- and 16-bit dtypes, and the packed elements of buffers
// (emit/words.py). Blocks as in prelude.shader.

// -- 16-bit floats: their bits from a float, rounded to nearest even (as numpy and ml_dtypes
// round; packHalf2x16's rounding is the driver's), and back, with bit operations only
float tf_f16_to_f32(uint h) {
    uint sign = (h & 0x8000u) << 16;
    uint exponent = (h >> 10) & 0x1Fu;
    uint mantissa = h & 0x3FFu;
    if (exponent == 0u) {
        float f = float(mantissa) * uintBitsToFloat(0x33800000u);
        return sign != 0u ? -f : f;
    }
    return uintBitsToFloat(sign | (exponent == 0x1Fu ? 0x7F800000u | (mantissa << 13)
                                   : ((exponent + 112u) << 23) | (mantissa << 13)));
}

uint tf_f32_to_f16(float f) {
    uint x = floatBitsToUint(f);
    uint sign = (x >> 16) & 0x8000u;
    uint magnitude = x & 0x7FFFFFFFu;
    if (magnitude > 0x7F800000u) return sign | 0x7E00u;
    if (magnitude >= 0x477FF000u) return sign | 0x7C00u;
    if (magnitude < 0x38800000u) return sign | uint(roundEven(uintBitsToFloat(magnitude) * 16777216.0));
    return sign | ((magnitude + 0xFFFu + ((magnitude >> 13) & 1u) - 0x38000000u) >> 13);
}

float tf_bf16_to_f32(uint h) { return uintBitsToFloat(h << 16); }

uint tf_f32_to_bf16(float f) {
    uint x = floatBitsToUint(f);
    if ((x & 0x7FFFFFFFu) > 0x7F800000u) return (x >> 16) | 0x40u;
    return (x + 0x7FFFu + ((x >> 16) & 1u)) >> 16;
}

float tf_round_float16(float a) { return tf_f16_to_f32(tf_f32_to_f16(a)); }

float tf_round_bfloat16(float a) { return tf_bf16_to_f32(tf_f32_to_bf16(a)); }

// An integer as a float rounded to odd (the bits below its 24 ORed into the last one):
// rounding that to a 16-bit float rounds the integer once, as numpy does
float tf_u32_to_f32_odd(uint u) {
    int top = findMSB(u);
    if (top < 24) return float(u);
    int drop = top - 23;
    uint kept = (u >> uint(drop)) | ((u & ((1u << uint(drop)) - 1u)) != 0u ? 1u : 0u);
    return float(kept) * uintBitsToFloat(uint(127 + drop) << 23);
}

float tf_i32_to_f32_odd(int a) {
    float f = tf_u32_to_f32_odd(tf_uabs(a));
    return a < 0 ? -f : f;
}

// -- conversions to 16-bit floats and to 8- and 16-bit ints (as int32 / uint32, then wrapped)
float tf_to_float16_f32(float a) { return tf_round_float16(a); }
float tf_to_float16_i32(int a) { return tf_round_float16(tf_i32_to_f32_odd(a)); }
float tf_to_float16_u32(uint a) { return tf_round_float16(tf_u32_to_f32_odd(a)); }
float tf_to_float16_b(bool a) { return a ? 1.0 : 0.0; }

float tf_to_bfloat16_f32(float a) { return tf_round_bfloat16(a); }
float tf_to_bfloat16_i32(int a) { return tf_round_bfloat16(tf_i32_to_f32_odd(a)); }
float tf_to_bfloat16_u32(uint a) { return tf_round_bfloat16(tf_u32_to_f32_odd(a)); }
float tf_to_bfloat16_b(bool a) { return a ? 1.0 : 0.0; }

int tf_to_int8_f32(float a) { return bitfieldExtract(tf_to_int_f32(a), 0, 8); }
int tf_to_int8_i32(int a) { return bitfieldExtract(a, 0, 8); }
int tf_to_int8_u32(uint a) { return bitfieldExtract(int(a), 0, 8); }
int tf_to_int8_b(bool a) { return a ? 1 : 0; }

int tf_to_int16_f32(float a) { return bitfieldExtract(tf_to_int_f32(a), 0, 16); }
int tf_to_int16_i32(int a) { return bitfieldExtract(a, 0, 16); }
int tf_to_int16_u32(uint a) { return bitfieldExtract(int(a), 0, 16); }
int tf_to_int16_b(bool a) { return a ? 1 : 0; }

uint tf_to_uint8_f32(float a) { return bitfieldExtract(tf_to_uint_f32(a), 0, 8); }
uint tf_to_uint8_i32(int a) { return bitfieldExtract(uint(a), 0, 8); }
uint tf_to_uint8_u32(uint a) { return bitfieldExtract(a, 0, 8); }
uint tf_to_uint8_b(bool a) { return a ? 1u : 0u; }

uint tf_to_uint16_f32(float a) { return bitfieldExtract(tf_to_uint_f32(a), 0, 16); }
uint tf_to_uint16_i32(int a) { return bitfieldExtract(uint(a), 0, 16); }
uint tf_to_uint16_u32(uint a) { return bitfieldExtract(a, 0, 16); }
uint tf_to_uint16_b(bool a) { return a ? 1u : 0u; }

// Elements of 8 or 16 bits packed in 32-bit words: element i of an 8-bit tensor is byte i % 4
// of word i / 4. A store replaces its bits with compare-and-swap, so that threads storing
// neighbouring elements of one word never undo each other's stores.
#define TF_STORE_BITS(word, offset, bits, value) { \
    uint tf_seen = word; \
    for (;;) { \
        uint tf_next = bitfieldInsert(tf_seen, value, offset, bits); \
        if (tf_next == tf_seen) break; \
        uint tf_prior = atomicCompSwap(word, tf_seen, tf_next); \
        if (tf_prior == tf_seen) break; \
        tf_seen = tf_prior; \
    } \
}

// An atomic read-modify-write of the element at `offset` of a word: `combine` runs on the
// decoded value (an int, a uint, a float for 16-bit floats), `encode` gives its bits.
#define TF_ATOMIC_BITS(word, offset, bits, value, combine, decode, encode) { \
    uint tf_seen = word; \
    for (;;) { \
        uint tf_next = bitfieldInsert(tf_seen, encode(combine(decode(tf_seen, offset), value)), offset, bits); \
        if (tf_next == tf_seen) break; \
        uint tf_prior = atomicCompSwap(word, tf_seen, tf_next); \
        if (tf_prior == tf_seen) break; \
        tf_seen = tf_prior; \
    } \
}

int tf_get_int8(uint w, int offset) { return bitfieldExtract(int(w), offset, 8); }

int tf_get_int16(uint w, int offset) { return bitfieldExtract(int(w), offset, 16); }

uint tf_get_uint8(uint w, int offset) { return bitfieldExtract(w, offset, 8); }

uint tf_get_uint16(uint w, int offset) { return bitfieldExtract(w, offset, 16); }

float tf_get_float16(uint w, int offset) { return tf_f16_to_f32(bitfieldExtract(w, offset, 16)); }

float tf_get_bfloat16(uint w, int offset) { return tf_bf16_to_f32(bitfieldExtract(w, offset, 16)); }
