/* Shared declarations of the hand-written C reference kernels.
 *
 * Every file is built with gcc -O3 -march=native -fopenmp -ffast-math and linked with
 * glibc's vector math (-lmvec). gcc merges sinf(x) and cosf(x) of the same x into sincosf,
 * which has no SIMD variant and so keeps the loop scalar; these aliases of sinf/cosf are not
 * builtins (so they are never merged) but carry the simd attribute, so the vectorizer calls
 * libmvec's _ZGV*_sinf / _ZGV*_cosf for them.
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H
#include <math.h>
#include <stddef.h>
#include <stdint.h>

__attribute__((simd("notinbranch"), const, nothrow)) float bench_sinf(float) __asm__("sinf");
__attribute__((simd("notinbranch"), const, nothrow)) float bench_cosf(float) __asm__("cosf");

#endif
