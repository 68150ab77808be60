/* W5: naive matrix product C = A B (row-major, [n,k] x [k,m]), one OpenMP loop over rows
 * in i-k-j order so the inner loop runs along rows of B and C and vectorizes. No tiling:
 * this is the "plain C" line, not a BLAS. */
#include "bench_common.h"

void w5_matmul(const float* restrict a, const float* restrict b, float* restrict c, int n, int k, int m) {
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) {
        float* row = c + (long)i * m;
        for (int j = 0; j < m; j++) row[j] = 0.0f;
        for (int p = 0; p < k; p++) {
            float s = a[(long)i * k + p];
            const float* brow = b + (long)p * m;
            for (int j = 0; j < m; j++) row[j] += s * brow[j];
        }
    }
}

/* The same product, tiled for registers and caches (matmul_tiled.h): what a tiled
 * lowering of tf.matmul could reach, for the "c (tiled)" row. */
#include "matmul_tiled.h"

void w5_matmul_tiled(const float* restrict a, const float* restrict b, float* restrict c, int n, int k, int m) {
    bench_matmul_tiled(a, b, c, n, k, m);
}
