"""The ``tf.interpreter`` device: runs compiled programs in the numpy reference interpreter.

Slow, but it executes the final IR (kernels, buffers, host loops) exactly as the native
backends do, so it is a debugging aid and the oracle of the pass-level tests. It checks
every kernel run for races (``ir/interpreter.py``): where the native backends' answer would
depend on the order of a kernel's elements, it raises an error naming the kernel.
``run_compiled`` does the same for a traced program, without a device.
"""

from __future__ import annotations

import numpy as np

from .ir.interpreter import run
from .ir.node import Program, clone_program
from .ir.ops import KERNEL
from .ir.printer import format_scope
from .ir.target import Target
from .opt.pipeline import compile_program
from .runtime import TensorMemory


def run_compiled(program: Program, arrays: list, check_races: bool = True) -> list:
    """Run a traced ``program`` (left as it is) on numpy ``arrays`` after every compiler
    pass, in the reference interpreter; returns the output arrays. With ``check_races``, a
    kernel in which one element reaches a place of memory that another element of the same
    run writes raises an ``InternalError`` naming the kernel, the place and both accesses.
    Compare the outputs with ``ir.interpreter.run(program, arrays)``, the program before any
    pass, which runs each operation over all elements before the next."""
    compiled, _ = compile_program(clone_program(program))
    return run(compiled, arrays, check_races=check_races)


class _Executable:
    def __init__(self, program):
        self.program = program
        kernels = [n for n in program.walk() if n.op is KERNEL]
        self.kernel_sources = ["\n".join(format_scope(k.body, 0)) for k in kernels]
        self.main_source = "\n".join(format_scope(program.root, 0))
        self.full_source = self.main_source

    def __call__(self, memories):
        results = run(self.program, [m.storage for m in memories], check_races=True)
        by_input = {id(node): mem for node, mem in zip(self.program.inputs, memories)}
        out = []
        for node, array in zip(self.program.outputs, results):
            if id(node) in by_input:
                out.append(by_input[id(node)])
            else:
                out.append(TensorMemory(array.shape, node.dtype, array, _BACKEND))
        return out


class InterpreterBackend:
    name = "interpreter"
    target = Target("interpreter")

    def __init__(self):
        global _BACKEND
        _BACKEND = self

    def upload(self, array: np.ndarray, dtype) -> TensorMemory:
        return TensorMemory(array.shape, dtype, np.array(array, dtype=dtype.numpy), self)

    def download(self, memory: TensorMemory) -> np.ndarray:
        return np.array(memory.storage)

    def build(self, program, options) -> _Executable:
        return _Executable(program)


_BACKEND = None
