// ---- kernels
static __attribute__((noinline)) void wave_k0_rows(const float* __restrict u_0, const float* __restrict v_1, float* __restrict v_new_2, float* __restrict u_new_3, const int32_t u_shape0_4, const int32_t u_shape1_5, const int32_t i0) {
    if (tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) return;  // Ctrl-C
    for (int32_t i1 = 0; i1 < tf_min_index(1, u_shape1_5); i1++) {
        const int32_t tf_t = i0 * u_shape1_5 + i1;
        const int32_t v_6 = (i0 - 1);
        const float v_7 = u_0[(tf_clamp_index(v_6, u_shape0_4)) * u_shape1_5 + i1];
        const int32_t v_8 = (i0 + 1);
        const float v_9 = u_0[(tf_clamp_index(v_8, u_shape0_4)) * u_shape1_5 + i1];
        const float v_10 = (v_7 + v_9);
        const int32_t v_11 = (i1 - 1);
        const float v_12 = u_0[(i0) * u_shape1_5 + tf_clamp_index(v_11, u_shape1_5)];
        const float v_13 = (v_10 + v_12);
        const int32_t v_14 = (i1 + 1);
        const float v_15 = u_0[(i0) * u_shape1_5 + tf_clamp_index(v_14, u_shape1_5)];
        const float v_16 = (v_13 + v_15);
        const float v_17 = u_0[tf_t];
        const float v_18 = (v_17 * 4.0f);
        const float laplacian_19 = (v_16 - v_18);
        const float v_20 = (0.1f * laplacian_19);
        const float v_21 = v_1[tf_t];
        const float v_new_22 = (v_21 + v_20);
        v_new_2[tf_t] = v_new_22;
        const float v_23 = (0.1f * v_new_22);
        const float u_new_24 = (v_17 + v_23);
        u_new_3[tf_t] = u_new_24;
    }
    for (int32_t i1 = tf_max_index(1, 0); i1 < tf_min_index(u_shape1_5 - 1, u_shape1_5); i1++) {
        const int32_t tf_t = i0 * u_shape1_5 + i1;
        const int32_t v_6 = (i0 - 1);
        const float v_7 = u_0[(tf_clamp_index(v_6, u_shape0_4)) * u_shape1_5 + i1];
        const int32_t v_8 = (i0 + 1);
        const float v_9 = u_0[(tf_clamp_index(v_8, u_shape0_4)) * u_shape1_5 + i1];
        const float v_10 = (v_7 + v_9);
        const int32_t v_11 = (i1 - 1);
        const float v_12 = u_0[(i0) * u_shape1_5 + v_11];
        const float v_13 = (v_10 + v_12);
        const int32_t v_14 = (i1 + 1);
        const float v_15 = u_0[(i0) * u_shape1_5 + v_14];
        const float v_16 = (v_13 + v_15);
        const float v_17 = u_0[tf_t];
        const float v_18 = (v_17 * 4.0f);
        const float laplacian_19 = (v_16 - v_18);
        const float v_20 = (0.1f * laplacian_19);
        const float v_21 = v_1[tf_t];
        const float v_new_22 = (v_21 + v_20);
        v_new_2[tf_t] = v_new_22;
        const float v_23 = (0.1f * v_new_22);
        const float u_new_24 = (v_17 + v_23);
        u_new_3[tf_t] = u_new_24;
    }
    for (int32_t i1 = tf_max_index(tf_max_index(1, u_shape1_5 - 1), 0); i1 < u_shape1_5; i1++) {
        const int32_t tf_t = i0 * u_shape1_5 + i1;
        const int32_t v_6 = (i0 - 1);
        const float v_7 = u_0[(tf_clamp_index(v_6, u_shape0_4)) * u_shape1_5 + i1];
        const int32_t v_8 = (i0 + 1);
        const float v_9 = u_0[(tf_clamp_index(v_8, u_shape0_4)) * u_shape1_5 + i1];
        const float v_10 = (v_7 + v_9);
        const int32_t v_11 = (i1 - 1);
        const float v_12 = u_0[(i0) * u_shape1_5 + tf_clamp_index(v_11, u_shape1_5)];
        const float v_13 = (v_10 + v_12);
        const int32_t v_14 = (i1 + 1);
        const float v_15 = u_0[(i0) * u_shape1_5 + tf_clamp_index(v_14, u_shape1_5)];
        const float v_16 = (v_13 + v_15);
        const float v_17 = u_0[tf_t];
        const float v_18 = (v_17 * 4.0f);
        const float laplacian_19 = (v_16 - v_18);
        const float v_20 = (0.1f * laplacian_19);
        const float v_21 = v_1[tf_t];
        const float v_new_22 = (v_21 + v_20);
        v_new_2[tf_t] = v_new_22;
        const float v_23 = (0.1f * v_new_22);
        const float u_new_24 = (v_17 + v_23);
        u_new_3[tf_t] = u_new_24;
    }
}
#pragma GCC push_options
#pragma GCC optimize("O1")
void wave_k0(const float* __restrict u_0, const float* __restrict v_1, float* __restrict v_new_2, float* __restrict u_new_3, const int32_t u_shape0_4, const int32_t u_shape1_5) {
    const long long tf_count0 = (u_shape0_4);
    auto tf_tasks = [&](long long tf_begin, long long tf_end) {
        for (long long tf_task = tf_begin; tf_task < tf_end; tf_task++) {
            const int32_t i0 = (int32_t)(tf_task);
            wave_k0_rows(u_0, v_1, v_new_2, u_new_3, u_shape0_4, u_shape1_5, i0);
        }
    };
    const long long tf_count = tf_count0;
    if ((long long)(u_shape0_4) * (long long)(u_shape1_5) >= 8192) tf_parallel(tf_count, tf_tasks);
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
    const float* u_0 = (const float*)in[0].data;
    const int32_t u_shape0_4 = in[0].shape[0];
    const int32_t u_shape1_5 = in[0].shape[1];
    const float* v_1 = (const float*)in[1].data;
    const int32_t v_shape0_25 = in[1].shape[0];
    const bool v_26 = (u_shape0_4 == v_shape0_25);
    if (!(v_26)) {
        const long long tf_values[] = {(long long)(u_shape0_4), (long long)(v_shape0_25)};
        return tf_fail("argument 1 ('v'): shape[0] must be {0} (u.shape[0]), got {1} (at <tests>/test_seed_examples.py:<line>)", tf_values, 2);
    }
    const int32_t v_shape1_27 = in[1].shape[1];
    const bool v_28 = (u_shape1_5 == v_shape1_27);
    if (!(v_28)) {
        const long long tf_values[] = {(long long)(u_shape1_5), (long long)(v_shape1_27)};
        return tf_fail("argument 1 ('v'): shape[1] must be {0} (u.shape[1]), got {1} (at <tests>/test_seed_examples.py:<line>)", tf_values, 2);
    }
    if ((long long)(u_shape0_4) < 0) {
        const long long tf_sizes[] = {(long long)(u_shape0_4)};
        return tf_fail("tensor 'v_new' (made at <tests>/test_seed_examples.py:<line>): shape[0] is {0}, a negative size", tf_sizes, 1);
    }
    if ((long long)(u_shape1_5) < 0) {
        const long long tf_sizes[] = {(long long)(u_shape1_5)};
        return tf_fail("tensor 'v_new' (made at <tests>/test_seed_examples.py:<line>): shape[1] is {0}, a negative size", tf_sizes, 1);
    }
    if ((double)(long long)(u_shape0_4) * (double)(long long)(u_shape1_5) > 2147483647.0) {
        const long long tf_sizes[] = {(long long)(u_shape0_4), (long long)(u_shape1_5)};
        return tf_fail("tensor 'v_new' (made at <tests>/test_seed_examples.py:<line>): shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", tf_sizes, 2);
    }
    tf_buffer v_new_2_memory((long long)(u_shape0_4) * (long long)(u_shape1_5), "v_new");
    if (!v_new_2_memory.data) return 1;
    float* v_new_2 = (float*)v_new_2_memory.data;
    if ((long long)(u_shape0_4) < 0) {
        const long long tf_sizes[] = {(long long)(u_shape0_4)};
        return tf_fail("tensor 'u_new' (made at <tests>/test_seed_examples.py:<line>): shape[0] is {0}, a negative size", tf_sizes, 1);
    }
    if ((long long)(u_shape1_5) < 0) {
        const long long tf_sizes[] = {(long long)(u_shape1_5)};
        return tf_fail("tensor 'u_new' (made at <tests>/test_seed_examples.py:<line>): shape[1] is {0}, a negative size", tf_sizes, 1);
    }
    if ((double)(long long)(u_shape0_4) * (double)(long long)(u_shape1_5) > 2147483647.0) {
        const long long tf_sizes[] = {(long long)(u_shape0_4), (long long)(u_shape1_5)};
        return tf_fail("tensor 'u_new' (made at <tests>/test_seed_examples.py:<line>): shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", tf_sizes, 2);
    }
    tf_buffer u_new_3_memory((long long)(u_shape0_4) * (long long)(u_shape1_5), "u_new");
    if (!u_new_3_memory.data) return 1;
    float* u_new_3 = (float*)u_new_3_memory.data;
    wave_k0(u_0, v_1, v_new_2, u_new_3, u_shape0_4, u_shape1_5);
    TF_STOP_IF_INTERRUPTED();
    out[0].data = v_new_2_memory.release();
    out[0].rank = 2;
    out[0].shape[0] = u_shape0_4;
    out[0].shape[1] = u_shape1_5;
    out[1].data = u_new_3_memory.release();
    out[1].rank = 2;
    out[1].shape[0] = u_shape0_4;
    out[1].shape[1] = u_shape1_5;
    return 0;
}
