"""tf.fft against numpy.fft on every backend: powers of two and other lengths (Bluestein),
lengths known only at run time and static ones, batches, every axis, round trips, gradients
against central differences of a float64 numpy version, the AST front end, the example,
and the errors for bad arguments; the same in float64 (transforms computed in float64),
and 16-bit floats transformed in float32.

Tolerances: an FFT of length m has errors of a few eps * log2(m) relative to the largest
output (each of the log2(m) stages rounds once, plus the twiddles' rounding), so the checks
allow 8 * eps * log2(m) of max|reference| (eps = 2^-24 in float32, 2^-53 in float64), m
being the padded power-of-two length that Bluestein's algorithm transforms (m >= 2n - 1).
OpenGL computes float64 through GL_ARB_gpu_shader_fp64 with sin and cos written in the
prelude (slow to compile on llvmpipe), so its float64 cases are few and small."""

import importlib.util
import math
import pathlib

import numpy as np
import pytest
from conftest import central_differences
from dtype_cases import refused_64, use_backend

import tensorfrost as tf

EPS = 2.0 ** -24
EPS64 = 2.0 ** -53


def pairs(z, dtype=np.float32) -> np.ndarray:
    """A complex numpy array as [..., 2] pairs of ``dtype``."""
    return np.stack([z.real, z.imag], -1).astype(dtype)


def as_complex(y) -> np.ndarray:
    return y[..., 0].astype(np.float64) + 1j * y[..., 1]


def padded(n: int) -> int:
    return n if n & (n - 1) == 0 else 1 << (2 * n - 2).bit_length()


def assert_close(got, want, n: int, eps: float = EPS) -> None:
    bound = 8 * eps * max(math.log2(padded(n)), 1) * max(np.abs(want).max(), 1e-30)
    assert np.abs(got - want).max() <= bound, (np.abs(got - want).max(), bound)


def random_complex(rng, shape) -> np.ndarray:
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def transforms():
    x = tf.input([-1, -1, 2], tf.float32)
    return [tf.fft.fft(x), tf.fft.ifft(x), tf.fft.ifft(tf.fft.fft(x))]


@pytest.fixture(scope="module")
def compiled():
    """Programs compiled once per backend (the cache keys on the backend)."""
    return {}


def _program(compiled, backend, fn):
    key = (str(backend), fn.__name__)
    if key not in compiled:
        compiled[key] = tf.compile(fn)
    return compiled[key]


@pytest.mark.parametrize("batch, n", [(1, 1), (3, 2), (2, 8), (1, 1024), (3, 12), (2, 5), (1, 1000)])
def test_fft_and_ifft_of_lengths_known_at_run_time(backend, compiled, rng, batch, n):
    a = random_complex(rng, (batch, n))
    forward, inverse, round_trip = (as_complex(t.numpy) for t in _program(compiled, backend, transforms)(pairs(a)))
    assert_close(forward, np.fft.fft(a), n)
    assert_close(inverse, np.fft.ifft(a), n)
    assert_close(round_trip, a, n)


def test_static_lengths_and_real_transforms(backend, rng):
    def program():
        x = tf.input([3, 16, 2], tf.float32)
        y = tf.input([2, 12, 2], tf.float32)
        r = tf.input([2, 16], tf.float32)
        s = tf.input([4, 7], tf.float32)
        spectrum = tf.fft.rfft(s)
        return [tf.fft.fft(x), tf.fft.ifft(y), tf.fft.rfft(r), spectrum, tf.fft.irfft(spectrum, 7),
                tf.fft.irfft(tf.fft.rfft(r))]
    x, y = random_complex(rng, (3, 16)), random_complex(rng, (2, 12))
    r, s = rng.standard_normal((2, 16)).astype(np.float32), rng.standard_normal((4, 7)).astype(np.float32)
    out = [t.numpy for t in tf.compile(program)(pairs(x), pairs(y), r, s)]
    assert_close(as_complex(out[0]), np.fft.fft(x), 16)
    assert_close(as_complex(out[1]), np.fft.ifft(y), 12)
    assert out[2].shape == (2, 9, 2) and out[3].shape == (4, 4, 2)
    assert_close(as_complex(out[2]), np.fft.rfft(r), 16)
    assert_close(as_complex(out[3]), np.fft.rfft(s), 7)
    assert_close(out[4], s, 7)
    assert_close(out[5], r, 16)


def real_transforms():
    x = tf.input([-1, -1], tf.float32)
    spectrum = tf.input([-1, -1, 2], tf.float32)
    return [tf.fft.rfft(x), tf.fft.irfft(spectrum), tf.fft.irfft(spectrum, x.shape[1])]


