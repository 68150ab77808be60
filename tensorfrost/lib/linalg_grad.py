"""Gradients of ``tf.linalg``: the closed forms of the derivatives, as rules written in
tensor code of differentiable values.

The factorisations update their matrices in place inside loops, which ``tf.grad`` cannot
reverse (it would need every earlier value). So each differentiable function computes its
value from detached arguments and returns it through ``attach``: a ``library_grad`` node
whose gradient is one of the rules below (for ``inv``: ``dA = -Y^T G Y^T`` with
``Y = inv(A)``). A rule reads the node itself as the result and re-attaches the other
values it needs (an inverse the forward program computed, detached) with their own rules,
so the gradient it emits is differentiable in turn: gradients of gradients (a Hessian
through ``det``, say) are right to any order. The values a rule needs (residuals) are only
read by ``library_grad`` nodes, which the autodiff pass removes, so a program that asks for
no gradient computes none of them (the dead-code pass drops them).
"""

from __future__ import annotations

from ..ir.builder import current
from ..tracing import algorithms as alg
from ..tracing.api import indices
from ..tracing.mathfn import select
from ..tracing.tensor import Tensor, node_of
from ..tracing.vjp import register_library_rule


def attach(value: Tensor, rule: str, inputs: list, residuals: list = ()) -> Tensor:
    """``value`` (computed from detached ``inputs``), whose gradient to ``inputs`` is the rule
    ``rule``; ``residuals`` are detached values the rule reads."""
    nodes = [node_of(t) for t in (value, *inputs, *residuals)]
    return Tensor(current().make("library_grad", nodes, attrs={"rule": rule}, dtype=nodes[0].dtype,
                                 shape=nodes[0].shape))


def transposed(a: Tensor) -> Tensor:
    """The last two axes swapped."""
    return alg.transpose(a, -2, -1)


def lower_part(a: Tensor, diagonal_scale: float) -> Tensor:
    """The strictly lower triangle of [B, n, n] ``a``, plus its diagonal times ``diagonal_scale``."""
    _, i, k = indices(a.shape)
    return select(i > k, a, select(i == k, a * diagonal_scale, 0.0))


def symmetric_from_lower(a: Tensor) -> Tensor:
    """The symmetric matrices that the lower triangles of [B, n, n] ``a`` define."""
    return lower_part(a, 1.0) + transposed(lower_part(a, 0.0))


def _per_matrix(values: Tensor) -> Tensor:
    """[B] values as [B, 1, 1], to scale whole matrices."""
    return alg.unsqueeze(alg.unsqueeze(values, -1), -1)


# Operands of each rule's node: (value, *inputs, *residuals); a rule returns one gradient per operand.


def _inv(ad, g):
    """inv(A) = Y: dA = -Y^T G Y^T. Operands (Y, A)."""
    y = transposed(ad.y)
    return [None, -(y @ g @ y)]


def _solve(ad, g):
    """X = A^-1 B: dB = A^-T G, dA = -dB X^T. Operands (X, A, B, A^-1)."""
    a_inverse = attach(ad.x(3), "linalg.inv", [ad.x(1)])
    grad_b = transposed(a_inverse) @ g
    return [None, -(grad_b @ transposed(ad.y)), grad_b, None]


def _log_abs_det(ad, g):
    """log|det A|: dA = G A^-T. Operands (value, A, A^-1)."""
    a_inverse = attach(ad.x(2), "linalg.inv", [ad.x(1)])
    return [None, _per_matrix(g) * transposed(a_inverse), None]


def _det(ad, g):
    """det A: dA = G det(A) A^-T. Operands (det, A, A^-1)."""
    a_inverse = attach(ad.x(2), "linalg.inv", [ad.x(1)])
    return [None, _per_matrix(g * ad.y) * transposed(a_inverse), None]


def _cholesky(ad, g):
    """L = chol(M), dL = L Phi(L^-1 dM L^-T) (Phi: the lower triangle, half the diagonal):
    dM = sym(L^-T Phi(L^T G) L^-1), G's lower triangle only (L has no other entries).
    Operands (L, M symmetric, L^-1)."""
    low = ad.y
    low_inverse = attach(ad.x(2), "linalg.inv", [low])
    s = transposed(low_inverse) @ lower_part(transposed(low) @ lower_part(g, 1.0), 0.5) @ low_inverse
    return [None, (s + transposed(s)) * 0.5, None]


def _eigh_values(ad, g):
    """w_i = v_i^T A v_i: dA = V diag(G) V^T. Operands (w, A, V)."""
    vectors = attach(ad.x(2), "linalg.eigh_vectors", [ad.x(1)], [ad.x(0)])
    return [None, (vectors * alg.unsqueeze(g, -2)) @ transposed(vectors), None]


def _eigh_vectors(ad, g):
    """dV = V (F o (V^T dA V)), F_ik = 1 / (w_k - w_i) off the diagonal (0 where eigenvalues
    are equal: their vectors are not differentiable): dA = V (F o (V^T G)) V^T.
    Operands (V, A, w)."""
    vectors = ad.y
    values = attach(ad.x(2), "linalg.eigh_values", [ad.x(1)], [ad.x(0)])
    gap = alg.unsqueeze(values, -2) - alg.unsqueeze(values, -1)
    equal = gap == 0.0
    # Divide by 1 where the gap is 0, so that the gradient of the discarded quotient is 0, not NaN.
    factor = select(equal, 0.0, 1.0 / select(equal, 1.0, gap))
    return [None, vectors @ (factor * (transposed(vectors) @ g)) @ transposed(vectors), None]


