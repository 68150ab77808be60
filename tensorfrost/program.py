"""``tf.compile``: trace a function, run the compiler passes, build it for the device."""

from __future__ import annotations

import contextlib
import functools
import sys
import threading
import time
from time import perf_counter

import numpy as np

from . import backend as devices
from . import optimizations
from .backend_codegen import mode as codegen_mode
from .backend_cpu import program_cache
from .ir.errors import ArgumentError, InternalError, TensorFrostError, TraceError
from .ir.interpreter import run as interpret
from .ir.node import Program, clone_program
from .ir.printer import format_program
from .opt.pipeline import compile_program
from .runtime import MEMORY_TYPES, SingleOutput, TensorMemory, as_array, dlpack_array, is_dlpack_producer
from .tracing.trace import trace

MAX_NESTING = 1000  # tf.loop / tf.if_cond blocks nested in one another that a program may have
FRAMES_PER_LEVEL = 12  # Python frames the passes and emitters take per nested block (7 measured), with room
FRAMES_BASE = 400  # and for the rest of a compile
_limit_lock = threading.Lock()
_raised = {"compiles": 0, "limit": 0}  # compiles running under a raised recursion limit; the limit before


class TensorProgram:
    """A compiled tensor program. Call it with its inputs (TensorMemory or numpy arrays, in
    the order of their ``tf.input`` calls); it returns a TensorMemory, or a tuple of them
    when the function returned a list or tuple of several (a one-element list gives the
    tensor, which also unpacks: ``C = prog(A)`` and ``C, = prog(A)`` both work)."""

    def __init__(self, fn, name: str | None = None, call=None):
        start = time.perf_counter()
        traced = trace(fn, name, call=call)
        self.name = traced.name
        self.input_names = list(traced.input_names)
        self.input_nodes = [(n.rank, n.dtype) for n in traced.inputs]
        self.returns_tuple = traced.returns_tuple
        self.returns_one_list = traced.returns_one_list
        self.printed = [name for name, _ in traced.printed]
        self._run_time = (0.0, 0.0)
        self.trace_time = time.perf_counter() - start
        self.device = devices.current_device()
        self.backend = devices.backend_for(self.device)
        self.backend.target.check(traced)
        traced.max_buffers = self.backend.target.max_buffers
        options = devices.build_options()
        with deep_enough(traced):  # (the passes and emitters recurse into nested blocks)
            self._build(traced, options)
        self._timed_by_backend = hasattr(self.executable, "last_execution_time")
        self._plain = not (self.printed or self.returns_one_list or self.returns_tuple)  # one tensor out
        self.compile_time = time.perf_counter() - start

    def _build(self, traced, options) -> None:
        """The executable: from the program cache, else compiled now."""
        cache_key = program_cache.key(traced, self.backend, options)  # of the IR as traced: the passes change it
        self._disabled = optimizations.disabled_set()  # what `program` compiles with after a cache hit
        self.executable, fired = program_cache.load(cache_key, self.name, self.backend, options)
        self.traced, self._program = traced, None
        if self.executable is None:
            self.traced = clone_program(traced)
            with optimizations.recording() as fired:
                self._program, self._pass_times = compile_program(traced)
                self.backend.target.check_atomics(self._program)
                self.executable = self.backend.build(self._program, options)
            program_cache.store(cache_key, self._program, self.executable, fired)
        self.optimizations_fired = dict(fired)  # what its compile changed (tf.optimizations)
        codegen_mode.record(self.executable, self.device)  # tf.get_all_generated_kernels(), as upstream's

    @property
    def program(self):
        """The compiled IR (compiled again from the traced IR when a cache hit skipped the passes)."""
        if self._program is None:
            with optimizations.muted(), optimizations.exactly_disabled(self._disabled), deep_enough(self.traced):
                self._program, self._pass_times = compile_program(clone_program(self.traced))
        return self._program

    @property
    def pass_times(self) -> dict:
        """Seconds each compiler pass took on this program (compiled on first use after a cache hit)."""
        _ = self.program
        return self._pass_times

    # -- calling -----------------------------------------------------------------------------

    def __call__(self, *args):
        call_fast = self._call_fast
        outputs = call_fast(args) if call_fast is not None else self._call_with_tensors(args)
        if outputs is None:
            outputs = self._run(self._checked_arguments(args))
        if self._plain:
            return outputs[0]
        if self.printed:
            outputs = _print_values(self.printed, outputs)
        if self.returns_one_list:
            single = outputs[0]
            return SingleOutput(single.shape, single.dtype, single.storage, single.backend)
        return tuple(outputs) if self.returns_tuple else outputs[0]

    @functools.cached_property
    def _call_fast(self):
        """The backend's own fast path, or None: it gives the outputs for arguments that need
        no conversion (the cpu backend's also reads numpy arrays in place), else None."""
        return getattr(self.executable, "call_fast", None)

    def _call_with_tensors(self, args: tuple) -> list | None:
        """The outputs when each argument is a tensor of this backend with its input's dtype and
        rank; else None (nothing run)."""
        if len(args) != len(self.input_nodes):
            return None
        backend = self.backend
        for (rank, dtype), value in zip(self.input_nodes, args):
            kind = type(value)
            if (kind is not TensorMemory and kind is not SingleOutput) or value.backend is not backend \
                    or value.dtype is not dtype or len(value.shape) != rank:
                return None
        return self._run(args)

    def _run(self, memories) -> list:
        if self._timed_by_backend:
            return self.executable(memories)
        start = perf_counter()
        outputs = self.executable(memories)
        self._run_time = (start, perf_counter())
        return outputs

    def _checked_arguments(self, args) -> list:
        if any(type(a) not in MEMORY_TYPES and hasattr(a, "_program_arguments") for a in args):
            args = _expand_modules(args)
        if len(args) != len(self.input_nodes):
            names = ", ".join(self.input_names)
            raise ArgumentError(f"{self.name} takes {len(self.input_nodes)} input(s) ({names}), "
                                f"got {len(args)}")
        return [self._argument(k, value) for k, value in enumerate(args)]

    def get_last_execution_time(self) -> float:
        """Milliseconds the last call spent running the program (upstream's name): wall time
        from the first kernel to the outputs, arguments already converted."""
        if self._timed_by_backend:
            return self.executable.last_execution_time()
        start, stop = self._run_time
        return (stop - start) * 1000.0

    def _argument(self, k: int, value) -> TensorMemory:
        rank, dtype = self.input_nodes[k]
        what = f"argument {k} ('{self.input_names[k]}') of {self.name}"
        if isinstance(value, TensorMemory):
            if value.backend is not self.backend:
                value = self.backend.upload(value.numpy, value.dtype)
            if value.dtype is not dtype:
                raise ArgumentError(f"{what}: expected {dtype!r}, got a {value.dtype!r} tensor")
        else:
            if is_dlpack_producer(value):  # (as tf.tensor reads it; never through its __array__)
                value = dlpack_array(value, what)
            value = self.backend.upload(as_array(value, dtype, what), dtype)
        if len(value.shape) != rank:
            raise ArgumentError(f"{what}: expected a tensor of rank {rank}, got rank {len(value.shape)} "
                                f"(shape {value.shape})")
        return value

    # -- inspection ---------------------------------------------------------------------------

    def list_operations(self, compact: bool = True, traced: bool = False) -> str:
        """The program's IR as text: after compilation (kernels, buffers, host code), or as
        traced with ``traced=True``."""
        return format_program(self.traced if traced else self.program, with_location=not compact)

    def get_kernels(self) -> list[str]:
        """The source of every kernel, in dispatch order."""
        return list(self.executable.kernel_sources)

    def get_main_function(self) -> str:
        """The host function that allocates buffers and dispatches the kernels."""
        return self.executable.main_source

    def compiled_code(self) -> str:
        """The whole generated source (for the cpu backend: the C++ translation unit)."""
        return self.executable.full_source

    def __repr__(self) -> str:
        return f"<tf.TensorProgram {self.name}: {len(self.get_kernels())} kernel(s) on {self.device.name}>"


