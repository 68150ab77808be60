"""Linear algebra as tensor programs."""

from __future__ import annotations

from ..tracing import algorithms as alg
from ..tracing.api import index, index_grid, loop, zeros
from ..tracing.mathfn import copy
from ..tracing.tensor import Tensor


def qr(a: Tensor) -> tuple[Tensor, Tensor]:
    """``Q, R`` with ``Q @ R == a`` for ``a`` of shape [m, n], m >= n: Q [m, n] with
    orthonormal columns, R [n, n] upper triangular (modified Gram-Schmidt, the seed
    README's algorithm; a host loop over the columns dispatching a few kernels each)::

        def program():
            A = tf.input([-1, -1], tf.float32)
            Q, R = tensorfrost.lib.linalg.qr(A)
            return [Q, R]

    Call it inside a tensor program; ``a`` itself is left unchanged.
    """
    a = copy(a)
    m, n = a.shape
    q = zeros([m, n])
    r = zeros([n, n])
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
    return q, r
