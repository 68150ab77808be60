"""Factorisations and solvers of ``tf.linalg``: cholesky, lu, triangular_solve, solve, inv,
det, slogdet. Each is a host loop over the columns (LU, substitution) or over panels of
columns (Cholesky) that dispatches a few kernels per step, every kernel covering the whole
batch, so a stack of matrices costs the same number of kernels as one matrix."""

from __future__ import annotations

from ..ir import dtypes as dt
from ..ir.errors import ShapeError, user_location
from ..tracing import algorithms as alg
from ..tracing.api import index_grid, indices, loop, zeros
from ..tracing.mathfn import abs as absolute
from ..tracing.mathfn import copy, log, select, sqrt
from ..tracing.mathfn import min as minimum
from ..tracing.tensor import Tensor, node_of
from .linalg_batch import Stack, require_same, require_square
from .linalg_grad import attach, symmetric_from_lower


def _identity(count, n, like: Tensor) -> Tensor:
    """Identity matrices [B, n, n] in ``like``'s dtype."""
    _, i, k = indices([count, n, n])
    return select(i == k, 1.0, 0.0).astype(like.dtype)


CHOLESKY_BLOCK = 64  # columns per panel: the trailing update's dot products are this long


def _factor_diagonal_block(w: Tensor, count, j0, size) -> None:
    """Cholesky of the ``size`` x ``size`` block at (j0, j0), in place: a host loop over its
    columns, each a few small kernels (size^3 / 6 multiply-adds in all)."""
    b, = indices([count])
    with loop(size) as j:
        col = j0 + j
        d = copy(w[b, col, col])
        with loop(j) as k:
            d.val = d - w[b, col, j0 + k] * w[b, col, j0 + k]
        d = sqrt(d)
        w[b, col, col] = d
        with loop(j + 1, size) as i:
            s = copy(w[b, j0 + i, col])
            with loop(j) as k:
                s.val = s - w[b, j0 + i, j0 + k] * w[b, col, j0 + k]
            w[b, j0 + i, col] = s / d


def _solve_panel(w: Tensor, count, n, j0, size) -> Tensor:
    """The rows below the diagonal block: X L11^T = A21, a host loop over the block's
    columns. Solved in a transposed copy [B, size, rows] (returned), so that the threads,
    one per row, read and write consecutive addresses; the result is written back."""
    rows = n - j0 - size
    panel = zeros([count, size, rows], w.dtype)
    b, k, i = indices([count, size, rows])
    panel[b, k, i] = w[b, j0 + size + i, j0 + k]
    b, i = indices([count, rows])
    with loop(size) as j:
        s = copy(panel[b, j, i])
        with loop(j) as k:
            s.val = s - panel[b, k, i] * w[b, j0 + j, j0 + k]
        panel[b, j, i] = s / w[b, j0 + j, j0 + j]
    b, i, k = indices([count, rows, size])  # (written along w's rows; reads the panel strided)
    w[b, j0 + size + i, j0 + k] = panel[b, k, i]
    return panel


def _update_trailing(w: Tensor, panel: Tensor, count, n, j0, size) -> None:
    """A22 -= L21 L21^T, the O(n^3) part, from the transposed panel (unit-stride reads)."""
    rows = n - j0 - size
    b, i, c, k = indices([count, rows, rows, size])
    update = alg.sum(panel[b, k, i] * panel[b, k, c], axis=3)
    b, i, c = indices([count, rows, rows])
    w[b, j0 + size + i, j0 + size + c] -= update


