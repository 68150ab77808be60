"""Symmetric eigendecomposition and singular value decomposition by Jacobi rotations.

Both use the parallel (round-robin) ordering of the cyclic Jacobi method: a sweep is
m - 1 steps (m = n rounded up to even), and each step rotates m / 2 disjoint pairs of
indices at once, so a step is three or four kernels over the whole batch. Sweeps repeat
until the off-diagonal part is at rounding level (quadratic convergence: 5-10 sweeps in
float32), at most ``MAX_SWEEPS`` times."""

from __future__ import annotations

from ..ir import dtypes as dt
from ..tracing import algorithms as alg
from ..tracing.api import break_loop, if_cond, index_grid, indices, loop, zeros
from ..tracing.mathfn import abs as absolute
from ..tracing.mathfn import copy, select, sqrt
from ..tracing.mathfn import float as to_float
from ..tracing.mathfn import max as maximum
from ..tracing.mathfn import min as minimum
from ..tracing.tensor import Tensor
from .linalg_batch import Stack, require_square
from .linalg_grad import attach

MAX_SWEEPS = 30
def _eps(a: Tensor) -> float:
    """The machine epsilon of ``a``'s dtype (float64's for float64, else float32's: 16-bit
    floats compute in float32)."""
    return 2.0 ** -52 if a.dtype is dt.float64 else 2.0 ** -23


def _pair(step, slot, n) -> tuple[Tensor, Tensor]:
    """Indices (p, q), p <= q, that slot ``slot`` rotates at ``step`` of a sweep (round robin
    over m = n rounded up to even players: player 0 stays, the others turn). A slot paired
    with the dummy player n of an odd n gets q = p: its rotation is the identity."""
    players = n + n % 2
    ring = players - 1

    def seat(j):
        return (step + j) % ring + 1
    first = select(slot == 0, 0, seat(slot))
    second = select(slot == 0, seat(0), seat(players - 1 - slot))
    p, q = minimum(first, second), maximum(first, second)
    return p, select(q >= n, p, q)


def _rotation(app, aqq, apq) -> tuple[Tensor, Tensor]:
    """(c, s) of the Jacobi rotation that zeroes apq in [[app, apq], [apq, aqq]]
    (Numerical Recipes' form, stable for any ratio); the identity where apq is 0."""
    theta = (aqq - app) / (2.0 * apq)
    t = select(theta < 0.0, -1.0, 1.0) / (absolute(theta) + sqrt(theta * theta + 1.0))
    t = select(apq == 0.0, 0.0, t)
    c = 1.0 / sqrt(t * t + 1.0)
    return c, t * c


