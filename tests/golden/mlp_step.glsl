std::tuple<TFTensor, TFTensor, TFTensor> kernels(TFContext tf, TFTensor x, TFTensor y, TFTensor w1, TFTensor w2)
{
    tf.check_tensor(x, "x", 2, TFType::Float);
    const int x_shape0_4 = (int)x.shape[0];
    const int x_shape1_5 = (int)x.shape[1];
    const bool x_6 = (16 == x_shape1_5);
    tf.check(x_6, "argument 0 ('x'): shape[1] must be {0} (16), got {1}", {(long long)(16), (long long)(x_shape1_5)});
    tf.check_tensor(y, "y", 2, TFType::Float);
    const int y_shape0_7 = (int)y.shape[0];
    const bool v_8 = (x_shape0_4 == y_shape0_7);
    tf.check(v_8, "argument 1 ('y'): shape[0] must be {0} (x.shape[0]), got {1}", {(long long)(x_shape0_4), (long long)(y_shape0_7)});
    const int y_shape1_9 = (int)y.shape[1];
    const bool y_10 = (4 == y_shape1_9);
    tf.check(y_10, "argument 1 ('y'): shape[1] must be {0} (4), got {1}", {(long long)(4), (long long)(y_shape1_9)});
    tf.check_tensor(w1, "w1", 2, TFType::Float);
    const int w1_shape0_11 = (int)w1.shape[0];
    const bool v_12 = (16 == w1_shape0_11);
    tf.check(v_12, "argument 2 ('w1'): shape[0] must be {0} (16), got {1}", {(long long)(16), (long long)(w1_shape0_11)});
    const int w1_shape1_13 = (int)w1.shape[1];
    const bool w1_14 = (32 == w1_shape1_13);
    tf.check(w1_14, "argument 2 ('w1'): shape[1] must be {0} (32), got {1}", {(long long)(32), (long long)(w1_shape1_13)});
    tf.check_tensor(w2, "w2", 2, TFType::Float);
    const int w2_shape0_15 = (int)w2.shape[0];
    const bool v_16 = (32 == w2_shape0_15);
    tf.check(v_16, "argument 3 ('w2'): shape[0] must be {0} (32), got {1}", {(long long)(32), (long long)(w2_shape0_15)});
    const int w2_shape1_17 = (int)w2.shape[1];
    const bool w2_18 = (4 == w2_shape1_17);
    tf.check(w2_18, "argument 3 ('w2'): shape[1] must be {0} (4), got {1}", {(long long)(4), (long long)(w2_shape1_17)});
    tf.check((long long)(x_shape0_4) >= 0, "tensor 'buf': shape[0] is {0}, a negative size", {(long long)(x_shape0_4)});
    tf.check((double)(long long)(x_shape0_4) * (double)(long long)(32) <= 2147483647.0, "tensor 'buf': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", {(long long)(x_shape0_4), (long long)(32)});
    TFTensor buf_19 = tf.allocate("buf", {(uint)x_shape0_4, (uint)32}, TFType::Float);
    tf.check((long long)(x_shape0_4) >= 0, "tensor 'hidden': shape[0] is {0}, a negative size", {(long long)(x_shape0_4)});
    tf.check((double)(long long)(x_shape0_4) * (double)(long long)(32) <= 2147483647.0, "tensor 'hidden': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", {(long long)(x_shape0_4), (long long)(32)});
    TFTensor hidden_20 = tf.allocate("hidden", {(uint)x_shape0_4, (uint)32}, TFType::Float);
    tf.dispatch(0, {hidden_20, buf_19}, {x, w1}, {asuint(x_shape0_4)}, {(uint)x_shape0_4, (uint)32}, {256});
    tf.check((long long)(x_shape0_4) >= 0, "tensor 'buf': shape[0] is {0}, a negative size", {(long long)(x_shape0_4)});
    tf.check((double)(long long)(x_shape0_4) * (double)(long long)(4) <= 2147483647.0, "tensor 'buf': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", {(long long)(x_shape0_4), (long long)(4)});
    TFTensor buf_21 = tf.allocate("buf", {(uint)x_shape0_4, (uint)4}, TFType::Float);
    tf.dispatch(1, {buf_21}, {hidden_20, w2}, {asuint(x_shape0_4)}, {(uint)x_shape0_4, (uint)4}, {256});
    tf.deallocate(hidden_20);
    const float v_22 = ((float)x_shape0_4);
    const float v_23 = (1.0f / v_22);
    const float v_24 = v_23;
    const float v_25 = v_24;
    const float v_26 = (v_25 / 4.0f);
    const float v_27 = v_26;
    TFTensor loss_28 = tf.allocate("loss", {(uint)1}, TFType::Float);
    tf.dispatch(2, {loss_28}, {buf_21, y}, {asuint(x_shape0_4), asuint(v_22)}, {(uint)1}, {256});
    tf.check((long long)(x_shape0_4) >= 0, "tensor 'buf': shape[0] is {0}, a negative size", {(long long)(x_shape0_4)});
    tf.check((double)(long long)(x_shape0_4) * (double)(long long)(4) <= 2147483647.0, "tensor 'buf': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", {(long long)(x_shape0_4), (long long)(4)});
    TFTensor buf_29 = tf.allocate("buf", {(uint)x_shape0_4, (uint)4}, TFType::Float);
    tf.dispatch(3, {buf_29}, {buf_21, y}, {asuint(x_shape0_4), asuint(v_27)}, {(uint)x_shape0_4, (uint)4}, {256});
    tf.deallocate(buf_21);
    TFTensor buf_30 = tf.allocate("buf", {(uint)4, (uint)32}, TFType::Float);
    tf.dispatch(4, {buf_30}, {w2}, {}, {(uint)4, (uint)32}, {256});
    tf.check((long long)(x_shape0_4) >= 0, "tensor 'buf': shape[0] is {0}, a negative size", {(long long)(x_shape0_4)});
    tf.check((double)(long long)(x_shape0_4) * (double)(long long)(32) <= 2147483647.0, "tensor 'buf': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", {(long long)(x_shape0_4), (long long)(32)});
    TFTensor buf_31 = tf.allocate("buf", {(uint)x_shape0_4, (uint)32}, TFType::Float);
    tf.dispatch(5, {buf_31}, {buf_29, buf_30}, {asuint(x_shape0_4)}, {(uint)x_shape0_4, (uint)32}, {256});
    tf.deallocate(buf_30);
    tf.check((long long)(x_shape0_4) >= 0, "tensor 'hidden': shape[1] is {0}, a negative size", {(long long)(x_shape0_4)});
    tf.check((double)(long long)(32) * (double)(long long)(x_shape0_4) <= 2147483647.0, "tensor 'hidden': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", {(long long)(32), (long long)(x_shape0_4)});
    TFTensor hidden_32 = tf.allocate("hidden", {(uint)32, (uint)x_shape0_4}, TFType::Float);
    tf.dispatch(6, {hidden_32}, {buf_19}, {asuint(x_shape0_4)}, {(uint)32, (uint)x_shape0_4}, {256});
    TFTensor buf_33 = tf.allocate("buf", {(uint)32, (uint)4}, TFType::Float);
    tf.dispatch(7, {buf_33}, {hidden_32, buf_29}, {asuint(x_shape0_4)}, {(uint)32, (uint)4}, {256});
    tf.deallocate(hidden_32);
    tf.deallocate(buf_29);
    tf.check((long long)(x_shape0_4) >= 0, "tensor 'buf': shape[0] is {0}, a negative size", {(long long)(x_shape0_4)});
    tf.check((double)(long long)(x_shape0_4) * (double)(long long)(32) <= 2147483647.0, "tensor 'buf': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", {(long long)(x_shape0_4), (long long)(32)});
    TFTensor buf_34 = tf.allocate("buf", {(uint)x_shape0_4, (uint)32}, TFType::Float);
    tf.dispatch(8, {buf_34}, {buf_19, buf_31}, {asuint(x_shape0_4)}, {(uint)x_shape0_4, (uint)32}, {256});
    tf.deallocate(buf_31);
    tf.deallocate(buf_19);
    TFTensor buf_35 = tf.allocate("buf", {(uint)16, (uint)32}, TFType::Float);
    tf.dispatch(9, {buf_35}, {x, buf_34}, {asuint(x_shape0_4)}, {(uint)16, (uint)32}, {256});
    tf.deallocate(buf_34);
    TFTensor buf_36 = tf.allocate("buf", {(uint)16, (uint)32}, TFType::Float);
    tf.dispatch(10, {buf_36}, {buf_35, w1}, {}, {(uint)16, (uint)32}, {256});
    tf.deallocate(buf_35);
    TFTensor buf_37 = tf.allocate("buf", {(uint)32, (uint)4}, TFType::Float);
    tf.dispatch(11, {buf_37}, {buf_33, w2}, {}, {(uint)32, (uint)4}, {256});
    tf.deallocate(buf_33);
    return {buf_36, buf_37, loss_28};
}

