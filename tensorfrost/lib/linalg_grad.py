"""Gradients of ``tf.linalg``, from the closed forms of the derivatives.

The factorisations update their matrices in place inside loops, which ``tf.grad`` cannot
reverse (it would need every earlier value). So each differentiable function computes its
value from detached arguments and attaches a *surrogate*: an expression that is linear in
the arguments, with detached coefficients taken from the value, whose derivative is the
function's derivative (for ``inv``: ``-Y @ A @ Y`` with ``Y = inv(A)`` held constant, since
``d inv(A) = -Y dA Y``). ``differentiable`` returns the value, with gradients taken through
the surrogate; the simplify pass then drops the surrogate from the forward program, so a
program that asks for no gradient computes none of it. Gradients are first order only.
"""

from __future__ import annotations

from ..ir import dtypes as dt
from ..tracing import algorithms as alg
from ..tracing.api import const, indices
from ..tracing.mathfn import select
from ..tracing.tensor import Tensor


def differentiable(value: Tensor, surrogate: Tensor) -> Tensor:
    """``value``, whose gradient is the gradient of ``surrogate`` (of the same shape)."""
    never = const(False, (), dt.bool1)
    return select(never, surrogate, value.detach_grad()).pass_grad()


def transposed(a: Tensor) -> Tensor:
    """The last two axes swapped."""
    return alg.transpose(a, -2, -1)


def lower_part(a: Tensor, diagonal_scale: float) -> Tensor:
    """The strictly lower triangle of [B, n, n] ``a``, plus its diagonal times ``diagonal_scale``."""
    _, i, k = indices(a.shape)
    return select(i > k, a, select(i == k, a * diagonal_scale, 0.0))


def cholesky_surrogate(a: Tensor, low: Tensor, low_inverse: Tensor) -> Tensor:
    """``dL = L Phi(L^-1 dA L^-T)`` (Phi: the lower triangle, half the diagonal), where ``dA``
    is the symmetric change that the lower triangle of ``a`` makes (only it is read)."""
    lower = lower_part(a, 1.0)
    symmetric = lower + transposed(lower_part(a, 0.0))
    return low @ lower_part(low_inverse @ symmetric @ transposed(low_inverse), 0.5)


def solve_surrogate(a: Tensor, rhs: Tensor, x: Tensor, a_inverse: Tensor) -> Tensor:
    """``dX = A^-1 (dB - dA X)``."""
    return a_inverse @ (rhs - a @ x)


def logdet_surrogate(a: Tensor, a_inverse: Tensor) -> Tensor:
    """``d log|det A| = trace(A^-1 dA)``, per matrix [B]."""
    return alg.sum(alg.sum(transposed(a_inverse) * a, axis=2), axis=1)


def eigh_surrogates(a: Tensor, values: Tensor, vectors: Tensor) -> tuple[Tensor, Tensor]:
    """``dw_i = v_i^T dA v_i`` and ``dV = V (F o (V^T dA V))`` with ``F_ij = 1 / (w_j - w_i)``
    off the diagonal (0 where eigenvalues are equal: their vectors are not differentiable)."""
    rotated = transposed(vectors) @ a @ vectors
    b, j = indices(values.shape)
    value_surrogate = rotated[b, j, j]
    b, i, k = indices(rotated.shape)
    gap = values[b, k] - values[b, i]
    equal = gap == 0.0
    # Divide by 1 where the gap is 0, so that the gradient of the discarded quotient is 0, not NaN.
    return value_surrogate, vectors @ select(equal, 0.0, rotated / select(equal, 1.0, gap))
