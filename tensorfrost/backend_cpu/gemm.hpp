// tensorfrost GEMM: C = A B in float32 or float64 (a template over the element type), with any
// row and column strides for A and B (so a transposed operand or one matrix of a batch needs no
// copy). Compiled once per compiler, flags and CPU into a library of its own that programs call
// (backend_cpu/gemm.py); appended whole to the prelude of generated code shown or written out
// (codegen mode).
//
// Structure as in BLIS / GotoBLAS, with the parallel work split into tasks: tiles of C (up
// to TM x TN) that the threads take dynamically. A task, for each KC-deep slice of k, packs
// its columns of B into NR-wide strips (contiguous, zero-padded), then for each MC block of
// its rows packs A into MR-row strips (kept in L2) and runs the micro-kernel over every
// (B strip, A strip) pair, B's strip outer so that it stays in L1. The micro-kernel holds
// an MR x NR block of C in registers (two vectors a row: 6 x 16 floats or 6 x 8 doubles in
// 12 AVX2 registers; 6 x 32 and 6 x 16 with AVX-512) for the whole slice. Tasks share
// nothing, so there are no barriers: on a busy machine a thread that loses its core just
// takes fewer tasks (measured under a load of 4-8 on 2 cores: 0.47-0.57x numpy with shared
// packed panels and two barriers per k slice, 0.7-1.05x with tasks).
#ifdef _OPENMP
#include <omp.h>
#define TF_GEMM_THREADS() omp_get_max_threads()
#else  // generated code compiled without OpenMP (codegen mode)
#define TF_GEMM_THREADS() 1
#endif

#if defined(__AVX512F__)
#define TF_GEMM_BYTES 64  // of a vector register
#else
#define TF_GEMM_BYTES 32
#endif

// The blocking of each element type. A vector holds VL elements; a B strip (KC x NR) fills
// 16 KB of L1 and an A block (MC x KC) 144 KB of L2 in both types, as in BLIS's Zen tuning.
template <typename T> struct tf_gemm_shape;
template <> struct tf_gemm_shape<float> {
    typedef float v __attribute__((vector_size(TF_GEMM_BYTES)));  // aligned: packed B
    typedef float vu __attribute__((vector_size(TF_GEMM_BYTES), aligned(4)));  // rows of C
    static constexpr int MC = 144;
};
template <> struct tf_gemm_shape<double> {
    typedef double v __attribute__((vector_size(TF_GEMM_BYTES)));
    typedef double vu __attribute__((vector_size(TF_GEMM_BYTES), aligned(8)));
    static constexpr int MC = 72;
};
template <typename T> struct tf_gemm_dims {
    static constexpr int VL = TF_GEMM_BYTES / (int)sizeof(T);
    static constexpr int MR = 6;
    static constexpr int NR = 2 * VL;
    static constexpr int KC = 256;  // k slice
    static constexpr int MC = tf_gemm_shape<T>::MC;  // rows of packed A
    static constexpr int TM = 1152;  // a task's tile of C, at most TM x TN (halved down to 4 tasks a thread)
    static constexpr int TN = 1024;
    // Fewest rows that halving leaves a task: each task packs its own B, a cost of about 1/tm of
    // its multiply-adds, alike in both types (so not tied to MC, which is halved for double).
    static constexpr int TM_MIN = 288;
};

// Packing space of one thread (0: A, 1: B), in bytes, for either element type: buffers that
// only grow, so a call allocates nothing once they are large enough.
static void* tf_gemm_scratch(int which, long long bytes) {
    static thread_local void* slots[2] = {nullptr, nullptr};
    static thread_local long long sizes[2] = {0, 0};
    if (bytes > sizes[which]) {
        free(slots[which]);
        slots[which] = aligned_alloc(64, (size_t)((bytes + 63) / 64 * 64));
        sizes[which] = slots[which] ? bytes : 0;
    }
    return slots[which];
}

// dst[s][p][j] = B[k0 + p, j0 + s * NR + j] (0 past the last column), for kc x nc of B.
template <typename T>
static void tf_gemm_pack_b(T* __restrict dst, const T* b, long long rs, long long cs, int kc, int nc) {
    typedef typename tf_gemm_shape<T>::v v;
    typedef typename tf_gemm_shape<T>::vu vu;
    constexpr int VL = tf_gemm_dims<T>::VL, NR = tf_gemm_dims<T>::NR;
    int full = nc / NR, cols = nc - full * NR;
    if (cs == 1) {  // along the rows of B, which the hardware prefetches (a strip's rows are 2 KB+ apart)
        for (int p = 0; p < kc; p++) {
            const T* src = b + p * rs;
            for (int s = 0; s < full; s++) {
                const vu* row = (const vu*)(src + s * NR);
                T* out = dst + ((long long)s * kc + p) * NR;
                *(v*)out = row[0];
                *(v*)(out + VL) = row[1];
            }
            T* out = dst + ((long long)full * kc + p) * NR;
            for (int j = 0; j < cols; j++) out[j] = src[full * NR + j];
            for (int j = cols; j < NR && cols; j++) out[j] = (T)0;
        }
        return;
    }
    for (int s = 0; s * NR < nc; s++) {  // a transposed B (rs == 1) is read along its rows here
        T* out = dst + (long long)s * kc * NR;
        int width = s < full ? NR : cols;
        if (width < NR) memset(out, 0, sizeof(T) * kc * NR);
        for (int j = 0; j < width; j++)
            for (int p = 0; p < kc; p++) out[p * NR + j] = b[p * rs + (s * NR + j) * cs];
    }
}

