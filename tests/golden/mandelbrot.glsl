TFTensor kernels(TFContext tf, TFTensor c_re, TFTensor c_im)
{
    tf.check_tensor(c_re, "c_re", 2, TFType::Float);
    const int c_re_shape0_2 = (int)c_re.shape[0];
    const int c_re_shape1_3 = (int)c_re.shape[1];
    tf.check_tensor(c_im, "c_im", 2, TFType::Float);
    const int c_im_shape0_4 = (int)c_im.shape[0];
    const bool v_5 = (c_re_shape0_2 == c_im_shape0_4);
    tf.check(v_5, "argument 1 ('c_im'): shape[0] must be {0} (c_re.shape[0]), got {1}", {(long long)(c_re_shape0_2), (long long)(c_im_shape0_4)});
    const int c_im_shape1_6 = (int)c_im.shape[1];
    const bool c_im_7 = (c_re_shape1_3 == c_im_shape1_6);
    tf.check(c_im_7, "argument 1 ('c_im'): shape[1] must be {0} (c_re.shape[1]), got {1}", {(long long)(c_re_shape1_3), (long long)(c_im_shape1_6)});
    tf.check((long long)(c_re_shape0_2) >= 0, "tensor 'n': shape[0] is {0}, a negative size", {(long long)(c_re_shape0_2)});
    tf.check((long long)(c_re_shape1_3) >= 0, "tensor 'n': shape[1] is {0}, a negative size", {(long long)(c_re_shape1_3)});
    tf.check((double)(long long)(c_re_shape0_2) * (double)(long long)(c_re_shape1_3) <= 2147483647.0, "tensor 'n': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", {(long long)(c_re_shape0_2), (long long)(c_re_shape1_3)});
    TFTensor n_8 = tf.allocate("n", {(uint)c_re_shape0_2, (uint)c_re_shape1_3}, TFType::Int);
    tf.dispatch(0, {n_8}, {c_re, c_im}, {asuint(c_re_shape0_2), asuint(c_re_shape1_3)}, {(uint)c_re_shape0_2, (uint)c_re_shape1_3}, {256});
    return n_8;
}

#version 430
// kernel kernels_k0: one thread per element of [c_re_shape0_3, c_re_shape1_4]
// binding 0: n_0 (int32, read-write)
// binding 1: c_re_1 (float32, read-only)
// binding 2: c_im_2 (float32, read-only)
// tf_u[0]: c_re_shape0_3 (int32)
// tf_u[1]: c_re_shape1_4 (int32)
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer tf_b0 { int n_0[]; };
layout(std430, binding = 1) readonly buffer tf_b1 { float c_re_1[]; };
layout(std430, binding = 2) readonly buffer tf_b2 { float c_im_2[]; };
uniform uint tf_u[2];

void main() {
    const int c_re_shape0_3 = int(tf_u[0]);
    const int c_re_shape1_4 = int(tf_u[1]);
    const uint tf_g = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
    if (tf_g >= uint(c_re_shape0_3) * uint(c_re_shape1_4)) return;
    uint tf_rest = tf_g;
    const int i1 = int(tf_rest % uint(c_re_shape1_4));
    tf_rest = tf_rest / uint(c_re_shape1_4);
    const int i0 = int(tf_rest);
    const int tf_t = int(tf_g);
    float z_re_5 = 0.0f;
    float z_im_6 = 0.0f;
    int n_7 = 0 + min(int(gl_NumWorkGroups.z), 0);
    const float v_8 = c_re_1[tf_t];
    const float v_9 = c_im_2[tf_t];
    for (int v_10 = 0; v_10 < 128; v_10 += 1) {
        const float v_11 = (z_re_5 * z_re_5);
        const float v_12 = (z_im_6 * z_im_6);
        const float v_13 = (v_11 - v_12);
        const float z_re_new_14 = (v_13 + v_8);
        const float v_15 = (2.0f * z_re_5);
        const float v_16 = (v_15 * z_im_6);
        const float v_17 = (v_16 + v_9);
        z_im_6 = v_17;
        z_re_5 = z_re_new_14;
        const int v_18 = (n_7 + 1);
        n_7 = v_18;
        const float v_19 = (z_re_5 * z_re_5);
        const float v_20 = (z_im_6 * z_im_6);
        const float v_21 = (v_19 + v_20);
        const bool v_22 = (v_21 > 256.0f);
        if (v_22) {
            break;
        }
    }
    n_0[tf_t] = n_7;
}

