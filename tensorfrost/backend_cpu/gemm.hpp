// tensorfrost GEMM: C = A B in float32, with any row and column strides for A and B (so a
// transposed operand or one matrix of a batch needs no copy). Compiled once per compiler,
// flags and CPU into a library of its own that programs call (backend_cpu/gemm.py); appended
// whole to the prelude of generated code shown or written out (codegen mode).
//
// Structure as in BLIS / GotoBLAS, with the parallel work split into tasks: tiles of C (up
// to TM x TN) that the threads take dynamically. A task, for each KC-deep slice of k, packs
// its columns of B into NR-wide strips (contiguous, zero-padded), then for each MC block of
// its rows packs A into MR-row strips (kept in L2) and runs the micro-kernel over every
// (B strip, A strip) pair, B's strip outer so that it stays in L1. The micro-kernel holds
// an MR x NR block of C in registers (6 x 16 floats: 12 AVX2 registers; 6 x 32 with
// AVX-512) for the whole slice. Tasks share nothing, so there are no barriers: on a busy
// machine a thread that loses its core just takes fewer tasks (measured under a load of
// 4-8 on 2 cores: 0.47-0.57x numpy with shared packed panels and two barriers per k slice,
// 0.7-1.05x with tasks).
#ifdef _OPENMP
#include <omp.h>
#define TF_GEMM_THREADS() omp_get_max_threads()
#else  // generated code compiled without OpenMP (codegen mode)
#define TF_GEMM_THREADS() 1
#endif

#if defined(__AVX512F__)
#define TF_GEMM_VL 16
#else
#define TF_GEMM_VL 8
#endif
typedef float tf_gemm_v __attribute__((vector_size(TF_GEMM_VL * 4)));  // aligned: packed B
typedef float tf_gemm_vu __attribute__((vector_size(TF_GEMM_VL * 4), aligned(4)));  // rows of C
#define TF_GEMM_MR 6
#define TF_GEMM_NR (2 * TF_GEMM_VL)
#define TF_GEMM_KC 256  // k slice: a 16-wide strip of packed B (16 KB) stays in L1
#define TF_GEMM_MC 144  // rows of packed A (144 KB) kept in L2
#define TF_GEMM_TM 1152  // a task's tile of C, at most TM x TN (halved down to 4 tasks a thread)
#define TF_GEMM_TN 1024

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
static void tf_gemm_pack_b(float* __restrict dst, const float* b, long long rs, long long cs, int kc, int nc) {
    int full = nc / TF_GEMM_NR, cols = nc - full * TF_GEMM_NR;
    if (cs == 1) {  // along the rows of B, which the hardware prefetches (a strip's rows are 2 KB+ apart)
        for (int p = 0; p < kc; p++) {
            const float* src = b + p * rs;
            for (int s = 0; s < full; s++) {
                const tf_gemm_vu* row = (const tf_gemm_vu*)(src + s * TF_GEMM_NR);
                float* out = dst + ((long long)s * kc + p) * TF_GEMM_NR;
                *(tf_gemm_v*)out = row[0];
                *(tf_gemm_v*)(out + TF_GEMM_VL) = row[1];
            }
            float* out = dst + ((long long)full * kc + p) * TF_GEMM_NR;
            for (int j = 0; j < cols; j++) out[j] = src[full * TF_GEMM_NR + j];
            for (int j = cols; j < TF_GEMM_NR && cols; j++) out[j] = 0.0f;
        }
        return;
    }
    for (int s = 0; s * TF_GEMM_NR < nc; s++) {  // a transposed B (rs == 1) is read along its rows here
        float* out = dst + (long long)s * kc * TF_GEMM_NR;
        int width = s < full ? TF_GEMM_NR : cols;
        if (width < TF_GEMM_NR) memset(out, 0, sizeof(float) * kc * TF_GEMM_NR);
        for (int j = 0; j < width; j++)
            for (int p = 0; p < kc; p++) out[p * TF_GEMM_NR + j] = b[p * rs + (s * TF_GEMM_NR + j) * cs];
    }
}

