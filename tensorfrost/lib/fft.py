"""Fast Fourier transforms inside tensor programs (``tf.fft``), as numpy.fft computes them.

Complex tensors are float tensors with a trailing axis of 2 holding (real, imaginary), as
``torch.view_as_real`` lays them out; ``complex(re, im)``, ``real(z)`` and ``imag(z)``
convert. ``fft``/``ifft`` take such tensors only: a real signal goes through ``rfft`` (or
``complex(x, 0 * x)``). ``axis`` counts the complex axes, so ``axis=-1`` of a [..., n, 2]
tensor is the axis of length n. Normalization is numpy's "backward": ``ifft`` and
``irfft`` divide by n::

    def program():
        x = tf.input([-1, -1, 2], tf.float32)       # rows of complex numbers
        spectrum = tf.fft.fft(x)                     # along each row
        back = tf.fft.ifft(spectrum)                 # == x up to float32 rounding
        power = tf.fft.real(spectrum) ** 2 + tf.fft.imag(spectrum) ** 2
        return [spectrum, back, power]

Lengths that are powers of two run a Stockham FFT: a radix-4 pass per kernel (radix 2 first
when log2 n is odd), a host loop over the passes, twiddles from two small tables of exact
angles (errors of a few roundoffs times log2 n). Other lengths (below 2^30) use Bluestein's
chirp-z transform: three power-of-two FFTs of length m >= 2n - 1, about 6x the time of a
power of two near n. A length known only when the program runs (``tf.input([-1, ...])``)
compiles both algorithms and the host picks one per call; a static length compiles only
its own. Every transform is batched over the other axes (which may be empty: an empty
result), and ``tf.grad`` differentiates through all of them (the passes are values carried
by a loop, which the gradient runs backwards). As in numpy, a transformed axis of length 0
is an error (when the program runs, for a length known only then).

Dtypes: float32 and float64 transform in their own precision and give their dtype back
(float64: twiddles, chirps and scales in float64 too, errors of a few 2^-53 times log2 n);
float16 and bfloat16 are transformed in float32, which they give back (as numpy widens).
On OpenGL, ``tf.grad`` through a float64 transform is a clear error: its gathers' gradients
add into float64 buffers, and OpenGL has no float64 atomic add.
"""

from __future__ import annotations

import math

from ..ir import dtypes as dt
from ..ir.builder import current
from ..ir.errors import ArgumentError, ShapeError, user_location
from ..ir.shapes import static_value
from ..tracing.algorithms import reshape
from ..tracing.api import buffer, const, if_cond, index, indices, loop
from ..tracing.mathfn import ceil, copy, cos, log2, select, sin, uint
from ..tracing.mathfn import float as to_float
from ..tracing.mathfn import int as to_int
from ..tracing.mathfn import max as maximum
from ..tracing.mathfn import round as to_round
from ..tracing.tensor import Tensor, node_of

__all__ = ["complex", "real", "imag", "fft", "ifft", "fft2", "ifft2", "rfft", "irfft", "rfft2", "irfft2"]

# -- complex helpers ----------------------------------------------------------------------------


def complex(re: Tensor, im: Tensor) -> Tensor:  # noqa: A001 (numpy's name)
    """A complex tensor [..., 2] from float real and imaginary parts of shape [...]::

        z = tf.fft.complex(x, tf.zeros(x.shape))

    >>> def pack():
    ...     return tf.fft.complex(tf.input([-1], tf.float32), tf.input([-1], tf.float32))
    >>> tf.compile(pack)(np.array([1, 2], np.float32), np.array([3, 4], np.float32)).tolist()
    [[1.0, 3.0], [2.0, 4.0]]
    """
    re, im = _require_tensor(re, "complex", "re"), _require_tensor(im, "complex", "im")
    grid = indices(list(re.shape) + [2])
    at = grid[:-1]
    return select(grid[-1] == 0, re[at] if at else re, im[at] if at else im)


def real(z: Tensor) -> Tensor:
    """The real part [...] of a complex tensor [..., 2].

    >>> real = tf.compile(lambda: tf.fft.real(tf.input([-1, 2], tf.float32)))
    >>> real(np.array([[1, 3], [2, 4]], np.float32)).tolist()
    [1.0, 2.0]
    """
    return _require_complex(z, "real")[..., 0]


