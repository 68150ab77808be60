/* W4: one n-body step (unit masses, softened gravity, r^2 + eps2):
 *   a_i = sum_j (p_j - p_i) / (|p_j - p_i|^2 + eps2)^(3/2);  v' = v + dt a;  p' = p + dt v'
 * Positions arrive as [n, 3]; they are copied to three arrays so the j loop vectorizes. */
#include <stdlib.h>
#include "bench_common.h"

void w4_nbody_step(const float* restrict pos, const float* restrict vel, float* restrict pos_out,
                   float* restrict vel_out, int n, float dt, float eps2) {
    float* xs = malloc(sizeof(float) * (size_t)n * 3);
    float* ys = xs + n;
    float* zs = ys + n;
    for (int i = 0; i < n; i++) { xs[i] = pos[3 * i]; ys[i] = pos[3 * i + 1]; zs[i] = pos[3 * i + 2]; }
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) {
        float xi = xs[i], yi = ys[i], zi = zs[i];
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
        for (int j = 0; j < n; j++) {
            float dx = xs[j] - xi, dy = ys[j] - yi, dz = zs[j] - zi;
            float r2 = dx * dx + dy * dy + dz * dz + eps2;
            float inv = 1.0f / (r2 * sqrtf(r2));
            ax += dx * inv; ay += dy * inv; az += dz * inv;
        }
        float a[3] = {ax, ay, az};
        for (int c = 0; c < 3; c++) {
            float v = vel[3 * i + c] + dt * a[c];
            vel_out[3 * i + c] = v;
            pos_out[3 * i + c] = pos[3 * i + c] + dt * v;
        }
    }
    free(xs);
}