// dst[s][p][r] = A[i0 + s * MR + r, k0 + p] (0 past the last row), for mc x kc of A.
static void tf_gemm_pack_a(float* __restrict dst, const float* a, long long rs, long long cs, int mc, int kc) {
    for (int s = 0; s * TF_GEMM_MR < mc; s++) {
        float* out = dst + (long long)s * kc * TF_GEMM_MR;
        int rows = mc - s * TF_GEMM_MR < TF_GEMM_MR ? mc - s * TF_GEMM_MR : TF_GEMM_MR;
        const float* src = a + (long long)s * TF_GEMM_MR * rs;
        if (rows == TF_GEMM_MR) {  // six streams along k, written in order
            for (int p = 0; p < kc; p++) {
                #pragma GCC unroll 6
                for (int r = 0; r < TF_GEMM_MR; r++) out[p * TF_GEMM_MR + r] = src[r * rs + p * cs];
            }
            continue;
        }
        memset(out, 0, sizeof(float) * kc * TF_GEMM_MR);
        for (int p = 0; p < kc; p++)
            for (int r = 0; r < rows; r++) out[p * TF_GEMM_MR + r] = src[r * rs + p * cs];
    }
}

// C[rows, cols] (=, or += when accumulate) the product of a packed A strip and B strip. Its
// multiply-adds are fused (the rest of the code is built with -ffp-contract=off): each element
// of C is computed here once, so no other copy of it can round differently.
__attribute__((optimize("fp-contract=fast"))) static inline void tf_gemm_micro(int kc, const float* __restrict a, const float* __restrict b, float* c,
                                 long long ldc, int rows, int cols, int accumulate) {
    for (int r = 0; r < rows; r++) {  // C is in L3 or memory: fetch it while the products run
        __builtin_prefetch(c + r * ldc, 1);
        __builtin_prefetch(c + r * ldc + TF_GEMM_NR - 1, 1);
    }
    tf_gemm_v acc[TF_GEMM_MR][2];
    for (int r = 0; r < TF_GEMM_MR; r++) acc[r][0] = acc[r][1] = (tf_gemm_v){};
    #pragma GCC unroll 4
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

// One task: C[m, n] for rows and columns of its own, over all of k (no other thread writes
// there, so tasks need no barriers and a busy core just takes fewer of them).
static void tf_gemm_task(int m, int n, int k, const float* a, long long a_rs, long long a_cs, const float* b,
                         long long b_rs, long long b_cs, float* c, long long ldc) {
    static thread_local float* packed_a = nullptr;
    static thread_local long long size_a = 0;
    static thread_local float* packed_b = nullptr;
    static thread_local long long size_b = 0;
    float* ap = tf_gemm_scratch(&packed_a, &size_a, (long long)(TF_GEMM_MC + TF_GEMM_MR) * TF_GEMM_KC);
    float* bp = tf_gemm_scratch(&packed_b, &size_b, (long long)TF_GEMM_KC * (TF_GEMM_TN + TF_GEMM_NR));
    if (!ap || !bp) {  // no memory to pack into: the plain loop
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                float sum = 0.0f;
                for (int p = 0; p < k; p++) sum += a[i * a_rs + p * a_cs] * b[p * b_rs + j * b_cs];
                c[i * ldc + j] = sum;
            }
        return;
    }
    for (int pc = 0; pc < k; pc += TF_GEMM_KC) {
        int kc = k - pc < TF_GEMM_KC ? k - pc : TF_GEMM_KC;
        tf_gemm_pack_b(bp, b + pc * b_rs, b_rs, b_cs, kc, n);
        for (int ic = 0; ic < m; ic += TF_GEMM_MC) {
            int mc = m - ic < TF_GEMM_MC ? m - ic : TF_GEMM_MC;
            tf_gemm_pack_a(ap, a + ic * a_rs + pc * a_cs, a_rs, a_cs, mc, kc);
            for (int j = 0; j < n; j += TF_GEMM_NR) {
                const float* bs = bp + (long long)(j / TF_GEMM_NR) * kc * TF_GEMM_NR;
                int cols = n - j < TF_GEMM_NR ? n - j : TF_GEMM_NR;
                for (int i = 0; i < mc; i += TF_GEMM_MR)
                    tf_gemm_micro(kc, ap + (long long)(i / TF_GEMM_MR) * kc * TF_GEMM_MR, bs,
                                  c + (ic + i) * ldc + j, ldc, mc - i < TF_GEMM_MR ? mc - i : TF_GEMM_MR, cols, pc > 0);
            }
        }
    }
}