def imag(z: Tensor) -> Tensor:
    """The imaginary part [...] of a complex tensor [..., 2].

    >>> imag = tf.compile(lambda: tf.fft.imag(tf.input([-1, 2], tf.float32)))
    >>> imag(np.array([[1, 3], [2, 4]], np.float32)).tolist()
    [3.0, 4.0]
    """
    return _require_complex(z, "imag")[..., 1]


def _cmul(a, b):
    return a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]


# -- public transforms ---------------------------------------------------------------------------


def fft(x: Tensor, axis: int = -1) -> Tensor:
    """The discrete Fourier transform of complex ``x`` [..., 2] along complex axis ``axis``:
    ``X[k] = sum_j x[j] exp(-2 pi i j k / n)``, the same shape and dtype as ``x``::

        spectrum = tf.fft.fft(x)            # x: [batch, n, 2]

    >>> fft = tf.compile(lambda: tf.fft.fft(tf.input([4, 2], tf.float32)))   # ([-1, 2]: any length)
    >>> x = np.array([1, 2, 3, 4], np.float32)
    >>> fft(np.stack([x, np.zeros(4, np.float32)], axis=-1)).numpy   # [re, im] pairs
    array([[10.,  0.],
           [-2.,  2.],
           [-2.,  0.],
           [-2., -2.]], dtype=float32)
    >>> np.fft.fft(x).round(4).tolist() == [10, -2 + 2j, -2, -2 - 2j]    # numpy agrees
    True
    """
    return _complex_transform(x, axis, -1.0, "fft")


def ifft(x: Tensor, axis: int = -1) -> Tensor:
    """The inverse of ``fft``: ``x[j] = (1/n) sum_k X[k] exp(2 pi i j k / n)``, along complex
    axis ``axis`` of ``x`` [..., 2], same shape and dtype.

    >>> ifft = tf.compile(lambda: tf.fft.ifft(tf.input([4, 2], tf.float32)))
    >>> spectrum = np.array([[10, 0], [-2, 2], [-2, 0], [-2, -2]], np.float32)
    >>> ifft(spectrum).numpy                  # the signal 1, 2, 3, 4
    array([[1., 0.],
           [2., 0.],
           [3., 0.],
           [4., 0.]], dtype=float32)
    """
    return _complex_transform(x, axis, 1.0, "ifft")


def fft2(x: Tensor) -> Tensor:
    """``fft`` over the last two complex axes of ``x`` [..., h, w, 2].

    >>> fft2 = tf.compile(lambda: tf.fft.fft2(tf.input([2, 2, 2], tf.float32)))
    >>> x = np.array([[1, 2], [3, 4]], np.float32)
    >>> z = fft2(np.stack([x, np.zeros_like(x)], axis=-1)).numpy
    >>> z[..., 0] + 1j * z[..., 1]
    array([[10.+0.j, -2.+0.j],
           [-4.+0.j,  0.+0.j]], dtype=complex64)
    >>> np.allclose(z[..., 0] + 1j * z[..., 1], np.fft.fft2(x))
    True
    """
    return _complex_transform(_complex_transform(x, -1, -1.0, "fft2"), -2, -1.0, "fft2")


def ifft2(x: Tensor) -> Tensor:
    """``ifft`` over the last two complex axes of ``x`` [..., h, w, 2].

    >>> ifft2 = tf.compile(lambda: tf.fft.ifft2(tf.input([2, 2, 2], tf.float32)))
    >>> spectrum = np.array([[[10, 0], [-2, 0]], [[-4, 0], [0, 0]]], np.float32)
    >>> ifft2(spectrum).numpy[..., 0]         # the real parts: [[1, 2], [3, 4]]
    array([[1., 2.],
           [3., 4.]], dtype=float32)
    """
    return _complex_transform(_complex_transform(x, -1, 1.0, "ifft2"), -2, 1.0, "ifft2")


