// ---- kernels
static __attribute__((noinline)) void matmul_k0_rows(const float* __restrict A_0, const float* __restrict B_1, float* __restrict C_2, float* __restrict buf_3, const int32_t A_shape0_4, const int32_t B_shape1_5, const int32_t A_shape1_6, const int32_t tf_lane0, const int32_t tf_block0) {
    if (tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) return;  // Ctrl-C
    const int32_t tf_lanes = tf_min_index(32, B_shape1_5 - tf_lane0);
    const int32_t tf_block_end = tf_min_index(A_shape0_4, tf_block0 + 64);
    for (int32_t tf_row0 = tf_block0; tf_row0 < tf_block_end; tf_row0 += 8) {
        const int32_t tf_rows = tf_min_index(8, tf_block_end - tf_row0);
        if (tf_lanes == 32 && tf_rows == 8) {
            alignas(64) float C_7[8][32];
            alignas(64) float v_8[8][32];
            for (int32_t tf_r = 0; tf_r < 8; tf_r++) {
                const int32_t i0 = tf_row0 + tf_r;
                for (int32_t tf_l = 0; tf_l < 32; tf_l++) {
                    const int32_t i1 = tf_lane0 + tf_l;
                    const int32_t tf_t = i0 * B_shape1_5 + i1;
                    C_7[tf_r][tf_l] = 0.0f;
                    v_8[tf_r][tf_l] = 0.0f;
                }
            }
            uint32_t tf_trips_v_9 = 0;
            for (int32_t v_9 = 0; v_9 < A_shape1_6; v_9 += 1) {
                if ((tf_trips_v_9++ & 1023u) == 0 && tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) break;  // Ctrl-C
                for (int32_t tf_r = 0; tf_r < 8; tf_r++) {
                    const int32_t i0 = tf_row0 + tf_r;
                    for (int32_t tf_l = 0; tf_l < 32; tf_l++) {
                        const int32_t i1 = tf_lane0 + tf_l;
                        const int32_t tf_t = i0 * B_shape1_5 + i1;
                        const float v_10 = A_0[(i0) * A_shape1_6 + v_9];
                        const float v_11 = B_1[(v_9) * B_shape1_5 + i1];
                        const float v_12 = (v_10 * v_11);
                        const float v_13 = (C_7[tf_r][tf_l] + v_12);
                        C_7[tf_r][tf_l] = v_13;
                        const float v_14 = (v_8[tf_r][tf_l] + v_12);
                        v_8[tf_r][tf_l] = v_14;
                    }
                }
            }
            for (int32_t tf_r = 0; tf_r < 8; tf_r++) {
                const int32_t i0 = tf_row0 + tf_r;
                for (int32_t tf_l = 0; tf_l < 32; tf_l++) {
                    const int32_t i1 = tf_lane0 + tf_l;
                    const int32_t tf_t = i0 * B_shape1_5 + i1;
                    C_2[tf_t] = C_7[tf_r][tf_l];
                    buf_3[tf_t] = v_8[tf_r][tf_l];
                }
            }
        } else {
            alignas(64) float C_7[8][32];
            alignas(64) float v_8[8][32];
            for (int32_t tf_r = 0; tf_r < tf_rows; tf_r++) {
                const int32_t i0 = tf_row0 + tf_r;
                for (int32_t tf_l = 0; tf_l < tf_lanes; tf_l++) {
                    const int32_t i1 = tf_lane0 + tf_l;
                    const int32_t tf_t = i0 * B_shape1_5 + i1;
                    C_7[tf_r][tf_l] = 0.0f;
                    v_8[tf_r][tf_l] = 0.0f;
                }
            }
            uint32_t tf_trips_v_9 = 0;
            for (int32_t v_9 = 0; v_9 < A_shape1_6; v_9 += 1) {
                if ((tf_trips_v_9++ & 1023u) == 0 && tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) break;  // Ctrl-C
                for (int32_t tf_r = 0; tf_r < tf_rows; tf_r++) {
                    const int32_t i0 = tf_row0 + tf_r;
                    for (int32_t tf_l = 0; tf_l < tf_lanes; tf_l++) {
                        const int32_t i1 = tf_lane0 + tf_l;
                        const int32_t tf_t = i0 * B_shape1_5 + i1;
                        const float v_10 = A_0[(i0) * A_shape1_6 + v_9];
                        const float v_11 = B_1[(v_9) * B_shape1_5 + i1];
                        const float v_12 = (v_10 * v_11);
                        const float v_13 = (C_7[tf_r][tf_l] + v_12);
                        C_7[tf_r][tf_l] = v_13;
                        const float v_14 = (v_8[tf_r][tf_l] + v_12);
                        v_8[tf_r][tf_l] = v_14;
                    }
                }
            }
            for (int32_t tf_r = 0; tf_r < tf_rows; tf_r++) {
                const int32_t i0 = tf_row0 + tf_r;
                for (int32_t tf_l = 0; tf_l < tf_lanes; tf_l++) {
                    const int32_t i1 = tf_lane0 + tf_l;
                    const int32_t tf_t = i0 * B_shape1_5 + i1;
                    C_2[tf_t] = C_7[tf_r][tf_l];
                    buf_3[tf_t] = v_8[tf_r][tf_l];
                }
            }
        }
    }
}
#pragma GCC push_options
#pragma GCC optimize("O1")
void matmul_k0(const float* __restrict A_0, const float* __restrict B_1, float* __restrict C_2, float* __restrict buf_3, const int32_t A_shape0_4, const int32_t B_shape1_5, const int32_t A_shape1_6) {
    const long long tf_count0 = ((B_shape1_5) + 31) / 32;
    const long long tf_count1 = ((A_shape0_4) + 63) / 64;
    auto tf_tasks = [&](long long tf_begin, long long tf_end) {
        for (long long tf_task = tf_begin; tf_task < tf_end; tf_task++) {
            const int32_t tf_lane0 = (int32_t)((tf_task / tf_count1)) * 32;
            const int32_t tf_block0 = (int32_t)(tf_task % tf_count1) * 64;
            matmul_k0_rows(A_0, B_1, C_2, buf_3, A_shape0_4, B_shape1_5, A_shape1_6, tf_lane0, tf_block0);
        }
    };
    const long long tf_count = tf_count0 * tf_count1;
    if ((long long)(A_shape0_4) * (long long)(B_shape1_5) >= 64) tf_parallel(tf_count, tf_tasks);
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
    const float* A_0 = (const float*)in[0].data;
    const int32_t A_shape0_4 = in[0].shape[0];
    const int32_t A_shape1_6 = in[0].shape[1];
    const float* B_1 = (const float*)in[1].data;
    const int32_t B_shape0_15 = in[1].shape[0];
    const bool v_16 = (A_shape1_6 == B_shape0_15);
    if (!(v_16)) {
        const long long tf_values[] = {(long long)(A_shape1_6), (long long)(B_shape0_15)};
        return tf_fail("argument 1 ('B'): shape[0] must be {0} (A.shape[1]), got {1} (at <tests>/test_seed_examples.py:<line>)", tf_values, 2);
    }
    const int32_t B_shape1_5 = in[1].shape[1];
    if ((long long)(A_shape0_4) < 0) {
        const long long tf_sizes[] = {(long long)(A_shape0_4)};
        return tf_fail("tensor 'C': shape[0] is {0}, a negative size", tf_sizes, 1);
    }
    if ((long long)(B_shape1_5) < 0) {
        const long long tf_sizes[] = {(long long)(B_shape1_5)};
        return tf_fail("tensor 'C': shape[1] is {0}, a negative size", tf_sizes, 1);
    }
    if ((double)(long long)(A_shape0_4) * (double)(long long)(B_shape1_5) > 2147483647.0) {
        const long long tf_sizes[] = {(long long)(A_shape0_4), (long long)(B_shape1_5)};
        return tf_fail("tensor 'C': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", tf_sizes, 2);
    }
    tf_buffer C_2_memory((long long)(A_shape0_4) * (long long)(B_shape1_5), "C");
    if (!C_2_memory.data) return 1;
    float* C_2 = (float*)C_2_memory.data;
    if ((long long)(A_shape0_4) < 0) {
        const long long tf_sizes[] = {(long long)(A_shape0_4)};
        return tf_fail("tensor 'buf': shape[0] is {0}, a negative size", tf_sizes, 1);
    }
    if ((long long)(B_shape1_5) < 0) {
        const long long tf_sizes[] = {(long long)(B_shape1_5)};
        return tf_fail("tensor 'buf': shape[1] is {0}, a negative size", tf_sizes, 1);
    }
    if ((double)(long long)(A_shape0_4) * (double)(long long)(B_shape1_5) > 2147483647.0) {
        const long long tf_sizes[] = {(long long)(A_shape0_4), (long long)(B_shape1_5)};
        return tf_fail("tensor 'buf': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", tf_sizes, 2);
    }
    tf_buffer buf_3_memory((long long)(A_shape0_4) * (long long)(B_shape1_5), "buf");
    if (!buf_3_memory.data) return 1;
    float* buf_3 = (float*)buf_3_memory.data;
    matmul_k0(A_0, B_1, C_2, buf_3, A_shape0_4, B_shape1_5, A_shape1_6);
    TF_STOP_IF_INTERRUPTED();
    out[0].data = C_2_memory.release();
    out[0].rank = 2;
    out[0].shape[0] = A_shape0_4;
    out[0].shape[1] = B_shape1_5;
    out[1].data = buf_3_memory.release();
    out[1].rank = 2;
    out[1].shape[0] = A_shape0_4;
    out[1].shape[1] = B_shape1_5;
    return 0;
}