def _rotate_columns(x: Tensor, c: Tensor, s: Tensor, step, count, n) -> None:
    """Columns p, q of every [B, rows, n] matrix of ``x`` become (c x_p - s x_q, s x_p + c x_q)."""
    rows = x.shape[1]
    b, r, slot = indices([count, rows, (n + n % 2) // 2])
    p, q = _pair(step, slot, n)
    cb, sb = c[b, slot], s[b, slot]
    xp, xq = x[b, r, p], x[b, r, q]
    x[b, r, p] = cb * xp - sb * xq
    x[b, r, q] = sb * xp + cb * xq


def _rotate_rows(x: Tensor, c: Tensor, s: Tensor, step, count, n) -> None:
    """Rows p, q of every [B, n, n] matrix of ``x`` become (c x_p - s x_q, s x_p + c x_q)."""
    b, slot, k = indices([count, (n + n % 2) // 2, n])
    p, q = _pair(step, slot, n)
    cb, sb = c[b, slot], s[b, slot]
    xp, xq = x[b, p, k], x[b, q, k]
    x[b, p, k] = cb * xp - sb * xq
    x[b, q, k] = sb * xp + cb * xq


def _off_diagonal_small(gram: Tensor, count, n, relative: float, absolute_scale: float) -> Tensor:
    """True (a [1] bool) when in every matrix the off-diagonal part of the symmetric ``gram``
    is at rounding level: ``|g_ij| <= relative sqrt|g_ii g_jj| + absolute_scale max_k |g_kk|``
    for all i != j."""
    b, i = indices([count, n])
    largest = alg.reduce_max(absolute(gram[b, i, i]), axis=1)
    b, i, k = indices([count, n, n])
    bound = relative * sqrt(absolute(gram[b, i, i] * gram[b, k, k])) + absolute_scale * largest[b]
    excess = select(i == k, 0.0, absolute(gram) - bound)
    return alg.reduce_max(alg.reduce_max(alg.reduce_max(excess, axis=2), axis=1), axis=0) <= 0.0


def _identity(count, n, dtype) -> Tensor:
    _, i, k = indices([count, n, n])
    return copy(select(i == k, 1.0, 0.0).astype(dtype))


def _sorted_order(values: Tensor, count, n, descending: bool) -> Tensor:
    """For each sorted position of ``values`` [B, n], the index of the value that goes there
    (ties in index order): a counting sort, O(n^2), cheap next to the decomposition. It
    gathers instead of scattering to the ranks, so no kernel writes another's element."""
    b, i, j = indices([count, n, n])
    vi, vj = values[b, i], values[b, j]
    before = (vj > vi) if descending else (vj < vi)
    rank = alg.sum(select(before | ((vj == vi) & (j < i)), 1, 0), axis=2)
    b, r, i = indices([count, n, n])
    return alg.sum(select(rank[b, i] == r, i, 0), axis=2)


def _eigh3(a: Tensor, count, n) -> tuple[Tensor, Tensor]:
    a = copy(a)
    vectors = _identity(count, n, a.dtype)
    pairs = (n + n % 2) // 2
    cosines, sines = zeros([count, pairs], a.dtype), zeros([count, pairs], a.dtype)
    with loop(MAX_SWEEPS):
        # Rotations leave off-diagonal noise of a few eps |A|: stop below 16 eps |A|.
        with if_cond(_off_diagonal_small(a, count, n, 0.0, 16 * _eps(a))):
            break_loop()
        with loop(n + n % 2 - 1) as step:
            b, slot = indices([count, pairs])
            p, q = _pair(step, slot, n)
            c, s = _rotation(a[b, p, p], a[b, q, q], a[b, p, q])
            cosines[b, slot] = select(p == q, 1.0, c)
            sines[b, slot] = select(p == q, 0.0, s)
            _rotate_rows(a, cosines, sines, step, count, n)
            _rotate_columns(a, cosines, sines, step, count, n)
            _rotate_columns(vectors, cosines, sines, step, count, n)
    b, i = indices([count, n])
    values = a[b, i, i]
    source = _sorted_order(values, count, n, descending=False)
    b, j = indices([count, n])
    ordered = values[b, source[b, j]]
    b, r, j = indices([count, n, n])
    return ordered, vectors[b, r, source[b, j]]


def eigh(a: Tensor) -> tuple[Tensor, Tensor]:
    """Eigenvalues and eigenvectors of symmetric matrices, as ``np.linalg.eigh``:
    ``a @ v[..., :, i] == w[..., i] * v[..., :, i]``.

    ``a``: float32 [..., n, n], symmetric (both triangles are read; the cyclic Jacobi
    method, accurate to float32 rounding; differentiable where the eigenvalues are
    distinct, treating ``a`` as symmetric). Returns ``w`` float32 [..., n], ascending, and
    ``v`` float32 [..., n, n] with orthonormal eigenvectors as columns (each column's sign,
    and the basis of a repeated eigenvalue's space, may differ from numpy's)::

        w, v = tf.linalg.eigh(A)

    >>> eigh = tf.compile(lambda: list(tf.linalg.eigh(tf.input([-1, -1], tf.float32))))
    >>> a = np.array([[2, 1], [1, 2]], np.float32)
    >>> w, v = (t.numpy for t in eigh(a))
    >>> np.round(w, 5)
    array([1., 3.], dtype=float32)
    >>> np.allclose(a @ v, v * w, atol=1e-5)
    True
    """
    stack = Stack(a, "tf.linalg.eigh: a")
    require_square(stack, "tf.linalg.eigh")
    a, n = stack.values, stack.rows
    values, vectors = _eigh3(a.detach_grad(), stack.count, n)
    values, vectors = (attach(values, "linalg.eigh_values", [a], [vectors]),
                       attach(vectors, "linalg.eigh_vectors", [a], [values]))
    return stack.restore(values, [n]), stack.restore(vectors, [n, n])


def _svd3(a: Tensor, count, m, n) -> tuple[Tensor, Tensor, Tensor]:
    """(columns A V [B, m, n], their norms [B, n], V [B, n, n]) by one-sided Jacobi."""
    work = copy(a)
    right = _identity(count, n, a.dtype)
    pairs = (n + n % 2) // 2
    cosines, sines = zeros([count, pairs], a.dtype), zeros([count, pairs], a.dtype)
    eps = _eps(a)
    with loop(MAX_SWEEPS):
        # Column dot products of m terms carry errors of about sqrt(m) eps |u_i| |u_j|.
        gram = alg.transpose(work) @ work
        with if_cond(_off_diagonal_small(gram, count, n, 4 * eps * sqrt(to_float(m)), eps * eps)):
            break_loop()
        with loop(n + n % 2 - 1) as step:
            b, slot, r = indices([count, pairs, m])
            p, q = _pair(step, slot, n)
            up, uq = work[b, r, p], work[b, r, q]
            c, s = _rotation(alg.sum(up * up), alg.sum(uq * uq), alg.sum(up * uq))
            b, slot = indices([count, pairs])
            p, q = _pair(step, slot, n)
            cosines[b, slot] = select(p == q, 1.0, c)
            sines[b, slot] = select(p == q, 0.0, s)
            _rotate_columns(work, cosines, sines, step, count, n)
            _rotate_columns(right, cosines, sines, step, count, n)
    return work, alg.norm(alg.transpose(work)), right


def svd(a: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """The thin singular value decomposition, as ``np.linalg.svd(a, full_matrices=False)``:
    ``a == U @ diag(S) @ Vh``.

    ``a``: float32 [..., m, n] (any m, n; one-sided Jacobi on the n columns, which gives
    small singular values to high relative accuracy). With k = min(m, n), returns ``U``
    [..., m, k] with orthonormal columns, ``S`` [..., k] descending and non-negative, and
    ``Vh`` [..., k, n] with orthonormal rows (signs of singular vector pairs may differ
    from numpy's; a zero singular value gives a zero column of ``U``). Differentiable
    where the singular values are distinct and nonzero::

        U, S, Vh = tf.linalg.svd(A)

    >>> svd = tf.compile(lambda: list(tf.linalg.svd(tf.input([-1, -1], tf.float32))))
    >>> a = np.array([[3, 0], [0, -4], [0, 0]], np.float32)
    >>> U, S, Vh = (t.numpy for t in svd(a))
    >>> S, U.shape, Vh.shape
    (array([4., 3.], dtype=float32), (3, 2), (2, 2))
    >>> np.allclose(U * S @ Vh, a, atol=1e-6)
    True
    """
    stack = Stack(a, "tf.linalg.svd: a")
    count, m, n = stack.count, stack.rows, stack.cols
    k = minimum(m, n)
    columns, norms, right = _svd3(stack.values.detach_grad(), count, m, n)
    source = _sorted_order(norms, count, n, descending=True)
    b, j = index_grid([0, 0], [count, k])
    values = norms[b, source[b, j]]
    b, r, j = index_grid([0, 0, 0], [count, m, k])
    column, norm = columns[b, r, source[b, j]], norms[b, source[b, j]]
    u = select(norm > 0.0, column / norm, 0.0)
    b, j, c = index_grid([0, 0, 0], [count, k, n])
    vh = right[b, c, source[b, j]]
    u, values, vh = (attach(u, "linalg.svd_u", [stack.values], [values, vh]),
                     attach(values, "linalg.svd_s", [stack.values], [u, vh]),
                     attach(vh, "linalg.svd_vh", [stack.values], [u, values]))
    return stack.restore(u, [m, k]), stack.restore(values, [k]), stack.restore(vh, [k, n])
