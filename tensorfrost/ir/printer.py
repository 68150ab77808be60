"""Text form of a program's IR (``prog.list_operations()``, ``TENSORFROST_DUMP_IR``)."""

from __future__ import annotations

from .node import Node, Program, Scope


def _value(node: Node) -> str:
    if node.op.name == "const" and node.shape == ():
        return repr(node.attrs["value"])
    return node.label


def _attrs(node: Node) -> str:
    shown = {k: v for k, v in node.attrs.items() if k not in ("message",)}
    if node.op.name == "const":
        shown = {k: v for k, v in shown.items() if k != "value"} if node.shape == () else shown
    return " " + " ".join(f"{k}={v!r}" for k, v in shown.items()) if shown else ""


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
        if node.op.name == "const" and node.shape == ():
            continue  # scalar constants are printed inline where they are used
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
