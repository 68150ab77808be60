// tensorfrost GEMM: C = A B in float32, with any row and column strides for A and B (so a
// transposed operand or one matrix of a batch needs no copy). Appended to the prelude only
// by programs whose matmul kernels use it (backend_cpu/gemm.py).
//
// Structure as in BLIS / GotoBLAS: for each NC-wide block of columns and KC-deep slice of
// k, the threads pack the slice of B into NR-wide strips (contiguous, zero-padded), then
// split the rows of C into blocks of about MC; a thread packs its block of A into MR-row
// strips (kept in L2) and runs the micro-kernel over every (B strip, A strip) pair, B's
// strip outer so that it stays in L1. The micro-kernel holds an MR x NR block of C in
// registers (6 x 16 floats: 12 AVX2 registers; 6 x 32 with AVX-512) for the whole slice.
#include <omp.h>

#if defined(__AVX512F__)
#define TF_GEMM_VL 16
#else
#define TF_GEMM_VL 8
#endif
typedef float tf_gemm_v __attribute__((vector_size(TF_GEMM_VL * 4)));  // aligned: packed B
typedef float tf_gemm_vu __attribute__((vector_size(TF_GEMM_VL * 4), aligned(4)));  // rows of C
#define TF_GEMM_MR 6
#define TF_GEMM_NR (2 * TF_GEMM_VL)
#define TF_GEMM_KC 256
#define TF_GEMM_MC 144
#define TF_GEMM_NC 3072

// A buffer that only grows, one per thread: packing space without an allocation per call.
static float* tf_gemm_scratch(float** slot, long long* size, long long need) {
    if (need > *size) {
        free(*slot);
        *slot = (float*)aligned_alloc(64, (size_t)((need * 4 + 63) / 64 * 64));
        *size = *slot ? need : 0;
    }
    return *slot;
}

// dst[s][p][j] = B[k0 + p, j0 + s * NR + j] (0 past the last column), for kc x nc of B.
static void tf_gemm_pack_b(float* __restrict dst, const float* b, long long rs, long long cs, int kc, int nc,
                           int strip) {
    float* out = dst + (long long)strip * kc * TF_GEMM_NR;
    int cols = nc - strip * TF_GEMM_NR < TF_GEMM_NR ? nc - strip * TF_GEMM_NR : TF_GEMM_NR;
    const float* src = b + (long long)strip * TF_GEMM_NR * cs;
    if (cs == 1 && cols == TF_GEMM_NR) {
        for (int p = 0; p < kc; p++) memcpy(out + p * TF_GEMM_NR, src + p * rs, TF_GEMM_NR * 4);
        return;
    }
    if (cols < TF_GEMM_NR) memset(out, 0, sizeof(float) * kc * TF_GEMM_NR);
    for (int j = 0; j < cols; j++)  // a transposed B (rs == 1) is read along its rows here
        for (int p = 0; p < kc; p++) out[p * TF_GEMM_NR + j] = src[p * rs + j * cs];
}

// dst[s][p][r] = A[i0 + s * MR + r, k0 + p] (0 past the last row), for mc x kc of A.
static void tf_gemm_pack_a(float* __restrict dst, const float* a, long long rs, long long cs, int mc, int kc) {
    for (int s = 0; s * TF_GEMM_MR < mc; s++) {
        float* out = dst + (long long)s * kc * TF_GEMM_MR;
        int rows = mc - s * TF_GEMM_MR < TF_GEMM_MR ? mc - s * TF_GEMM_MR : TF_GEMM_MR;
        const float* src = a + (long long)s * TF_GEMM_MR * rs;
        if (rows < TF_GEMM_MR) memset(out, 0, sizeof(float) * kc * TF_GEMM_MR);
        if (cs <= rs) {
            for (int r = 0; r < rows; r++)
                for (int p = 0; p < kc; p++) out[p * TF_GEMM_MR + r] = src[r * rs + p * cs];
        } else {  // a transposed A: its rows of k are contiguous along the strip
            for (int p = 0; p < kc; p++)
                for (int r = 0; r < rows; r++) out[p * TF_GEMM_MR + r] = src[r * rs + p * cs];
        }
    }
}