// The tiles [begin, end) of one product (a plain function: the worker pool calls it by pointer).
struct tf_gemm_job {
    int m, n, k, tm, tn, cols;
    const float* a;
    long long a_rs, a_cs;
    const float* b;
    long long b_rs, b_cs;
    float* c;
    long long ldc;
};
static void tf_gemm_tiles(void* context, long long begin, long long end) {
    const tf_gemm_job& g = *(const tf_gemm_job*)context;
    for (long long t = begin; t < end; t++) {
        int i = (int)(t / g.cols) * g.tm, j = (int)(t % g.cols) * g.tn;
        tf_gemm_task(g.m - i < g.tm ? g.m - i : g.tm, g.n - j < g.tn ? g.n - j : g.tn, g.k, g.a + i * g.a_rs, g.a_rs,
                     g.a_cs, g.b + j * g.b_cs, g.b_rs, g.b_cs, g.c + i * g.ldc + j, g.ldc);
    }
}

// C[m, n] (row stride ldc) = sum over k of A[i * a_rs + p * a_cs] * B[p * b_rs + j * b_cs], its
// tiles run by `parallel` (the worker pool's, tf_allocator::parallel) or, if null, by OpenMP.
static void tf_gemm_run(int m, int n, int k, const float* a, long long a_rs, long long a_cs, const float* b,
                        long long b_rs, long long b_cs, float* c, long long ldc, tf_parallel_fn parallel) {
    if (m <= 0 || n <= 0) return;
    if (k == 0) {
        for (int i = 0; i < m; i++) memset(c + i * ldc, 0, sizeof(float) * (size_t)n);
        return;
    }
    // Tiles of C up to TM x TN, at least 4 per thread where the product allows.
    int threads = TF_GEMM_THREADS();
    int tn = n < TF_GEMM_TN ? n : TF_GEMM_TN, tm = m < TF_GEMM_TM ? m : TF_GEMM_TM;
    while ((long long)((m + tm - 1) / tm) * ((n + tn - 1) / tn) < 4 * threads && tm > 2 * TF_GEMM_MC)
        tm = (tm / 2 + TF_GEMM_MR - 1) / TF_GEMM_MR * TF_GEMM_MR;
    while ((long long)((m + tm - 1) / tm) * ((n + tn - 1) / tn) < 4 * threads && tn > 4 * TF_GEMM_NR)
        tn = (tn / 2 + TF_GEMM_NR - 1) / TF_GEMM_NR * TF_GEMM_NR;
    int rows = (m + tm - 1) / tm, cols = (n + tn - 1) / tn;
    // Tiles of equal size (2048 rows: 4 x 512, not 3 x 576 + 320), so the threads finish together.
    tm = ((m + rows - 1) / rows + TF_GEMM_MR - 1) / TF_GEMM_MR * TF_GEMM_MR;
    tn = ((n + cols - 1) / cols + TF_GEMM_NR - 1) / TF_GEMM_NR * TF_GEMM_NR;
    rows = (m + tm - 1) / tm;
    cols = (n + tn - 1) / tn;
    // Tiles are tasks on the worker threads, as every other kernel's rows: one team of threads
    // for the whole program, and a thread kept off its core takes fewer tiles.
    tf_gemm_job job = {m, n, k, tm, tn, cols, a, a_rs, a_cs, b, b_rs, b_cs, c, ldc};
    long long count = (long long)rows * cols;
    if (parallel) {
        parallel(count, tf_gemm_tiles, &job);
        return;
    }
    #pragma omp parallel for schedule(static)
    for (long long t = 0; t < count; t++) tf_gemm_tiles(&job, t, t + 1);
}
