/* W7: row sums of an [n, m] matrix; -ffast-math lets gcc vectorize the reduction. */
#include "bench_common.h"

void w7_row_sum(const float* restrict a, float* restrict out, int n, int m) {
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) {
        const float* row = a + (long)i * m;
        float s = 0.0f;
        for (int j = 0; j < m; j++) s += row[j];
        out[i] = s;
    }
}
