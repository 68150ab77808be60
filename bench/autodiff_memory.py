"""``python -m bench.autodiff_memory``: memory and time of differentiating a long simulation,
forward mode against reverse mode (full tape, checkpointed), beside jax.

The program is a nonlinear heat equation over N elements for T steps (the backward pass
reads u: the tape holds T states), differentiated at the initial state: forward mode gives
one directional derivative, reverse mode the whole gradient. Each row runs in a fresh child
process: the memory is the growth of the peak resident set over the first call after
compiling (what the derivative itself needs, tape included), the time the median of
``--repeat`` further calls, with the spread (min-max). The gradient rows are compared with
the first one (the full tape), the directional derivatives with ``gradient . v``.

    python -m bench.autodiff_memory                   # N=10^5, T=10^3 beside jax; T=10^4 with tensorfrost
    python -m bench.autodiff_memory --steps 10000 --every 100 --only tensorfrost
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap

CHILD = textwrap.dedent("""
    import json, statistics, sys, time
    import numpy as np
    library, mode, N, T, every, repeat = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:7])

    def status(key):
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith(key))

    rng = np.random.default_rng(0)
    u0 = rng.uniform(-1, 1, N).astype(np.float32)
    v = rng.uniform(-1, 1, N).astype(np.float32)
    if library == "tensorfrost":
        import tensorfrost as tf
        tf.initialize(tf.cpu)

        def program():
            u0, v = tf.input([N], tf.float32), tf.input([N], tf.float32)
            u = u0 * 1.0
            i = tf.indices([N])[0]
            with tf.loop(T, checkpoint=every if mode == "checkpointed" else None):
                u.val = u + 0.2 * (u[tf.max(i - 1, 0)] + u[tf.min(i + 1, N - 1)] - 2.0 * u) - 0.01 * u * u * u
            loss = tf.sum(u * u)
            return tf.jvp(loss, u0, v) if mode == "forward" else tf.grad(loss, u0)
        prog = tf.compile(program)
        call = lambda: prog(u0, v).numpy
    else:
        import jax, jax.numpy as jnp

        def step(u):
            left = jnp.concatenate([u[:1], u[:-1]])
            right = jnp.concatenate([u[1:], u[-1:]])
            return u + 0.2 * (left + right - 2.0 * u) - 0.01 * u * u * u

        def loss(u):
            if mode == "checkpointed":  # scans of `every` steps, each recomputed backward
                block = jax.checkpoint(lambda u: jax.lax.fori_loop(0, every, lambda _, u: step(u), u))
                u = jax.lax.fori_loop(0, T // every, lambda _, u: block(u), u)
                u = jax.lax.fori_loop(0, T % every, lambda _, u: step(u), u)
            else:
                u = jax.lax.scan(lambda u, _: (step(u), None), u, None, length=T)[0]
            return jnp.sum(u * u)
        if mode == "forward":
            fn = jax.jit(lambda u, v: jax.jvp(loss, (u,), (v,))[1])
        else:
            fn = jax.jit(lambda u, v: jax.grad(loss)(u))
        args = (jnp.asarray(u0), jnp.asarray(v))
        fn = fn.lower(*args).compile()
        call = lambda: np.asarray(fn(*args).block_until_ready())
    before = status("VmRSS")
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # the peak resident set starts again from here
    result = call()
    grown = status("VmHWM") - before
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    np.save(sys.argv[7], np.asarray(result, np.float64))
    print(json.dumps({"grown": grown, "times": times}))
""")

ROWS = [("tensorfrost", "reverse"), ("tensorfrost", "checkpointed"), ("tensorfrost", "forward"),
        ("jax", "reverse"), ("jax", "checkpointed"), ("jax", "forward")]  # the first row is the reference


def measure(library, mode, n, steps, every, repeat, out_path):
    result = subprocess.run([sys.executable, "-c", CHILD, library, mode, str(n), str(steps), str(every),
                             str(repeat), out_path], capture_output=True, text=True,
                            env={**os.environ, "TENSORFROST_DISABLE": ""})
    if result.returncode != 0:
        return {"error": result.stderr.strip().splitlines()[-1] if result.stderr.strip() else "failed"}
    return json.loads(result.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    import numpy as np
    ap = argparse.ArgumentParser(prog="python -m bench.autodiff_memory", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--every", type=int, default=32, help="steps between checkpoints")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", default="", help="tensorfrost or jax")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    rng.uniform(-1, 1, args.n)
    v = rng.uniform(-1, 1, args.n).astype(np.float32).astype(np.float64)
    tape = args.n * args.steps * 4
    print(f"heat equation, N={args.n}, T={args.steps}, checkpoint every {args.every}: "
          f"a full tape is {tape / 2**20:.0f} MiB of float32 states")
    print(f"{'library':<12} {'mode':<13} {'memory MiB':>10} {'of tape':>8} {'median s':>9} {'min-max s':>13}  check")
    reference = None
    with tempfile.TemporaryDirectory() as tmp:
        for library, mode in ROWS:
            if args.only and library != args.only:
                continue
            path = os.path.join(tmp, f"{library}-{mode}.npy")
            row = measure(library, mode, args.n, args.steps, args.every, args.repeat, path)
            if "error" in row:
                print(f"{library:<12} {mode:<13} failed: {row['error']}")
                continue
            value = np.load(path)
            if mode != "forward" and reference is None:
                reference = value
            if mode == "forward":
                check = "" if reference is None else \
                    f"jvp / (grad . v) - 1 = {value.reshape(-1)[0] / (reference @ v) - 1:.1e}"
            else:
                scale = np.abs(reference).max()
                check = f"max |grad - full tape's| / max |grad| = {np.abs(value - reference).max() / scale:.1e}"
            times = row["times"]
            print(f"{library:<12} {mode:<13} {row['grown'] / 2**20:>10.1f} {row['grown'] / tape:>8.1%} "
                  f"{np.median(times):>9.3f} {min(times):>6.3f}-{max(times):.3f}  {check}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
