/* A cache- and register-tiled matrix product C = A B (row-major [n,k] x [k,m]), in plain
 * C with GCC vector extensions, valid as C and as C++ (the what-if tool pastes it into
 * tensorfrost's generated C++ to show what a tiled lowering of matmul would reach).
 *
 * Structure (as in BLIS/GotoBLAS): for each NC-wide column block and KC-deep slice of k,
 * the threads pack B's slice into NR-wide strips (contiguous, so the micro-kernel streams
 * it), then split the rows of C among themselves; the micro-kernel keeps an MR x NR block
 * of C (6 x 32 floats: 12 AVX-512 registers) in registers across the whole slice.
 */
#ifndef BENCH_MATMUL_TILED_H
#define BENCH_MATMUL_TILED_H
#include <stdlib.h>
#include <string.h>

typedef float bench_v16 __attribute__((vector_size(64), aligned(4)));
#define BENCH_MR 6
#define BENCH_NR 32
#define BENCH_KC 384
#define BENCH_NC 1024

/* C[rows, cols] += A[rows, kc] * (packed strip of kc x NR), rows <= MR, cols <= NR. */
static inline void bench_matmul_micro(int rows, int cols, int kc, const float* a, long lda, const float* bp,
                                      float* c, long ldc) {
    bench_v16 acc[BENCH_MR][2];
    memset(acc, 0, sizeof(acc));
    for (int p = 0; p < kc; p++) {
        bench_v16 b0 = *(const bench_v16*)(bp + p * BENCH_NR), b1 = *(const bench_v16*)(bp + p * BENCH_NR + 16);
        #pragma GCC unroll 6
        for (int r = 0; r < BENCH_MR; r++) {
            float av = r < rows ? a[r * lda + p] : 0.0f;
            acc[r][0] += av * b0;
            acc[r][1] += av * b1;
        }
    }
    if (rows == BENCH_MR && cols == BENCH_NR) {
        for (int r = 0; r < BENCH_MR; r++) {
            *(bench_v16*)(c + r * ldc) += acc[r][0];
            *(bench_v16*)(c + r * ldc + 16) += acc[r][1];
        }
    } else {
        for (int r = 0; r < rows; r++)
            for (int j = 0; j < cols; j++) c[r * ldc + j] += j < 16 ? acc[r][0][j] : acc[r][1][j - 16];
    }
}

static void bench_matmul_tiled(const float* a, const float* b, float* c, int n, int k, int m) {
    float* bp = (float*)aligned_alloc(64, sizeof(float) * BENCH_KC * (BENCH_NC + BENCH_NR));
    #pragma omp parallel
    {
        #pragma omp for schedule(static)
        for (int i = 0; i < n; i++) memset(c + (long)i * m, 0, sizeof(float) * (size_t)m);
        for (int jc = 0; jc < m; jc += BENCH_NC) {
            int nc = m - jc < BENCH_NC ? m - jc : BENCH_NC;
            int strips = (nc + BENCH_NR - 1) / BENCH_NR;
            for (int pc = 0; pc < k; pc += BENCH_KC) {
                int kc = k - pc < BENCH_KC ? k - pc : BENCH_KC;
                #pragma omp for schedule(static)
                for (int s = 0; s < strips; s++) {
                    float* dst = bp + (long)s * kc * BENCH_NR;
                    int cols = nc - s * BENCH_NR < BENCH_NR ? nc - s * BENCH_NR : BENCH_NR;
                    for (int p = 0; p < kc; p++) {
                        const float* src = b + (long)(pc + p) * m + jc + s * BENCH_NR;
                        for (int j = 0; j < BENCH_NR; j++) dst[p * BENCH_NR + j] = j < cols ? src[j] : 0.0f;
                    }
                }
                #pragma omp for schedule(static)
                for (int i = 0; i < n; i += BENCH_MR) {
                    int rows = n - i < BENCH_MR ? n - i : BENCH_MR;
                    for (int s = 0; s < strips; s++) {
                        int cols = nc - s * BENCH_NR < BENCH_NR ? nc - s * BENCH_NR : BENCH_NR;
                        bench_matmul_micro(rows, cols, kc, a + (long)i * k + pc, k, bp + (long)s * kc * BENCH_NR,
                                           c + (long)i * m + jc + s * BENCH_NR, m);
                    }
                }
            }
        }
    }
    free(bp);
}
#endif