#version 430
// kernel kernels_k0: one thread per element of [x_shape0_4, 32]
// binding 0: hidden_0 (float32, read-write)
// binding 1: buf_1 (float32, read-write)
// binding 2: x_2 (float32, read-only)
// binding 3: w1_3 (float32, read-only)
// tf_u[0]: x_shape0_4 (int32)
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer tf_b0 { float hidden_0[]; };
layout(std430, binding = 1) buffer tf_b1 { float buf_1[]; };
layout(std430, binding = 2) readonly buffer tf_b2 { float x_2[]; };
layout(std430, binding = 3) readonly buffer tf_b3 { float w1_3[]; };
uniform uint tf_u[1];

bool tf_isnan(float a) { return (floatBitsToUint(a) & 0x7FFFFFFFu) > 0x7F800000u; }

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

void main() {
    const int x_shape0_4 = int(tf_u[0]);
    const uint tf_g = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
    if (tf_g >= uint(x_shape0_4) * uint(32)) return;
    uint tf_rest = tf_g;
    const int i1 = int(tf_rest % uint(32));
    tf_rest = tf_rest / uint(32);
    const int i0 = int(tf_rest);
    const int tf_t = int(tf_g);
    float v_5 = 0.0f;
    for (int v_6 = 0; v_6 < 16; v_6 += 1) {
        const float v_7 = x_2[(i0) * 16 + v_6];
        const float v_8 = w1_3[(v_6) * 32 + i1];
        const float v_9 = (v_7 * v_8);
        const float v_10 = (v_5 + v_9);
        v_5 = v_10;
    }
    const float hidden_11 = tf_tanh_f32(v_5);
    hidden_0[tf_t] = hidden_11;
    buf_1[tf_t] = v_5;
}