// dst[s][p][r] = A[i0 + s * MR + r, k0 + p] (0 past the last row), for mc x kc of A.
template <typename T>
static void tf_gemm_pack_a(T* __restrict dst, const T* a, long long rs, long long cs, int mc, int kc) {
    constexpr int MR = tf_gemm_dims<T>::MR;
    for (int s = 0; s * MR < mc; s++) {
        T* out = dst + (long long)s * kc * MR;
        int rows = mc - s * MR < MR ? mc - s * MR : MR;
        const T* src = a + (long long)s * MR * rs;
        if (rows == MR) {  // six streams along k, written in order
            for (int p = 0; p < kc; p++) {
                #pragma GCC unroll 6
                for (int r = 0; r < MR; r++) out[p * MR + r] = src[r * rs + p * cs];
            }
            continue;
        }
        memset(out, 0, sizeof(T) * kc * MR);
        for (int p = 0; p < kc; p++)
            for (int r = 0; r < rows; r++) out[p * MR + r] = src[r * rs + p * cs];
    }
}

// C[rows, cols] (=, or += when accumulate) the product of a packed A strip and B strip. Its
// multiply-adds are fused (the rest of the code is built with -ffp-contract=off): each element
// of C is computed here once, so no other copy of it can round differently.
template <typename T>
__attribute__((optimize("fp-contract=fast"))) static inline void tf_gemm_micro(
        int kc, const T* __restrict a, const T* __restrict b, T* c, long long ldc, int rows, int cols,
        int accumulate) {
#if defined(__clang__)  // (clang ignores the optimize attribute: it fuses by this pragma)
    #pragma clang fp contract(fast)
#endif
    typedef typename tf_gemm_shape<T>::v v;
    typedef typename tf_gemm_shape<T>::vu vu;
    constexpr int VL = tf_gemm_dims<T>::VL, MR = tf_gemm_dims<T>::MR, NR = tf_gemm_dims<T>::NR;
    for (int r = 0; r < rows; r++) {  // C is in L3 or memory: fetch it while the products run
        __builtin_prefetch(c + r * ldc, 1);
        __builtin_prefetch(c + r * ldc + NR - 1, 1);
    }
    v acc[MR][2];
    for (int r = 0; r < MR; r++) acc[r][0] = acc[r][1] = (v){};
    #pragma GCC unroll 4
    for (int p = 0; p < kc; p++) {
        v b0 = *(const v*)(b + p * NR);
        v b1 = *(const v*)(b + p * NR + VL);
        #pragma GCC unroll 6
        for (int r = 0; r < MR; r++) {
            T av = a[p * MR + r];
            acc[r][0] += av * b0;
            acc[r][1] += av * b1;
        }
    }
    if (rows == MR && cols == NR) {
        for (int r = 0; r < MR; r++) {
            vu* row = (vu*)(c + r * ldc);
            row[0] = accumulate ? row[0] + acc[r][0] : acc[r][0];
            row[1] = accumulate ? row[1] + acc[r][1] : acc[r][1];
        }
        return;
    }
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < cols; j++) {
            T value = j < VL ? acc[r][0][j] : acc[r][1][j - VL];
            c[r * ldc + j] = accumulate ? c[r * ldc + j] + value : value;
        }
}

