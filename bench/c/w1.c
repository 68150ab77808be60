/* W1: y = tanh(sin(x)*2 + exp(-x*x)) * cos(x) + sqrt(abs(x)+1), one OpenMP loop. */
#include "bench_common.h"

void w1_chain(const float* restrict x, float* restrict y, long n) {
    #pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        float v = x[i];
        y[i] = tanhf(bench_sinf(v) * 2.0f + expf(-v * v)) * bench_cosf(v) + sqrtf(fabsf(v) + 1.0f);
    }
}
