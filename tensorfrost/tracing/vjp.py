"""Vector-Jacobian products of the structural ops: reductions, scans, views, matmul, and the
memory ops (loads, stores, scatters, variable updates).

``rule(op)`` gives an op's VJP: these, or the elementwise ones the op table holds
(``Op.vjp``, from ops_math.py). Memory ops act on the autodiff pass's adjoint buffers through ``ad``:
a load's gradient scatters into its memory's adjoint; a store reads the adjoint at its
index and clears it (the old value there no longer matters).
"""

from __future__ import annotations

from ..ir.errors import TraceError
from ..ir.op_rules import OPS, Op
from . import algorithms as alg
from . import api, mathfn
from .tensor import Tensor


def _expand(ad, g: Tensor) -> Tensor:
    """A reduction's gradient, repeated along the reduced axis (back to the input's shape)."""
    x = ad.node.args[0]
    if x.rank == 1:
        return ad.broadcast_to(g, x.shape)
    return ad.broadcast_to(alg.unsqueeze(g, ad.node.attrs["axis"]), x.shape)


def _vjp_sum(ad, g):
    return [_expand(ad, g)]


def _vjp_prod(ad, g):
    return [_expand(ad, g * ad.y) / ad.x(0)]


def _vjp_extreme(ad, g):
    """The gradient goes to the elements equal to the result, shared evenly between ties."""
    x, f = ad.x(0), ad.fn
    hit = f.float(x == _expand(ad, ad.y))
    count = alg.sum(hit, axis=ad.node.attrs["axis"])
    return [_expand(ad, g / count) * hit]


def _vjp_prefix_sum(ad, g):
    """The transpose of a scan is the same scan in the other direction."""
    attrs = ad.node.attrs
    return [alg.prefix_sum(g, attrs["axis"], attrs.get("exclusive", False), not attrs.get("reverse", False))]


def _vjp_prefix_prod(ad, g):
    """y[j] is a product of x[i] over the i that scan j covers: dy[j]/dx[i] = y[j] / x[i]
    (undefined where x[i] == 0)."""
    attrs = ad.node.attrs
    spread = alg.prefix_sum(g * ad.y, attrs["axis"], attrs.get("exclusive", False), not attrs.get("reverse", False))
    return [spread / ad.x(0)]


def _vjp_prefix_extreme(ad, g):
    """Each output's gradient goes to the element its running max (min) came from: the
    latest in scan order among ties, as torch's cummax picks it."""
    attrs = ad.node.attrs
    axis, exclusive, reverse = attrs["axis"], attrs.get("exclusive", False), attrs.get("reverse", False)
    x = ad.x(0)
    n = x.shape[axis]
    inclusive = ad.y if not exclusive else alg.scan(ad.node.op.name, x, axis, False, reverse)
    grid = list(api.indices(x.shape))
    order = n - 1 - grid[axis] if reverse else grid[axis]  # position in scan order
    source = alg.scan("prefix_max", mathfn.select(x == inclusive, order, -1), axis, exclusive, reverse)
    g = mathfn.select(source >= 0, g, 0.0)  # an exclusive scan's first output has no source
    grid[axis] = n - 1 - source if reverse else source
    grad = api.zeros(x.shape, x.dtype)
    api.scatterAdd(grad[tuple(grid)], g)
    return [grad]


def _vjp_matmul(ad, g):
    a, b = ad.x(0), ad.x(1)
    return [alg.matmul(g, alg.transpose(b)), alg.matmul(alg.transpose(a), g)]


def _vjp_by_scatter(ad, g):
    """Views whose index map is not one-to-one (split_dim reads padding): scatter back."""
    return [ad.scatter_view(g)]


def _vjp_load(ad, g):
    ad.scatter_to_memory(ad.node.args[0], g, ad.node.args[1:])
    return [None] * len(ad.node.args)


def _vjp_store(ad, g):
    memory, index = ad.node.args[0], ad.node.args[2:]
    grad_value = ad.memory_adjoint(memory, index)
    ad.clear_memory_adjoint(memory, index)
    return [None, grad_value] + [None] * len(index)


def _vjp_scatter_add(ad, g):
    memory, index = ad.node.args[0], ad.node.args[2:]
    return [None, ad.memory_adjoint(memory, index)] + [None] * len(index)


def _vjp_scatter_other(ad, g):
    if ad.needs_gradient(ad.node.args[1]):
        raise TraceError(f"gradients of {ad.node.op.name} are not defined (the result does not depend "
                         "smoothly on the values); detach the value with .detach_grad()", ad.node.location)
    return [None] * len(ad.node.args)


def _vjp_set(ad, g):
    target = ad.node.args[0]
    grad_value = ad.variable_adjoint(target)
    ad.clear_variable_adjoint(target)
    return [None, grad_value]


# Each structural op's entry in the op table owns its rule (``Op.vjp``), as elementwise
# ops' do (ops_math.py); the rules are written here, where tensor code can be traced.
_STRUCTURAL = {
    "reduce_sum": _vjp_sum,
    "reduce_prod": _vjp_prod,
    "reduce_max": _vjp_extreme,
    "reduce_min": _vjp_extreme,
    "prefix_sum": _vjp_prefix_sum,
    "prefix_prod": _vjp_prefix_prod,
    "prefix_max": _vjp_prefix_extreme,
    "prefix_min": _vjp_prefix_extreme,
    "transpose": lambda ad, g: [alg.transpose(g, ad.node.attrs["dim1"], ad.node.attrs["dim2"])],
    "unsqueeze": lambda ad, g: [alg.squeeze(g, ad.node.attrs["axis"])],
    "squeeze": lambda ad, g: [alg.unsqueeze(g, ad.node.attrs["axis"])],
    "reshape": lambda ad, g: [alg.reshape(g, [Tensor(d) for d in ad.node.args[0].shape])],
    "reverse": lambda ad, g: [alg.reverse(g, ad.node.attrs["axis"])],
    "repeat": lambda ad, g: [alg.sum(alg.split_dim(g, ad.node.attrs["repeats"], ad.node.attrs["axis"]),
                                     axis=ad.node.attrs["axis"] + 1)],
    "split_dim": _vjp_by_scatter,
    "merge_dim": _vjp_by_scatter,
    "matmul": _vjp_matmul,
    "load": _vjp_load,
    "store": _vjp_store,
    "scatter_add": _vjp_scatter_add,
    "scatter_min": _vjp_scatter_other,
    "scatter_max": _vjp_scatter_other,
    "set": _vjp_set,
}
for _name, _rule in _STRUCTURAL.items():
    OPS[_name].vjp = _rule
del _name, _rule


def rule(op: Op):
    """The vector-Jacobian product of ``op``, or None if no gradient flows through it."""
    return op.vjp


# Rules of library functions (``library_grad`` nodes: value, *inputs), registered by the
# library (tf.linalg): ``ad.y`` is the node itself, the differentiable result, so the rule's
# code can be differentiated again.
_LIBRARY: dict = {}


def register_library_rule(name: str, vjp) -> None:
    """``vjp(ad, g)`` returns a gradient (or None) per operand of a ``library_grad`` node
    whose attrs['rule'] is ``name``."""
    _LIBRARY[name] = vjp


def library_rule(name: str):
    return _LIBRARY[name]
