// tensorfrost WGSL prelude, 8- and 16-bit dtypes: prelude_16.shader's helpers, helper for
// helper (16-bit floats' bits and rounding, conversions to the 8- and 16-bit dtypes, and the
// packed elements of buffers, emit/wgsl_words.py). Blocks as in prelude.wgsl.

// -- 16-bit floats: their bits from a float, rounded to nearest even (as numpy and ml_dtypes
// round), and back, with bit operations only
fn tf_f16_to_f32(h: u32) -> f32 {
    let sign = (h & 0x8000u) << 16u;
    let exponent = (h >> 10u) & 0x1Fu;
    let mantissa = h & 0x3FFu;
    if (exponent == 0u) {
        let f = f32(mantissa) * bitcast<f32>(0x33800000u);
        return select(f, -f, sign != 0u);
    }
    return bitcast<f32>(sign | select(((exponent + 112u) << 23u) | (mantissa << 13u),
                                      0x7F800000u | (mantissa << 13u), exponent == 0x1Fu));
}

fn tf_f32_to_f16(f: f32) -> u32 {
    let x = bitcast<u32>(f);
    let sign = (x >> 16u) & 0x8000u;
    let magnitude = x & 0x7FFFFFFFu;
    if (magnitude > 0x7F800000u) { return sign | 0x7E00u; }
    if (magnitude >= 0x477FF000u) { return sign | 0x7C00u; }
    if (magnitude < 0x38800000u) { return sign | u32(round(bitcast<f32>(magnitude) * 16777216.0)); }
    return sign | ((magnitude + 0xFFFu + ((magnitude >> 13u) & 1u) - 0x38000000u) >> 13u);
}

fn tf_bf16_to_f32(h: u32) -> f32 { return bitcast<f32>(h << 16u); }

fn tf_f32_to_bf16(f: f32) -> u32 {
    let x = bitcast<u32>(f);
    if ((x & 0x7FFFFFFFu) > 0x7F800000u) { return (x >> 16u) | 0x40u; }
    return (x + 0x7FFFu + ((x >> 16u) & 1u)) >> 16u;
}

fn tf_round_float16(a: f32) -> f32 { return tf_f16_to_f32(tf_f32_to_f16(a)); }

fn tf_round_bfloat16(a: f32) -> f32 { return tf_bf16_to_f32(tf_f32_to_bf16(a)); }

// An integer as a float rounded to odd (the bits below its 24 ORed into the last one):
// rounding that to a 16-bit float rounds the integer once, as numpy does
fn tf_u32_to_f32_odd(u: u32) -> f32 {
    let top = i32(firstLeadingBit(u));
    if (u == 0u || top < 24) { return f32(u); }
    let drop = u32(top - 23);
    let kept = (u >> drop) | select(0u, 1u, (u & ((1u << drop) - 1u)) != 0u);
    return f32(kept) * bitcast<f32>((127u + drop) << 23u);
}

fn tf_i32_to_f32_odd(a: i32) -> f32 {
    let f = tf_u32_to_f32_odd(tf_uabs(a));
    return select(f, -f, a < 0);
}

// -- conversions to 16-bit floats and to 8- and 16-bit ints (as int32 / uint32, then wrapped)
fn tf_to_float16_f32(a: f32) -> f32 { return tf_round_float16(a); }
fn tf_to_float16_i32(a: i32) -> f32 { return tf_round_float16(tf_i32_to_f32_odd(a)); }
fn tf_to_float16_u32(a: u32) -> f32 { return tf_round_float16(tf_u32_to_f32_odd(a)); }
fn tf_to_float16_b(a: bool) -> f32 { return select(0.0, 1.0, a); }

fn tf_to_bfloat16_f32(a: f32) -> f32 { return tf_round_bfloat16(a); }
fn tf_to_bfloat16_i32(a: i32) -> f32 { return tf_round_bfloat16(tf_i32_to_f32_odd(a)); }
fn tf_to_bfloat16_u32(a: u32) -> f32 { return tf_round_bfloat16(tf_u32_to_f32_odd(a)); }
fn tf_to_bfloat16_b(a: bool) -> f32 { return select(0.0, 1.0, a); }

fn tf_to_int8_f32(a: f32) -> i32 { return extractBits(tf_to_int_f32(a), 0u, 8u); }
fn tf_to_int8_i32(a: i32) -> i32 { return extractBits(a, 0u, 8u); }
fn tf_to_int8_u32(a: u32) -> i32 { return extractBits(i32(a), 0u, 8u); }
fn tf_to_int8_b(a: bool) -> i32 { return select(0, 1, a); }

fn tf_to_int16_f32(a: f32) -> i32 { return extractBits(tf_to_int_f32(a), 0u, 16u); }
fn tf_to_int16_i32(a: i32) -> i32 { return extractBits(a, 0u, 16u); }
fn tf_to_int16_u32(a: u32) -> i32 { return extractBits(i32(a), 0u, 16u); }
fn tf_to_int16_b(a: bool) -> i32 { return select(0, 1, a); }

fn tf_to_uint8_f32(a: f32) -> u32 { return extractBits(tf_to_uint_f32(a), 0u, 8u); }
fn tf_to_uint8_i32(a: i32) -> u32 { return extractBits(u32(a), 0u, 8u); }
fn tf_to_uint8_u32(a: u32) -> u32 { return extractBits(a, 0u, 8u); }
fn tf_to_uint8_b(a: bool) -> u32 { return select(0u, 1u, a); }

fn tf_to_uint16_f32(a: f32) -> u32 { return extractBits(tf_to_uint_f32(a), 0u, 16u); }
fn tf_to_uint16_i32(a: i32) -> u32 { return extractBits(u32(a), 0u, 16u); }
fn tf_to_uint16_u32(a: u32) -> u32 { return extractBits(a, 0u, 16u); }
fn tf_to_uint16_b(a: bool) -> u32 { return select(0u, 1u, a); }

// Elements of 8 or 16 bits packed in 32-bit words: element i of an 8-bit tensor is byte i % 4
// of word i / 4 (the bits at `o`); stores and atomics are the kernel's per-buffer helpers
fn tf_get_int8(w: u32, o: i32) -> i32 { return extractBits(bitcast<i32>(w), u32(o), 8u); }

fn tf_get_int16(w: u32, o: i32) -> i32 { return extractBits(bitcast<i32>(w), u32(o), 16u); }

fn tf_get_uint8(w: u32, o: i32) -> u32 { return extractBits(w, u32(o), 8u); }

fn tf_get_uint16(w: u32, o: i32) -> u32 { return extractBits(w, u32(o), 16u); }

fn tf_get_float16(w: u32, o: i32) -> f32 { return tf_f16_to_f32(extractBits(w, u32(o), 16u)); }

fn tf_get_bfloat16(w: u32, o: i32) -> f32 { return tf_bf16_to_f32(extractBits(w, u32(o), 16u)); }