def _print_values(names: list, outputs: list) -> list:
    """Print the values of tf.print_value (the last outputs) and return the others."""
    kept = len(outputs) - len(names)
    for name, value in zip(names, outputs[kept:]):
        array = value.numpy
        print(f"{name}: {array.reshape(-1)[0] if array.size == 1 else array}")
    return outputs[:kept]


def _expand_modules(args) -> tuple:
    """Modules passed as arguments stand for their parameters, in order."""
    out = []
    for arg in args:
        expand = getattr(arg, "_program_arguments", None)
        out.extend(expand() if expand is not None else [arg])
    return tuple(out)


def compile(fn=None, *, name: str | None = None):  # noqa: A001
    """Compile a tensor program: a function that creates its inputs with ``tf.input`` (or
    has parameters annotated ``tf.Arg``) and returns tensors. Usable as a decorator::

        @tf.compile
        def add(a: tf.Arg([-1], tf.float32), b: tf.Arg([-1], tf.float32)):
            return a + b
    """
    if fn is None:
        return functools.partial(compile, name=name)
    if not callable(fn):
        raise TensorFrostError(f"tf.compile: expected a function, got {type(fn).__name__}")
    return TensorProgram(fn, name=name)


def run_reference(program: TensorProgram, *arrays) -> list[np.ndarray]:
    """Run the traced IR of a compiled program in the numpy reference interpreter."""
    return interpret(program.traced, [np.asarray(a) for a in arrays])