@pytest.mark.parametrize("n", [1, 2, 7, 8, 10])
def test_rfft_and_irfft_of_lengths_known_at_run_time(backend, compiled, rng, n):
    x = rng.standard_normal((3, n)).astype(np.float32)
    # Arbitrary spectra (imaginary DC and Nyquist parts too, which irfft ignores as numpy does).
    spectrum = random_complex(rng, (3, n // 2 + 1))
    if n == 1:  # irfft's default length 2 * (1 - 1) is 0 points: an error, as in numpy (issue 26)
        with pytest.raises(tf.RuntimeCheckError, match=r"irfft: the output length n \(2 \* \(m - 1\)"):
            _program(compiled, backend, real_transforms)(x, pairs(spectrum))
        return
    forward, default_n, given_n = (t.numpy for t in _program(compiled, backend, real_transforms)(x, pairs(spectrum)))
    assert forward.shape == (3, n // 2 + 1, 2)
    assert_close(as_complex(forward), np.fft.rfft(x), n)
    m = 2 * (n // 2)
    assert default_n.shape == (3, m)
    assert_close(default_n, np.fft.irfft(spectrum), m)
    assert_close(given_n, np.fft.irfft(spectrum, n), n)


def test_irfft_pads_and_truncates_like_numpy(backend, rng):
    def program():
        spectrum = tf.input([2, 6, 2], tf.float32)
        return [tf.fft.irfft(spectrum, 16), tf.fft.irfft(spectrum, 5)]
    spectrum = random_complex(rng, (2, 6))
    longer, shorter = (t.numpy for t in tf.compile(program)(pairs(spectrum)))
    assert_close(longer, np.fft.irfft(spectrum, 16), 16)
    assert_close(shorter, np.fft.irfft(spectrum, 5), 5)


def test_every_axis_and_two_dimensional_transforms(backend, rng):
    def program():
        x = tf.input([2, 4, 8, 2], tf.float32)
        w = tf.input([2, 4, 4, 5, 2], tf.float32)
        r = tf.input([8, 6], tf.float32)
        spectrum = tf.fft.rfft2(r)
        return [tf.fft.fft2(x), tf.fft.ifft2(x), tf.fft.fft(x, axis=0), tf.fft.ifft(w, axis=1),
                spectrum, tf.fft.irfft2(spectrum, (8, 6))]
    x, w = random_complex(rng, (2, 4, 8)), random_complex(rng, (2, 4, 4, 5))
    r = rng.standard_normal((8, 6)).astype(np.float32)
    out = [t.numpy for t in tf.compile(program)(pairs(x), pairs(w), r)]
    assert_close(as_complex(out[0]), np.fft.fft2(x), 8)
    assert_close(as_complex(out[1]), np.fft.ifft2(x), 8)
    assert_close(as_complex(out[2]), np.fft.fft(x, axis=0), 2)
    assert_close(as_complex(out[3]), np.fft.ifft(w, axis=1), 4)  # more than one axis after it
    assert_close(as_complex(out[4]), np.fft.rfft2(r), 8)
    assert_close(out[5], r, 6)


def test_complex_helpers(backend, rng):
    def program():
        re = tf.input([-1, -1], tf.float32)
        im = tf.input([-1, -1], tf.float32)
        z = tf.fft.complex(re, im)
        return [z, tf.fft.real(z) * 2.0, tf.fft.imag(z)]
    re, im = rng.standard_normal((2, 3)).astype(np.float32), rng.standard_normal((2, 3)).astype(np.float32)
    z, twice_re, got_im = (t.numpy for t in tf.compile(program)(re, im))
    np.testing.assert_array_equal(z, np.stack([re, im], -1))
    np.testing.assert_array_equal(twice_re, 2 * re)
    np.testing.assert_array_equal(got_im, im)


def test_kernel_program_front_end(backend, rng):
    @tf.kernel_program
    def power(x: tf.Arg([-1, 24, 2], tf.float32)):
        spectrum = tf.fft.fft(x)
        total = spectrum[:, :, 0] * 0.0
        for c in tf.static_range(2):
            total = total + spectrum[:, :, c] * spectrum[:, :, c]
        return total
    a = random_complex(rng, (2, 24))
    got = power(pairs(a)).numpy
    want = np.abs(np.fft.fft(a)) ** 2
    np.testing.assert_allclose(got, want, rtol=0, atol=16 * EPS * math.log2(64) * want.max())


def test_large_power_of_two_on_cpu(rng):
    def program():
        x = tf.input([1 << 18, 2], tf.float32)
        forward = tf.fft.fft(x)
        return tf.fft.ifft(forward), forward
    a = random_complex(rng, 1 << 18)
    back, forward = (t.numpy for t in tf.compile(program)(pairs(a)))
    assert_close(as_complex(forward), np.fft.fft(a), 1 << 18)
    assert_close(as_complex(back), a, 1 << 18)


# -- gradients ------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind, n, known", [("fft", 8, False), ("fft", 6, True), ("ifft", 16, True), ("ifft", 5, True),
                                            ("rfft", 7, True), ("irfft", 8, True)])
def test_gradients_match_central_differences(backend, rng, kind, n, known):
    """d sum(w * f(x)^2) / dx, by tf.grad through the program's loops, against float64
    central differences of the numpy transform; float32 sums of n terms: rtol 1e-5.
    ``known``: the length is static (one algorithm in the program) or known at run time."""
    case = GradientCase(kind, n, known, tf.float32, rng)
    loss, grad = tf.compile(case.program)(case.x, case.w)
    want = central_differences(case.numpy_loss, case.x)
    # float32 error of a sum is relative to its terms' magnitudes: with random signs of w the
    # sum cancels (rfft of 7: terms of 44.6 in all, a sum of -0.41)
    np.testing.assert_allclose(float(loss.numpy.ravel()[0]), case.numpy_loss(case.x.astype(np.float64)), rtol=0,
                               atol=1e-5 * case.magnitude)
    np.testing.assert_allclose(grad.numpy, want, rtol=0, atol=1e-5 * np.abs(want).max() * n)


class GradientCase:
    """The loss sum(w * f(x)^2) of transform ``kind`` of length ``n`` in ``dtype``, as a
    program (returning the loss and its gradient by x) and in float64 numpy."""

    def __init__(self, kind: str, n: int, known: bool, dtype, rng):
        self.kind, self.n, self.known, self.dtype = kind, n, known, dtype
        self.real_in = kind == "rfft"
        self.out_shape = {"rfft": (2, n // 2 + 1, 2), "irfft": (2, 2 * (n - 1))}.get(kind, (2, n, 2))
        self.x = rng.standard_normal((2, n) if self.real_in else (2, n, 2)).astype(dtype.numpy)
        self.w = rng.standard_normal(self.out_shape).astype(dtype.numpy)
        self.magnitude = np.abs(self.numpy_terms(self.x.astype(np.float64))).sum()

    def program(self):
        in_shape = [2, self.n] if self.real_in else [2, self.n, 2]
        x = tf.input(in_shape if self.known else free(in_shape), self.dtype)
        w = tf.input(list(self.out_shape) if self.known else free(self.out_shape), self.dtype)
        if self.kind == "irfft":
            y = tf.fft.irfft(x, 2 * (self.n - 1))
        else:
            y = {"fft": tf.fft.fft, "ifft": tf.fft.ifft, "rfft": tf.fft.rfft}[self.kind](x)
        loss = _total(w * y * y)
        return loss, tf.grad(loss, x)

    def numpy_terms(self, x):
        if self.kind == "rfft":
            y = pairs_f64(np.fft.rfft(x))
        elif self.kind == "irfft":
            y = np.fft.irfft(x[..., 0] + 1j * x[..., 1], 2 * (self.n - 1))
        else:
            y = pairs_f64(getattr(np.fft, self.kind)(x[..., 0] + 1j * x[..., 1]))
        return self.w * y * y

    def numpy_loss(self, x):
        return np.sum(self.numpy_terms(x))


def free(shape):
    """``shape`` with every size left to run time except a trailing complex 2."""
    return [-1] * (len(shape) - 1) + [2 if shape[-1] == 2 else -1]


def pairs_f64(z):
    return np.stack([z.real, z.imag], -1)


def _total(values):
    """The sum of every element, as a [1] tensor (a 1-D reduction keeps one axis)."""
    for _ in range(values.ndim):
        values = tf.sum(values, axis=-1)
    return values


def test_gradient_of_a_permuting_gather(backend, rng):
    """Regression: fusion put the zeroing of a gradient's adjoint in the kernel that
    scatters into it at other elements, so x[7 - i] kept the gradient of one element."""
    def program():
        x = tf.input([8], tf.float32)
        w = tf.input([8], tf.float32)
        i = tf.index(0, [8])
        return tf.grad(tf.sum(w * x[7 - i] * x[(i + 3) & 7]), x)
    x, w = rng.standard_normal(8).astype(np.float32), rng.standard_normal(8).astype(np.float32)
    i = np.arange(8)
    want = np.zeros(8)
    np.add.at(want, 7 - i, w * x[(i + 3) & 7])
    np.add.at(want, (i + 3) & 7, w * x[7 - i])
    np.testing.assert_allclose(tf.compile(program)(x, w).numpy, want, rtol=1e-6, atol=1e-6)


# -- float64 and 16-bit floats --------------------------------------------------------------------


def transforms64():
    x = tf.input([-1, -1, 2], tf.float64)
    return [tf.fft.fft(x), tf.fft.ifft(x), tf.fft.ifft(tf.fft.fft(x))]


@pytest.mark.parametrize("batch, n", [(1, 1), (3, 2), (2, 16), (1, 4096), (3, 12), (2, 5), (1, 1000), (1, 4097)])
def test_float64_lengths_known_at_run_time(compiled, rng, batch, n):
    """Within 8 * 2^-53 * log2(m): a transform computed anywhere in float32 would be ~10^8 off."""
    tf.initialize(tf.cpu)
    a = random_complex(rng, (batch, n))
    outputs = [t.numpy for t in _program(compiled, "cpu", transforms64)(pairs(a, np.float64))]
    assert [y.dtype for y in outputs] == [np.float64] * 3
    forward, inverse, round_trip = (as_complex(y) for y in outputs)
    assert_close(forward, np.fft.fft(a), n, EPS64)
    assert_close(inverse, np.fft.ifft(a), n, EPS64)
    assert_close(round_trip, a, n, EPS64)


def test_float64_static_real_and_two_dimensional_transforms(rng):
    tf.initialize(tf.cpu)

    def program():
        x = tf.input([2, 4, 8, 2], tf.float64)
        r = tf.input([3, 6], tf.float64)
        s = tf.input([2, 16], tf.float64)
        spectrum = tf.fft.rfft2(r)
        return [tf.fft.fft2(x), tf.fft.ifft(x, axis=0), tf.fft.ifft2(x), tf.fft.rfft(s), tf.fft.irfft(tf.fft.rfft(s)),
                spectrum, tf.fft.irfft2(spectrum, (3, 6)), tf.fft.irfft(tf.fft.rfft(r), 6), tf.fft.rfft(r, axis=0)]
    x = random_complex(rng, (2, 4, 8))
    r, s = rng.standard_normal((3, 6)), rng.standard_normal((2, 16))
    out = [t.numpy for t in tf.compile(program)(pairs(x, np.float64), r, s)]
    assert all(y.dtype == np.float64 for y in out)
    assert_close(as_complex(out[0]), np.fft.fft2(x), 8, EPS64)
    assert_close(as_complex(out[1]), np.fft.ifft(x, axis=0), 2, EPS64)
    assert_close(as_complex(out[2]), np.fft.ifft2(x), 8, EPS64)
    assert_close(as_complex(out[3]), np.fft.rfft(s), 16, EPS64)
    assert_close(out[4], s, 16, EPS64)
    assert_close(as_complex(out[5]), np.fft.rfft2(r), 6, EPS64)  # Bluestein along the rows
    assert_close(out[6], r, 6, EPS64)
    assert_close(out[7], r, 6, EPS64)
    assert_close(as_complex(out[8]), np.fft.rfft(r, axis=0), 3, EPS64)


def one_signal64():
    x = tf.input([-1, 2], tf.float64)
    return tf.fft.fft(x)


def test_float64_of_a_length_known_at_run_time_on_every_backend(backend, compiled, rng):
    """A length known only at run time compiles both algorithms: one program covers them
    (the one OpenGL float64 case of the transforms: its double sin and cos compile slowly)."""
    if refused_64(backend, [tf.float64], one_signal64):
        return
    for n in (1, 16, 12):
        a = random_complex(rng, n)
        got = _program(compiled, backend, one_signal64)(pairs(a, np.float64)).numpy
        assert got.dtype == np.float64
        assert_close(as_complex(got), np.fft.fft(a), n, EPS64)


def test_float64_kernel_program_front_end(rng):
    tf.initialize(tf.cpu)

    @tf.kernel_program
    def power(x: tf.Arg([-1, 24, 2], tf.float64)):
        spectrum = tf.fft.fft(x)
        return spectrum[:, :, 0] * spectrum[:, :, 0] + spectrum[:, :, 1] * spectrum[:, :, 1]
    a = random_complex(rng, (2, 24))
    got = power(pairs(a, np.float64)).numpy
    want = np.abs(np.fft.fft(a)) ** 2
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=0, atol=16 * EPS64 * math.log2(64) * want.max())


@pytest.mark.parametrize("kind, n, known", [("fft", 8, False), ("fft", 6, True), ("ifft", 16, True), ("ifft", 5, False),
                                            ("rfft", 7, True), ("irfft", 8, False)])
def test_float64_gradients_match_central_differences(rng, kind, n, known):
    """The loss is a quadratic of x, so central differences have no truncation error: with a
    step of 2^-8 they are exact but for rounding, ~ n eps |terms| / h; the gradient's own
    error is a few eps log2(m) of its largest entry."""
    tf.initialize(tf.cpu)
    case = GradientCase(kind, n, known, tf.float64, rng)
    loss, grad = tf.compile(case.program)(case.x, case.w)
    step = 2.0 ** -8
    want = central_differences(case.numpy_loss, case.x, step)
    assert loss.numpy.dtype == grad.numpy.dtype == np.float64
    np.testing.assert_allclose(loss.numpy.ravel()[0], case.numpy_loss(case.x), rtol=0,
                               atol=8 * EPS64 * math.log2(padded(n)) * case.magnitude)
    bound = 4 * n * EPS64 * case.magnitude / step + 8 * EPS64 * math.log2(padded(n)) * np.abs(want).max()
    assert np.abs(grad.numpy - want).max() <= bound, (np.abs(grad.numpy - want).max(), bound)


def test_float64_gradients_on_opengl_need_float64_atomics():
    """A gradient of a gather adds into a float64 buffer: OpenGL has no 64-bit float atomic
    add (nor the 64-bit compare-and-swap to make one), which is a clear error there."""
    use_backend("opengl")
    try:
        case = GradientCase("fft", 8, True, tf.float64, np.random.default_rng(0))
        # (a DTypeError or a CompileError, as the backend's version names a target's limit)
        with pytest.raises(tf.TensorFrostError, match="scatterAdd into a tf.float64 tensor is not available on opengl"):
            tf.compile(case.program)
    finally:
        tf.initialize(tf.cpu)


@pytest.mark.parametrize("dtype", [tf.float16, tf.bfloat16], ids=["float16", "bfloat16"])
def test_16_bit_floats_transform_in_float32(rng, dtype):
    """As numpy widens: a float32 result, the transform of the 16-bit values, to float32's tolerance."""
    tf.initialize(tf.cpu)

    def program():
        x = tf.input([-1, -1, 2], dtype)
        r = tf.input([-1, -1], dtype)
        return [tf.fft.fft(x), tf.fft.rfft(r)]
    x = pairs(random_complex(rng, (2, 12)), dtype.numpy)
    r = rng.standard_normal((2, 16)).astype(dtype.numpy)
    forward, spectrum = (t.numpy for t in tf.compile(program)(x, r))
    assert forward.dtype == spectrum.dtype == np.float32
    assert_close(as_complex(forward), np.fft.fft(as_complex(x.astype(np.float64))), 12)
    assert_close(as_complex(spectrum), np.fft.rfft(r.astype(np.float64)), 16)


# -- errors and the example -----------------------------------------------------------------------


def test_bad_arguments_get_clear_errors():
    def real_to_fft():
        x = tf.input([-1], tf.float32)
        return tf.fft.fft(x)

    def bad_axis():
        x = tf.input([-1, -1, 2], tf.float32)
        return tf.fft.ifft(x, axis=2)

    def int_input():
        x = tf.input([-1], tf.int32)
        return tf.fft.rfft(x)
    with pytest.raises(tf.ShapeError, match=r"fft: x must be complex.*got shape \[\?\].*tf.fft.rfft"):
        tf.compile(real_to_fft)
    with pytest.raises(tf.ArgumentError, match=r"ifft: axis must be an int in \[-2, 2\).*got 2"):
        tf.compile(bad_axis)
    with pytest.raises(tf.ArgumentError, match=r"rfft: x must be a float tensor \(float32 or float64.*got tf.int32"):
        tf.compile(int_input)


def test_spectral_fit_example_learns():
    path = pathlib.Path(__file__).resolve().parent.parent / "examples" / "spectral_fit.py"
    spec = importlib.util.spec_from_file_location("spectral_fit", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    losses = example.main(["--steps", "60", "--size", "32", "--out", ""])
    assert losses[-1] < losses[0] / 10