// One task: C[m, n] for rows and columns of its own, over all of k (no other thread writes
// there, so tasks need no barriers and a busy core just takes fewer of them).
template <typename T>
static void tf_gemm_task(int m, int n, int k, const T* a, long long a_rs, long long a_cs, const T* b,
                         long long b_rs, long long b_cs, T* c, long long ldc) {
    typedef tf_gemm_dims<T> D;
    T* ap = (T*)tf_gemm_scratch(0, (long long)sizeof(T) * (D::MC + D::MR) * D::KC);
    T* bp = (T*)tf_gemm_scratch(1, (long long)sizeof(T) * D::KC * (D::TN + D::NR));
    if (!ap || !bp) {  // no memory to pack into: the plain loop
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                T sum = (T)0;
                for (int p = 0; p < k; p++) sum += a[i * a_rs + p * a_cs] * b[p * b_rs + j * b_cs];
                c[i * ldc + j] = sum;
            }
        return;
    }
    for (int pc = 0; pc < k; pc += D::KC) {
        int kc = k - pc < D::KC ? k - pc : D::KC;
        tf_gemm_pack_b(bp, b + pc * b_rs, b_rs, b_cs, kc, n);
        for (int ic = 0; ic < m; ic += D::MC) {
            int mc = m - ic < D::MC ? m - ic : D::MC;
            tf_gemm_pack_a(ap, a + ic * a_rs + pc * a_cs, a_rs, a_cs, mc, kc);
            for (int j = 0; j < n; j += D::NR) {
                const T* bs = bp + (long long)(j / D::NR) * kc * D::NR;
                int cols = n - j < D::NR ? n - j : D::NR;
                for (int i = 0; i < mc; i += D::MR)
                    tf_gemm_micro(kc, ap + (long long)(i / D::MR) * kc * D::MR, bs, c + (ic + i) * ldc + j, ldc,
                                  mc - i < D::MR ? mc - i : D::MR, cols, pc > 0);
            }
        }
    }
}

// The tiles [begin, end) of one product (a plain function: the worker pool calls it by pointer).
template <typename T> struct tf_gemm_job {
    int m, n, k, tm, tn, cols;
    const T* a;
    long long a_rs, a_cs;
    const T* b;
    long long b_rs, b_cs;
    T* c;
    long long ldc;
};
template <typename T>
static void tf_gemm_tiles(void* context, long long begin, long long end) {
    const tf_gemm_job<T>& g = *(const tf_gemm_job<T>*)context;
    for (long long t = begin; t < end; t++) {
        int i = (int)(t / g.cols) * g.tm, j = (int)(t % g.cols) * g.tn;
        tf_gemm_task(g.m - i < g.tm ? g.m - i : g.tm, g.n - j < g.tn ? g.n - j : g.tn, g.k, g.a + i * g.a_rs, g.a_rs,
                     g.a_cs, g.b + j * g.b_cs, g.b_rs, g.b_cs, g.c + i * g.ldc + j, g.ldc);
    }
}

// C[m, n] (row stride ldc) = sum over k of A[i * a_rs + p * a_cs] * B[p * b_rs + j * b_cs], its
// tiles run by `parallel` (the worker pool's, tf_allocator::parallel) or, if null, by OpenMP.
template <typename T>
static void tf_gemm_run(int m, int n, int k, const T* a, long long a_rs, long long a_cs, const T* b,
                        long long b_rs, long long b_cs, T* c, long long ldc, tf_parallel_fn parallel) {
    typedef tf_gemm_dims<T> D;
    if (m <= 0 || n <= 0) return;
    if (k == 0) {
        for (int i = 0; i < m; i++) memset(c + i * ldc, 0, sizeof(T) * (size_t)n);
        return;
    }
    // Tiles of C up to TM x TN, at least 4 per thread where the product allows.
    int threads = TF_GEMM_THREADS();
    int tn = n < D::TN ? n : D::TN, tm = m < D::TM ? m : D::TM;
    while ((long long)((m + tm - 1) / tm) * ((n + tn - 1) / tn) < 4 * threads && tm > D::TM_MIN)
        tm = (tm / 2 + D::MR - 1) / D::MR * D::MR;
    while ((long long)((m + tm - 1) / tm) * ((n + tn - 1) / tn) < 4 * threads && tn > 4 * D::NR)
        tn = (tn / 2 + D::NR - 1) / D::NR * D::NR;
    int rows = (m + tm - 1) / tm, cols = (n + tn - 1) / tn;
    // Tiles of equal size (2048 rows: 4 x 512, not 3 x 576 + 320), so the threads finish together.
    tm = ((m + rows - 1) / rows + D::MR - 1) / D::MR * D::MR;
    tn = ((n + cols - 1) / cols + D::NR - 1) / D::NR * D::NR;
    rows = (m + tm - 1) / tm;
    cols = (n + tn - 1) / tn;
    // Tiles are tasks on the worker threads, as every other kernel's rows: one team of threads
    // for the whole program, and a thread kept off its core takes fewer tiles.
    tf_gemm_job<T> job = {m, n, k, tm, tn, cols, a, a_rs, a_cs, b, b_rs, b_cs, c, ldc};
    long long count = (long long)rows * cols;
    if (parallel) {
        parallel(count, tf_gemm_tiles<T>, &job);
        return;
    }
    #pragma omp parallel for schedule(static)
    for (long long t = 0; t < count; t++) tf_gemm_tiles<T>(&job, t, t + 1);
}
