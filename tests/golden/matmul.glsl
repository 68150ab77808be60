std::tuple<TFTensor, TFTensor> kernels(TFContext tf, TFTensor A, TFTensor B)
{
    tf.check_tensor(A, "A", 2, TFType::Float);
    const int A_shape0_2 = (int)A.shape[0];
    const int A_shape1_3 = (int)A.shape[1];
    tf.check_tensor(B, "B", 2, TFType::Float);
    const int B_shape0_4 = (int)B.shape[0];
    const bool v_5 = (A_shape1_3 == B_shape0_4);
    tf.check(v_5, "argument 1 ('B'): shape[0] must be {0} (A.shape[1]), got {1}", {(long long)(A_shape1_3), (long long)(B_shape0_4)});
    const int B_shape1_6 = (int)B.shape[1];
    tf.check((long long)(A_shape0_2) >= 0, "tensor 'C': shape[0] is {0}, a negative size", {(long long)(A_shape0_2)});
    tf.check((long long)(B_shape1_6) >= 0, "tensor 'C': shape[1] is {0}, a negative size", {(long long)(B_shape1_6)});
    tf.check((double)(long long)(A_shape0_2) * (double)(long long)(B_shape1_6) <= 2147483647.0, "tensor 'C': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", {(long long)(A_shape0_2), (long long)(B_shape1_6)});
    TFTensor C_7 = tf.allocate("C", {(uint)A_shape0_2, (uint)B_shape1_6}, TFType::Float);
    tf.check((long long)(A_shape0_2) >= 0, "tensor 'buf': shape[0] is {0}, a negative size", {(long long)(A_shape0_2)});
    tf.check((long long)(B_shape1_6) >= 0, "tensor 'buf': shape[1] is {0}, a negative size", {(long long)(B_shape1_6)});
    tf.check((double)(long long)(A_shape0_2) * (double)(long long)(B_shape1_6) <= 2147483647.0, "tensor 'buf': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", {(long long)(A_shape0_2), (long long)(B_shape1_6)});
    TFTensor buf_8 = tf.allocate("buf", {(uint)A_shape0_2, (uint)B_shape1_6}, TFType::Float);
    tf.dispatch(0, {C_7, buf_8}, {A, B}, {asuint(A_shape0_2), asuint(B_shape1_6), asuint(A_shape1_3)}, {(uint)A_shape0_2, (uint)B_shape1_6}, {256});
    return {C_7, buf_8};
}

#version 430
// kernel kernels_k0: one thread per element of [A_shape0_4, B_shape1_5]
// binding 0: C_0 (float32, read-write)
// binding 1: buf_1 (float32, read-write)
// binding 2: A_2 (float32, read-only)
// binding 3: B_3 (float32, read-only)
// tf_u[0]: A_shape0_4 (int32)
// tf_u[1]: B_shape1_5 (int32)
// tf_u[2]: A_shape1_6 (int32)
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer tf_b0 { float C_0[]; };
layout(std430, binding = 1) buffer tf_b1 { float buf_1[]; };
layout(std430, binding = 2) readonly buffer tf_b2 { float A_2[]; };
layout(std430, binding = 3) readonly buffer tf_b3 { float B_3[]; };
uniform uint tf_u[3];

void main() {
    const int A_shape0_4 = int(tf_u[0]);
    const int B_shape1_5 = int(tf_u[1]);
    const int A_shape1_6 = int(tf_u[2]);
    const uint tf_g = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
    if (tf_g >= uint(A_shape0_4) * uint(B_shape1_5)) return;
    uint tf_rest = tf_g;
    const int i1 = int(tf_rest % uint(B_shape1_5));
    tf_rest = tf_rest / uint(B_shape1_5);
    const int i0 = int(tf_rest);
    const int tf_t = int(tf_g);
    float C_7 = 0.0f;
    float v_8 = 0.0f;
    for (int v_9 = 0; v_9 < A_shape1_6; v_9 += 1) {
        const float v_10 = A_2[(i0) * A_shape1_6 + v_9];
        const float v_11 = B_3[(v_9) * B_shape1_5 + i1];
        const float v_12 = (v_10 * v_11);
        const float v_13 = (C_7 + v_12);
        C_7 = v_13;
        const float v_14 = (v_8 + v_12);
        v_8 = v_14;
    }
    C_0[tf_t] = C_7;
    buf_1[tf_t] = v_8;
}

