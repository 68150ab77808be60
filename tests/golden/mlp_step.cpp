// ---- kernels
static __attribute__((noinline)) void mlp_step_k0_rows(const float* __restrict x_0, const float* __restrict w1_1, float* __restrict hidden_2, float* __restrict buf_3, const int32_t x_shape0_4, const int32_t tf_lane0, const int32_t tf_block0) {
    if (tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) return;  // Ctrl-C
    const int32_t tf_lanes = tf_min_index(32, 32 - tf_lane0);
    const int32_t tf_block_end = tf_min_index(x_shape0_4, tf_block0 + 64);
    for (int32_t tf_row0 = tf_block0; tf_row0 < tf_block_end; tf_row0 += 8) {
        const int32_t tf_rows = tf_min_index(8, tf_block_end - tf_row0);
        if (tf_lanes == 32 && tf_rows == 8) {
            alignas(64) float v_5[8][32];
            for (int32_t tf_r = 0; tf_r < 8; tf_r++) {
                const int32_t i0 = tf_row0 + tf_r;
                for (int32_t tf_l = 0; tf_l < 32; tf_l++) {
                    const int32_t i1 = tf_lane0 + tf_l;
                    const int32_t tf_t = i0 * 32 + i1;
                    v_5[tf_r][tf_l] = 0.0f;
                }
            }
            for (int32_t v_6 = 0; v_6 < 16; v_6 += 1) {
                for (int32_t tf_r = 0; tf_r < 8; tf_r++) {
                    const int32_t i0 = tf_row0 + tf_r;
                    for (int32_t tf_l = 0; tf_l < 32; tf_l++) {
                        const int32_t i1 = tf_lane0 + tf_l;
                        const int32_t tf_t = i0 * 32 + i1;
                        const float v_7 = x_0[(i0) * 16 + v_6];
                        const float v_8 = w1_1[(v_6) * 32 + i1];
                        const float v_9 = (v_7 * v_8);
                        const float v_10 = (v_5[tf_r][tf_l] + v_9);
                        v_5[tf_r][tf_l] = v_10;
                    }
                }
            }
            for (int32_t tf_r = 0; tf_r < 8; tf_r++) {
                const int32_t i0 = tf_row0 + tf_r;
                for (int32_t tf_l = 0; tf_l < 32; tf_l++) {
                    const int32_t i1 = tf_lane0 + tf_l;
                    const int32_t tf_t = i0 * 32 + i1;
                    const float hidden_11 = tf_tanh_f32(v_5[tf_r][tf_l]);
                    hidden_2[tf_t] = hidden_11;
                    buf_3[tf_t] = v_5[tf_r][tf_l];
                }
            }
        } else {
            alignas(64) float v_5[8][32];
            for (int32_t tf_r = 0; tf_r < tf_rows; tf_r++) {
                const int32_t i0 = tf_row0 + tf_r;
                for (int32_t tf_l = 0; tf_l < tf_lanes; tf_l++) {
                    const int32_t i1 = tf_lane0 + tf_l;
                    const int32_t tf_t = i0 * 32 + i1;
                    v_5[tf_r][tf_l] = 0.0f;
                }
            }
            for (int32_t v_6 = 0; v_6 < 16; v_6 += 1) {
                for (int32_t tf_r = 0; tf_r < tf_rows; tf_r++) {
                    const int32_t i0 = tf_row0 + tf_r;
                    for (int32_t tf_l = 0; tf_l < tf_lanes; tf_l++) {
                        const int32_t i1 = tf_lane0 + tf_l;
                        const int32_t tf_t = i0 * 32 + i1;
                        const float v_7 = x_0[(i0) * 16 + v_6];
                        const float v_8 = w1_1[(v_6) * 32 + i1];
                        const float v_9 = (v_7 * v_8);
                        const float v_10 = (v_5[tf_r][tf_l] + v_9);
                        v_5[tf_r][tf_l] = v_10;
                    }
                }
            }
            for (int32_t tf_r = 0; tf_r < tf_rows; tf_r++) {
                const int32_t i0 = tf_row0 + tf_r;
                for (int32_t tf_l = 0; tf_l < tf_lanes; tf_l++) {
                    const int32_t i1 = tf_lane0 + tf_l;
                    const int32_t tf_t = i0 * 32 + i1;
                    const float hidden_11 = tf_tanh_f32(v_5[tf_r][tf_l]);
                    hidden_2[tf_t] = hidden_11;
                    buf_3[tf_t] = v_5[tf_r][tf_l];
                }
            }
        }
    }
}
static __attribute__((noinline)) void mlp_step_k0_epilogue(const float* __restrict x_0, const float* __restrict w1_1, float* __restrict hidden_2, float* __restrict buf_3, const int32_t x_shape0_4, const float* __restrict tf_gemm_c, const int32_t i0) {
    for (int32_t i1 = 0; i1 < 32; i1++) {
        const int32_t tf_t = i0 * 32 + i1;
        float v_5 = 0.0f;
        v_5 = tf_gemm_c[tf_t];
        const float hidden_11 = tf_tanh_f32(v_5);
        hidden_2[tf_t] = hidden_11;
        buf_3[tf_t] = v_5;
    }
}
#pragma GCC push_options
#pragma GCC optimize("O1")
void mlp_step_k0(const float* __restrict x_0, const float* __restrict w1_1, float* __restrict hidden_2, float* __restrict buf_3, const int32_t x_shape0_4) {
    if ((((long long)x_shape0_4 * 32 * 16 >= 4096000LL && x_shape0_4 >= 16 && 32 >= 16) || (32 % 32 != 0 && (long long)x_shape0_4 * 32 * 16 >= 110592LL && x_shape0_4 >= 8 && 32 >= 8))) {
        float* tf_gemm_c = (float*)tf_allocator_in_use.alloc(tf_buffer_bytes((long long)x_shape0_4 * (long long)32));
        if (tf_gemm_c) {
            TF_COUNT(2);
            TF_COUNT(3);
            tf_gemm(x_shape0_4, 32, 16, x_0 + 0LL, 1LL * (long long)16, 1LL, w1_1 + 0LL, 1LL * (long long)32, 1LL, tf_gemm_c + (0LL) * x_shape0_4 * 32, 32);
            tf_parallel(1LL * (long long)(x_shape0_4), [&](long long tf_begin, long long tf_end) {
                for (long long tf_row = tf_begin; tf_row < tf_end; tf_row++) {
                    long long tf_rest = tf_row;
                    const int32_t i0 = (int32_t)(tf_rest % (x_shape0_4));
                    mlp_step_k0_epilogue(x_0, w1_1, hidden_2, buf_3, x_shape0_4, tf_gemm_c, i0);
                }
            });
            tf_allocator_in_use.release(tf_gemm_c);
            return;
        }
    }
    const long long tf_count0 = ((32) + 31) / 32;
    const long long tf_count1 = ((x_shape0_4) + 63) / 64;
    auto tf_tasks = [&](long long tf_begin, long long tf_end) {
        for (long long tf_task = tf_begin; tf_task < tf_end; tf_task++) {
            const int32_t tf_lane0 = (int32_t)((tf_task / tf_count1)) * 32;
            const int32_t tf_block0 = (int32_t)(tf_task % tf_count1) * 64;
            mlp_step_k0_rows(x_0, w1_1, hidden_2, buf_3, x_shape0_4, tf_lane0, tf_block0);
        }
    };
    const long long tf_count = tf_count0 * tf_count1;
    if ((long long)(x_shape0_4) * (long long)(32) >= 64) tf_parallel(tf_count, tf_tasks);
    else tf_tasks(0, tf_count);
}
#pragma GCC pop_options
static __attribute__((noinline)) void mlp_step_k1_rows(const float* __restrict hidden_2, const float* __restrict w2_12, float* __restrict buf_13, const int32_t x_shape0_4, const int32_t tf_lane0, const int32_t tf_block0) {
    if (tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) return;  // Ctrl-C
    const int32_t tf_lanes = tf_min_index(4, 4 - tf_lane0);
    const int32_t tf_block_end = tf_min_index(x_shape0_4, tf_block0 + 64);
    for (int32_t tf_row0 = tf_block0; tf_row0 < tf_block_end; tf_row0 += 8) {
        const int32_t tf_rows = tf_min_index(8, tf_block_end - tf_row0);
        if (tf_lanes == 4 && tf_rows == 8) {
            alignas(64) float v_14[8][4];
            for (int32_t tf_r = 0; tf_r < 8; tf_r++) {
                const int32_t i0 = tf_row0 + tf_r;
                for (int32_t tf_l = 0; tf_l < 4; tf_l++) {
                    const int32_t i1 = tf_lane0 + tf_l;
                    const int32_t tf_t = i0 * 4 + i1;
                    v_14[tf_r][tf_l] = 0.0f;
                }
            }
            for (int32_t v_15 = 0; v_15 < 32; v_15 += 1) {
                for (int32_t tf_r = 0; tf_r < 8; tf_r++) {
                    const int32_t i0 = tf_row0 + tf_r;
                    for (int32_t tf_l = 0; tf_l < 4; tf_l++) {
                        const int32_t i1 = tf_lane0 + tf_l;
                        const int32_t tf_t = i0 * 4 + i1;
                        const float v_16 = hidden_2[(i0) * 32 + v_15];
                        const float v_17 = w2_12[(v_15) * 4 + i1];
                        const float v_18 = (v_16 * v_17);
                        const float v_19 = (v_14[tf_r][tf_l] + v_18);
                        v_14[tf_r][tf_l] = v_19;
                    }
                }
            }
            for (int32_t tf_r = 0; tf_r < 8; tf_r++) {
                const int32_t i0 = tf_row0 + tf_r;
                for (int32_t tf_l = 0; tf_l < 4; tf_l++) {
                    const int32_t i1 = tf_lane0 + tf_l;
                    const int32_t tf_t = i0 * 4 + i1;
                    buf_13[tf_t] = v_14[tf_r][tf_l];
                }
            }
        } else {
            alignas(64) float v_14[8][4];
            for (int32_t tf_r = 0; tf_r < tf_rows; tf_r++) {
                const int32_t i0 = tf_row0 + tf_r;
                for (int32_t tf_l = 0; tf_l < tf_lanes; tf_l++) {
                    const int32_t i1 = tf_lane0 + tf_l;
                    const int32_t tf_t = i0 * 4 + i1;
                    v_14[tf_r][tf_l] = 0.0f;
                }
            }
            for (int32_t v_15 = 0; v_15 < 32; v_15 += 1) {
                for (int32_t tf_r = 0; tf_r < tf_rows; tf_r++) {
                    const int32_t i0 = tf_row0 + tf_r;
                    for (int32_t tf_l = 0; tf_l < tf_lanes; tf_l++) {
                        const int32_t i1 = tf_lane0 + tf_l;
                        const int32_t tf_t = i0 * 4 + i1;
                        const float v_16 = hidden_2[(i0) * 32 + v_15];
                        const float v_17 = w2_12[(v_15) * 4 + i1];
                        const float v_18 = (v_16 * v_17);
                        const float v_19 = (v_14[tf_r][tf_l] + v_18);
                        v_14[tf_r][tf_l] = v_19;
                    }
                }
            }
            for (int32_t tf_r = 0; tf_r < tf_rows; tf_r++) {
                const int32_t i0 = tf_row0 + tf_r;
                for (int32_t tf_l = 0; tf_l < tf_lanes; tf_l++) {
                    const int32_t i1 = tf_lane0 + tf_l;
                    const int32_t tf_t = i0 * 4 + i1;
                    buf_13[tf_t] = v_14[tf_r][tf_l];
                }
            }
        }
    }
}
#pragma GCC push_options
#pragma GCC optimize("O1")
void mlp_step_k1(const float* __restrict hidden_2, const float* __restrict w2_12, float* __restrict buf_13, const int32_t x_shape0_4) {
    if ((((long long)x_shape0_4 * 4 * 32 >= 4096000LL && x_shape0_4 >= 16 && 4 >= 16) || (4 % 32 != 0 && (long long)x_shape0_4 * 4 * 32 >= 110592LL && x_shape0_4 >= 8 && 4 >= 8))) {
        TF_COUNT(2);
        tf_gemm(x_shape0_4, 4, 32, hidden_2 + 0LL, 1LL * (long long)32, 1LL, w2_12 + 0LL, 1LL * (long long)4, 1LL, buf_13 + (0LL) * x_shape0_4 * 4, 4);
        return;
    }
    const long long tf_count0 = ((4) + 3) / 4;
    const long long tf_count1 = ((x_shape0_4) + 63) / 64;
    auto tf_tasks = [&](long long tf_begin, long long tf_end) {
        for (long long tf_task = tf_begin; tf_task < tf_end; tf_task++) {
            const int32_t tf_lane0 = (int32_t)((tf_task / tf_count1)) * 4;
            const int32_t tf_block0 = (int32_t)(tf_task % tf_count1) * 64;
            mlp_step_k1_rows(hidden_2, w2_12, buf_13, x_shape0_4, tf_lane0, tf_block0);
        }
    };
    const long long tf_count = tf_count0 * tf_count1;
    if ((long long)(x_shape0_4) * (long long)(4) >= 64) tf_parallel(tf_count, tf_tasks);
    else tf_tasks(0, tf_count);
}
#pragma GCC pop_options
static __attribute__((noinline)) void mlp_step_k2_rows(const float* __restrict buf_13, const float* __restrict y_20, float* __restrict loss_21, const int32_t x_shape0_4, const float v_22, const int32_t tf_start, const int32_t tf_stop) {
    if (tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) return;  // Ctrl-C
    for (int32_t i0 = tf_start; i0 < tf_stop; i0++) {
        const int32_t tf_t = i0;
        float v_23 = 0.0f;
        #pragma omp simd reduction(+:v_23)
        for (int32_t v_24 = 0; v_24 < x_shape0_4; v_24 += 1) {
            const float v_25 = buf_13[(v_24) * 4 + 0];
            const float v_26 = y_20[(v_24) * 4 + 0];
            const float error_27 = (v_25 - v_26);
            const float v_28 = buf_13[(v_24) * 4 + 0];
            const float error_29 = (v_28 - v_26);
            const float v_30 = (error_27 * error_29);
            const float v_31 = buf_13[(v_24) * 4 + 1];
            const float v_32 = y_20[(v_24) * 4 + 1];
            const float error_33 = (v_31 - v_32);
            const float v_34 = buf_13[(v_24) * 4 + 1];
            const float error_35 = (v_34 - v_32);
            const float v_36 = (error_33 * error_35);
            const float v_37 = (v_30 + v_36);
            const float v_38 = buf_13[(v_24) * 4 + 2];
            const float v_39 = y_20[(v_24) * 4 + 2];
            const float error_40 = (v_38 - v_39);
            const float v_41 = buf_13[(v_24) * 4 + 2];
            const float error_42 = (v_41 - v_39);
            const float v_43 = (error_40 * error_42);
            const float v_44 = (v_37 + v_43);
            const float v_45 = buf_13[(v_24) * 4 + 3];
            const float v_46 = y_20[(v_24) * 4 + 3];
            const float error_47 = (v_45 - v_46);
            const float v_48 = buf_13[(v_24) * 4 + 3];
            const float error_49 = (v_48 - v_46);
            const float v_50 = (error_47 * error_49);
            const float v_51 = (v_44 + v_50);
            const float v_52 = (v_51 / 4.0f);
            const float v_53 = (v_23 + v_52);
            v_23 = v_53;
        }
        const float loss_54 = (v_23 / v_22);
        loss_21[tf_t] = loss_54;
    }
}
#pragma GCC push_options
#pragma GCC optimize("O1")
void mlp_step_k2(const float* __restrict buf_13, const float* __restrict y_20, float* __restrict loss_21, const int32_t x_shape0_4, const float v_22) {
    const long long tf_count0 = ((1) + 31) / 32;
    auto tf_tasks = [&](long long tf_begin, long long tf_end) {
        for (long long tf_task = tf_begin; tf_task < tf_end; tf_task++) {
            const int32_t tf_first = (int32_t)(tf_task * 32);
            mlp_step_k2_rows(buf_13, y_20, loss_21, x_shape0_4, v_22, tf_first, tf_first + tf_min_index(1 - tf_first, 32));
        }
    };
    const long long tf_count = tf_count0;
    if ((long long)(1) >= 64) tf_parallel(tf_count, tf_tasks);
    else tf_tasks(0, tf_count);
}
#pragma GCC pop_options
static __attribute__((noinline)) void mlp_step_k3_rows(const float* __restrict buf_13, const float* __restrict y_20, float* __restrict buf_55, const int32_t x_shape0_4, const float v_56, const int32_t i0) {
    if (tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) return;  // Ctrl-C
    for (int32_t i1 = 0; i1 < 4; i1++) {
        const int32_t tf_t = i0 * 4 + i1;
        const float v_57 = buf_13[tf_t];
        const float v_58 = y_20[tf_t];
        const float error_59 = (v_57 - v_58);
        const float v_60 = v_56;
        const float v_61 = v_60;
        const float v_62 = (v_61 * error_59);
        const float v_63 = (v_62 + v_62);
        buf_55[tf_t] = v_63;
    }
}
#pragma GCC push_options
#pragma GCC optimize("O1")
void mlp_step_k3(const float* __restrict buf_13, const float* __restrict y_20, float* __restrict buf_55, const int32_t x_shape0_4, const float v_56) {
    const long long tf_count0 = (x_shape0_4);
    auto tf_tasks = [&](long long tf_begin, long long tf_end) {
        for (long long tf_task = tf_begin; tf_task < tf_end; tf_task++) {
            const int32_t i0 = (int32_t)(tf_task);
            mlp_step_k3_rows(buf_13, y_20, buf_55, x_shape0_4, v_56, i0);
        }
    };
    const long long tf_count = tf_count0;
    if ((long long)(x_shape0_4) * (long long)(4) >= 8192) tf_parallel(tf_count, tf_tasks);
    else tf_tasks(0, tf_count);
}
#pragma GCC pop_options
static __attribute__((noinline)) void mlp_step_k4_rows(const float* __restrict w2_12, float* __restrict buf_64, const int32_t i0, const int32_t tf_start, const int32_t tf_stop) {
    if (tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) return;  // Ctrl-C
    for (int32_t i1 = tf_start; i1 < tf_stop; i1++) {
        const int32_t tf_t = i0 * 32 + i1;
        const float v_65 = w2_12[(i1) * 4 + i0];
        float v_66 = 0.0f;
        v_66 = v_65;
        buf_64[tf_t] = v_66;
    }
}
#pragma GCC push_options
#pragma GCC optimize("O1")
void mlp_step_k4(const float* __restrict w2_12, float* __restrict buf_64) {
    const long long tf_count0 = ((32) + 15) / 16;
    const long long tf_count1 = ((4) + 63) / 64;
    auto tf_tasks = [&](long long tf_begin, long long tf_end) {
        for (long long tf_task = tf_begin; tf_task < tf_end; tf_task++) {
            const int32_t tf_chunk = (int32_t)(tf_task / tf_count1);
            const int32_t tf_block = (int32_t)(tf_task % tf_count1);
            for (int32_t i0 = tf_block * 64; i0 < tf_min_index(4, (tf_block + 1) * 64); i0++)
                mlp_step_k4_rows(w2_12, buf_64, i0, tf_chunk * 16, tf_min_index(32, (tf_chunk + 1) * 16));
        }
    };
    const long long tf_count = tf_count0 * tf_count1;
    if ((long long)(4) * (long long)(32) >= 8192) tf_parallel(tf_count, tf_tasks);
    else tf_tasks(0, tf_count);
}
#pragma GCC pop_options
static __attribute__((noinline)) void mlp_step_k5_rows(const float* __restrict buf_55, const float* __restrict buf_64, float* __restrict buf_67, const int32_t x_shape0_4, const int32_t tf_lane0, const int32_t tf_block0) {
    if (tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) return;  // Ctrl-C
    const int32_t tf_lanes = tf_min_index(32, 32 - tf_lane0);
    const int32_t tf_block_end = tf_min_index(x_shape0_4, tf_block0 + 64);
    for (int32_t tf_row0 = tf_block0; tf_row0 < tf_block_end; tf_row0 += 8) {
        const int32_t tf_rows = tf_min_index(8, tf_block_end - tf_row0);
        if (tf_lanes == 32 && tf_rows == 8) {
            alignas(64) float v_68[8][32];
            for (int32_t tf_r = 0; tf_r < 8; tf_r++) {
                const int32_t i0 = tf_row0 + tf_r;
                for (int32_t tf_l = 0; tf_l < 32; tf_l++) {
                    const int32_t i1 = tf_lane0 + tf_l;
                    const int32_t tf_t = i0 * 32 + i1;
                    v_68[tf_r][tf_l] = 0.0f;
                }
            }
            for (int32_t v_69 = 0; v_69 < 4; v_69 += 1) {
                for (int32_t tf_r = 0; tf_r < 8; tf_r++) {
                    const int32_t i0 = tf_row0 + tf_r;
                    for (int32_t tf_l = 0; tf_l < 32; tf_l++) {
                        const int32_t i1 = tf_lane0 + tf_l;
                        const int32_t tf_t = i0 * 32 + i1;
                        const float v_70 = buf_55[(i0) * 4 + v_69];
                        const float v_71 = buf_64[(v_69) * 32 + i1];
                        const float v_72 = (v_70 * v_71);
                        const float v_73 = (v_68[tf_r][tf_l] + v_72);
                        v_68[tf_r][tf_l] = v_73;
                    }
                }
            }
            for (int32_t tf_r = 0; tf_r < 8; tf_r++) {
                const int32_t i0 = tf_row0 + tf_r;
                for (int32_t tf_l = 0; tf_l < 32; tf_l++) {
                    const int32_t i1 = tf_lane0 + tf_l;
                    const int32_t tf_t = i0 * 32 + i1;
                    buf_67[tf_t] = v_68[tf_r][tf_l];
                }
            }
        } else {
            alignas(64) float v_68[8][32];
            for (int32_t tf_r = 0; tf_r < tf_rows; tf_r++) {
                const int32_t i0 = tf_row0 + tf_r;
                for (int32_t tf_l = 0; tf_l < tf_lanes; tf_l++) {
                    const int32_t i1 = tf_lane0 + tf_l;
                    const int32_t tf_t = i0 * 32 + i1;
                    v_68[tf_r][tf_l] = 0.0f;
                }
            }
            for (int32_t v_69 = 0; v_69 < 4; v_69 += 1) {
                for (int32_t tf_r = 0; tf_r < tf_rows; tf_r++) {
                    const int32_t i0 = tf_row0 + tf_r;
                    for (int32_t tf_l = 0; tf_l < tf_lanes; tf_l++) {
                        const int32_t i1 = tf_lane0 + tf_l;
                        const int32_t tf_t = i0 * 32 + i1;
                        const float v_70 = buf_55[(i0) * 4 + v_69];
                        const float v_71 = buf_64[(v_69) * 32 + i1];
                        const float v_72 = (v_70 * v_71);
                        const float v_73 = (v_68[tf_r][tf_l] + v_72);
                        v_68[tf_r][tf_l] = v_73;
                    }
                }
            }
            for (int32_t tf_r = 0; tf_r < tf_rows; tf_r++) {
                const int32_t i0 = tf_row0 + tf_r;
                for (int32_t tf_l = 0; tf_l < tf_lanes; tf_l++) {
                    const int32_t i1 = tf_lane0 + tf_l;
                    const int32_t tf_t = i0 * 32 + i1;
                    buf_67[tf_t] = v_68[tf_r][tf_l];
                }
            }
        }
    }
}
#pragma GCC push_options
#pragma GCC optimize("O1")
void mlp_step_k5(const float* __restrict buf_55, const float* __restrict buf_64, float* __restrict buf_67, const int32_t x_shape0_4) {
    if ((((long long)x_shape0_4 * 32 * 4 >= 4096000LL && x_shape0_4 >= 16 && 32 >= 16) || (32 % 32 != 0 && (long long)x_shape0_4 * 32 * 4 >= 110592LL && x_shape0_4 >= 8 && 32 >= 8))) {
        TF_COUNT(2);
        tf_gemm(x_shape0_4, 32, 4, buf_55 + 0LL, 1LL * (long long)4, 1LL, buf_64 + 0LL, 1LL * (long long)32, 1LL, buf_67 + (0LL) * x_shape0_4 * 32, 32);
        return;
    }
    const long long tf_count0 = ((32) + 31) / 32;
    const long long tf_count1 = ((x_shape0_4) + 63) / 64;
    auto tf_tasks = [&](long long tf_begin, long long tf_end) {
        for (long long tf_task = tf_begin; tf_task < tf_end; tf_task++) {
            const int32_t tf_lane0 = (int32_t)((tf_task / tf_count1)) * 32;
            const int32_t tf_block0 = (int32_t)(tf_task % tf_count1) * 64;
            mlp_step_k5_rows(buf_55, buf_64, buf_67, x_shape0_4, tf_lane0, tf_block0);
        }
    };
    const long long tf_count = tf_count0 * tf_count1;
    if ((long long)(x_shape0_4) * (long long)(32) >= 64) tf_parallel(tf_count, tf_tasks);
    else tf_tasks(0, tf_count);
}
#pragma GCC pop_options
static __attribute__((noinline)) void mlp_step_k6_rows(const float* __restrict buf_3, float* __restrict hidden_74, const int32_t x_shape0_4, const int32_t i0, const int32_t tf_start, const int32_t tf_stop) {
    if (tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) return;  // Ctrl-C
    for (int32_t i1 = tf_start; i1 < tf_stop; i1++) {
        const int32_t tf_t = i0 * x_shape0_4 + i1;
        const float v_75 = buf_3[(i1) * 32 + i0];
        const float hidden_76 = tf_tanh_f32(v_75);
        hidden_74[tf_t] = hidden_76;
    }
}
#pragma GCC push_options
#pragma GCC optimize("O1")
void mlp_step_k6(const float* __restrict buf_3, float* __restrict hidden_74, const int32_t x_shape0_4) {
    const long long tf_count0 = ((x_shape0_4) + 15) / 16;
    const long long tf_count1 = ((32) + 63) / 64;
    auto tf_tasks = [&](long long tf_begin, long long tf_end) {
        for (long long tf_task = tf_begin; tf_task < tf_end; tf_task++) {
            const int32_t tf_chunk = (int32_t)(tf_task / tf_count1);
            const int32_t tf_block = (int32_t)(tf_task % tf_count1);
            for (int32_t i0 = tf_block * 64; i0 < tf_min_index(32, (tf_block + 1) * 64); i0++)
                mlp_step_k6_rows(buf_3, hidden_74, x_shape0_4, i0, tf_chunk * 16, tf_min_index(x_shape0_4, (tf_chunk + 1) * 16));
        }
    };
    const long long tf_count = tf_count0 * tf_count1;
    if ((long long)(32) * (long long)(x_shape0_4) >= 8192) tf_parallel(tf_count, tf_tasks);
    else tf_tasks(0, tf_count);
}
#pragma GCC pop_options
static __attribute__((noinline)) void mlp_step_k7_rows(const float* __restrict hidden_74, const float* __restrict buf_55, float* __restrict buf_77, const int32_t x_shape0_4, const int32_t tf_lane0, const int32_t tf_block0) {
    if (tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) return;  // Ctrl-C
    const int32_t tf_lanes = tf_min_index(4, 4 - tf_lane0);
    const int32_t tf_block_end = tf_min_index(32, tf_block0 + 64);
    for (int32_t tf_row0 = tf_block0; tf_row0 < tf_block_end; tf_row0 += 8) {
        const int32_t tf_rows = tf_min_index(8, tf_block_end - tf_row0);
        if (tf_lanes == 4 && tf_rows == 8) {
            alignas(64) float v_78[8][4];
            for (int32_t tf_r = 0; tf_r < 8; tf_r++) {
                const int32_t i0 = tf_row0 + tf_r;
                for (int32_t tf_l = 0; tf_l < 4; tf_l++) {
                    const int32_t i1 = tf_lane0 + tf_l;
                    const int32_t tf_t = i0 * 4 + i1;
                    v_78[tf_r][tf_l] = 0.0f;
                }
            }
            uint32_t tf_trips_v_79 = 0;
            for (int32_t v_79 = 0; v_79 < x_shape0_4; v_79 += 1) {
                if ((tf_trips_v_79++ & 1023u) == 0 && tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) break;  // Ctrl-C
                for (int32_t tf_r = 0; tf_r < 8; tf_r++) {
                    const int32_t i0 = tf_row0 + tf_r;
                    for (int32_t tf_l = 0; tf_l < 4; tf_l++) {
                        const int32_t i1 = tf_lane0 + tf_l;
                        const int32_t tf_t = i0 * 4 + i1;
                        const float v_80 = hidden_74[(i0) * x_shape0_4 + v_79];
                        const float v_81 = buf_55[(v_79) * 4 + i1];
                        const float v_82 = (v_80 * v_81);
                        const float v_83 = (v_78[tf_r][tf_l] + v_82);
                        v_78[tf_r][tf_l] = v_83;
                    }
                }
            }
            for (int32_t tf_r = 0; tf_r < 8; tf_r++) {
                const int32_t i0 = tf_row0 + tf_r;
                for (int32_t tf_l = 0; tf_l < 4; tf_l++) {
                    const int32_t i1 = tf_lane0 + tf_l;
                    const int32_t tf_t = i0 * 4 + i1;
                    buf_77[tf_t] = v_78[tf_r][tf_l];
                }
            }
        } else {
            alignas(64) float v_78[8][4];
            for (int32_t tf_r = 0; tf_r < tf_rows; tf_r++) {
                const int32_t i0 = tf_row0 + tf_r;
                for (int32_t tf_l = 0; tf_l < tf_lanes; tf_l++) {
                    const int32_t i1 = tf_lane0 + tf_l;
                    const int32_t tf_t = i0 * 4 + i1;
                    v_78[tf_r][tf_l] = 0.0f;
                }
            }
            uint32_t tf_trips_v_79 = 0;
            for (int32_t v_79 = 0; v_79 < x_shape0_4; v_79 += 1) {
                if ((tf_trips_v_79++ & 1023u) == 0 && tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) break;  // Ctrl-C
                for (int32_t tf_r = 0; tf_r < tf_rows; tf_r++) {
                    const int32_t i0 = tf_row0 + tf_r;
                    for (int32_t tf_l = 0; tf_l < tf_lanes; tf_l++) {
                        const int32_t i1 = tf_lane0 + tf_l;
                        const int32_t tf_t = i0 * 4 + i1;
                        const float v_80 = hidden_74[(i0) * x_shape0_4 + v_79];
                        const float v_81 = buf_55[(v_79) * 4 + i1];
                        const float v_82 = (v_80 * v_81);
                        const float v_83 = (v_78[tf_r][tf_l] + v_82);
                        v_78[tf_r][tf_l] = v_83;
                    }
                }
            }
            for (int32_t tf_r = 0; tf_r < tf_rows; tf_r++) {
                const int32_t i0 = tf_row0 + tf_r;
                for (int32_t tf_l = 0; tf_l < tf_lanes; tf_l++) {
                    const int32_t i1 = tf_lane0 + tf_l;
                    const int32_t tf_t = i0 * 4 + i1;
                    buf_77[tf_t] = v_78[tf_r][tf_l];
                }
            }
        }
    }
}
#pragma GCC push_options
#pragma GCC optimize("O1")
void mlp_step_k7(const float* __restrict hidden_74, const float* __restrict buf_55, float* __restrict buf_77, const int32_t x_shape0_4) {
    if ((((long long)32 * 4 * x_shape0_4 >= 4096000LL && 32 >= 16 && 4 >= 16) || (4 % 32 != 0 && (long long)32 * 4 * x_shape0_4 >= 110592LL && 32 >= 8 && 4 >= 8))) {
        TF_COUNT(2);
        tf_gemm(32, 4, x_shape0_4, hidden_74 + 0LL, 1LL * (long long)x_shape0_4, 1LL, buf_55 + 0LL, 1LL * (long long)4, 1LL, buf_77 + (0LL) * 32 * 4, 4);
        return;
    }
    const long long tf_count0 = ((4) + 3) / 4;
    const long long tf_count1 = ((32) + 63) / 64;
    auto tf_tasks = [&](long long tf_begin, long long tf_end) {
        for (long long tf_task = tf_begin; tf_task < tf_end; tf_task++) {
            const int32_t tf_lane0 = (int32_t)((tf_task / tf_count1)) * 4;
            const int32_t tf_block0 = (int32_t)(tf_task % tf_count1) * 64;
            mlp_step_k7_rows(hidden_74, buf_55, buf_77, x_shape0_4, tf_lane0, tf_block0);
        }
    };
    const long long tf_count = tf_count0 * tf_count1;
    if ((long long)(32) * (long long)(4) >= 64) tf_parallel(tf_count, tf_tasks);
    else tf_tasks(0, tf_count);
}
#pragma GCC pop_options
static __attribute__((noinline)) void mlp_step_k8_rows(const float* __restrict buf_3, const float* __restrict buf_67, float* __restrict buf_84, const int32_t x_shape0_4, const int32_t i0) {
    if (tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) return;  // Ctrl-C
    for (int32_t i1 = 0; i1 < 32; i1++) {
        const int32_t tf_t = i0 * 32 + i1;
        const float v_85 = buf_3[tf_t];
        const float hidden_86 = tf_tanh_f32(v_85);
        const float v_87 = (hidden_86 * hidden_86);
        const float v_88 = (1.0f - v_87);
        const float v_89 = buf_67[tf_t];
        const float v_90 = (v_89 * v_88);
        buf_84[tf_t] = v_90;
    }
}
#pragma GCC push_options
#pragma GCC optimize("O1")
void mlp_step_k8(const float* __restrict buf_3, const float* __restrict buf_67, float* __restrict buf_84, const int32_t x_shape0_4) {
    const long long tf_count0 = (x_shape0_4);
    auto tf_tasks = [&](long long tf_begin, long long tf_end) {
        for (long long tf_task = tf_begin; tf_task < tf_end; tf_task++) {
            const int32_t i0 = (int32_t)(tf_task);
            mlp_step_k8_rows(buf_3, buf_67, buf_84, x_shape0_4, i0);
        }
    };
    const long long tf_count = tf_count0;
    if ((long long)(x_shape0_4) * (long long)(32) >= 8192) tf_parallel(tf_count, tf_tasks);
    else tf_tasks(0, tf_count);
}
#pragma GCC pop_options
static __attribute__((noinline)) void mlp_step_k9_rows(const float* __restrict x_0, const float* __restrict buf_84, float* __restrict buf_91, const int32_t x_shape0_4, const int32_t tf_lane0, const int32_t tf_block0) {
    if (tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) return;  // Ctrl-C
    const int32_t tf_lanes = tf_min_index(32, 32 - tf_lane0);
    const int32_t tf_block_end = tf_min_index(16, tf_block0 + 64);
    for (int32_t tf_row0 = tf_block0; tf_row0 < tf_block_end; tf_row0 += 8) {
        const int32_t tf_rows = tf_min_index(8, tf_block_end - tf_row0);
        if (tf_lanes == 32 && tf_rows == 8) {
            alignas(64) float v_92[8][32];
            for (int32_t tf_r = 0; tf_r < 8; tf_r++) {
                const int32_t i0 = tf_row0 + tf_r;
                for (int32_t tf_l = 0; tf_l < 32; tf_l++) {
                    const int32_t i1 = tf_lane0 + tf_l;
                    const int32_t tf_t = i0 * 32 + i1;
                    v_92[tf_r][tf_l] = 0.0f;
                }
            }
            uint32_t tf_trips_v_93 = 0;
            for (int32_t v_93 = 0; v_93 < x_shape0_4; v_93 += 1) {
                if ((tf_trips_v_93++ & 1023u) == 0 && tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) break;  // Ctrl-C
                for (int32_t tf_r = 0; tf_r < 8; tf_r++) {
                    const int32_t i0 = tf_row0 + tf_r;
                    for (int32_t tf_l = 0; tf_l < 32; tf_l++) {
                        const int32_t i1 = tf_lane0 + tf_l;
                        const int32_t tf_t = i0 * 32 + i1;
                        const float v_94 = x_0[(v_93) * 16 + i0];
                        const float v_95 = buf_84[(v_93) * 32 + i1];
                        const float v_96 = (v_94 * v_95);
                        const float v_97 = (v_92[tf_r][tf_l] + v_96);
                        v_92[tf_r][tf_l] = v_97;
                    }
                }
            }
            for (int32_t tf_r = 0; tf_r < 8; tf_r++) {
                const int32_t i0 = tf_row0 + tf_r;
                for (int32_t tf_l = 0; tf_l < 32; tf_l++) {
                    const int32_t i1 = tf_lane0 + tf_l;
                    const int32_t tf_t = i0 * 32 + i1;
                    buf_91[tf_t] = v_92[tf_r][tf_l];
                }
            }
        } else {
            alignas(64) float v_92[8][32];
            for (int32_t tf_r = 0; tf_r < tf_rows; tf_r++) {
                const int32_t i0 = tf_row0 + tf_r;
                for (int32_t tf_l = 0; tf_l < tf_lanes; tf_l++) {
                    const int32_t i1 = tf_lane0 + tf_l;
                    const int32_t tf_t = i0 * 32 + i1;
                    v_92[tf_r][tf_l] = 0.0f;
                }
            }
            uint32_t tf_trips_v_93 = 0;
            for (int32_t v_93 = 0; v_93 < x_shape0_4; v_93 += 1) {
                if ((tf_trips_v_93++ & 1023u) == 0 && tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) break;  // Ctrl-C
                for (int32_t tf_r = 0; tf_r < tf_rows; tf_r++) {
                    const int32_t i0 = tf_row0 + tf_r;
                    for (int32_t tf_l = 0; tf_l < tf_lanes; tf_l++) {
                        const int32_t i1 = tf_lane0 + tf_l;
                        const int32_t tf_t = i0 * 32 + i1;
                        const float v_94 = x_0[(v_93) * 16 + i0];
                        const float v_95 = buf_84[(v_93) * 32 + i1];
                        const float v_96 = (v_94 * v_95);
                        const float v_97 = (v_92[tf_r][tf_l] + v_96);
                        v_92[tf_r][tf_l] = v_97;
                    }
                }
            }
            for (int32_t tf_r = 0; tf_r < tf_rows; tf_r++) {
                const int32_t i0 = tf_row0 + tf_r;
                for (int32_t tf_l = 0; tf_l < tf_lanes; tf_l++) {
                    const int32_t i1 = tf_lane0 + tf_l;
                    const int32_t tf_t = i0 * 32 + i1;
                    buf_91[tf_t] = v_92[tf_r][tf_l];
                }
            }
        }
    }
}
#pragma GCC push_options
#pragma GCC optimize("O1")
void mlp_step_k9(const float* __restrict x_0, const float* __restrict buf_84, float* __restrict buf_91, const int32_t x_shape0_4) {
    if ((((long long)16 * 32 * x_shape0_4 >= 4096000LL && 16 >= 16 && 32 >= 16) || (32 % 32 != 0 && (long long)16 * 32 * x_shape0_4 >= 110592LL && 16 >= 8 && 32 >= 8))) {
        TF_COUNT(2);
        tf_gemm(16, 32, x_shape0_4, x_0 + 0LL, 1LL, 1LL * (long long)16, buf_84 + 0LL, 1LL * (long long)32, 1LL, buf_91 + (0LL) * 16 * 32, 32);
        return;
    }
    const long long tf_count0 = ((32) + 31) / 32;
    const long long tf_count1 = ((16) + 63) / 64;
    auto tf_tasks = [&](long long tf_begin, long long tf_end) {
        for (long long tf_task = tf_begin; tf_task < tf_end; tf_task++) {
            const int32_t tf_lane0 = (int32_t)((tf_task / tf_count1)) * 32;
            const int32_t tf_block0 = (int32_t)(tf_task % tf_count1) * 64;
            mlp_step_k9_rows(x_0, buf_84, buf_91, x_shape0_4, tf_lane0, tf_block0);
        }
    };
    const long long tf_count = tf_count0 * tf_count1;
    if ((long long)(16) * (long long)(32) >= 64) tf_parallel(tf_count, tf_tasks);
    else tf_tasks(0, tf_count);
}
#pragma GCC pop_options
static __attribute__((noinline)) void mlp_step_k10_rows(const float* __restrict buf_91, const float* __restrict w1_1, float* __restrict buf_98, const float v_99, const int32_t i0) {
    if (tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) return;  // Ctrl-C
    for (int32_t i1 = 0; i1 < 32; i1++) {
        const int32_t tf_t = i0 * 32 + i1;
        const float v_100 = buf_91[tf_t];
        const float v_101 = v_100;
        const float v_102 = (v_99 * v_101);
        const float v_103 = w1_1[tf_t];
        const float v_104 = (v_103 - v_102);
        buf_98[tf_t] = v_104;
    }
}
#pragma GCC push_options
#pragma GCC optimize("O1")
void mlp_step_k10(const float* __restrict buf_91, const float* __restrict w1_1, float* __restrict buf_98, const float v_99) {
    const long long tf_count0 = (16);
    auto tf_tasks = [&](long long tf_begin, long long tf_end) {
        for (long long tf_task = tf_begin; tf_task < tf_end; tf_task++) {
            const int32_t i0 = (int32_t)(tf_task);
            mlp_step_k10_rows(buf_91, w1_1, buf_98, v_99, i0);
        }
    };
    const long long tf_count = tf_count0;
    if ((long long)(16) * (long long)(32) >= 8192) tf_parallel(tf_count, tf_tasks);
    else tf_tasks(0, tf_count);
}
#pragma GCC pop_options
static __attribute__((noinline)) void mlp_step_k11_rows(const float* __restrict buf_77, const float* __restrict w2_12, float* __restrict buf_105, const float v_99, const int32_t i0) {
    if (tf_allocator_in_use.interrupted && *tf_allocator_in_use.interrupted) return;  // Ctrl-C
    for (int32_t i1 = 0; i1 < 4; i1++) {
        const int32_t tf_t = i0 * 4 + i1;
        const float v_106 = buf_77[tf_t];
        const float v_107 = v_106;
        const float v_108 = (v_99 * v_107);
        const float v_109 = w2_12[tf_t];
        const float v_110 = (v_109 - v_108);
        buf_105[tf_t] = v_110;
    }
}
#pragma GCC push_options
#pragma GCC optimize("O1")
void mlp_step_k11(const float* __restrict buf_77, const float* __restrict w2_12, float* __restrict buf_105, const float v_99) {
    const long long tf_count0 = (32);
    auto tf_tasks = [&](long long tf_begin, long long tf_end) {
        for (long long tf_task = tf_begin; tf_task < tf_end; tf_task++) {
            const int32_t i0 = (int32_t)(tf_task);
            mlp_step_k11_rows(buf_77, w2_12, buf_105, v_99, i0);
        }
    };
    const long long tf_count = tf_count0;
    if ((long long)(32) * (long long)(4) >= 8192) tf_parallel(tf_count, tf_tasks);
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
    const float* x_0 = (const float*)in[0].data;
    const int32_t x_shape0_4 = in[0].shape[0];
    const int32_t x_shape1_111 = in[0].shape[1];
    const bool x_112 = (16 == x_shape1_111);
    if (!(x_112)) {
        const long long tf_values[] = {(long long)(16), (long long)(x_shape1_111)};
        return tf_fail("argument 0 ('x'): shape[1] must be {0} (16), got {1} (at <tests>/test_golden.py:<line>)", tf_values, 2);
    }
    const float* y_20 = (const float*)in[1].data;
    const int32_t y_shape0_113 = in[1].shape[0];
    const bool v_114 = (x_shape0_4 == y_shape0_113);
    if (!(v_114)) {
        const long long tf_values[] = {(long long)(x_shape0_4), (long long)(y_shape0_113)};
        return tf_fail("argument 1 ('y'): shape[0] must be {0} (x.shape[0]), got {1} (at <tests>/test_golden.py:<line>)", tf_values, 2);
    }
    const int32_t y_shape1_115 = in[1].shape[1];
    const bool y_116 = (4 == y_shape1_115);
    if (!(y_116)) {
        const long long tf_values[] = {(long long)(4), (long long)(y_shape1_115)};
        return tf_fail("argument 1 ('y'): shape[1] must be {0} (4), got {1} (at <tests>/test_golden.py:<line>)", tf_values, 2);
    }
    const float* w1_1 = (const float*)in[2].data;
    const int32_t w1_shape0_117 = in[2].shape[0];
    const bool v_118 = (16 == w1_shape0_117);
    if (!(v_118)) {
        const long long tf_values[] = {(long long)(16), (long long)(w1_shape0_117)};
        return tf_fail("argument 2 ('w1'): shape[0] must be {0} (16), got {1} (at <tests>/test_golden.py:<line>)", tf_values, 2);
    }
    const int32_t w1_shape1_119 = in[2].shape[1];
    const bool w1_120 = (32 == w1_shape1_119);
    if (!(w1_120)) {
        const long long tf_values[] = {(long long)(32), (long long)(w1_shape1_119)};
        return tf_fail("argument 2 ('w1'): shape[1] must be {0} (32), got {1} (at <tests>/test_golden.py:<line>)", tf_values, 2);
    }
    const float* w2_12 = (const float*)in[3].data;
    const int32_t w2_shape0_121 = in[3].shape[0];
    const bool v_122 = (32 == w2_shape0_121);
    if (!(v_122)) {
        const long long tf_values[] = {(long long)(32), (long long)(w2_shape0_121)};
        return tf_fail("argument 3 ('w2'): shape[0] must be {0} (32), got {1} (at <tests>/test_golden.py:<line>)", tf_values, 2);
    }
    const int32_t w2_shape1_123 = in[3].shape[1];
    const bool w2_124 = (4 == w2_shape1_123);
    if (!(w2_124)) {
        const long long tf_values[] = {(long long)(4), (long long)(w2_shape1_123)};
        return tf_fail("argument 3 ('w2'): shape[1] must be {0} (4), got {1} (at <tests>/test_golden.py:<line>)", tf_values, 2);
    }
    if ((long long)(x_shape0_4) < 0) {
        const long long tf_sizes[] = {(long long)(x_shape0_4)};
        return tf_fail("tensor 'buf': shape[0] is {0}, a negative size", tf_sizes, 1);
    }
    if ((double)(long long)(x_shape0_4) * (double)(long long)(32) > 2147483647.0) {
        const long long tf_sizes[] = {(long long)(x_shape0_4), (long long)(32)};
        return tf_fail("tensor 'buf': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", tf_sizes, 2);
    }
    tf_buffer buf_3_memory((long long)(x_shape0_4) * (long long)(32), "buf");
    if (!buf_3_memory.data) return 1;
    float* buf_3 = (float*)buf_3_memory.data;
    if ((long long)(x_shape0_4) < 0) {
        const long long tf_sizes[] = {(long long)(x_shape0_4)};
        return tf_fail("tensor 'hidden' (made at <tests>/test_golden.py:<line>): shape[0] is {0}, a negative size", tf_sizes, 1);
    }
    if ((double)(long long)(x_shape0_4) * (double)(long long)(32) > 2147483647.0) {
        const long long tf_sizes[] = {(long long)(x_shape0_4), (long long)(32)};
        return tf_fail("tensor 'hidden' (made at <tests>/test_golden.py:<line>): shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", tf_sizes, 2);
    }
    tf_buffer hidden_2_memory((long long)(x_shape0_4) * (long long)(32), "hidden");
    if (!hidden_2_memory.data) return 1;
    float* hidden_2 = (float*)hidden_2_memory.data;
    mlp_step_k0(x_0, w1_1, hidden_2, buf_3, x_shape0_4);
    TF_STOP_IF_INTERRUPTED();
    if ((long long)(x_shape0_4) < 0) {
        const long long tf_sizes[] = {(long long)(x_shape0_4)};
        return tf_fail("tensor 'buf': shape[0] is {0}, a negative size", tf_sizes, 1);
    }
    if ((double)(long long)(x_shape0_4) * (double)(long long)(4) > 2147483647.0) {
        const long long tf_sizes[] = {(long long)(x_shape0_4), (long long)(4)};
        return tf_fail("tensor 'buf': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", tf_sizes, 2);
    }
    tf_buffer buf_13_memory((long long)(x_shape0_4) * (long long)(4), "buf");
    if (!buf_13_memory.data) return 1;
    float* buf_13 = (float*)buf_13_memory.data;
    mlp_step_k1(hidden_2, w2_12, buf_13, x_shape0_4);
    TF_STOP_IF_INTERRUPTED();
    hidden_2_memory.reset();
    const float v_22 = ((float)x_shape0_4);
    const float v_125 = (1.0f / v_22);
    const float v_126 = v_125;
    const float v_127 = v_126;
    const float v_128 = (v_127 / 4.0f);
    const float v_56 = v_128;
    tf_buffer loss_21_memory((long long)(1), "loss");
    if (!loss_21_memory.data) return 1;
    float* loss_21 = (float*)loss_21_memory.data;
    mlp_step_k2(buf_13, y_20, loss_21, x_shape0_4, v_22);
    TF_STOP_IF_INTERRUPTED();
    if ((long long)(x_shape0_4) < 0) {
        const long long tf_sizes[] = {(long long)(x_shape0_4)};
        return tf_fail("tensor 'buf': shape[0] is {0}, a negative size", tf_sizes, 1);
    }
    if ((double)(long long)(x_shape0_4) * (double)(long long)(4) > 2147483647.0) {
        const long long tf_sizes[] = {(long long)(x_shape0_4), (long long)(4)};
        return tf_fail("tensor 'buf': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", tf_sizes, 2);
    }
    tf_buffer buf_55_memory((long long)(x_shape0_4) * (long long)(4), "buf");
    if (!buf_55_memory.data) return 1;
    float* buf_55 = (float*)buf_55_memory.data;
    mlp_step_k3(buf_13, y_20, buf_55, x_shape0_4, v_56);
    TF_STOP_IF_INTERRUPTED();
    buf_13_memory.reset();
    tf_buffer buf_64_memory((long long)(4) * (long long)(32), "buf");
    if (!buf_64_memory.data) return 1;
    float* buf_64 = (float*)buf_64_memory.data;
    mlp_step_k4(w2_12, buf_64);
    TF_STOP_IF_INTERRUPTED();
    if ((long long)(x_shape0_4) < 0) {
        const long long tf_sizes[] = {(long long)(x_shape0_4)};
        return tf_fail("tensor 'buf': shape[0] is {0}, a negative size", tf_sizes, 1);
    }
    if ((double)(long long)(x_shape0_4) * (double)(long long)(32) > 2147483647.0) {
        const long long tf_sizes[] = {(long long)(x_shape0_4), (long long)(32)};
        return tf_fail("tensor 'buf': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", tf_sizes, 2);
    }
    tf_buffer buf_67_memory((long long)(x_shape0_4) * (long long)(32), "buf");
    if (!buf_67_memory.data) return 1;
    float* buf_67 = (float*)buf_67_memory.data;
    mlp_step_k5(buf_55, buf_64, buf_67, x_shape0_4);
    TF_STOP_IF_INTERRUPTED();
    buf_64_memory.reset();
    if ((long long)(x_shape0_4) < 0) {
        const long long tf_sizes[] = {(long long)(x_shape0_4)};
        return tf_fail("tensor 'hidden': shape[1] is {0}, a negative size", tf_sizes, 1);
    }
    if ((double)(long long)(32) * (double)(long long)(x_shape0_4) > 2147483647.0) {
        const long long tf_sizes[] = {(long long)(32), (long long)(x_shape0_4)};
        return tf_fail("tensor 'hidden': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", tf_sizes, 2);
    }
    tf_buffer hidden_74_memory((long long)(32) * (long long)(x_shape0_4), "hidden");
    if (!hidden_74_memory.data) return 1;
    float* hidden_74 = (float*)hidden_74_memory.data;
    mlp_step_k6(buf_3, hidden_74, x_shape0_4);
    TF_STOP_IF_INTERRUPTED();
    tf_buffer buf_77_memory((long long)(32) * (long long)(4), "buf");
    if (!buf_77_memory.data) return 1;
    float* buf_77 = (float*)buf_77_memory.data;
    mlp_step_k7(hidden_74, buf_55, buf_77, x_shape0_4);
    TF_STOP_IF_INTERRUPTED();
    hidden_74_memory.reset();
    buf_55_memory.reset();
    if ((long long)(x_shape0_4) < 0) {
        const long long tf_sizes[] = {(long long)(x_shape0_4)};
        return tf_fail("tensor 'buf': shape[0] is {0}, a negative size", tf_sizes, 1);
    }
    if ((double)(long long)(x_shape0_4) * (double)(long long)(32) > 2147483647.0) {
        const long long tf_sizes[] = {(long long)(x_shape0_4), (long long)(32)};
        return tf_fail("tensor 'buf': shape [{0}, {1}] has more elements than the 2147483647 a tensor can hold", tf_sizes, 2);
    }
    tf_buffer buf_84_memory((long long)(x_shape0_4) * (long long)(32), "buf");
    if (!buf_84_memory.data) return 1;
    float* buf_84 = (float*)buf_84_memory.data;
    mlp_step_k8(buf_3, buf_67, buf_84, x_shape0_4);
    TF_STOP_IF_INTERRUPTED();
    buf_67_memory.reset();
    buf_3_memory.reset();
    tf_buffer buf_91_memory((long long)(16) * (long long)(32), "buf");
    if (!buf_91_memory.data) return 1;
    float* buf_91 = (float*)buf_91_memory.data;
    mlp_step_k9(x_0, buf_84, buf_91, x_shape0_4);
    TF_STOP_IF_INTERRUPTED();
    buf_84_memory.reset();
    tf_buffer buf_98_memory((long long)(16) * (long long)(32), "buf");
    if (!buf_98_memory.data) return 1;
    float* buf_98 = (float*)buf_98_memory.data;
    mlp_step_k10(buf_91, w1_1, buf_98, 0.01f);
    TF_STOP_IF_INTERRUPTED();
    buf_91_memory.reset();
    tf_buffer buf_105_memory((long long)(32) * (long long)(4), "buf");
    if (!buf_105_memory.data) return 1;
    float* buf_105 = (float*)buf_105_memory.data;
    mlp_step_k11(buf_77, w2_12, buf_105, 0.01f);
    TF_STOP_IF_INTERRUPTED();
    buf_77_memory.reset();
    out[0].data = buf_98_memory.release();
    out[0].rank = 2;
    out[0].shape[0] = 16;
    out[0].shape[1] = 32;
    out[1].data = buf_105_memory.release();
    out[1].rank = 2;
    out[1].shape[0] = 32;
    out[1].shape[1] = 4;
    out[2].data = loss_21_memory.release();
    out[2].rank = 1;
    out[2].shape[0] = 1;
    return 0;
}
