/* STREAM triad a[i] = b[i] + s * c[i] over doubles with OpenMP (McCalpin's kernel).
 * Arrays are first touched by the threads that use them, as in STREAM. The rate counts
 * 24 bytes per element (two reads, one write), STREAM's convention. */
#include <stdlib.h>
#include <omp.h>

double stream_triad(long n, int repeats, double* rates) {
    double* a = aligned_alloc(64, (size_t)n * sizeof(double));
    double* b = aligned_alloc(64, (size_t)n * sizeof(double));
    double* c = aligned_alloc(64, (size_t)n * sizeof(double));
    if (!a || !b || !c) { free(a); free(b); free(c); return -1.0; }
    #pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) { a[i] = 1.0; b[i] = 2.0; c[i] = 0.5; }
    double best = 0.0;
    const double s = 3.0;
    for (int r = 0; r < repeats; r++) {
        double t0 = omp_get_wtime();
        #pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) a[i] = b[i] + s * c[i];
        double t = omp_get_wtime() - t0;
        double rate = 24.0 * (double)n / t / 1e9;
        rates[r] = rate;
        if (rate > best) best = rate;
    }
    double check = a[n / 2];
    free(a); free(b); free(c);
    return check == 3.5 ? best : -2.0;
}
