"""Kernels that compile once: optimization "shared_kernels".

A program often runs kernels that differ only in their float constants (100 diffusion steps
with ``c = 0.1 + 0.001 * s``, the layers of a network, the passes of an FFT), and g++ costs
13-20 ms per function whatever it holds. Such kernels get their float constants as
arguments, and a kernel whose C++ is then another's, up to the names of its own buffers,
values and functions, runs that kernel's functions with its own buffers and constants: its
code is compiled once.

The test is the generated text itself, so nothing the emitter decides can make two kernels
that behave differently share: ``sharable`` only picks the kernels worth emitting with
their constants as arguments (those whose ops match another's, one by one), and
``canonical`` renames the kernel's own identifiers in order of appearance; equal canonical
texts are the same function. An argument is a constant *node*: where common subexpression
elimination joined two uses of one value (a rate of 0.25 and another 0.25 of the same
kernel), that kernel takes one argument less and does not share with one where they differ.
"""

from __future__ import annotations

import re

from .. import optimizations
from ..ir import dtypes as dt
from ..ir.node import Node, walk
from ..ir.ops import CONST
from . import gemm, tiling

ARGUMENT_DTYPES = (dt.float32, dt.float64)  # (integer constants size arrays, pick paths, clamp indices)
_TOKEN = re.compile(r"\b[A-Za-z_]\w*\b")


def _outline(kernel: Node) -> tuple:
    """What two kernels that could share have alike: their ops, in order, and interfaces."""
    contract = kernel.contract
    return (kernel.rank, len(contract.buffers), len(contract.uniforms),
            tuple((n.op.name, n.dtype.name if n.dtype is not None else "", len(n.args)) for n in walk(kernel.body)))


def sharable(kernels: list, mutable: set) -> dict:
    """{kernel: its float constants, to pass as arguments} for the kernels whose ops match
    another's (lane-tiled and GEMM kernels keep their own code: both read constants' values);
    none while optimization "shared_kernels" is off."""
    if not optimizations.enabled("shared_kernels"):
        return {}
    groups: dict = {}
    for kernel in kernels:
        if tiling.plan(kernel) is None and gemm.plan(kernel) is None:
            groups.setdefault(_outline(kernel), []).append(kernel)
    return {kernel: _constants(kernel, mutable) for group in groups.values() if len(group) > 1 for kernel in group}


def _constants(kernel: Node, mutable: set) -> list:
    """The float constants ``kernel``'s values read (made inside it or on the host), in order."""
    found: dict = {}
    for node in walk(kernel.body):
        for arg in node.args:
            if arg.op is CONST and arg.dtype in ARGUMENT_DTYPES and arg not in mutable:
                found.setdefault(arg, None)
    return list(found)


def canonical(text: str, own: set, stem: str) -> str:
    """``text`` (a kernel's functions) with the identifiers in ``own`` (its parameters and
    values) numbered in order of appearance, and its function names' ``stem`` replaced."""
    numbers: dict = {}
    functions = {stem: "tf_kernel", stem + "_rows": "tf_kernel_rows", stem + "_epilogue": "tf_kernel_epilogue"}

    def rename(found) -> str:
        token = found.group(0)
        if token in functions:
            return functions[token]
        if token in own:
            return numbers.setdefault(token, f"tf_own{len(numbers)}")
        return token
    return _TOKEN.sub(rename, text)
