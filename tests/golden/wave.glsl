std::tuple<TFTensor, TFTensor> kernels(TFContext tf, TFTensor u, TFTensor v)
{
    tf.check_tensor(u, "u", 2, TFType::Float);
    const int u_shape0_2 = (int)u.shape[0];
    const int u_shape1_3 = (int)u.shape[1];
    tf.check_tensor(v, "v", 2, TFType::Float);
    const int v_shape0_4 = (int)v.shape[0];
    const bool v_5 = (u_shape0_2 == v_shape0_4);
    tf.check(v_5, "argument 1 ('v'): shape[0] must be {0} (u.shape[0]), got {1}", {(long long)(u_shape0_2), (long long)(v_shape0_4)});
    const int v_shape1_6 = (int)v.shape[1];
    const bool v_7 = (u_shape1_3 == v_shape1_6);
    tf.check(v_7, "argument 1 ('v'): shape[1] must be {0} (u.shape[1]), got {1}", {(long long)(u_shape1_3), (long long)(v_shape1_6)});
    tf.check((long long)(u_shape0_2) >= 0, "tensor 'v_new': shape[0] is {0}, a negative size", {(long long)(u_shape0_2)});
    tf.check((long long)(u_shape1_3) >= 0, "tensor 'v_new': shape[1] is {0}, a negative size", {(long long)(u_shape1_3)});
    tf.check((double)(long long)(u_shape0_2) * (double)(long long)(u_shape1_3) <= 2147483647.0, "tensor 'v_new': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", {(long long)(u_shape0_2), (long long)(u_shape1_3)});
    TFTensor v_new_8 = tf.allocate("v_new", {(uint)u_shape0_2, (uint)u_shape1_3}, TFType::Float);
    tf.check((long long)(u_shape0_2) >= 0, "tensor 'u_new': shape[0] is {0}, a negative size", {(long long)(u_shape0_2)});
    tf.check((long long)(u_shape1_3) >= 0, "tensor 'u_new': shape[1] is {0}, a negative size", {(long long)(u_shape1_3)});
    tf.check((double)(long long)(u_shape0_2) * (double)(long long)(u_shape1_3) <= 2147483647.0, "tensor 'u_new': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", {(long long)(u_shape0_2), (long long)(u_shape1_3)});
    TFTensor u_new_9 = tf.allocate("u_new", {(uint)u_shape0_2, (uint)u_shape1_3}, TFType::Float);
    tf.dispatch(0, {v_new_8, u_new_9}, {u, v}, {asuint(u_shape0_2), asuint(u_shape1_3)}, {(uint)u_shape0_2, (uint)u_shape1_3}, {256});
    return {v_new_8, u_new_9};
}

#version 430
// kernel kernels_k0: one thread per element of [u_shape0_4, u_shape1_5]
// binding 0: v_new_0 (float32, read-write)
// binding 1: u_new_1 (float32, read-write)
// binding 2: u_2 (float32, read-only)
// binding 3: v_3 (float32, read-only)
// tf_u[0]: u_shape0_4 (int32)
// tf_u[1]: u_shape1_5 (int32)
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer tf_b0 { float v_new_0[]; };
layout(std430, binding = 1) buffer tf_b1 { float u_new_1[]; };
layout(std430, binding = 2) readonly buffer tf_b2 { float u_2[]; };
layout(std430, binding = 3) readonly buffer tf_b3 { float v_3[]; };
uniform uint tf_u[2];

int tf_clamp_index(int i, int n) { return clamp(i, 0, max(n - 1, 0)); }

void main() {
    const int u_shape0_4 = int(tf_u[0]);
    const int u_shape1_5 = int(tf_u[1]);
    const uint tf_g = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
    if (tf_g >= uint(u_shape0_4) * uint(u_shape1_5)) return;
    uint tf_rest = tf_g;
    const int i1 = int(tf_rest % uint(u_shape1_5));
    tf_rest = tf_rest / uint(u_shape1_5);
    const int i0 = int(tf_rest);
    const int tf_t = int(tf_g);
    const int v_6 = (i0 - 1);
    const float v_7 = u_2[(tf_clamp_index(v_6, u_shape0_4)) * u_shape1_5 + i1];
    const int v_8 = (i0 + 1);
    const float v_9 = u_2[(tf_clamp_index(v_8, u_shape0_4)) * u_shape1_5 + i1];
    const float v_10 = (v_7 + v_9);
    const int v_11 = (i1 - 1);
    const float v_12 = u_2[(i0) * u_shape1_5 + tf_clamp_index(v_11, u_shape1_5)];
    const float v_13 = (v_10 + v_12);
    const int v_14 = (i1 + 1);
    const float v_15 = u_2[(i0) * u_shape1_5 + tf_clamp_index(v_14, u_shape1_5)];
    const float v_16 = (v_13 + v_15);
    const float v_17 = u_2[tf_t];
    const float v_18 = (v_17 * 4.0f);
    const float laplacian_19 = (v_16 - v_18);
    const float v_20 = (0.1f * laplacian_19);
    const float v_21 = v_3[tf_t];
    const float v_new_22 = (v_21 + v_20);
    v_new_0[tf_t] = v_new_22;
    const float v_23 = (0.1f * v_new_22);
    const float u_new_24 = (v_17 + v_23);
    u_new_1[tf_t] = u_new_24;
}