def rfft(x: Tensor, axis: int = -1) -> Tensor:
    """The Fourier transform of real ``x`` [..., n, ...] along ``axis``: its n // 2 + 1
    non-negative frequencies as a complex tensor [..., n // 2 + 1, ..., 2]::

        spectrum = tf.fft.rfft(signal)      # signal: [batch, n] -> [batch, n // 2 + 1, 2]

    >>> rfft = tf.compile(lambda: tf.fft.rfft(tf.input([4], tf.float32)))
    >>> rfft(np.array([1, 2, 3, 4], np.float32)).numpy
    array([[10.,  0.],
           [-2.,  2.],
           [-2.,  0.]], dtype=float32)
    >>> np.fft.rfft([1, 2, 3, 4]).round(4).tolist() == [10, -2 + 2j, -2]    # numpy agrees
    True
    """
    return _rfft(x, axis, "rfft")


def _rfft(x, axis: int, api: str) -> Tensor:
    x = _require_tensor(x, api, "x")
    dims = list(x.shape)
    axis = _axis(axis, len(dims), api)
    _require_points(dims[axis], api, "the transformed axis has length")
    layout = _Layout(dims, axis, x.dtype)
    grid = layout.view(x, False)

    def read(o, m, col):
        return layout.load(grid, o, m, col), 0.0

    result = _transform(read, layout, -1.0)
    out_dims = dims[:axis] + [_static(layout.n // 2 + 1)] + dims[axis + 1:]
    return _assemble(result, layout, out_dims[axis], out_dims, 1.0, complex_out=True)


def irfft(x: Tensor, n: int | None = None, axis: int = -1) -> Tensor:
    """The inverse of ``rfft``: the real signal of length ``n`` (default 2 * (m - 1)) whose
    spectrum's non-negative frequencies are ``x`` [..., m, ..., 2] along complex axis
    ``axis``. As numpy, the first n // 2 + 1 entries are used (zero-padded if m is shorter),
    and the imaginary parts of the zero and Nyquist frequencies are ignored::

        signal = tf.fft.irfft(spectrum, n)   # [batch, m, 2] -> [batch, n]

    >>> irfft = tf.compile(lambda: tf.fft.irfft(tf.input([3, 2], tf.float32)))
    >>> irfft(np.array([[10, 0], [-2, 2], [-2, 0]], np.float32)).numpy
    array([1., 2., 3., 4.], dtype=float32)
    """
    return _irfft(x, n, axis, "irfft")


def _irfft(x, n, axis: int, api: str) -> Tensor:
    x = _require_complex(x, api)
    dims = list(x.shape)[:-1]
    axis = _axis(axis, len(dims), api)
    m_in = dims[axis]
    default = n is None
    if default:
        n = _static(2 * (m_in - 1))
    if isinstance(n, bool) or not isinstance(n, (int, Tensor)) or (isinstance(n, int) and n < 1):
        raise ArgumentError(f"tf.fft.{api}: n must be a positive int or an int tensor, got {n!r} (the default "
                            "2 * (m - 1) is 0 for one frequency: give n)", user_location())
    _require_points(n, api, "the output length n (2 * (m - 1) for m frequencies unless given) is" if default
                    else "the output length n is")
    out_dims = dims[:axis] + [n] + dims[axis + 1:]
    layout = _Layout(out_dims, axis, x.dtype)
    source = _Layout(dims, axis, x.dtype)
    grid = source.view(x, True)

    def read(o, t, col):
        mirrored = t > layout.n // 2
        k = select(mirrored, layout.n - t, t)
        inside = k < m_in
        re = source.load(grid, o, k, col, 0)
        im = source.load(grid, o, k, col, 1)
        return select(inside, re, 0.0), select(inside, select(mirrored, -im, im), 0.0)

    result = _transform(read, layout, 1.0)
    return _assemble(result, layout, layout.n, out_dims, 1.0 / _real(layout.n, layout.real), complex_out=False)


def rfft2(x: Tensor) -> Tensor:
    """``rfft`` over the last axis of real ``x`` [..., h, w], then ``fft`` over the axis
    before it: the complex [..., h, w // 2 + 1, 2] of numpy's ``rfft2``.

    >>> rfft2 = tf.compile(lambda: tf.fft.rfft2(tf.input([2, 2], tf.float32)))
    >>> z = rfft2(np.array([[1, 2], [3, 4]], np.float32)).numpy
    >>> z[..., 0] + 1j * z[..., 1]
    array([[10.+0.j, -2.+0.j],
           [-4.+0.j,  0.+0.j]], dtype=complex64)
    """
    return _complex_transform(_rfft(x, -1, "rfft2"), -2, -1.0, "rfft2")


def irfft2(x: Tensor, s: tuple[int, int] | None = None) -> Tensor:
    """The inverse of ``rfft2``: real [..., h, w] from complex [..., h, m, 2], with
    ``s = (h, w)`` (default w = 2 * (m - 1)); ``h`` must equal the input's.

    >>> irfft2 = tf.compile(lambda: tf.fft.irfft2(tf.input([2, 2, 2], tf.float32)))
    >>> irfft2(np.array([[[10, 0], [-2, 0]], [[-4, 0], [0, 0]]], np.float32)).numpy
    array([[1., 2.],
           [3., 4.]], dtype=float32)
    """
    w = None if s is None else s[-1]
    return _irfft(_complex_transform(x, -2, 1.0, "irfft2"), w, -1, "irfft2")


# -- checks --------------------------------------------------------------------------------------


def _require_tensor(x, api: str, name: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise ArgumentError(f"tf.fft.{api}: {name} must be a tensor, got {type(x).__name__}", user_location())
    if not x.dtype.is_float:
        raise ArgumentError(f"tf.fft.{api}: {name} must be a float tensor (float32 or float64; 16-bit floats are "
                            f"transformed in float32), got {x.dtype!r}", user_location())
    # (16-bit floats transform in float32, which they give back, as numpy gives a wider dtype back)
    return x if x.dtype in (dt.float32, dt.float64) else x.astype(dt.float32)


def _require_complex(x, api: str) -> Tensor:
    x = _require_tensor(x, api, "x")
    last = static_value(node_of(x.shape[-1])) if x.ndim else None
    if x.ndim < 2 or last != 2:
        shape = "[" + ", ".join(str(static_value(node_of(d)) or "?") for d in x.shape) + "]"
        raise ShapeError(f"tf.fft.{api}: x must be complex, a float tensor [..., 2] of (real, imaginary) "
                         f"with at least one more axis, got shape {shape}; use tf.fft.rfft for a real "
                         "signal, or tf.fft.complex(re, im)", user_location())
    return x


def _axis(axis, rank: int, api: str) -> int:
    if isinstance(axis, bool) or not isinstance(axis, int) or not -rank <= axis < rank:
        raise ArgumentError(f"tf.fft.{api}: axis must be an int in [{-rank}, {rank}) (the complex axes), "
                            f"got {axis!r}", user_location())
    return axis % rank


def _require_points(n, api: str, what: str) -> None:
    """A transform needs at least one point (numpy raises too): a clear error now for a
    static length, else when the program runs (before any kernel reads the empty axis)."""
    length = n if isinstance(n, int) else static_value(node_of(n))
    if length is not None:
        if length < 1:
            raise ShapeError(f"tf.fft.{api}: {what} {length}; a transform needs at least one point",
                             user_location())
        return
    builder = current()
    one, dim = builder.const(1, dt.int32), node_of(n)
    builder.check(lambda: builder.elementwise("le", [one, dim]), [one, dim],
                  f"tf.fft.{api}: {what} {{1}}; a transform needs at least one point")


def _complex_transform(x, axis, sign: float, api: str) -> Tensor:
    x = _require_complex(x, api)
    dims = list(x.shape)[:-1]
    axis = _axis(axis, len(dims), api)
    _require_points(dims[axis], api, "the transformed axis has length")
    layout = _Layout(dims, axis, x.dtype)
    grid = layout.view(x, True)

    def read(o, m, col):
        return layout.load(grid, o, m, col, 0), layout.load(grid, o, m, col, 1)

    result = _transform(read, layout, sign)
    scale = 1.0 if sign < 0 else 1.0 / _real(layout.n, layout.real)
    return _assemble(result, layout, layout.n, dims, scale, complex_out=True)


# -- layout: a tensor as [outer, n, inner] around the transformed axis ---------------------------


def _static(d):
    value = static_value(node_of(d))
    return d if value is None else value


def _product(dims):
    total = 1
    for d in dims:
        total = total * _static(d)
    return total


class _Layout:
    """The axes before the transformed one merged into ``outer``, those after it into
    ``inner`` (None when there are none, so the work planes are 1-D). With at most one axis
    on each side, tensors are indexed as they are; otherwise through a reshape (whose index
    arithmetic divides). ``real``: the float dtype the transform computes in."""

    def __init__(self, dims, axis: int, real: dt.DType):
        self.real = real
        self.outer = _product(dims[:axis])
        self.n = _static(dims[axis])
        self.inner = _product(dims[axis + 1:]) if axis + 1 < len(dims) else None
        self.direct = axis <= 1 and len(dims) - axis - 1 <= 1
        self.has_outer = axis > 0 or not self.direct

    def shape(self, n, parts: bool) -> list:
        outer = [self.outer] if self.has_outer else []
        return outer + [n] + ([] if self.inner is None else [self.inner]) + ([2] if parts else [])

    def view(self, x: Tensor, parts: bool) -> Tensor:
        """``x`` as [outer, n, inner] (with a trailing 2 for a complex ``x``)."""
        return x if self.direct else reshape(x, self.shape(self.n, parts))

    def at(self, o, m, col, part=None) -> tuple:
        """The index of element (o, m, col) in a tensor of ``shape(...)``."""
        return ((o,) if self.has_outer else ()) + (m,) + (() if col is None else (col,)) + \
            (() if part is None else (part,))

    def load(self, grid, o, m, col, part=None):
        return grid[self.at(o, m, col, part)]


def _assemble(result, layout: _Layout, n_out, out_dims, scale, complex_out: bool) -> Tensor:
    """The output tensor of ``out_dims``: ``result(o, k, col)`` at every position, times
    ``scale``."""
    grid = indices(layout.shape(n_out, complex_out))
    o = grid[0] if layout.has_outer else 0
    k = grid[1 if layout.has_outer else 0]
    col = None if layout.inner is None else grid[2 if layout.has_outer else 1]
    re, im = result(o, k, col)
    value = select(grid[-1] == 0, re, im) if complex_out else re
    if not (isinstance(scale, float) and scale == 1.0):
        value = value * scale
    return value if layout.direct else reshape(value, list(out_dims) + ([2] if complex_out else []))


# -- transforms of one length ---------------------------------------------------------------------


def _is_pow2(n: int) -> bool:
    return n & (n - 1) == 0


def _transform(read, layout: _Layout, sign: float):
    """The unnormalized transform of the sequences that ``read(o, m, col)`` gives (m < n):
    a function ``(o, k, col) -> (re, im)`` of its values."""
    n, real = layout.n, layout.real
    if isinstance(n, int):
        return (_stockham if _is_pow2(n) else _bluestein)(read, layout.outer, n, layout.inner, sign, real)
    # A length known only at run time: both algorithms, the one that fits chosen by the host.
    plane = _plane_shape(layout.outer * n, layout.inner)
    out_re, out_im = buffer(plane, real), buffer(plane, real)
    pow2 = (n & (n - 1)) == 0
    for condition, method in ((pow2, _stockham), (~pow2, _bluestein)):
        with if_cond(condition):
            result = method(read, layout.outer, n, layout.inner, sign, real)
            u, col = _grid(layout.outer * n, layout.inner)
            o = u // n
            re, im = result(o, u - o * n, col)
            out_re[_at(u, col)] = re
            out_im[_at(u, col)] = im
    return lambda o, k, col: (out_re[_at(o * n + k, col)], out_im[_at(o * n + k, col)])


def _log2_of(n):
    """log2 of a power of two ``n``: a Python int for a static n, else a host scalar."""
    if isinstance(n, int):
        return n.bit_length() - 1
    return to_int(to_round(log2(to_float(maximum(n, 1)))))  # n = 0 (an empty axis): no passes


def _real(x, real: dt.DType):
    """The int ``x`` (a tensor or a Python int) as a value of the float dtype ``real``."""
    if real is dt.float32:
        return to_float(x)
    return const(x, (), real) if isinstance(x, int) else x.astype(real)


def _unit_circle(t, n, sign: float, real: dt.DType):
    """exp(sign 2 pi i t / n) as (cos, sin), for a power of two n: t / n is exact, and is
    folded into [-1/2, 1/2] first, so each angle is rounded once, to within pi 2^-24 in
    float32 (pi 2^-53 in float64)."""
    turn = _real(t, real) / _real(n, real)
    angle = (sign * 2.0 * math.pi) * (turn - to_round(turn))
    return cos(angle), sin(angle)


class _Twiddles:
    """exp(sign 2 pi i t / n) for t < n as the product of a coarse and a fine table of about
    sqrt(n) entries each, computed once per transform and small enough to stay in cache."""

    def __init__(self, n, lg, sign: float, real: dt.DType):
        self.half = lg >> 1
        self.mask = (1 << self.half) - 1
        fine = index(0, [1 << self.half])
        coarse = index(0, [n >> self.half])
        self.fine = tuple(_keep(v) for v in _unit_circle(fine, n, sign, real))
        self.coarse = tuple(_keep(v) for v in _unit_circle(coarse << self.half, n, sign, real))

    def __call__(self, t):
        hi, lo = t >> self.half, t & self.mask
        return _cmul((self.coarse[0][hi], self.coarse[1][hi]), (self.fine[0][lo], self.fine[1][lo]))


def _keep(value: Tensor) -> Tensor:
    """``value`` stored in a buffer, so that later kernels gather it instead of recomputing it."""
    out = buffer(value.shape, value.dtype)
    out[indices(value.shape)] = value
    return out


def _plane_shape(rows, inner):
    return [rows] if inner is None else [rows, inner]


def _grid(rows, inner):
    """(row, column) indices over a plane; the column is None for a plane of one column."""
    if inner is None:
        return index(0, [rows]), None
    return indices([rows, inner])


def _at(row, col):
    return row if col is None else (row, col)


def _radix4(y0, y1, y2, y3, q, sign: float):
    """Output ``q`` (0..3) of the 4-point DFT of complex pairs y0..y3 (sign -1: forward)."""
    a0 = (y0[0] + y2[0], y0[1] + y2[1])
    a1 = (y0[0] - y2[0], y0[1] - y2[1])
    b0 = (y1[0] + y3[0], y1[1] + y3[1])
    d = (y1[0] - y3[0], y1[1] - y3[1])
    b1 = (-sign * d[1], sign * d[0])  # d times exp(sign i pi / 2)
    odd = (q & 1) == 1
    flip = select(q >= 2, -1.0, 1.0)
    return tuple(select(odd, a1[c], a0[c]) + flip * select(odd, b1[c], b0[c]) for c in range(2))


def _stockham(read, outer, n, inner, sign: float, real: dt.DType):
    """Stockham FFT of the power-of-two length ``n``: a pass reads sub-transforms of length L
    at j, j + n/4, j + n/2, j + 3n/4 and gives transforms of length 4L in place order, so no
    bit reversal is needed. Each pass is a value computed from the previous one (a gather),
    so the program stays differentiable; planes hold sequence o at rows o * n .. o * n + n."""
    lg = _log2_of(n)
    rows = outer * n
    twiddles = _Twiddles(n, lg, sign, real)
    # First pass (sub-transforms of length 1, no twiddles): radix 4 when log2 n is even,
    # radix 2 (y1 = y3 = 0) when it is odd, the identity when n = 1.
    first = _select_int(lg == 0, 0, _select_int((lg & 1) == 1, 1, 2))
    u, col = _grid(rows, inner)
    o, m = u >> lg, u & (n - 1)
    j = m >> first
    quarter = n >> 2
    ys = [read(o, j, col), _masked(read(o, j + quarter, col), first == 2),
          _masked(read(o, j + (n >> 1), col), first >= 1), _masked(read(o, j + 3 * quarter, col), first == 2)]
    planes = _radix4(*ys, m & ((1 << first) - 1), sign)
    # A host loop over the passes, also for a static n: it compiles to two kernels whatever
    # n is, and the gradient runs it backwards.
    planes = [copy(p) for p in planes]
    with loop((lg - first) >> 1) as s:
        re, im = _pass4(planes, twiddles, rows, inner, n, lg, first + 2 * s, sign)
        planes[0].val = re
        planes[1].val = im
    return lambda o, k, col: tuple(p[_at(o * n + k, col)] for p in planes)


def _select_int(condition, a, b):
    if isinstance(condition, bool):
        return a if condition else b
    return select(condition, a, b)


def _masked(pair, keep):
    if isinstance(keep, bool):
        return pair if keep else (0.0, 0.0)
    return select(keep, pair[0], 0.0), select(keep, pair[1], 0.0)


def _pass4(planes, twiddles, rows, inner, n, lg, lg_l, sign: float):
    """One radix-4 pass: sub-transforms of length L = 2^lg_l become 4L long."""
    u, col = _grid(rows, inner)
    m = u & (n - 1)
    k = m & ((1 << lg_l) - 1)
    j = u - m + ((m >> (lg_l + 2)) << lg_l) + k
    step = lg - lg_l - 2  # W^(p k), W = exp(sign 2 pi i / 4L), is twiddle (p k) << step of n
    w1 = twiddles(k << step)
    w2 = _cmul(w1, w1)  # powers by products: two more roundings, no more table reads
    powers = [None, w1, w2, _cmul(w1, w2)]
    ys = []
    for p in range(4):
        at = _at(j + p * (n >> 2), col)
        y = (planes[0][at], planes[1][at])
        ys.append(_cmul(y, powers[p]) if p else y)
    return _radix4(*ys, (m >> lg_l) & 3, sign)


def _bluestein(read, outer, n, inner, sign: float, real: dt.DType):
    """Bluestein's chirp-z transform for any length n: with c[t] = exp(sign pi i t^2 / n),
    X[k] = c[k] * sum_j (x[j] c[j]) conj(c[k - j]), a convolution done by power-of-two FFTs
    of length m >= 2n - 1."""
    if isinstance(n, int):
        m = 1 << max(2 * n - 2, 0).bit_length()
    else:
        m = 1 << to_int(ceil(log2(to_float(maximum(2 * n - 1, 1)))))
    t = index(0, [n])
    chirp = tuple(_keep(v) for v in _chirp(t, n, sign, real))

    def read_a(o, t, col):
        inside = t < n
        x = read(o, select(inside, t, 0), col)
        return _masked(_cmul(x, (chirp[0][t], chirp[1][t])), inside)

    def read_b(o, t, col):
        back = m - t
        k = select(t < n, t, back)
        valid = (t < n) | (back < n)
        return _masked((chirp[0][k], -chirp[1][k]), valid)

    spectrum_a = _stockham(read_a, outer, m, inner, -1.0, real)
    spectrum_b = _stockham(read_b, 1, m, None, -1.0, real)

    def read_product(o, t, col):
        return _cmul(spectrum_a(o, t, col), spectrum_b(0, t, None))

    conv = _stockham(read_product, outer, m, inner, 1.0, real)
    scale = 1.0 / to_float(m) if not isinstance(m, int) else 1.0 / m

    def result(o, k, col):
        re, im = _cmul(conv(o, k, col), (chirp[0][k], chirp[1][k]))
        return re * scale, im * scale
    return result


def _chirp(t, n, sign: float, real: dt.DType):
    """exp(sign pi i t^2 / n) with t^2 reduced modulo 2n exactly (in uint32 steps), so the
    angle is rounded only by the division and the product with pi."""
    modulus = uint(const(2, (), dt.int32) * n) if not isinstance(n, int) else const(2 * n, (), dt.uint32)
    square = _mulmod(uint(t), uint(t), modulus)
    angle = (sign * math.pi) * _real(square, real) / _real(n, real)
    return cos(angle), sin(angle)


def _mulmod(a, b, modulus, bits: int = 31):
    """a * b mod ``modulus`` (< 2^31) without overflow: binary multiplication, reducing as
    it goes, so no intermediate exceeds 2^32."""
    acc = uint(const(0, (), dt.uint32)) * a
    for bit in reversed(range(bits)):
        acc = (acc + acc) % modulus
        acc = select(((b >> bit) & 1) == 1, (acc + a) % modulus, acc)
    return acc
