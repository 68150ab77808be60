"""Text form of a program's IR (``prog.list_operations()``, ``TENSORFROST_DUMP_IR``)."""

from __future__ import annotations

from .node import Node, Program, Scope
from .ops import CONST


def _inline(node: Node) -> bool:
    """Scalar constants are printed where they are used; named ones are variables."""
    return node.op is CONST and node.shape == () and node.name is None


def _value(node: Node) -> str:
    return repr(node.attrs["value"]) if _inline(node) else node.label


def _attrs(node: Node) -> str:
    shown = {k: repr(v) for k, v in node.attrs.items() if k not in ("message",)}
    if _inline(node):
        shown = {k: v for k, v in shown.items() if k != "value"}
    contract = node.contract
    if contract is not None:
        written = [b for b in contract.buffers if b in contract.written]  # in a stable order
        shown.update(index=repr(contract.index), name=repr(contract.name), buffers=repr(list(contract.buffers)),
                     written="{" + ", ".join(map(repr, written)) + "}" if written else "set()",
                     uniforms=repr(list(contract.uniforms)))
    return " " + " ".join(f"{k}={v}" for k, v in shown.items()) if shown else ""


def format_node(node: Node, with_location: bool = False) -> str:
    args = ", ".join(_value(a) for a in node.args)
    head = f"{node.op.name}({args}){_attrs(node)}"
    if node.dtype is not None or node.shape:
        dims = ", ".join(_value(d) for d in node.shape)
        kind = node.dtype.name if node.dtype is not None else ""
        head = f"{node.label}: {kind}[{dims}] = {head}"
    if with_location and node.location is not None:
        head += f"  # {node.location}"
    return head


def format_scope(scope: Scope, indent: int = 1, with_location: bool = False) -> list[str]:
    lines = []
    for node in scope.nodes:
        if _inline(node):
            continue
        lines.append("  " * indent + format_node(node, with_location))
        if node.body is not None:
            lines.extend(format_scope(node.body, indent + 1, with_location))
    return lines


def format_program(program: Program, with_location: bool = False) -> str:
    params = ", ".join(f"{n.label}: {n.dtype.name}" for n in program.inputs)
    lines = [f"program {program.name}({params}):"]
    lines.extend(format_scope(program.root, 1, with_location))
    outs = ", ".join(_value(o) for o in program.outputs)
    lines.append(f"  return ({outs})" if program.returns_tuple else f"  return {outs}")
    return "\n".join(lines)