// C[rows, cols] (=, or += when accumulate) the product of a packed A strip and B strip.
static inline void tf_gemm_micro(int kc, const float* __restrict a, const float* __restrict b, float* c,
                                 long long ldc, int rows, int cols, int accumulate) {
    tf_gemm_v acc[TF_GEMM_MR][2];
    for (int r = 0; r < TF_GEMM_MR; r++) acc[r][0] = acc[r][1] = (tf_gemm_v){};
    for (int p = 0; p < kc; p++) {
        tf_gemm_v b0 = *(const tf_gemm_v*)(b + p * TF_GEMM_NR);
        tf_gemm_v b1 = *(const tf_gemm_v*)(b + p * TF_GEMM_NR + TF_GEMM_VL);
        #pragma GCC unroll 6
        for (int r = 0; r < TF_GEMM_MR; r++) {
            float av = a[p * TF_GEMM_MR + r];
            acc[r][0] += av * b0;
            acc[r][1] += av * b1;
        }
    }
    if (rows == TF_GEMM_MR && cols == TF_GEMM_NR) {
        for (int r = 0; r < TF_GEMM_MR; r++) {
            tf_gemm_vu* row = (tf_gemm_vu*)(c + r * ldc);
            row[0] = accumulate ? row[0] + acc[r][0] : acc[r][0];
            row[1] = accumulate ? row[1] + acc[r][1] : acc[r][1];
        }
        return;
    }
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < cols; j++) {
            float v = j < TF_GEMM_VL ? acc[r][0][j] : acc[r][1][j - TF_GEMM_VL];
            c[r * ldc + j] = accumulate ? c[r * ldc + j] + v : v;
        }
}

// One thread's block of rows of C for one (column block, k slice): pack A, run the strips.
static void tf_gemm_block(const float* a, long long a_rs, long long a_cs, const float* bp, float* c, long long ldc,
                          int mc, int nc, int kc, int accumulate) {
    static thread_local float* packed = nullptr;
    static thread_local long long size = 0;
    float* ap = tf_gemm_scratch(&packed, &size, (long long)(TF_GEMM_MC + TF_GEMM_MR) * TF_GEMM_KC);
    tf_gemm_pack_a(ap, a, a_rs, a_cs, mc, kc);
    for (int j = 0; j < nc; j += TF_GEMM_NR) {
        const float* b = bp + (long long)(j / TF_GEMM_NR) * kc * TF_GEMM_NR;
        int cols = nc - j < TF_GEMM_NR ? nc - j : TF_GEMM_NR;
        for (int i = 0; i < mc; i += TF_GEMM_MR)
            tf_gemm_micro(kc, ap + (long long)(i / TF_GEMM_MR) * kc * TF_GEMM_MR, b, c + i * ldc + j, ldc,
                          mc - i < TF_GEMM_MR ? mc - i : TF_GEMM_MR, cols, accumulate);
    }
}

// C[m, n] (row stride ldc) = sum over k of A[i * a_rs + p * a_cs] * B[p * b_rs + j * b_cs].
static void tf_gemm(int m, int n, int k, const float* a, long long a_rs, long long a_cs, const float* b,
                    long long b_rs, long long b_cs, float* c, long long ldc) {
    if (k == 0) {
        for (int i = 0; i < m; i++) memset(c + i * ldc, 0, sizeof(float) * (size_t)n);
        return;
    }
    static thread_local float* packed = nullptr;
    static thread_local long long size = 0;
    float* bp = tf_gemm_scratch(&packed, &size, (long long)TF_GEMM_KC * (TF_GEMM_NC + TF_GEMM_NR));
    if (!bp) return;
    // Blocks of rows: a multiple of the thread count, so that no thread idles on the last.
    int threads = omp_get_max_threads();
    int blocks = (m + TF_GEMM_MC - 1) / TF_GEMM_MC;
    blocks = (blocks + threads - 1) / threads * threads;
    int mc = ((m + blocks - 1) / blocks + TF_GEMM_MR - 1) / TF_GEMM_MR * TF_GEMM_MR;
    blocks = (m + mc - 1) / mc;
    #pragma omp parallel
    for (int jc = 0; jc < n; jc += TF_GEMM_NC) {
        int nc = n - jc < TF_GEMM_NC ? n - jc : TF_GEMM_NC;
        int strips = (nc + TF_GEMM_NR - 1) / TF_GEMM_NR;
        for (int pc = 0; pc < k; pc += TF_GEMM_KC) {
            int kc = k - pc < TF_GEMM_KC ? k - pc : TF_GEMM_KC;
            #pragma omp for schedule(static)
            for (int s = 0; s < strips; s++) tf_gemm_pack_b(bp, b + pc * b_rs + jc * b_cs, b_rs, b_cs, kc, nc, s);
            #pragma omp for schedule(dynamic)
            for (int blk = 0; blk < blocks; blk++) {
                int i = blk * mc;
                tf_gemm_block(a + i * a_rs + pc * a_cs, a_rs, a_cs, bp, c + i * ldc + jc, ldc,
                              m - i < mc ? m - i : mc, nc, kc, pc > 0);
            }
        }
    }
}
