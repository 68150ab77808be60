"""Jacobian-vector products (forward mode) of every op that has a vector-Jacobian product.

``jvp(fd)`` returns the tangent of the op's result (a traced Tensor of the result's shape,
or None where it is zero), from ``fd.t(i)``, the tangent of operand i (None: zero), and the
forward values ``fd.x(i)`` and ``fd.y``. Writes return None and write the tangent of the
value into the tangent of their memory (``fd.memory_tangent``) at the same index, so
memory, variables and loops need no tape: tangent code runs beside the code it
differentiates.

An elementwise op's rule follows from its reverse rule: that rule is linear in the incoming
gradient and its Jacobian is diagonal, so calling it with operand k's tangent as the
gradient gives operand k's term of the directional derivative. Structural ops get a rule
here, beside their reverse rule in ``vjp.py``; every op with a reverse rule gets one (a
test checks that no op is missing).
"""

from __future__ import annotations

from ..ir.errors import TraceError
from ..ir.op_rules import ELEMENTWISE, OPS
from . import algorithms as alg
from . import api, mathfn
from .tensor import Tensor


def _jvp_elementwise(fd):
    vjp = fd.node.op.vjp
    out = None
    for k in range(len(fd.node.args)):
        t = fd.t(k)
        if t is None:
            continue
        part = vjp(fd, t)[k]
        if part is not None:
            out = part if out is None else out + part
    return out


def _jvp_conversion(fd):
    """A float converted to another float: the tangent converted too (from an integer: none)."""
    t = fd.t(0)
    return t.astype(fd.node.dtype) if t is not None and fd.node.dtype.is_float else None


def _same(fd, t: Tensor, op_name: str | None = None) -> Tensor:
    """The op itself (or ``op_name`` with the op's attrs) applied to a tangent: views, sums
    and scans are linear."""
    node = fd.node
    return Tensor(fd.make(op_name or node.op.name, [t.node], attrs=dict(node.attrs), dtype=t.dtype,
                          shape=node.shape))


def _linear(fd):
    t = fd.t(0)
    return None if t is None else _same(fd, t)


def _expand(fd, value: Tensor) -> Tensor:
    """A reduction's result repeated along the reduced axis (back to the operand's shape)."""
    x = fd.node.args[0]
    if x.rank == 1:
        return fd.broadcast_to(value, x.shape)
    return fd.broadcast_to(alg.unsqueeze(value, fd.node.attrs["axis"]), x.shape)


def _jvp_prod(fd):
    """d prod(x) = prod(x) * sum(dx / x) (undefined where an x is 0, as the reverse rule)."""
    t = fd.t(0)
    return None if t is None else _same(fd, t / fd.x(0), "reduce_sum") * fd.y


def _jvp_extreme(fd):
    """The mean of the tangents of the elements equal to the result (ties share, as in reverse)."""
    t = fd.t(0)
    if t is None:
        return None
    hit = mathfn.float(fd.x(0) == _expand(fd, fd.y))
    return _same(fd, t * hit, "reduce_sum") / _same(fd, hit, "reduce_sum")


def _jvp_prefix_prod(fd):
    """y[j] = prod of the x[i] scan j covers: dy[j] = y[j] * (the same scan of dx / x)."""
    t = fd.t(0)
    return None if t is None else _same(fd, t / fd.x(0), "prefix_sum") * fd.y


def _jvp_prefix_extreme(fd):
    """Each output's tangent is the tangent of the element its running max (min) came from:
    the latest in scan order among ties, as the reverse rule picks it."""
    t = fd.t(0)
    if t is None:
        return None
    attrs = fd.node.attrs
    axis, exclusive, reverse = attrs["axis"], attrs.get("exclusive", False), attrs.get("reverse", False)
    x = fd.x(0)
    n = x.shape[axis]
    inclusive = fd.y if not exclusive else alg.scan(fd.node.op.name, x, axis, False, reverse)
    grid = list(api.indices(x.shape))
    order = n - 1 - grid[axis] if reverse else grid[axis]
    source = alg.scan("prefix_max", mathfn.select(x == inclusive, order, -1), axis, exclusive, reverse)
    grid[axis] = mathfn.max(n - 1 - source if reverse else source, 0)
    return mathfn.select(source >= 0, t[tuple(grid)], 0.0)