#version 430
// kernel kernels_k1: one thread per element of [x_shape0_3, 4]
// binding 0: buf_0 (float32, read-write)
// binding 1: hidden_1 (float32, read-only)
// binding 2: w2_2 (float32, read-only)
// tf_u[0]: x_shape0_3 (int32)
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer tf_b0 { float buf_0[]; };
layout(std430, binding = 1) readonly buffer tf_b1 { float hidden_1[]; };
layout(std430, binding = 2) readonly buffer tf_b2 { float w2_2[]; };
uniform uint tf_u[1];

void main() {
    const int x_shape0_3 = int(tf_u[0]);
    const uint tf_g = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
    if (tf_g >= uint(x_shape0_3) * uint(4)) return;
    uint tf_rest = tf_g;
    const int i1 = int(tf_rest % uint(4));
    tf_rest = tf_rest / uint(4);
    const int i0 = int(tf_rest);
    const int tf_t = int(tf_g);
    float v_4 = 0.0f;
    for (int v_5 = 0; v_5 < 32; v_5 += 1) {
        const float v_6 = hidden_1[(i0) * 32 + v_5];
        const float v_7 = w2_2[(v_5) * 4 + i1];
        const float v_8 = (v_6 * v_7);
        const float v_9 = (v_4 + v_8);
        v_4 = v_9;
    }
    buf_0[tf_t] = v_4;
}

#version 430
// kernel kernels_k2: one thread per element of [1]
// binding 0: loss_0 (float32, read-write)
// binding 1: buf_1 (float32, read-only)
// binding 2: y_2 (float32, read-only)
// tf_u[0]: x_shape0_3 (int32)
// tf_u[1]: v_4 (float32)
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer tf_b0 { float loss_0[]; };
layout(std430, binding = 1) readonly buffer tf_b1 { float buf_1[]; };
layout(std430, binding = 2) readonly buffer tf_b2 { float y_2[]; };
uniform uint tf_u[2];

uint tf_uabs(int a) { return a < 0 ? 0u - uint(a) : uint(a); }

float tf_div_f32(float a, float b) { return a / b; }
int tf_div_i32(int a, int b) {
    if (b == 0) return 0;
    int q = int(tf_uabs(a) / tf_uabs(b));
    return (a < 0) != (b < 0) ? -q : q;
}
uint tf_div_u32(uint a, uint b) { return b == 0u ? 0u : a / b; }

