"""The programs behind eager tensors (eager.py): each operation is traced once per operation,
backend and operand kinds (dtype, and which axes have size 1, so broadcasting is decided
when it is traced), compiled, and cached for the process (the cpu backend's program cache
keeps it on disk too). Operands that are not tensors become tensors on the backend of the
first tensor operand: Python numbers weak, as in programs (``float32 tensor + 1`` stays
float32); numpy arrays and lists with their dtypes (``as_array``); tensors on another backend
are copied to it.

This module sits above the compiler (it traces and compiles), which imports eager.py through
runtime.py; it connects its ``run`` to eager.py when the package loads.
"""

from __future__ import annotations

import threading

import numpy as np

from . import backend as devices
from . import eager, tracing
from .ast_frontend import semantics
from .eager import BINARY, PYTHON_MEANING, UNARY
from .ir import dtypes as dt
from .ir.errors import DTypeError, ShapeError
from .program import TensorProgram, build_conditions
from .runtime import TensorMemory, as_array
from .tracing import api

_programs: dict = {}
_lock = threading.Lock()
COUNTS = {"compiled": 0, "ran": 0}  # eager programs compiled and calls run (tests read them)


def run(name: str, operands: tuple):
    """``eager.apply``: the operation of the operands on the first tensor's backend, or
    NotImplemented where an operand is nothing an array operation takes."""
    memories = [x for x in operands if isinstance(x, TensorMemory)]
    backend = memories[0].backend
    prepared = []
    for value in operands:
        value = _operand(value, backend, memories[0].dtype, name)
        if value is NotImplemented:
            return NotImplemented
        prepared.append(value)
    if name not in UNARY and len(prepared) > 1:
        _check_broadcast(name, [p.shape for p in prepared])
    kinds = tuple((p.dtype, tuple(1 if d == 1 else -1 for d in p.shape)) for p in prepared)
    return _program(name, backend, kinds)(*prepared)


def _operand(value, backend, meets: dt.DType, name: str):
    """``value`` as a tensor on ``backend``; a Python number (weak) takes the dtype it has
    beside a tensor of dtype ``meets``."""
    if isinstance(value, TensorMemory):
        return value if value.backend is backend else backend.upload(value.numpy, value.dtype)
    if isinstance(value, (bool, int, float, np.generic)) and not isinstance(value, (np.void, np.str_, np.bytes_)):
        try:
            dtype = dt.promote_weak(meets, value)
        except DTypeError as error:
            raise DTypeError(f"{_spelled(name)}: {error}") from None
        return backend.upload(np.asarray(dt.cast_scalar(value, dtype), dtype.numpy), dtype)
    if isinstance(value, (np.ndarray, list, tuple)):
        array = as_array(value, what=f"the operand of {_spelled(name)}")
        return backend.upload(array, dt.numpy_to_dtype(array.dtype))
    return NotImplemented


def _check_broadcast(name: str, shapes: list) -> None:
    if name == "matmul":
        return  # (the traced matmul checks its operands' shapes)
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        listed = " and ".join(str(list(s)) for s in shapes)
        raise ShapeError(f"{_spelled(name)}: operands of shapes {listed} do not broadcast together (numpy's rule: "
                         "each axis, counted from the last, is equal or 1 in one of them)") from None


def _spelled(name: str) -> str:
    return f"the operator {name.rstrip('_')}" if name in BINARY or name in UNARY else f"tf.{name}"


def _program(name: str, backend, kinds: tuple):
    key = (name, backend.name, kinds, build_conditions())
    program = _programs.get(key)
    if program is None:
        with _lock:
            program = _programs.get(key)
            if program is None:
                program = TensorProgram(_traced(name, kinds), name=f"eager_{_identifier(name)}",
                                        device=devices.device_named(backend.name))
                _programs[key] = program
                COUNTS["compiled"] += 1
    COUNTS["ran"] += 1
    return program


def _identifier(name: str) -> str:
    return name.rstrip("_") or "T"


def _traced(name: str, kinds: tuple):
    def operation(*xs):
        if name in PYTHON_MEANING:
            return getattr(semantics, PYTHON_MEANING[name])(*xs)
        if name in BINARY:
            return BINARY[name](*xs)
        if name in UNARY:
            return UNARY[name](xs[0])
        if name.startswith("astype_"):
            return xs[0].astype(name[len("astype_"):])
        if name == "T":
            x = xs[0]
            for a in range(x.ndim // 2):
                x = tracing.algorithms.transpose(x, a, x.ndim - 1 - a)
            return x
        return getattr(tracing.mathfn, name)(*xs)

    def program():
        return operation(*[api.input(list(pattern), dtype) for dtype, pattern in kinds])
    return program


eager.connect(run)
