"""Linear algebra inside tensor programs (``tf.linalg``), batched along leading axes.

Every function takes float32 matrices of shape [..., m, n] (the leading axes are a batch,
sizes may be known only when the program runs) and returns tensors of the program, so it
fuses with the code around it and works in ``tf.compile`` and ``@tf.kernel_program`` on
every backend::

    def program():
        A = tf.input([-1, -1, -1], tf.float32)      # a batch of matrices
        b = tf.input([-1, -1], tf.float32)          # one right-hand side per matrix
        x = tf.linalg.solve(A, b)
        L = tf.linalg.cholesky(A @ tf.transpose(A) + 1.0)
        return [x, L]

Names follow numpy (``np.linalg``) and scipy (``lu``, ``lu_factor``, ``triangular_solve``
as ``solve_triangular``). Results match numpy's conventions: ``eigh`` gives ascending
eigenvalues and eigenvectors as columns, ``svd`` descending singular values and ``Vh``
(``full_matrices=False``).

``tf.grad`` differentiates ``cholesky``, ``solve``, ``inv``, ``det``, ``slogdet``,
``triangular_solve``, ``eigh``, ``qr`` and ``svd`` through the closed forms of their
derivatives, written as differentiable tensor code, so derivatives of any order are right
(see ``linalg_grad``), at the cost of one extra inverse (or a few matrix products) per call
when a gradient is asked for and none otherwise (``eigh``: where the eigenvalues are
distinct; ``svd``: where the singular values are distinct and nonzero; ``qr``: a's of full
rank). ``lu`` and ``lu_factor`` are differentiated through their elimination loops, as any
tensor code is.
"""

from __future__ import annotations

from ..tracing import algorithms as alg
from ..tracing.api import index, index_grid, loop, zeros
from ..tracing.mathfn import copy
from ..tracing.tensor import Tensor
from .linalg_eig import eigh, svd
from .linalg_factor import cholesky, det, inv, lu, lu_factor, slogdet, solve, triangular_solve
from .linalg_grad import attach

__all__ = ["cholesky", "det", "eigh", "inv", "lu", "lu_factor", "qr", "slogdet", "solve", "svd", "triangular_solve"]


def qr(a: Tensor) -> tuple[Tensor, Tensor]:
    """``Q, R`` with ``Q @ R == a`` for ``a`` of shape [m, n], m >= n: Q [m, n] with
    orthonormal columns, R [n, n] upper triangular (modified Gram-Schmidt, the seed
    README's algorithm; a host loop over the columns dispatching a few kernels each)::

        def program():
            A = tf.input([-1, -1], tf.float32)
            Q, R = tensorfrost.lib.linalg.qr(A)
            return [Q, R]

    Call it inside a tensor program; ``a`` itself is left unchanged. Differentiable where
    ``a`` has full rank.

    >>> def qr():
    ...     Q, R = tf.linalg.qr(tf.input([-1, -1], tf.float32))
    ...     return [Q, R]
    >>> a = np.array([[3, 1], [4, 2]], np.float32)
    >>> Q, R = tf.compile(qr)(a)
    >>> np.round(Q.numpy, 4), np.round(R.numpy, 4)
    (array([[ 0.6, -0.8],
           [ 0.8,  0.6]], dtype=float32), array([[5. , 2.2],
           [0. , 0.4]], dtype=float32))
    >>> np.allclose(Q.numpy @ R.numpy, a, atol=1e-6)
    True
    """
    source = a
    a = copy(a.detach_grad())
    m, n = a.shape
    q = zeros([m, n], a.dtype)
    r = zeros([n, n], a.dtype)
    j = index(0, [m])
    with loop(n - 1) as i:
        r[i, i] = alg.norm(a[j, i])
        q[j, i] = a[j, i] / r[i, i]
        p, k = index_grid([0, i + 1], [m, n])
        t, = index_grid([i + 1], [n])
        r[i, t] = alg.sum(q[p, i] * a[p, k], axis=0)
        a[p, k] -= q[p, i] * r[i, k]
    r[n - 1, n - 1] = alg.norm(a[j, n - 1])
    q[j, n - 1] = a[j, n - 1] / r[n - 1, n - 1]
    r_inverse = inv(r)  # (read by the gradient only: dropped where none is asked for)
    return (attach(q, "linalg.qr_q", [source], [r, r_inverse]),
            attach(r, "linalg.qr_r", [source], [q, r_inverse]))
