"""The OpenGL backend's fast paths: the branch-free exp, 3-D dispatch of grids of rank >= 2
(x along the last axis, y the one before, z the rest) and its fallback to a flat dispatch,
and calls that reuse their buffers."""

import numpy as np
import pytest
from conftest import gl_unavailable_reason

import tensorfrost as tf
from tensorfrost.backend_gl import runtime

REASON = gl_unavailable_reason()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"no OpenGL 4.3 context: {REASON}")
F32 = np.finfo(np.float32)


@pytest.fixture
def gl():
    from tensorfrost.backend import backend_for
    tf.initialize(tf.opengl)
    yield backend_for(tf.opengl)
    tf.initialize(tf.cpu)


@pytest.fixture
def dispatches(monkeypatch):
    """Whether each new grid of a kernel was dispatched in 3-D (True) or flat (False)."""
    seen = []
    choose = runtime.GlExecutable._groups

    def spy(self, kernel, grid):
        groups, grid2d = choose(self, kernel, grid)
        seen.append(grid2d)
        return groups, grid2d
    monkeypatch.setattr(runtime.GlExecutable, "_groups", spy)
    return seen


def _exp():
    return tf.exp(tf.input([-1], tf.float32))


def test_exp_within_two_ulp_over_the_float_range(gl):
    x = np.concatenate([np.linspace(-110.0, 95.0, 1 << 21, dtype=np.float32),
                        np.linspace(-1.0, 1.0, 1 << 18, dtype=np.float32),
                        np.geomspace(1e-30, 1e-3, 4096).astype(np.float32) * np.float32(-1)])
    got = tf.compile(_exp)(x).numpy.astype(np.float64)
    want = np.exp(x.astype(np.float64))
    normal = (want >= F32.tiny) & (want <= F32.max)
    # 2 ulp of float32 (numpy's own expf is within 1); the built-in exp was 64 ulp near |x| = 88
    np.testing.assert_array_less(np.abs(got - want)[normal] / want[normal], 2 * F32.eps)
    assert np.all(got[want > F32.max] == np.inf)
    assert np.all(np.abs(got - want)[want < F32.tiny] <= F32.tiny)  # subnormal or flushed to zero


def test_exp_of_special_values(gl):
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 88.72, 88.73, -103.9, -104.0, 1e-8], np.float32)
    got = tf.compile(_exp)(x).numpy
    assert np.isnan(got[0]) and got[1] == np.inf and got[2] == 0.0 and got[6] == np.inf and got[8] == 0.0
    np.testing.assert_allclose(got[[3, 4, 5, 9]], np.exp(x[[3, 4, 5, 9]].astype(np.float64)), rtol=2 * F32.eps)
    assert 0.0 <= got[7] <= 2 * F32.tiny


def _stencil():
    a = tf.input([-1, -1], tf.float32)
    i, j = a.indices
    return a[i, j + 1] * 2.0 + a[i - 1, j] - a * 0.5 + tf.float(i) * 1000.0 + tf.float(j)


def _stencil_numpy(a):
    right = np.concatenate([a[:, 1:], a[:, -1:]], axis=1)
    up = np.concatenate([a[:1], a[:-1]], axis=0)
    i, j = np.indices(a.shape, dtype=np.float32)
    return right * 2.0 + up - a * 0.5 + i * 1000.0 + j


@pytest.mark.parametrize("shape", [(67, 131), (3, 65), (1, 64), (129, 64), (2, 1000), (1, 1), (5, 7), (1000, 3)])
def test_2d_grids_of_odd_sizes(gl, dispatches, shape):
    a = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)
    out = tf.compile(_stencil)(a).numpy
    np.testing.assert_allclose(out, _stencil_numpy(a), rtol=1e-6, atol=1e-4)
    assert dispatches[-1] == (shape[1] >= 64)  # narrower rows run flat


def _indices_3d_and_4d():
    a = tf.input([-1, -1, -1], tf.float32)
    b = tf.input([-1, -1, -1, -1], tf.float32)
    i, j, k = a.indices
    p, q, r, s = b.indices
    return [a * 2.0 + tf.float(i * 100000 + j * 1000 + k),
            b[p, q, r, s + 1] - tf.float(((p * 10 + q) * 10 + r) * 1000 + s)]


@pytest.mark.parametrize("shapes", [((3, 5, 67), (2, 3, 5, 70)), ((1, 1, 64), (1, 1, 1, 64)),
                                    ((7, 2, 3), (3, 2, 5, 9))])
def test_3d_and_4d_grids_fold_leading_axes_into_z(gl, dispatches, shapes):
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal(s).astype(np.float32) for s in shapes)
    got_a, got_b = (t.numpy for t in tf.compile(_indices_3d_and_4d)(a, b))
    i, j, k = np.indices(a.shape)
    np.testing.assert_allclose(got_a, a * 2 + (i * 100000 + j * 1000 + k), rtol=1e-6)
    p, q, r, s = np.indices(b.shape)
    shifted = np.concatenate([b[..., 1:], b[..., -1:]], axis=-1)
    np.testing.assert_allclose(got_b, shifted - (((p * 10 + q) * 10 + r) * 1000 + s), rtol=1e-6, atol=1e-3)
    assert dispatches[-2:] == [s[-1] >= 64 for s in shapes]


@pytest.mark.parametrize("shape", [(262_200, 64), (70_000, 2, 64)])
def test_grids_over_65535_groups_along_y_or_z_run_flat(gl, dispatches, shape):
    a = np.random.default_rng(4).standard_normal(shape).astype(np.float32)

    def program():
        x = tf.input([-1] * len(shape), tf.float32)
        idx = x.indices
        return x * 3.0 + tf.float(idx[0]) + tf.float(idx[-1]) * 0.25

    out = tf.compile(program)(a).numpy
    first = np.arange(shape[0], dtype=np.float32).reshape((-1,) + (1,) * (len(shape) - 1))
    last = np.arange(shape[-1], dtype=np.float32) * np.float32(0.25)
    np.testing.assert_allclose(out, a * 3.0 + first + last, rtol=1e-6, atol=1e-6)
    assert dispatches[-1] is False


def test_2d_grid_over_65535_groups_along_x(gl, dispatches):
    shape = (2, 64 * 65_536 + 3)  # 65,537 groups along x: more than a dispatch allows
    a = np.random.default_rng(5).standard_normal(shape).astype(np.float32)
    out = tf.compile(_stencil)(a).numpy
    np.testing.assert_allclose(out, _stencil_numpy(a), rtol=1e-6, atol=2e-2)
    assert dispatches[-1] is False


def test_a_kernel_reading_only_its_flat_index_runs_flat(gl, dispatches):
    a = np.random.default_rng(6).standard_normal((300, 200)).astype(np.float32)
    out = tf.compile(lambda: tf.sin(tf.input([-1, -1], tf.float32)) * 2.0)(a).numpy
    np.testing.assert_allclose(out, np.sin(a) * 2.0, rtol=1e-6, atol=1e-6)
    assert dispatches == [False]