def _upper_mirrored(a: Tensor) -> Tensor:
    """The symmetric matrices that the upper triangles of ``a`` ([..., n, n]) define."""
    i, k = indices(a.shape)[-2:]
    return select(i <= k, a, transposed(a))


# QR (A = QR, Q [m, n] with orthonormal columns, R [n, n] upper triangular, m >= n): with
# M = G_R R^T - Q^T G_Q, dA = (G_Q + Q mirror(M)) R^-T, mirror taking M's upper triangle to
# both (from Q^T dQ skew and dR R^-1 upper triangular). Split by output, it is linear in each.


def _qr_q(ad, g):
    """Operands (Q, A, R, R^-1)."""
    q = ad.y
    r = attach(ad.x(2), "linalg.qr_r", [ad.x(1)], [q, ad.x(3)])
    r_inverse = attach(ad.x(3), "linalg.inv", [r])
    return [None, (g - q @ _upper_mirrored(transposed(q) @ g)) @ transposed(r_inverse), None, None]


def _qr_r(ad, g):
    """Operands (R, A, Q, R^-1)."""
    r = ad.y
    q = attach(ad.x(2), "linalg.qr_q", [ad.x(1)], [r, ad.x(3)])
    r_inverse = attach(ad.x(3), "linalg.inv", [r])
    return [None, q @ _upper_mirrored(g @ transposed(r)) @ transposed(r_inverse), None, None]


# Thin SVD (A = U S Vh, batched [B, ...]; Townsend's form, split by output): with
# F_ij = 1 / (s_j^2 - s_i^2) off the diagonal (0 where the values are equal: their vectors
# are not differentiable) and 1 / s taken as 0 for a zero singular value,
#   from U:  U (F o (U^T G - G^T U)) S Vh + (G - U U^T G) S^-1 Vh
#   from S:  U diag(G) Vh
#   from Vh: U S (F o (Vh G^T - G Vh^T)) Vh + U S^-1 (G - G Vh^T Vh)


def _gaps_inverse(s: Tensor) -> Tensor:
    squares = s * s
    gap = alg.unsqueeze(squares, -2) - alg.unsqueeze(squares, -1)
    equal = gap == 0.0
    # Divide by 1 where the gap is 0, so that the gradient of the discarded quotient is 0, not NaN.
    return select(equal, 0.0, 1.0 / select(equal, 1.0, gap))


def _inverse_or_zero(s: Tensor) -> Tensor:
    zero = s == 0.0
    return select(zero, 0.0, 1.0 / select(zero, 1.0, s))


def _svd_u(ad, g):
    """Operands (U, A, S, Vh)."""
    u = ad.y
    s = attach(ad.x(2), "linalg.svd_s", [ad.x(1)], [u, ad.x(3)])
    vh = attach(ad.x(3), "linalg.svd_vh", [ad.x(1)], [u, ad.x(2)])
    u_g = transposed(u) @ g
    inner = _gaps_inverse(s) * (u_g - transposed(u_g)) * alg.unsqueeze(s, -2)
    outside = (g - u @ u_g) * alg.unsqueeze(_inverse_or_zero(s), -2)
    return [None, (u @ inner + outside) @ vh, None, None]


def _svd_s(ad, g):
    """Operands (S, A, U, Vh)."""
    u = attach(ad.x(2), "linalg.svd_u", [ad.x(1)], [ad.y, ad.x(3)])
    vh = attach(ad.x(3), "linalg.svd_vh", [ad.x(1)], [ad.x(2), ad.y])
    return [None, (u * alg.unsqueeze(g, -2)) @ vh, None, None]


def _svd_vh(ad, g):
    """Operands (Vh, A, U, S)."""
    vh = ad.y
    u = attach(ad.x(2), "linalg.svd_u", [ad.x(1)], [ad.x(3), vh])
    s = attach(ad.x(3), "linalg.svd_s", [ad.x(1)], [ad.x(2), vh])
    vh_g = vh @ transposed(g)
    inner = alg.unsqueeze(s, -1) * (_gaps_inverse(s) * (vh_g - transposed(vh_g))) @ vh
    outside = alg.unsqueeze(_inverse_or_zero(s), -1) * (g - (g @ transposed(vh)) @ vh)
    return [None, u @ (inner + outside), None, None]


for _name, _rule in (("inv", _inv), ("solve", _solve), ("log_abs_det", _log_abs_det), ("det", _det),
                     ("cholesky", _cholesky), ("eigh_values", _eigh_values), ("eigh_vectors", _eigh_vectors),
                     ("qr_q", _qr_q), ("qr_r", _qr_r), ("svd_u", _svd_u), ("svd_s", _svd_s), ("svd_vh", _svd_vh)):
    register_library_rule("linalg." + _name, _rule)
