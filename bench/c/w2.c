/* W2: one step of the 2-D wave equation with clamped borders (edge values repeat).
 *   lap = u[i-1,j] + u[i+1,j] + u[i,j-1] + u[i,j+1] - 4 u;  v' = v + c lap;  u' = u + c v'
 * Row pointers are clamped once per row and the two edge columns are done apart, so the
 * inner loop is contiguous and vectorizes. */
#include "bench_common.h"

static inline float lap_at(const float* up, const float* mid, const float* down, long j, long jl, long jr) {
    return up[j] + down[j] + mid[jl] + mid[jr] - 4.0f * mid[j];
}

void w2_wave_step(const float* restrict u, const float* restrict v, float* restrict u_out,
                  float* restrict v_out, int n, int m, float c) {
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) {
        const float* mid = u + (long)i * m;
        const float* up = u + (long)(i > 0 ? i - 1 : 0) * m;
        const float* down = u + (long)(i < n - 1 ? i + 1 : n - 1) * m;
        const float* vr = v + (long)i * m;
        float* uo = u_out + (long)i * m;
        float* vo = v_out + (long)i * m;
        long last = m - 1;
        for (long j = 1; j < last; j++) {
            float vn = vr[j] + c * (up[j] + down[j] + mid[j - 1] + mid[j + 1] - 4.0f * mid[j]);
            vo[j] = vn;
            uo[j] = mid[j] + c * vn;
        }
        long edges[2] = {0, last};
        for (int e = 0; e < (m > 1 ? 2 : 1); e++) {
            long j = edges[e];
            long jl = j > 0 ? j - 1 : 0, jr = j < last ? j + 1 : last;
            float vn = vr[j] + c * lap_at(up, mid, down, j, jl, jr);
            vo[j] = vn;
            uo[j] = mid[j] + c * vn;
        }
    }
}
