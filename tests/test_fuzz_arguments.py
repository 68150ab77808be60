"""Fuzzing the calls of compiled programs: random shapes, dtypes, memory layouts and values.

Each call must either give numpy's result or raise a ``tf.TensorFrostError`` subclass:
never another exception, never a crash. The calls run in a child process, so that a crash
(a segfault in generated code) fails this test instead of ending the test run."""

import os
import subprocess
import sys
import textwrap

import pytest

CHILD = textwrap.dedent('''
    import sys
    import numpy as np
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    import tensorfrost as tf

    tf.initialize(getattr(tf, sys.argv[1]))

    def add(a: tf.Arg([-1, -1], tf.float32), b: tf.Arg([-1, -1], tf.float32)):
        return a + b * 2.0

    def total(x: tf.Arg([-1], tf.int32)):
        return tf.sum(x)

    def fixed(x: tf.Arg([3, -1], tf.float32), n: tf.Arg([], tf.int32)):
        out = tf.zeros([n])
        i, = out.indices
        out[i] = x[1, i] + tf.float(n)
        return out

    PROGRAMS = {"add": tf.compile(add), "total": tf.compile(total), "fixed": tf.compile(fixed)}

    def reference(name, args):
        """numpy's result, or None where the arguments do not fit the program's types."""
        try:
            arrays = [np.asarray(a) for a in args]
        except Exception:
            return None
        if len(arrays) != {"add": 2, "total": 1, "fixed": 2}[name]:
            return None
        if any(a.dtype == object or a.dtype.kind not in "biuf" for a in arrays):
            return None
        if name == "add":
            a, b = (x.astype(np.float64) for x in arrays)
            if a.ndim != 2 or b.ndim != 2 or a.shape != b.shape:
                return None
            return (a + b * 2).astype(np.float32)
        if name == "total":
            (x,) = arrays
            if x.ndim != 1 or x.dtype.kind == "f":
                return None
            return np.array([x.astype(np.int64).sum()]).astype(np.int32)
        x, n = arrays
        if x.ndim != 2 or x.shape[0] != 3 or n.ndim != 0 or n.dtype.kind not in "biu":
            return None
        n = int(n)
        if n < 0 or n > x.shape[1]:
            return None
        return (x[1, :n].astype(np.float64) + n).astype(np.float32)

    dtypes = st.sampled_from([np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64,
                              np.uint8, np.uint32, np.uint64, np.bool_, np.complex64, object])
    values = st.sampled_from([0.0, -0.0, 1.5, -3.0, 1e6, 1e30, 1e300, np.inf, -np.inf, np.nan, 2**31, -2**40])

    @st.composite
    def arrays(draw):
        shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=3)))
        dtype = draw(dtypes)
        base = np.full(shape, draw(values)) if draw(st.booleans()) else np.arange(int(np.prod(shape))).reshape(shape)
        with np.errstate(all="ignore"):
            array = base.astype(dtype)
        layout = draw(st.sampled_from(["c", "f", "reversed", "strided", "broadcast"]))
        if layout == "f":
            array = np.asfortranarray(array)
        elif layout == "reversed" and array.ndim:
            array = array[::-1]
        elif layout == "strided" and array.ndim:
            array = np.repeat(array, 2, axis=0)[::2]
        elif layout == "broadcast" and array.ndim:
            array = np.broadcast_to(array[:1], array.shape)
        return array

    oddities = st.sampled_from([None, "text", [1, [2, 3]], [[1.0, 2.0], [3.0]], 3, 2.5, True, [1, 2, 3]])
    argument = st.one_of(arrays(), arrays(), arrays(), oddities)

    @settings(max_examples=int(sys.argv[2]), deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.sampled_from(sorted(PROGRAMS)), st.lists(argument, min_size=1, max_size=3))
    def check(name, args):
        want = reference(name, args)
        try:
            got = PROGRAMS[name](*args)
        except tf.TensorFrostError:
            return
        if want is None:  # accepted: then it must agree with numpy on the converted values
            return
        np.testing.assert_allclose(np.asarray(got.numpy, np.float64).reshape(want.shape), want, rtol=1e-6)

    check()
    print("ok")
''')


def _run(device: str, examples: int) -> None:
    out = subprocess.run([sys.executable, "-c", CHILD, device, str(examples)], capture_output=True, text=True,
                         timeout=900, env=dict(os.environ))
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), \
        f"exit status {out.returncode}\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"


def test_random_arguments_give_numpy_results_or_tensorfrost_errors_on_the_cpu():
    _run("cpu", int(os.environ.get("TENSORFROST_FUZZ_EXAMPLES", "300")))


def test_random_arguments_give_numpy_results_or_tensorfrost_errors_on_opengl():
    from tensorfrost.backend_gl.context import unavailable_reason
    reason = unavailable_reason()
    if reason is not None:
        pytest.skip(f"no OpenGL 4.3 context: {reason}")
    _run("opengl", int(os.environ.get("TENSORFROST_FUZZ_EXAMPLES", "100")))
