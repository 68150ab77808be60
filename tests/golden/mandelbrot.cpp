// ---- kernels
static __attribute__((noinline)) void mandelbrot_k0_rows(const float* __restrict c_re_0, const float* __restrict c_im_1, int32_t* __restrict n_2, const int32_t c_re_shape0_3, const int32_t c_re_shape1_4, const int32_t i0) {
    if (tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) return;  // Ctrl-C
    for (int32_t tf_lane0 = 0; tf_lane0 < c_re_shape1_4; tf_lane0 += 32) {
        const int32_t tf_lanes = tf_min_index(32, c_re_shape1_4 - tf_lane0);
        if (tf_lanes == 32) {
            alignas(64) int32_t n_7[32];
            alignas(64) float v_8[32];
            alignas(64) float v_9[32];
            alignas(64) float z_im_6[32];
            alignas(64) float z_re_5[32];
            for (int32_t tf_l = 0; tf_l < 32; tf_l++) {
                const int32_t i1 = tf_lane0 + tf_l;
                const int32_t tf_t = i0 * c_re_shape1_4 + i1;
                z_re_5[tf_l] = 0.0f;
                z_im_6[tf_l] = 0.0f;
                n_7[tf_l] = 0;
                v_8[tf_l] = c_re_0[tf_t];
                v_9[tf_l] = c_im_1[tf_t];
            }
            alignas(64) int32_t tf_live_v_10[32];
            for (int32_t tf_l = 0; tf_l < 32; tf_l++) {
                const int32_t i1 = tf_lane0 + tf_l;
                const int32_t tf_t = i0 * c_re_shape1_4 + i1;
                tf_live_v_10[tf_l] = true;
            }
            for (int32_t v_10 = 0; v_10 < 128; v_10 += 1) {
                if (tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) break;  // Ctrl-C
                for (int32_t tf_l = 0; tf_l < 32; tf_l++) {
                    const int32_t i1 = tf_lane0 + tf_l;
                    const int32_t tf_t = i0 * c_re_shape1_4 + i1;
                    const float v_11 = (z_re_5[tf_l] * z_re_5[tf_l]);
                    const float v_12 = (z_im_6[tf_l] * z_im_6[tf_l]);
                    const float v_13 = (v_11 - v_12);
                    const float z_re_new_14 = (v_13 + v_8[tf_l]);
                    const float v_15 = (2.0f * z_re_5[tf_l]);
                    const float v_16 = (v_15 * z_im_6[tf_l]);
                    const float v_17 = (v_16 + v_9[tf_l]);
                    z_im_6[tf_l] = (tf_live_v_10[tf_l]) ? v_17 : z_im_6[tf_l];
                    z_re_5[tf_l] = (tf_live_v_10[tf_l]) ? z_re_new_14 : z_re_5[tf_l];
                    const int32_t v_18 = tf_wrap_add_i32(n_7[tf_l], 1);
                    n_7[tf_l] = (tf_live_v_10[tf_l]) ? v_18 : n_7[tf_l];
                    const float v_19 = (z_re_5[tf_l] * z_re_5[tf_l]);
                    const float v_20 = (z_im_6[tf_l] * z_im_6[tf_l]);
                    const float v_21 = (v_19 + v_20);
                    const bool v_22 = (v_21 > 256.0f);
                    tf_live_v_10[tf_l] = tf_live_v_10[tf_l] & !(v_22);
                }
                int32_t tf_any = 0;
                for (int32_t tf_l = 0; tf_l < 32; tf_l++) {
                    const int32_t i1 = tf_lane0 + tf_l;
                    const int32_t tf_t = i0 * c_re_shape1_4 + i1;
                    tf_any |= tf_live_v_10[tf_l];
                }
                if (!tf_any) break;
            }
            for (int32_t tf_l = 0; tf_l < 32; tf_l++) {
                const int32_t i1 = tf_lane0 + tf_l;
                const int32_t tf_t = i0 * c_re_shape1_4 + i1;
                n_2[tf_t] = n_7[tf_l];
            }
        } else {
            alignas(64) int32_t n_7[32];
            alignas(64) float v_8[32];
            alignas(64) float v_9[32];
            alignas(64) float z_im_6[32];
            alignas(64) float z_re_5[32];
            for (int32_t tf_l = 0; tf_l < tf_lanes; tf_l++) {
                const int32_t i1 = tf_lane0 + tf_l;
                const int32_t tf_t = i0 * c_re_shape1_4 + i1;
                z_re_5[tf_l] = 0.0f;
                z_im_6[tf_l] = 0.0f;
                n_7[tf_l] = 0;
                v_8[tf_l] = c_re_0[tf_t];
                v_9[tf_l] = c_im_1[tf_t];
            }
            alignas(64) int32_t tf_live_v_10[32];
            for (int32_t tf_l = 0; tf_l < tf_lanes; tf_l++) {
                const int32_t i1 = tf_lane0 + tf_l;
                const int32_t tf_t = i0 * c_re_shape1_4 + i1;
                tf_live_v_10[tf_l] = true;
            }
            for (int32_t v_10 = 0; v_10 < 128; v_10 += 1) {
                if (tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) break;  // Ctrl-C
                for (int32_t tf_l = 0; tf_l < tf_lanes; tf_l++) {
                    const int32_t i1 = tf_lane0 + tf_l;
                    const int32_t tf_t = i0 * c_re_shape1_4 + i1;
                    const float v_11 = (z_re_5[tf_l] * z_re_5[tf_l]);
                    const float v_12 = (z_im_6[tf_l] * z_im_6[tf_l]);
                    const float v_13 = (v_11 - v_12);
                    const float z_re_new_14 = (v_13 + v_8[tf_l]);
                    const float v_15 = (2.0f * z_re_5[tf_l]);
                    const float v_16 = (v_15 * z_im_6[tf_l]);
                    const float v_17 = (v_16 + v_9[tf_l]);
                    z_im_6[tf_l] = (tf_live_v_10[tf_l]) ? v_17 : z_im_6[tf_l];
                    z_re_5[tf_l] = (tf_live_v_10[tf_l]) ? z_re_new_14 : z_re_5[tf_l];
                    const int32_t v_18 = tf_wrap_add_i32(n_7[tf_l], 1);
                    n_7[tf_l] = (tf_live_v_10[tf_l]) ? v_18 : n_7[tf_l];
                    const float v_19 = (z_re_5[tf_l] * z_re_5[tf_l]);
                    const float v_20 = (z_im_6[tf_l] * z_im_6[tf_l]);
                    const float v_21 = (v_19 + v_20);
                    const bool v_22 = (v_21 > 256.0f);
                    tf_live_v_10[tf_l] = tf_live_v_10[tf_l] & !(v_22);
                }
                int32_t tf_any = 0;
                for (int32_t tf_l = 0; tf_l < tf_lanes; tf_l++) {
                    const int32_t i1 = tf_lane0 + tf_l;
                    const int32_t tf_t = i0 * c_re_shape1_4 + i1;
                    tf_any |= tf_live_v_10[tf_l];
                }
                if (!tf_any) break;
            }
            for (int32_t tf_l = 0; tf_l < tf_lanes; tf_l++) {
                const int32_t i1 = tf_lane0 + tf_l;
                const int32_t tf_t = i0 * c_re_shape1_4 + i1;
                n_2[tf_t] = n_7[tf_l];
            }
        }
    }
}
#pragma GCC push_options
#pragma GCC optimize("O1")
void mandelbrot_k0(const float* __restrict c_re_0, const float* __restrict c_im_1, int32_t* __restrict n_2, const int32_t c_re_shape0_3, const int32_t c_re_shape1_4) {
    const long long tf_count0 = (c_re_shape0_3);
    auto tf_tasks = [&](long long tf_begin, long long tf_end) {
        for (long long tf_task = tf_begin; tf_task < tf_end; tf_task++) {
            const int32_t i0 = (int32_t)(tf_task);
            mandelbrot_k0_rows(c_re_0, c_im_1, n_2, c_re_shape0_3, c_re_shape1_4, i0);
        }
    };
    const long long tf_count = tf_count0;
    if ((long long)(c_re_shape0_3) * (long long)(c_re_shape1_4) >= 64) tf_parallel(tf_count, tf_tasks);
    else tf_tasks(0, tf_count);
}
#pragma GCC pop_options
// ---- host
extern "C" __attribute__((visibility("default"), optimize("O1"))) int tf_main(const tf_arg* in,
                                                       tf_arg* out, char* error, int error_size, const tf_allocator* allocator) {
    if (allocator) tf_allocator_in_use = *allocator;
    if (tf_allocator_in_use.interrupted) *tf_allocator_in_use.interrupted = 0;  // an earlier Ctrl-C
    tf_error_out = error;
    tf_error_size = error_size;
    const float* c_re_0 = (const float*)in[0].data;
    const int32_t c_re_shape0_3 = in[0].shape[0];
    const int32_t c_re_shape1_4 = in[0].shape[1];
    const float* c_im_1 = (const float*)in[1].data;
    const int32_t c_im_shape0_23 = in[1].shape[0];
    const bool v_24 = (c_re_shape0_3 == c_im_shape0_23);
    if (!(v_24)) {
        const long long tf_values[] = {(long long)(c_re_shape0_3), (long long)(c_im_shape0_23)};
        return tf_fail("argument 1 ('c_im'): shape[0] must be {0} (c_re.shape[0]), got {1} (at <tests>/test_golden.py:<line>)", tf_values, 2);
    }
    const int32_t c_im_shape1_25 = in[1].shape[1];
    const bool c_im_26 = (c_re_shape1_4 == c_im_shape1_25);
    if (!(c_im_26)) {
        const long long tf_values[] = {(long long)(c_re_shape1_4), (long long)(c_im_shape1_25)};
        return tf_fail("argument 1 ('c_im'): shape[1] must be {0} (c_re.shape[1]), got {1} (at <tests>/test_golden.py:<line>)", tf_values, 2);
    }
    if ((long long)(c_re_shape0_3) < 0) {
        const long long tf_sizes[] = {(long long)(c_re_shape0_3)};
        return tf_fail("tensor 'n' (made at <tests>/test_golden.py:<line>): shape[0] is {0}, a negative size", tf_sizes, 1);
    }
    if ((long long)(c_re_shape1_4) < 0) {
        const long long tf_sizes[] = {(long long)(c_re_shape1_4)};
        return tf_fail("tensor 'n' (made at <tests>/test_golden.py:<line>): shape[1] is {0}, a negative size", tf_sizes, 1);
    }
    if ((double)(long long)(c_re_shape0_3) * (double)(long long)(c_re_shape1_4) > 2147483647.0) {
        const long long tf_sizes[] = {(long long)(c_re_shape0_3), (long long)(c_re_shape1_4)};
        return tf_fail("tensor 'n' (made at <tests>/test_golden.py:<line>): shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", tf_sizes, 2);
    }
    tf_buffer n_2_memory((long long)(c_re_shape0_3) * (long long)(c_re_shape1_4), "n");
    if (!n_2_memory.data) return 1;
    int32_t* n_2 = (int32_t*)n_2_memory.data;
    mandelbrot_k0(c_re_0, c_im_1, n_2, c_re_shape0_3, c_re_shape1_4);
    TF_STOP_IF_INTERRUPTED();
    out[0].data = n_2_memory.release();
    out[0].rank = 2;
    out[0].shape[0] = c_re_shape0_3;
    out[0].shape[1] = c_re_shape1_4;
    return 0;
}