def _cholesky3(a: Tensor, count, n) -> Tensor:
    """Lower Cholesky factor of a [B, n, n] stack: right-looking and blocked, a host loop
    over panels of CHOLESKY_BLOCK columns; the O(n^3) work is one kernel per panel."""
    w = copy(a)
    with loop((n + CHOLESKY_BLOCK - 1) // CHOLESKY_BLOCK) as block:
        j0 = block * CHOLESKY_BLOCK
        size = minimum(n - j0, CHOLESKY_BLOCK)
        _factor_diagonal_block(w, count, j0, size)
        panel = _solve_panel(w, count, n, j0, size)
        _update_trailing(w, panel, count, n, j0, size)
    _, i, k = indices([count, n, n])
    return select(i >= k, w, 0.0)


def cholesky(a: Tensor) -> Tensor:
    """The lower-triangular Cholesky factor ``L`` of symmetric positive-definite matrices,
    ``a == L @ L^T``, as ``np.linalg.cholesky``.

    ``a``: float32 [..., n, n] (only its lower triangle is read). Returns float32
    [..., n, n] with zeros above the diagonal. A matrix that is not positive definite
    gives NaN from the first failing column on (numpy raises instead). Differentiable
    (the gradient treats ``a`` as the symmetric matrix its lower triangle defines)::

        def program():
            A = tf.input([-1, -1, -1], tf.float32)   # a batch of SPD matrices
            return [tf.linalg.cholesky(A)]

    >>> cholesky = tf.compile(lambda: tf.linalg.cholesky(tf.input([-1, -1], tf.float32)))
    >>> np.round(cholesky(np.array([[4, 2], [2, 3]], np.float32)).numpy, 4)
    array([[2.    , 0.    ],
           [1.    , 1.4142]], dtype=float32)
    """
    stack = Stack(a, "tf.linalg.cholesky: a")
    require_square(stack, "tf.linalg.cholesky")
    a, count, n = stack.values, stack.count, stack.rows
    low = _cholesky3(a.detach_grad(), count, n)
    low_inverse = copy(_identity(count, n, a))
    _substitute(low, low_inverse, count, n, lower=True, unit=False)
    low = attach(low, "linalg.cholesky", [symmetric_from_lower(a)], [low_inverse])
    return stack.restore(low, [n, n])


# -- LU with partial pivoting -------------------------------------------------------------------


def _lu3(a: Tensor, count, n) -> tuple[Tensor, Tensor, Tensor]:
    """(packed LU [B, n, n], pivots [B, n], permutation [B, n]) of a [B, n, n] stack."""
    packed = copy(a)
    pivots = zeros([count, n], dt.int32)
    _, order = indices([count, n])
    perm = copy(order)
    with loop(n) as k:
        # The first row of largest |value| in column k at or below the diagonal (as LAPACK).
        b, i = index_grid([0, k], [count, n])
        column = absolute(packed[b, i, k])
        largest = alg.reduce_max(column, axis=1)
        first = alg.reduce_min(select(column == largest[b], i, n), axis=1)
        b, = index_grid([0], [count])
        pivots[b, k] = select(first < n, first, k)
        # Swap rows k and pivot, and the same entries of the permutation.
        b, c = index_grid([0, 0], [count, n])
        p = pivots[b, k]
        row_k, row_p = packed[b, k, c], packed[b, p, c]
        packed[b, k, c] = row_p
        packed[b, p, c] = row_k
        b, = index_grid([0], [count])
        p = pivots[b, k]
        entry_k, entry_p = perm[b, k], perm[b, p]
        perm[b, k] = entry_p
        perm[b, p] = entry_k
        # Eliminate below the pivot (a zero pivot leaves its column as it is, as LAPACK does).
        b, i = index_grid([0, k + 1], [count, n])
        pivot = packed[b, k, k]
        packed[b, i, k] = select(pivot != 0.0, packed[b, i, k] / pivot, packed[b, i, k])
        b, i, c = index_grid([0, k + 1, k + 1], [count, n, n])
        packed[b, i, c] -= packed[b, i, k] * packed[b, k, c]
    return packed, pivots, perm


def _square(a, what: str) -> Stack:
    stack = Stack(a, f"{what}: a")
    require_square(stack, what)
    return stack


def lu_factor(a: Tensor) -> tuple[Tensor, Tensor]:
    """LU factorisation with partial pivoting in LAPACK's packed form, as
    ``scipy.linalg.lu_factor``: ``(lu, piv)``.

    ``a``: float32 [..., n, n]. ``lu`` [..., n, n] holds U on and above the diagonal and the
    unit lower factor L below it; ``piv`` int32 [..., n] says that row ``i`` was swapped
    with row ``piv[i]`` (0-based) at step ``i``. The pivot is the first largest ``|value|``
    of its column, as LAPACK's ``getrf`` picks it::

        lu, piv = tf.linalg.lu_factor(A)

    >>> lu_factor = tf.compile(lambda: list(tf.linalg.lu_factor(tf.input([-1, -1], tf.float32))))
    >>> lu, piv = lu_factor(np.array([[1, 2], [3, 4]], np.float32))
    >>> np.round(lu.numpy, 4), piv.numpy                 # as scipy.linalg.lu_factor
    (array([[3.    , 4.    ],
           [0.3333, 0.6667]], dtype=float32), array([1, 1], dtype=int32))
    """
    stack = _square(a, "tf.linalg.lu_factor")
    packed, pivots, _ = _lu3(stack.values, stack.count, stack.rows)
    n = stack.rows
    return stack.restore(packed, [n, n]), stack.restore(pivots, [n])


def lu(a: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """``P, L, U`` with ``a == P @ L @ U``, as ``scipy.linalg.lu`` and ``torch.linalg.lu``.

    ``a``: float32 [..., n, n]. ``P`` is a permutation matrix, ``L`` unit lower triangular,
    ``U`` upper triangular, all float32 [..., n, n] (partial pivoting; see ``lu_factor``)::

        P, L, U = tf.linalg.lu(A)

    >>> lu = tf.compile(lambda: list(tf.linalg.lu(tf.input([-1, -1], tf.float32))))
    >>> a = np.array([[1, 2], [3, 4]], np.float32)
    >>> P, L, U = (t.numpy for t in lu(a))
    >>> P
    array([[0., 1.],
           [1., 0.]], dtype=float32)
    >>> np.allclose(P @ L @ U, a), np.allclose(np.triu(U), U), np.diag(L).tolist()
    (True, True, [1.0, 1.0])
    """
    stack = _square(a, "tf.linalg.lu")
    count, n = stack.count, stack.rows
    packed, _, perm = _lu3(stack.values, count, n)
    b, i, k = indices([count, n, n])
    lower = select(i > k, packed, select(i == k, 1.0, 0.0))
    upper = select(i <= k, packed, 0.0)
    permutation = select(perm[b, k] == i, 1.0, 0.0).astype(packed.dtype)
    return tuple(stack.restore(m, [n, n]) for m in (permutation, lower, upper))


# -- triangular solves ---------------------------------------------------------------------------


def _substitute(a: Tensor, x: Tensor, count, n, lower: bool, unit: bool) -> None:
    """Solve ``a @ X = x`` in place for triangular [B, n, n] ``a`` and [B, n, K] ``x``: one
    kernel whose elements, one per matrix and column of X, run the rows in order (each
    reads and writes only its own column, so the loop runs inside the kernel)."""
    b, c = indices([count, x.shape[2]])
    with loop(n) as step:
        i = step if lower else n - 1 - step
        begin, end = (0, i) if lower else (i + 1, n)
        known = copy((b * 0).astype(x.dtype))  # (a sum alone in its loop: SIMD lanes, simd_reductions)
        with loop(begin, end) as k:
            known.val = known + a[b, i, k] * x[b, k, c]
        value = x[b, i, c] - known
        x[b, i, c] = value if unit else value / a[b, i, i]


def _rhs(b, a_stack: Stack, what: str) -> tuple[Stack, bool]:
    """The right-hand side as a [B, n, K] stack, and whether it was a stack of vectors:
    ``b`` is a vector [..., n] when its rank is one less than ``a``'s, else [..., n, K]."""
    rank_a = len(a_stack.batch) + 2
    rank_b = node_of(b).rank
    if rank_b not in (rank_a - 1, rank_a):
        raise ShapeError(f"{what}: b must have rank {rank_a - 1} (vectors [..., n]) or {rank_a} (matrices "
                         f"[..., n, k]) for a of rank {rank_a}, got rank {rank_b}", user_location())
    vector = rank_b == rank_a - 1
    stack = Stack(b, f"{what}: b", vector=vector)
    for axis, (want, have) in enumerate(zip(a_stack.batch, stack.batch)):
        require_same(Tensor(want), Tensor(have), f"{what}: b's batch axis {axis} is {{1}}, a's is {{0}}")
    require_same(a_stack.rows, stack.rows, f"{what}: b has {{1}} rows, a has {{0}}")
    return stack, vector


def _solution(stack: Stack, x: Tensor, vector: bool) -> Tensor:
    if vector:
        return stack.restore(alg.squeeze(x, -1), [stack.rows])
    return stack.restore(x, [stack.rows, stack.cols])


def triangular_solve(a: Tensor, b: Tensor, lower: bool = True, unit_diagonal: bool = False) -> Tensor:
    """``x`` with ``a @ x == b`` for triangular ``a``, by forward (``lower=True``) or back
    substitution, as ``scipy.linalg.solve_triangular``.

    ``a``: float32 [..., n, n]; only its lower (or upper) triangle is read, and its diagonal
    is taken as ones when ``unit_diagonal``. ``b``: vectors [..., n] (rank one less than
    ``a``) or matrices [..., n, k] (same rank), with the same leading axes as ``a``. Returns
    ``x`` of ``b``'s shape. Differentiable with respect to ``a`` and ``b``::

        y = tf.linalg.triangular_solve(L, b)                  # L y = b
        x = tf.linalg.triangular_solve(L.T, y, lower=False)   # L^T x = y

    >>> def forward_substitution():
    ...     L = tf.input([-1, -1], tf.float32)
    ...     b = tf.input([-1], tf.float32)
    ...     return tf.linalg.triangular_solve(L, b)
    >>> tf.compile(forward_substitution)(np.array([[2, 0], [1, 4]], np.float32),
    ...                                  np.array([2, 9], np.float32)).tolist()
    [1.0, 2.0]
    """
    stack = _square(a, "tf.linalg.triangular_solve")
    rhs, vector = _rhs(b, stack, "tf.linalg.triangular_solve")
    a, count, n = stack.values, stack.count, stack.rows
    x = copy(rhs.values.detach_grad())
    _substitute(a.detach_grad(), x, count, n, lower, unit_diagonal)
    a_inverse = copy(_identity(count, n, a))
    _substitute(a.detach_grad(), a_inverse, count, n, lower, unit_diagonal)
    _, i, k = indices([count, n, n])
    read = select(i == k, 1.0 if unit_diagonal else a, select(i > k if lower else i < k, a, 0.0))
    x = attach(x, "linalg.solve", [read, rhs.values], [a_inverse])
    return _solution(rhs, x, vector)


def _lu_solve3(packed: Tensor, perm: Tensor, rhs: Tensor, count, n) -> Tensor:
    b, i, c = indices(rhs.shape)
    x = copy(rhs[b, perm[b, i], c])
    _substitute(packed, x, count, n, lower=True, unit=True)
    _substitute(packed, x, count, n, lower=False, unit=False)
    return x


def solve(a: Tensor, b: Tensor) -> Tensor:
    """``x`` with ``a @ x == b``, by LU with partial pivoting, as ``np.linalg.solve``.

    ``a``: float32 [..., n, n]. ``b``: vectors [..., n] (rank one less than ``a``, the rule
    of ``torch.linalg.solve``) or matrices [..., n, k], with the same leading axes as ``a``.
    Returns ``x`` of ``b``'s shape; a singular ``a`` gives inf/NaN (numpy raises).
    Differentiable with respect to ``a`` and ``b``::

        x = tf.linalg.solve(A, b)

    >>> def solve():
    ...     return tf.linalg.solve(tf.input([-1, -1], tf.float32), tf.input([-1], tf.float32))
    >>> a, b = np.array([[4, 2], [2, 3]], np.float32), np.array([2, 1], np.float32)
    >>> tf.compile(solve)(a, b).numpy, np.linalg.solve(a, b)
    (array([0.5, 0. ], dtype=float32), array([0.5, 0. ], dtype=float32))
    """
    stack = _square(a, "tf.linalg.solve")
    rhs, vector = _rhs(b, stack, "tf.linalg.solve")
    a, count, n = stack.values, stack.count, stack.rows
    packed, _, perm = _lu3(a.detach_grad(), count, n)
    x = _lu_solve3(packed, perm, rhs.values.detach_grad(), count, n)
    a_inverse = _lu_solve3(packed, perm, _identity(count, n, a), count, n)
    x = attach(x, "linalg.solve", [a, rhs.values], [a_inverse])
    return _solution(rhs, x, vector)


def inv(a: Tensor) -> Tensor:
    """The inverse of square matrices, as ``np.linalg.inv`` (LU with partial pivoting, then
    a solve against the identity). ``a``: float32 [..., n, n]; returns [..., n, n].
    Differentiable::

        A_inv = tf.linalg.inv(A)

    >>> inv = tf.compile(lambda: tf.linalg.inv(tf.input([-1, -1], tf.float32)))
    >>> inv(np.array([[4, 2], [2, 3]], np.float32)).numpy
    array([[ 0.375, -0.25 ],
           [-0.25 ,  0.5  ]], dtype=float32)
    """
    stack = _square(a, "tf.linalg.inv")
    a, count, n = stack.values, stack.count, stack.rows
    packed, _, perm = _lu3(a.detach_grad(), count, n)
    inverse = _lu_solve3(packed, perm, _identity(count, n, a), count, n)
    inverse = attach(inverse, "linalg.inv", [a])
    return stack.restore(inverse, [n, n])


def _log_determinant(a, what: str) -> tuple:
    """(stack, diagonal of U [B, n], the sign of the row permutation [B] as -1.0 or 1.0,
    the inverse [B, n, n] that the gradient reads)."""
    stack = _square(a, what)
    a, count, n = stack.values, stack.count, stack.rows
    packed, pivots, perm = _lu3(a.detach_grad(), count, n)
    b, i = indices([count, n])
    diagonal = packed[b, i, i]
    swaps = alg.sum(select(pivots != i, 1, 0), axis=1)
    inverse = _lu_solve3(packed, perm, _identity(count, n, a), count, n)
    return stack, diagonal, select(swaps % 2 == 1, -1.0, 1.0).astype(a.dtype), inverse


def det(a: Tensor) -> Tensor:
    """The determinant of square matrices, as ``np.linalg.det``: the product of U's diagonal
    after LU with partial pivoting, times the sign of the row swaps.

    ``a``: float32 [..., n, n]; returns float32 [...] (shape [1] for one matrix, as every
    reduction of a 1-D result here). Differentiable (through ``det * trace(inv(a) da)``,
    so not at singular matrices)::

        d = tf.linalg.det(A)

    >>> det = tf.compile(lambda: tf.linalg.det(tf.input([-1, -1, -1], tf.float32)))
    >>> det(np.array([[[4, 2], [2, 3]], [[0, 1], [1, 0]]], np.float32)).numpy   # a batch of two
    array([ 8., -1.], dtype=float32)
    """
    stack, diagonal, parity, inverse = _log_determinant(a, "tf.linalg.det")
    value = alg.prod(diagonal, axis=1) * parity
    return _batch_result(stack, attach(value, "linalg.det", [stack.values], [inverse]))


def slogdet(a: Tensor) -> tuple[Tensor, Tensor]:
    """``(sign, logabsdet)`` with ``det(a) == sign * exp(logabsdet)``, as ``np.linalg.slogdet``:
    it does not overflow where ``det`` would. ``sign`` is -1, 0 or 1; a singular matrix gives
    sign 0 and logabsdet -inf.

    ``a``: float32 [..., n, n]; returns two float32 tensors [...] ([1] for one matrix).
    ``logabsdet`` is differentiable::

        sign, logdet = tf.linalg.slogdet(A)

    >>> slogdet = tf.compile(lambda: list(tf.linalg.slogdet(tf.input([-1, -1], tf.float32))))
    >>> sign, logdet = slogdet(np.array([[1, 2], [3, 4]], np.float32))   # det -2
    >>> sign.tolist(), np.round(logdet.numpy, 4), round(float(np.log(2)), 4)
    ([-1.0], array([0.6931], dtype=float32), 0.6931)
    """
    stack, diagonal, parity, inverse = _log_determinant(a, "tf.linalg.slogdet")
    signs = select(diagonal > 0.0, 1.0, select(diagonal < 0.0, -1.0, 0.0))
    sign = alg.prod(signs, axis=1) * parity
    logabsdet = attach(alg.sum(log(absolute(diagonal)), axis=1), "linalg.log_abs_det", [stack.values], [inverse])
    return _batch_result(stack, sign), _batch_result(stack, logabsdet)


def _batch_result(stack: Stack, values: Tensor) -> Tensor:
    """Per-matrix values [B] shaped as the leading axes (or [1] for a single matrix)."""
    return stack.restore(values, []) if stack.batch else values
