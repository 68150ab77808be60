"""The fixed cost of a kernel: ``python -m bench.kernel_cost [size]``.

Times programs that are chains of N trivial kernels (each a stencil of the last one's output,
which the compiler must store, so N kernels of ``size`` elements, default 64) for N = 1 ... 32
and fits time = fixed + N * per_kernel. The fixed part is the call (arguments, the native call,
the output); the slope is what each further kernel adds: its launch, its intermediate buffer
and its few elements of work. Thread CPU time, so that other processes on the machine add little.
"""

from __future__ import annotations

import sys
import time

import numpy as np

COUNTS = [1, 2, 4, 8, 16, 32]


def chain(n: int):
    import tensorfrost as tf

    def program():
        x = tf.input([-1], tf.float32)
        i, = x.indices
        last = x.shape[0] - 1
        for _ in range(n):
            x = (x[tf.min(i + 1, last)] + x[tf.max(i - 1, 0)]) * 0.5 + 1.0
        return x
    program.__name__ = f"chain{n}"
    return tf.compile(program)


def main(size: int = 64, rounds: int = 30, calls: int = 500) -> tuple[float, float]:
    import tensorfrost as tf

    tf.initialize(tf.cpu)
    programs = {n: chain(n) for n in COUNTS}
    x = tf.tensor(np.ones(size, np.float32))
    for n, prog in programs.items():
        if len(prog.get_kernels()) != n or not np.allclose(prog(x).numpy, 1.0 + n):
            raise SystemExit(f"chain{n}: {len(prog.get_kernels())} kernels, expected {n}")
    best = dict.fromkeys(COUNTS, float("inf"))
    for _ in range(rounds):
        for n, prog in programs.items():
            start = time.thread_time()
            for _ in range(calls):
                prog(x)
            best[n] = min(best[n], (time.thread_time() - start) / calls * 1e6)
    slope, fixed = np.polyfit(COUNTS, [best[n] for n in COUNTS], 1)
    print(f"{size} elements: " + ", ".join(f"{n} kernels {best[n]:.2f} us" for n in COUNTS))
    print(f"per kernel {slope:.3f} us, fixed {fixed:.2f} us per call")
    return slope, fixed


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 64)