@contextlib.contextmanager
def deep_enough(program: Program):
    """Compile ``program`` with Python's recursion limit raised as far as its nesting needs
    (the passes and emitters recurse into nested blocks: 300 nested loops need some 2,000
    frames); a program nested deeper than MAX_NESTING is a TraceError at its deepest block."""
    depth, location = _nesting(program)
    if depth > MAX_NESTING:
        raise TraceError(f"{program.name} has {depth} tf.loop / tf.if_cond blocks nested in one another, more than "
                         f"the {MAX_NESTING} a program may have (the deepest is here)", location)
    frame, frames = sys._getframe(), 0
    while frame is not None:
        frame, frames = frame.f_back, frames + 1
    needed = frames + FRAMES_BASE + FRAMES_PER_LEVEL * depth
    raised = needed > sys.getrecursionlimit()
    if raised:
        with _limit_lock:
            if not _raised["compiles"]:
                _raised["limit"] = sys.getrecursionlimit()
            _raised["compiles"] += 1
            sys.setrecursionlimit(max(needed, sys.getrecursionlimit()))
    try:
        yield
    except (RecursionError, InternalError) as exc:  # (a pass's error is an InternalError caused by it)
        if not isinstance(exc, RecursionError) and not isinstance(exc.__cause__, RecursionError):
            raise
        raise TraceError(f"{program.name} has {depth} tf.loop / tf.if_cond blocks nested in one another, more than "
                         "this compile could handle (the deepest is here)", location) from exc
    finally:
        if raised:
            with _limit_lock:
                _raised["compiles"] -= 1
                if not _raised["compiles"]:
                    sys.setrecursionlimit(_raised["limit"])


def _nesting(program: Program) -> tuple:
    """The most blocks nested in one another in ``program``, and where the deepest begins."""
    deepest, location = 0, None
    stack = [(program.root, 0)]
    while stack:
        scope, depth = stack.pop()
        for node in scope.nodes:
            if node.body is not None:
                stack.append((node.body, depth + 1))
                if depth + 1 > deepest:
                    deepest, location = depth + 1, node.location
    return deepest, location