void main() {
    const int x_shape0_3 = int(tf_u[0]);
    const float v_4 = uintBitsToFloat(tf_u[1]);
    const uint tf_g = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
    if (tf_g >= uint(1)) return;
    uint tf_rest = tf_g;
    const int i0 = int(tf_rest);
    const int tf_t = int(tf_g);
    float v_5 = 0.0f;
    for (int v_6 = 0; v_6 < x_shape0_3; v_6 += 1) {
        const float v_7 = buf_1[(v_6) * 4 + 0];
        const float v_8 = y_2[(v_6) * 4 + 0];
        const float error_9 = (v_7 - v_8);
        const float v_10 = buf_1[(v_6) * 4 + 0];
        const float error_11 = (v_10 - v_8);
        const float v_12 = (error_9 * error_11);
        const float v_13 = buf_1[(v_6) * 4 + 1];
        const float v_14 = y_2[(v_6) * 4 + 1];
        const float error_15 = (v_13 - v_14);
        const float v_16 = buf_1[(v_6) * 4 + 1];
        const float error_17 = (v_16 - v_14);
        const float v_18 = (error_15 * error_17);
        const float v_19 = (v_12 + v_18);
        const float v_20 = buf_1[(v_6) * 4 + 2];
        const float v_21 = y_2[(v_6) * 4 + 2];
        const float error_22 = (v_20 - v_21);
        const float v_23 = buf_1[(v_6) * 4 + 2];
        const float error_24 = (v_23 - v_21);
        const float v_25 = (error_22 * error_24);
        const float v_26 = (v_19 + v_25);
        const float v_27 = buf_1[(v_6) * 4 + 3];
        const float v_28 = y_2[(v_6) * 4 + 3];
        const float error_29 = (v_27 - v_28);
        const float v_30 = buf_1[(v_6) * 4 + 3];
        const float error_31 = (v_30 - v_28);
        const float v_32 = (error_29 * error_31);
        const float v_33 = (v_26 + v_32);
        const float v_34 = tf_div_f32(v_33, 4.0f);
        const float v_35 = (v_5 + v_34);
        v_5 = v_35;
    }
    const float loss_36 = tf_div_f32(v_5, v_4);
    loss_0[tf_t] = loss_36;
}

#version 430
// kernel kernels_k3: one thread per element of [x_shape0_3, 4]
// binding 0: buf_0 (float32, read-write)
// binding 1: buf_1 (float32, read-only)
// binding 2: y_2 (float32, read-only)
// tf_u[0]: x_shape0_3 (int32)
// tf_u[1]: v_4 (float32)
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer tf_b0 { float buf_0[]; };
layout(std430, binding = 1) readonly buffer tf_b1 { float buf_1[]; };
layout(std430, binding = 2) readonly buffer tf_b2 { float y_2[]; };
uniform uint tf_u[2];

void main() {
    const int x_shape0_3 = int(tf_u[0]);
    const float v_4 = uintBitsToFloat(tf_u[1]);
    const uint tf_g = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
    if (tf_g >= uint(x_shape0_3) * uint(4)) return;
    uint tf_rest = tf_g;
    const int i1 = int(tf_rest % uint(4));
    tf_rest = tf_rest / uint(4);
    const int i0 = int(tf_rest);
    const int tf_t = int(tf_g);
    const float v_5 = buf_1[tf_t];
    const float v_6 = y_2[tf_t];
    const float error_7 = (v_5 - v_6);
    const float v_8 = v_4;
    const float v_9 = v_8;
    const float v_10 = (v_9 * error_7);
    const float v_11 = (v_10 + v_10);
    buf_0[tf_t] = v_11;
}

#version 430
// kernel kernels_k4: one thread per element of [4, 32]
// binding 0: buf_0 (float32, read-write)
// binding 1: w2_1 (float32, read-only)
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer tf_b0 { float buf_0[]; };
layout(std430, binding = 1) readonly buffer tf_b1 { float w2_1[]; };

void main() {
    const uint tf_g = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
    if (tf_g >= uint(4) * uint(32)) return;
    uint tf_rest = tf_g;
    const int i1 = int(tf_rest % uint(32));
    tf_rest = tf_rest / uint(32);
    const int i0 = int(tf_rest);
    const int tf_t = int(tf_g);
    const float v_2 = w2_1[(i1) * 4 + i0];
    float v_3 = 0.0f;
    v_3 = v_2;
    buf_0[tf_t] = v_3;
}