def _jvp_matmul(fd):
    ta, tb = fd.t(0), fd.t(1)
    out = None if ta is None else alg.matmul(ta, fd.x(1))
    if tb is not None:
        term = alg.matmul(fd.x(0), tb)
        out = term if out is None else out + term
    return out


def _jvp_load(fd):
    memory = fd.memory_tangent(fd.node.args[0])
    if memory is None:
        return None
    return Tensor(fd.make("load", [memory.node, *fd.node.args[1:]], dtype=memory.dtype, shape=fd.node.shape))


def _write_tangent(fd, skip_zero: bool):
    """The write itself, into the memory's tangent, of the value's tangent (zero if it has
    none: a store of a value that does not depend on x zeroes the tangent there)."""
    node = fd.node
    memory = fd.memory_tangent(node.args[0])
    if memory is None:
        return None
    value = fd.t(1)
    if value is None:
        if skip_zero:
            return None
        value = Tensor(fd.make("const", attrs={"value": 0.0}, dtype=memory.dtype, shape=()))
    fd.make(node.op.name, [memory.node, value.astype(memory.dtype).node, *node.args[2:]], attrs=dict(node.attrs),
            dtype=node.dtype, shape=node.shape)
    return None


def _jvp_scatter_other(fd):
    if fd.t(1) is not None or fd.memory_tangent(fd.node.args[0]) is not None:
        raise TraceError(f"forward-mode derivatives of {fd.node.op.api_name} are not defined (the result does not "
                         "depend smoothly on the values); detach the value with .detach_grad()", fd.node.location)
    return None


_STRUCTURAL = {
    "reduce_sum": _linear,
    "reduce_prod": _jvp_prod,
    "reduce_max": _jvp_extreme,
    "reduce_min": _jvp_extreme,
    "prefix_sum": _linear,
    "prefix_prod": _jvp_prefix_prod,
    "prefix_max": _jvp_prefix_extreme,
    "prefix_min": _jvp_prefix_extreme,
    "transpose": _linear,
    "unsqueeze": _linear,
    "squeeze": _linear,
    "reshape": _linear,
    "reverse": _linear,
    "repeat": _linear,
    "split_dim": _linear,
    "merge_dim": _linear,
    "matmul": _jvp_matmul,
    "load": _jvp_load,
    "store": lambda fd: _write_tangent(fd, skip_zero=False),
    "set": lambda fd: _write_tangent(fd, skip_zero=False),
    "scatter_add": lambda fd: _write_tangent(fd, skip_zero=True),
    "scatter_min": _jvp_scatter_other,
    "scatter_max": _jvp_scatter_other,
}
for _name, _op in OPS.items():
    if _name in _STRUCTURAL:
        _op.jvp = _STRUCTURAL[_name]
    elif _op.kind == ELEMENTWISE:
        _op.jvp = _jvp_conversion if _op.converts_to is not None else _jvp_elementwise
del _name, _op


def rule(op):
    """The Jacobian-vector product of ``op``, or None if no tangent flows through it."""
    return op.jvp


# Forward rules of library functions (``library_grad`` nodes), where the library gives one;
# the others are differentiated by transposing their reverse rule (opt/autodiff_forward.py).
_LIBRARY: dict = {}


def register_library_jvp(name: str, jvp) -> None:
    """``jvp(fd)`` returns the tangent of a ``library_grad`` node whose attrs['rule'] is ``name``."""
    _LIBRARY[name] = jvp


def library_jvp(name: str):
    return _LIBRARY.get(name)
