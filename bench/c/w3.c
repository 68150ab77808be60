/* W3: Mandelbrot iteration counts, up to max_iter iterations, leaving the loop on escape
 * (|z|^2 > 4). Rows are handed out dynamically since their cost differs. */
#include "bench_common.h"

void w3_mandelbrot(const float* restrict c_re, const float* restrict c_im, float* restrict out,
                   int n, int m, int max_iter) {
    #pragma omp parallel for schedule(dynamic, 4)
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < m; j++) {
            long t = (long)i * m + j;
            float cr = c_re[t], ci = c_im[t];
            float zr = 0.0f, zi = 0.0f, count = 0.0f;
            for (int k = 0; k < max_iter; k++) {
                float zr2 = zr * zr - zi * zi + cr;
                zi = 2.0f * zr * zi + ci;
                zr = zr2;
                count += 1.0f;
                if (zr * zr + zi * zi > 4.0f) break;
            }
            out[t] = count;
        }
    }
}