#version 430
// kernel kernels_k5: one thread per element of [x_shape0_3, 32]
// binding 0: buf_0 (float32, read-write)
// binding 1: buf_1 (float32, read-only)
// binding 2: buf_2 (float32, read-only)
// tf_u[0]: x_shape0_3 (int32)
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer tf_b0 { float buf_0[]; };
layout(std430, binding = 1) readonly buffer tf_b1 { float buf_1[]; };
layout(std430, binding = 2) readonly buffer tf_b2 { float buf_2[]; };
uniform uint tf_u[1];

void main() {
    const int x_shape0_3 = int(tf_u[0]);
    const uint tf_g = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
    if (tf_g >= uint(x_shape0_3) * uint(32)) return;
    uint tf_rest = tf_g;
    const int i1 = int(tf_rest % uint(32));
    tf_rest = tf_rest / uint(32);
    const int i0 = int(tf_rest);
    const int tf_t = int(tf_g);
    float v_4 = 0.0f;
    for (int v_5 = 0; v_5 < 4; v_5 += 1) {
        const float v_6 = buf_1[(i0) * 4 + v_5];
        const float v_7 = buf_2[(v_5) * 32 + i1];
        const float v_8 = (v_6 * v_7);
        const float v_9 = (v_4 + v_8);
        v_4 = v_9;
    }
    buf_0[tf_t] = v_4;
}

#version 430
// kernel kernels_k6: one thread per element of [32, x_shape0_2]
// binding 0: hidden_0 (float32, read-write)
// binding 1: buf_1 (float32, read-only)
// tf_u[0]: x_shape0_2 (int32)
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer tf_b0 { float hidden_0[]; };
layout(std430, binding = 1) readonly buffer tf_b1 { float buf_1[]; };
uniform uint tf_u[1];

bool tf_isnan(float a) { return (floatBitsToUint(a) & 0x7FFFFFFFu) > 0x7F800000u; }

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

void main() {
    const int x_shape0_2 = int(tf_u[0]);
    const uint tf_g = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
    if (tf_g >= uint(32) * uint(x_shape0_2)) return;
    uint tf_rest = tf_g;
    const int i1 = int(tf_rest % uint(x_shape0_2));
    tf_rest = tf_rest / uint(x_shape0_2);
    const int i0 = int(tf_rest);
    const int tf_t = int(tf_g);
    const float v_3 = buf_1[(i1) * 32 + i0];
    const float hidden_4 = tf_tanh_f32(v_3);
    hidden_0[tf_t] = hidden_4;
}

#version 430
// kernel kernels_k7: one thread per element of [32, 4]
// binding 0: buf_0 (float32, read-write)
// binding 1: hidden_1 (float32, read-only)
// binding 2: buf_2 (float32, read-only)
// tf_u[0]: x_shape0_3 (int32)
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer tf_b0 { float buf_0[]; };
layout(std430, binding = 1) readonly buffer tf_b1 { float hidden_1[]; };
layout(std430, binding = 2) readonly buffer tf_b2 { float buf_2[]; };
uniform uint tf_u[1];

void main() {
    const int x_shape0_3 = int(tf_u[0]);
    const uint tf_g = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
    if (tf_g >= uint(32) * uint(4)) return;
    uint tf_rest = tf_g;
    const int i1 = int(tf_rest % uint(4));
    tf_rest = tf_rest / uint(4);
    const int i0 = int(tf_rest);
    const int tf_t = int(tf_g);
    float v_4 = 0.0f;
    for (int v_5 = 0; v_5 < x_shape0_3; v_5 += 1) {
        const float v_6 = hidden_1[(i0) * x_shape0_3 + v_5];
        const float v_7 = buf_2[(v_5) * 4 + i1];
        const float v_8 = (v_6 * v_7);
        const float v_9 = (v_4 + v_8);
        v_4 = v_9;
    }
    buf_0[tf_t] = v_4;
}

#version 430
// kernel kernels_k8: one thread per element of [x_shape0_3, 32]
// binding 0: buf_0 (float32, read-write)
// binding 1: buf_1 (float32, read-only)
// binding 2: buf_2 (float32, read-only)
// tf_u[0]: x_shape0_3 (int32)
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer tf_b0 { float buf_0[]; };
layout(std430, binding = 1) readonly buffer tf_b1 { float buf_1[]; };
layout(std430, binding = 2) readonly buffer tf_b2 { float buf_2[]; };
uniform uint tf_u[1];

