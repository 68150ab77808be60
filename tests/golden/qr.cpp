// ---- kernels
static __attribute__((noinline)) void qr_k0_rows(float* __restrict Q_0, const int32_t A_shape0_1, const int32_t A_shape1_2, const int32_t i0) {
    if (tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) return;  // Ctrl-C
    for (int32_t i1 = 0; i1 < A_shape1_2; i1++) {
        const int32_t tf_t = i0 * A_shape1_2 + i1;
        Q_0[tf_t] = 0.0f;
    }
}
#pragma GCC push_options
#pragma GCC optimize("O1")
void qr_k0(float* __restrict Q_0, const int32_t A_shape0_1, const int32_t A_shape1_2) {
    const long long tf_count0 = (A_shape0_1);
    auto tf_tasks = [&](long long tf_begin, long long tf_end) {
        for (long long tf_task = tf_begin; tf_task < tf_end; tf_task++) {
            const int32_t i0 = (int32_t)(tf_task);
            qr_k0_rows(Q_0, A_shape0_1, A_shape1_2, i0);
        }
    };
    const long long tf_count = tf_count0;
    if ((long long)(A_shape0_1) * (long long)(A_shape1_2) >= 8192) tf_parallel(tf_count, tf_tasks);
    else tf_tasks(0, tf_count);
}
#pragma GCC pop_options
static __attribute__((noinline)) void qr_k1_rows(float* __restrict R_3, const int32_t A_shape1_2, const int32_t i0) {
    if (tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) return;  // Ctrl-C
    for (int32_t i1 = 0; i1 < A_shape1_2; i1++) {
        const int32_t tf_t = i0 * A_shape1_2 + i1;
        R_3[tf_t] = 0.0f;
    }
}
#pragma GCC push_options
#pragma GCC optimize("O1")
void qr_k1(float* __restrict R_3, const int32_t A_shape1_2) {
    const long long tf_count0 = (A_shape1_2);
    auto tf_tasks = [&](long long tf_begin, long long tf_end) {
        for (long long tf_task = tf_begin; tf_task < tf_end; tf_task++) {
            const int32_t i0 = (int32_t)(tf_task);
            qr_k1_rows(R_3, A_shape1_2, i0);
        }
    };
    const long long tf_count = tf_count0;
    if ((long long)(A_shape1_2) * (long long)(A_shape1_2) >= 8192) tf_parallel(tf_count, tf_tasks);
    else tf_tasks(0, tf_count);
}
#pragma GCC pop_options
static __attribute__((noinline)) void qr_k2_rows(const float* __restrict A_4, float* __restrict A_copy_5, const int32_t A_shape0_1, const int32_t A_shape1_2, const int32_t i0) {
    if (tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) return;  // Ctrl-C
    for (int32_t i1 = 0; i1 < A_shape1_2; i1++) {
        const int32_t tf_t = i0 * A_shape1_2 + i1;
        const float v_6 = A_4[tf_t];
        const float A_copy_7 = v_6;
        A_copy_5[tf_t] = A_copy_7;
    }
}
#pragma GCC push_options
#pragma GCC optimize("O1")
void qr_k2(const float* __restrict A_4, float* __restrict A_copy_5, const int32_t A_shape0_1, const int32_t A_shape1_2) {
    const long long tf_count0 = (A_shape0_1);
    auto tf_tasks = [&](long long tf_begin, long long tf_end) {
        for (long long tf_task = tf_begin; tf_task < tf_end; tf_task++) {
            const int32_t i0 = (int32_t)(tf_task);
            qr_k2_rows(A_4, A_copy_5, A_shape0_1, A_shape1_2, i0);
        }
    };
    const long long tf_count = tf_count0;
    if ((long long)(A_shape0_1) * (long long)(A_shape1_2) >= 8192) tf_parallel(tf_count, tf_tasks);
    else tf_tasks(0, tf_count);
}
#pragma GCC pop_options
static __attribute__((noinline)) void qr_k3_rows(const float* __restrict A_copy_5, float* __restrict R_3, const int32_t A_shape0_1, const int32_t A_shape1_2, const int32_t v_8, const int32_t tf_start, const int32_t tf_stop) {
    if (tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) return;  // Ctrl-C
    for (int32_t i0 = tf_start; i0 < tf_stop; i0++) {
        const int32_t tf_t = i0;
        float v_9 = 0.0f;
        #pragma omp simd reduction(+:v_9)
        for (int32_t v_10 = 0; v_10 < A_shape0_1; v_10 += 1) {
            const float v_11 = A_copy_5[(v_10) * A_shape1_2 + tf_clamp_index(v_8, A_shape1_2)];
            const float v_12 = A_copy_5[(v_10) * A_shape1_2 + tf_clamp_index(v_8, A_shape1_2)];
            const float v_13 = (v_11 * v_12);
            const float v_14 = (v_9 + v_13);
            v_9 = v_14;
        }
        const float v_15 = __builtin_sqrtf(v_9);
        R_3[(tf_clamp_index(v_8, A_shape1_2)) * A_shape1_2 + tf_clamp_index(v_8, A_shape1_2)] = v_15;
    }
}
#pragma GCC push_options
#pragma GCC optimize("O1")
void qr_k3(const float* __restrict A_copy_5, float* __restrict R_3, const int32_t A_shape0_1, const int32_t A_shape1_2, const int32_t v_8) {
    const long long tf_count0 = ((1) + 31) / 32;
    auto tf_tasks = [&](long long tf_begin, long long tf_end) {
        for (long long tf_task = tf_begin; tf_task < tf_end; tf_task++) {
            const int32_t tf_first = (int32_t)(tf_task * 32);
            qr_k3_rows(A_copy_5, R_3, A_shape0_1, A_shape1_2, v_8, tf_first, tf_first + tf_min_index(1 - tf_first, 32));
        }
    };
    const long long tf_count = tf_count0;
    if ((long long)(1) >= 64) tf_parallel(tf_count, tf_tasks);
    else tf_tasks(0, tf_count);
}
#pragma GCC pop_options
static __attribute__((noinline)) void qr_k4_rows(const float* __restrict A_copy_5, const float* __restrict R_3, float* __restrict Q_0, const int32_t A_shape0_1, const int32_t A_shape1_2, const int32_t v_8, const int32_t tf_start, const int32_t tf_stop) {
    if (tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) return;  // Ctrl-C
    for (int32_t i0 = tf_start; i0 < tf_stop; i0++) {
        const int32_t tf_t = i0;
        const float v_16 = A_copy_5[(i0) * A_shape1_2 + tf_clamp_index(v_8, A_shape1_2)];
        const float v_17 = R_3[(tf_clamp_index(v_8, A_shape1_2)) * A_shape1_2 + tf_clamp_index(v_8, A_shape1_2)];
        const float v_18 = (v_16 / v_17);
        Q_0[(i0) * A_shape1_2 + tf_clamp_index(v_8, A_shape1_2)] = v_18;
    }
}
#pragma GCC push_options
#pragma GCC optimize("O1")
void qr_k4(const float* __restrict A_copy_5, const float* __restrict R_3, float* __restrict Q_0, const int32_t A_shape0_1, const int32_t A_shape1_2, const int32_t v_8) {
    const long long tf_count0 = ((A_shape0_1) + 4095) / 4096;
    auto tf_tasks = [&](long long tf_begin, long long tf_end) {
        for (long long tf_task = tf_begin; tf_task < tf_end; tf_task++) {
            const int32_t tf_first = (int32_t)(tf_task * 4096);
            qr_k4_rows(A_copy_5, R_3, Q_0, A_shape0_1, A_shape1_2, v_8, tf_first, tf_first + tf_min_index(A_shape0_1 - tf_first, 4096));
        }
    };
    const long long tf_count = tf_count0;
    if ((long long)(A_shape0_1) >= 8192) tf_parallel(tf_count, tf_tasks);
    else tf_tasks(0, tf_count);
}
#pragma GCC pop_options
static __attribute__((noinline)) void qr_k5_rows(const float* __restrict Q_0, const float* __restrict A_copy_5, float* __restrict R_3, const int32_t v_19, const int32_t v_20, const int32_t v_21, const int32_t A_shape0_1, const int32_t A_shape1_2, const int32_t v_8, const int32_t tf_start, const int32_t tf_stop) {
    if (tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) return;  // Ctrl-C
    for (int32_t i0 = tf_start; i0 < tf_stop; i0++) {
        const int32_t tf_t = i0;
        const int32_t v_23 = (i0 + v_20);
        float v_22 = 0.0f;
        #pragma omp simd reduction(+:v_22)
        for (int32_t v_24 = 0; v_24 < v_21; v_24 += 1) {
            const float v_25 = Q_0[(tf_clamp_index(v_24, A_shape0_1)) * A_shape1_2 + tf_clamp_index(v_8, A_shape1_2)];
            const float v_26 = A_copy_5[(tf_clamp_index(v_24, A_shape0_1)) * A_shape1_2 + tf_clamp_index(v_23, A_shape1_2)];
            const float v_27 = (v_25 * v_26);
            const float v_28 = (v_22 + v_27);
            v_22 = v_28;
        }
        R_3[(tf_clamp_index(v_8, A_shape1_2)) * A_shape1_2 + tf_clamp_index(v_23, A_shape1_2)] = v_22;
    }
}
#pragma GCC push_options
#pragma GCC optimize("O1")
void qr_k5(const float* __restrict Q_0, const float* __restrict A_copy_5, float* __restrict R_3, const int32_t v_19, const int32_t v_20, const int32_t v_21, const int32_t A_shape0_1, const int32_t A_shape1_2, const int32_t v_8) {
    const long long tf_count0 = ((v_19) + 31) / 32;
    auto tf_tasks = [&](long long tf_begin, long long tf_end) {
        for (long long tf_task = tf_begin; tf_task < tf_end; tf_task++) {
            const int32_t tf_first = (int32_t)(tf_task * 32);
            qr_k5_rows(Q_0, A_copy_5, R_3, v_19, v_20, v_21, A_shape0_1, A_shape1_2, v_8, tf_first, tf_first + tf_min_index(v_19 - tf_first, 32));
        }
    };
    const long long tf_count = tf_count0;
    if ((long long)(v_19) >= 64) tf_parallel(tf_count, tf_tasks);
    else tf_tasks(0, tf_count);
}
#pragma GCC pop_options
static __attribute__((noinline)) void qr_k6_rows(float* __restrict A_copy_5, const float* __restrict Q_0, const float* __restrict R_3, const int32_t v_21, const int32_t v_19, const int32_t v_20, const int32_t A_shape0_1, const int32_t A_shape1_2, const int32_t v_8, const int32_t i0) {
    if (tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) return;  // Ctrl-C
    for (int32_t i1 = 0; i1 < v_19; i1++) {
        const int32_t tf_t = i0 * v_19 + i1;
        const int32_t v_29 = (i1 + v_20);
        const float v_30 = A_copy_5[(tf_clamp_index(i0, A_shape0_1)) * A_shape1_2 + tf_clamp_index(v_29, A_shape1_2)];
        const float v_31 = Q_0[(tf_clamp_index(i0, A_shape0_1)) * A_shape1_2 + tf_clamp_index(v_8, A_shape1_2)];
        const float v_32 = R_3[(tf_clamp_index(v_8, A_shape1_2)) * A_shape1_2 + tf_clamp_index(v_29, A_shape1_2)];
        const float v_33 = (v_31 * v_32);
        const float v_34 = (v_30 - v_33);
        A_copy_5[(tf_clamp_index(i0, A_shape0_1)) * A_shape1_2 + tf_clamp_index(v_29, A_shape1_2)] = v_34;
    }
}
#pragma GCC push_options
#pragma GCC optimize("O1")
void qr_k6(float* __restrict A_copy_5, const float* __restrict Q_0, const float* __restrict R_3, const int32_t v_21, const int32_t v_19, const int32_t v_20, const int32_t A_shape0_1, const int32_t A_shape1_2, const int32_t v_8) {
    const long long tf_count0 = (v_21);
    auto tf_tasks = [&](long long tf_begin, long long tf_end) {
        for (long long tf_task = tf_begin; tf_task < tf_end; tf_task++) {
            const int32_t i0 = (int32_t)(tf_task);
            qr_k6_rows(A_copy_5, Q_0, R_3, v_21, v_19, v_20, A_shape0_1, A_shape1_2, v_8, i0);
        }
    };
    const long long tf_count = tf_count0;
    if ((long long)(v_21) * (long long)(v_19) >= 8192) tf_parallel(tf_count, tf_tasks);
    else tf_tasks(0, tf_count);
}
#pragma GCC pop_options
// qr_k7 runs qr_k3's functions, with its own buffers and constants
// qr_k8 runs qr_k4's functions, with its own buffers and constants
// ---- host
extern "C" __attribute__((visibility("default"), optimize("O1"))) int tf_main(const tf_arg* in,
                                                       tf_arg* out, char* error, int error_size, const tf_allocator* allocator) {
    if (allocator) tf_allocator_in_use = *allocator;
    if (tf_allocator_in_use.interrupted) *tf_allocator_in_use.interrupted = 0;  // an earlier Ctrl-C
    tf_error_out = error;
    tf_error_size = error_size;
    const float* A_4 = (const float*)in[0].data;
    const int32_t A_shape0_1 = in[0].shape[0];
    const int32_t A_shape1_2 = in[0].shape[1];
    if ((long long)(A_shape0_1) < 0) {
        const long long tf_sizes[] = {(long long)(A_shape0_1)};
        return tf_fail("tensor 'Q' (made at <tests>/test_seed_examples.py:<line>): shape[0] is {0}, a negative size", tf_sizes, 1);
    }
    if ((long long)(A_shape1_2) < 0) {
        const long long tf_sizes[] = {(long long)(A_shape1_2)};
        return tf_fail("tensor 'Q' (made at <tests>/test_seed_examples.py:<line>): shape[1] is {0}, a negative size", tf_sizes, 1);
    }
    if ((double)(long long)(A_shape0_1) * (double)(long long)(A_shape1_2) > 2147483647.0) {
        const long long tf_sizes[] = {(long long)(A_shape0_1), (long long)(A_shape1_2)};
        return tf_fail("tensor 'Q' (made at <tests>/test_seed_examples.py:<line>): shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", tf_sizes, 2);
    }
    tf_buffer Q_0_memory((long long)(A_shape0_1) * (long long)(A_shape1_2), "Q");
    if (!Q_0_memory.data) return 1;
    float* Q_0 = (float*)Q_0_memory.data;
    qr_k0(Q_0, A_shape0_1, A_shape1_2);
    TF_STOP_IF_INTERRUPTED();
    if ((long long)(A_shape1_2) < 0) {
        const long long tf_sizes[] = {(long long)(A_shape1_2)};
        return tf_fail("tensor 'R' (made at <tests>/test_seed_examples.py:<line>): shape[0] is {0}, a negative size", tf_sizes, 1);
    }
    if ((long long)(A_shape1_2) < 0) {
        const long long tf_sizes[] = {(long long)(A_shape1_2)};
        return tf_fail("tensor 'R' (made at <tests>/test_seed_examples.py:<line>): shape[1] is {0}, a negative size", tf_sizes, 1);
    }
    if ((double)(long long)(A_shape1_2) * (double)(long long)(A_shape1_2) > 2147483647.0) {
        const long long tf_sizes[] = {(long long)(A_shape1_2), (long long)(A_shape1_2)};
        return tf_fail("tensor 'R' (made at <tests>/test_seed_examples.py:<line>): shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", tf_sizes, 2);
    }
    tf_buffer R_3_memory((long long)(A_shape1_2) * (long long)(A_shape1_2), "R");
    if (!R_3_memory.data) return 1;
    float* R_3 = (float*)R_3_memory.data;
    qr_k1(R_3, A_shape1_2);
    TF_STOP_IF_INTERRUPTED();
    const int32_t v_35 = tf_wrap_sub_i32(A_shape1_2, 1);
    if ((long long)(A_shape0_1) < 0) {
        const long long tf_sizes[] = {(long long)(A_shape0_1)};
        return tf_fail("tensor 'A_copy' (made at <tests>/test_seed_examples.py:<line>): shape[0] is {0}, a negative size", tf_sizes, 1);
    }
    if ((long long)(A_shape1_2) < 0) {
        const long long tf_sizes[] = {(long long)(A_shape1_2)};
        return tf_fail("tensor 'A_copy' (made at <tests>/test_seed_examples.py:<line>): shape[1] is {0}, a negative size", tf_sizes, 1);
    }
    if ((double)(long long)(A_shape0_1) * (double)(long long)(A_shape1_2) > 2147483647.0) {
        const long long tf_sizes[] = {(long long)(A_shape0_1), (long long)(A_shape1_2)};
        return tf_fail("tensor 'A_copy' (made at <tests>/test_seed_examples.py:<line>): shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", tf_sizes, 2);
    }
    tf_buffer A_copy_5_memory((long long)(A_shape0_1) * (long long)(A_shape1_2), "A_copy");
    if (!A_copy_5_memory.data) return 1;
    float* A_copy_5 = (float*)A_copy_5_memory.data;
    qr_k2(A_4, A_copy_5, A_shape0_1, A_shape1_2);
    TF_STOP_IF_INTERRUPTED();
    for (int32_t v_8 = 0; v_8 < v_35; v_8 += 1) {
        TF_STOP_IF_INTERRUPTED();
        qr_k3(A_copy_5, R_3, A_shape0_1, A_shape1_2, v_8);
        TF_STOP_IF_INTERRUPTED();
        const int32_t v_20 = tf_wrap_add_i32(v_8, 1);
        const int32_t v_21 = tf_max_i32(A_shape0_1, 0);
        const int32_t v_46 = tf_wrap_sub_i32(A_shape1_2, v_20);
        const int32_t v_19 = tf_max_i32(v_46, 0);
        qr_k4(A_copy_5, R_3, Q_0, A_shape0_1, A_shape1_2, v_8);
        TF_STOP_IF_INTERRUPTED();
        qr_k5(Q_0, A_copy_5, R_3, v_19, v_20, v_21, A_shape0_1, A_shape1_2, v_8);
        TF_STOP_IF_INTERRUPTED();
        qr_k6(A_copy_5, Q_0, R_3, v_21, v_19, v_20, A_shape0_1, A_shape1_2, v_8);
        TF_STOP_IF_INTERRUPTED();
    }
    qr_k3(A_copy_5, R_3, A_shape0_1, A_shape1_2, v_35);
    TF_STOP_IF_INTERRUPTED();
    qr_k4(A_copy_5, R_3, Q_0, A_shape0_1, A_shape1_2, v_35);
    TF_STOP_IF_INTERRUPTED();
    A_copy_5_memory.reset();
    out[0].data = Q_0_memory.release();
    out[0].rank = 2;
    out[0].shape[0] = A_shape0_1;
    out[0].shape[1] = A_shape1_2;
    out[1].data = R_3_memory.release();
    out[1].rank = 2;
    out[1].shape[0] = A_shape1_2;
    out[1].shape[1] = A_shape1_2;
    return 0;
}