bool tf_isnan(float a) { return (floatBitsToUint(a) & 0x7FFFFFFFu) > 0x7F800000u; }

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

void main() {
    const int x_shape0_3 = int(tf_u[0]);
    const uint tf_g = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
    if (tf_g >= uint(x_shape0_3) * uint(32)) return;
    uint tf_rest = tf_g;
    const int i1 = int(tf_rest % uint(32));
    tf_rest = tf_rest / uint(32);
    const int i0 = int(tf_rest);
    const int tf_t = int(tf_g);
    const float v_4 = buf_1[tf_t];
    const float hidden_5 = tf_tanh_f32(v_4);
    const float v_6 = (hidden_5 * hidden_5);
    const float v_7 = (1.0f - v_6);
    const float v_8 = buf_2[tf_t];
    const float v_9 = (v_8 * v_7);
    buf_0[tf_t] = v_9;
}

#version 430
// kernel kernels_k9: one thread per element of [16, 32]
// binding 0: buf_0 (float32, read-write)
// binding 1: x_1 (float32, read-only)
// binding 2: buf_2 (float32, read-only)
// tf_u[0]: x_shape0_3 (int32)
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer tf_b0 { float buf_0[]; };
layout(std430, binding = 1) readonly buffer tf_b1 { float x_1[]; };
layout(std430, binding = 2) readonly buffer tf_b2 { float buf_2[]; };
uniform uint tf_u[1];

void main() {
    const int x_shape0_3 = int(tf_u[0]);
    const uint tf_g = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
    if (tf_g >= uint(16) * uint(32)) return;
    uint tf_rest = tf_g;
    const int i1 = int(tf_rest % uint(32));
    tf_rest = tf_rest / uint(32);
    const int i0 = int(tf_rest);
    const int tf_t = int(tf_g);
    float v_4 = 0.0f;
    for (int v_5 = 0; v_5 < x_shape0_3; v_5 += 1) {
        const float v_6 = x_1[(v_5) * 16 + i0];
        const float v_7 = buf_2[(v_5) * 32 + i1];
        const float v_8 = (v_6 * v_7);
        const float v_9 = (v_4 + v_8);
        v_4 = v_9;
    }
    buf_0[tf_t] = v_4;
}

#version 430
// kernel kernels_k10: one thread per element of [16, 32]
// binding 0: buf_0 (float32, read-write)
// binding 1: buf_1 (float32, read-only)
// binding 2: w1_2 (float32, read-only)
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer tf_b0 { float buf_0[]; };
layout(std430, binding = 1) readonly buffer tf_b1 { float buf_1[]; };
layout(std430, binding = 2) readonly buffer tf_b2 { float w1_2[]; };

void main() {
    const uint tf_g = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
    if (tf_g >= uint(16) * uint(32)) return;
    uint tf_rest = tf_g;
    const int i1 = int(tf_rest % uint(32));
    tf_rest = tf_rest / uint(32);
    const int i0 = int(tf_rest);
    const int tf_t = int(tf_g);
    const float v_3 = buf_1[tf_t];
    const float v_4 = v_3;
    const float v_5 = (0.01f * v_4);
    const float v_6 = w1_2[tf_t];
    const float v_7 = (v_6 - v_5);
    buf_0[tf_t] = v_7;
}

#version 430
// kernel kernels_k11: one thread per element of [32, 4]
// binding 0: buf_0 (float32, read-write)
// binding 1: buf_1 (float32, read-only)
// binding 2: w2_2 (float32, read-only)
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer tf_b0 { float buf_0[]; };
layout(std430, binding = 1) readonly buffer tf_b1 { float buf_1[]; };
layout(std430, binding = 2) readonly buffer tf_b2 { float w2_2[]; };

void main() {
    const uint tf_g = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
    if (tf_g >= uint(32) * uint(4)) return;
    uint tf_rest = tf_g;
    const int i1 = int(tf_rest % uint(4));
    tf_rest = tf_rest / uint(4);
    const int i0 = int(tf_rest);
    const int tf_t = int(tf_g);
    const float v_3 = buf_1[tf_t];
    const float v_4 = v_3;
    const float v_5 = (0.01f * v_4);
    const float v_6 = w2_2[tf_t];
    const float v_7 = (v_6 - v_5);
    buf_0[tf_t] = v_7;
}

