"""``tf.compile``: trace a function, run the compiler passes, build it for the device."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import keyword
import sys
import threading
import time
from collections.abc import Callable
from time import perf_counter

import numpy as np

from . import backend as devices
from . import optimizations, profiler, tracebacks
from .backend_codegen import mode as codegen_mode
from .backend_cpu import program_cache
from .backend_cpu.compiler import CompileStats
from .ir.errors import ArgumentError, InternalError, TensorFrostError, TraceError
from .ir.interpreter import run as interpret
from .ir.node import Program, clone_program, walk
from .ir.ops import KERNEL
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
    tensor, which also unpacks: ``C = prog(A)`` and ``C, = prog(A)`` both work).

    >>> def scaled_sum(a: tf.Arg([-1], tf.float32), b: tf.Arg([-1], tf.float32)):
    ...     return a * 2.0 + b
    >>> prog = tf.compile(scaled_sum)
    >>> prog
    <tf.TensorProgram scaled_sum: 1 kernel(s) on cpu>
    >>> prog(np.arange(3, dtype=np.float32), np.ones(3, np.float32)).numpy
    array([1., 3., 5.], dtype=float32)
    >>> prog(a=np.ones(2, np.float32), b=np.ones(2, np.float32)).tolist()  # by keyword
    [3.0, 3.0]
    """

    @tracebacks.user_facing
    def __init__(self, fn: Callable, name: str | None = None, call: Callable | None = None,
                 device: devices.Device | None = None):
        start = time.perf_counter()
        options = devices.build_options()
        traced = trace(fn, name, call=call, debug=options.debug)
        self.name = traced.name
        self.input_names = list(traced.input_names)
        self.input_nodes = [(n.rank, n.dtype) for n in traced.inputs]
        self.returns_tuple = traced.returns_tuple
        self.returns_one_list = traced.returns_one_list
        self.printed = [name for name, _ in traced.printed]
        self._run_time = (0.0, 0.0)
        self.trace_time = time.perf_counter() - start
        functools.update_wrapper(self, fn, updated=())  # __name__, __doc__, __wrapped__, ... of the function
        self.__signature__ = _signature(self.input_names)
        self.device = device or devices.current_device()  # (eager operations pass their tensor's)
        self.backend = devices.backend_for(self.device)
        self.backend.target.check(traced)
        traced.max_buffers = self.backend.target.max_buffers
        self._options = options
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
        native_start, passes = CompileStats.compile_seconds, 0.0
        cache = "not used" if cache_key is None else "hit" if self.executable is not None else "miss"
        if self.executable is None:
            self.traced = clone_program(traced)
            with optimizations.recording() as fired:
                self._program, self._pass_times = compile_program(traced)
                self.backend.target.check_atomics(self._program)
                self.executable = self.backend.build(self._program, options)
            program_cache.store(cache_key, self._program, self.executable, fired)
            passes = sum(self._pass_times.values())
        profiler.log_compile(self.name, len(self.executable.kernel_sources), self.trace_time, passes,
                             CompileStats.compile_seconds - native_start, cache)
        self.optimizations_fired = dict(fired)  # what its compile changed (tf.optimizations)
        codegen_mode.record(self.executable, self.device)  # tf.get_all_generated_kernels(), as upstream's

    @property
    def program(self) -> Program:
        """The compiled IR (compiled again from the traced IR when a cache hit skipped the passes).

        >>> prog = tf.compile(lambda: tf.input([-1], tf.float32) + 1.0, name="plus_one")
        >>> prog.program.name
        'plus_one'
        """
        if self._program is None:
            with optimizations.muted(), optimizations.exactly_disabled(self._disabled), deep_enough(self.traced):
                self._program, self._pass_times = compile_program(clone_program(self.traced))
        return self._program

    @property
    def pass_times(self) -> dict:
        """Seconds each compiler pass took on this program (compiled on first use after a cache hit).

        >>> prog = tf.compile(lambda: tf.input([-1], tf.float32) + 1.0)
        >>> list(prog.pass_times)[:3]
        ['autodiff', 'protect_inputs', 'simplify']
        >>> all(seconds >= 0 for seconds in prog.pass_times.values())
        True
        """
        _ = self.program
        return self._pass_times

    # -- calling -----------------------------------------------------------------------------

    def __call__(self, *args: object, **by_name: object) -> TensorMemory | tuple[TensorMemory, ...]:
        """Run the program on its inputs (tensors, numpy arrays or nested lists), given in the
        order of its ``tf.input`` calls or by the names of its parameters.

        >>> def min_max(x: tf.Arg([-1], tf.float32)):
        ...     return [tf.min(x), tf.max(x)]
        >>> low, high = tf.compile(min_max)(np.array([3, -1, 2], np.float32))
        >>> low.numpy, high.numpy
        (array([-1.], dtype=float32), array([3.], dtype=float32))
        """
        try:  # (costs nothing until it catches)
            if by_name:
                args = self._bound(args, by_name)
            call_fast = self._call_fast
            outputs = call_fast(args) if call_fast is not None else self._call_with_tensors(args)
            if outputs is None:
                outputs = self._run(self._checked_arguments(args))
            if self._plain:
                return outputs[0]
            return self._results(outputs)
        except TensorFrostError as exc:  # the user's frames only
            tracebacks.hide_internal_frames(exc)
            raise

    def _results(self, outputs: list):
        """What a call returns, from the executable's outputs (of a program that is not plain)."""
        if self.printed:
            outputs = _print_values(self.printed, outputs)
        if self.returns_one_list:
            single = outputs[0]
            return SingleOutput(single.shape, single.dtype, single.storage, single.backend)
        return tuple(outputs) if self.returns_tuple else outputs[0]

    def profile(self, *args: object) -> profiler.Profile:
        """Run the program once on ``args`` under ``tf.profile()`` and return the profile.

        >>> prog = tf.compile(lambda: tf.input([-1], tf.float32) * 3.0, name="triple")
        >>> p = prog.profile(np.ones(1000, np.float32))
        >>> [(k.kernel, k.launches) for k in p.kernels]
        [('triple_k0', 1)]
        """
        with profiler.profile() as found:
            self(*args)
        return found

    @tracebacks.user_facing
    def _profiled_call(self, *args, **by_name):
        """A call while a ``tf.profile`` is open (``_profiling``): the profiling build runs,
        on checked arguments, and its kernels' counts go to the open profiles."""
        if by_name:
            args = self._bound(args, by_name)
        build = self._profiling_build
        memories = self._checked_arguments(args)
        start = perf_counter()
        outputs = build(memories)
        seconds = perf_counter() - start
        kernel_profile = getattr(build, "kernel_profile", None)  # (none on the interpreter)
        profiler.record(self, self.name, self._kernel_sites, None if kernel_profile is None else kernel_profile(),
                        seconds)
        return outputs[0] if self._plain else self._results(outputs)

    @functools.cached_property
    def _profiling_build(self):
        """This program built with its kernels timed (``BuildOptions.profile``)."""
        program = self.program
        with optimizations.muted(), optimizations.exactly_disabled(self._disabled), deep_enough(self.traced):
            return self.backend.build(program, dataclasses.replace(self._options, profile=True))

    @functools.cached_property
    def _kernel_sites(self) -> list[tuple[str, tuple]]:
        """Per kernel, in dispatch order: its name and the user's (file, line) pairs it computes
        (none for a copy the passes made)."""
        kernels = sorted((n for n in self.program.walk() if n.op is KERNEL), key=lambda k: k.contract.index)
        return [(k.contract.name, tuple(sorted({(n.location.filename, n.location.lineno)
                                                for n in (k, *walk(k.body)) if n.location is not None})))
                for k in kernels]

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

    def _bound(self, args: tuple, by_name: dict) -> tuple:
        """The arguments in input order, from positional ones and ones given by keyword."""
        try:
            bound = self.__signature__.bind(*args, **by_name)
        except TypeError as exc:
            raise ArgumentError(f"{self.name}{self.__signature__}: {exc}") from None
        return bound.args

    def get_last_execution_time(self) -> float:
        """Milliseconds the last call spent running the program (upstream's name): wall time
        from the first kernel to the outputs, arguments already converted.

        >>> prog = tf.compile(lambda: tf.input([-1], tf.float32) * 3.0)
        >>> _ = prog(np.ones(1000, np.float32))
        >>> prog.get_last_execution_time() >= 0.0
        True
        """
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
        traced with ``traced=True``.

        >>> def double(x: tf.Arg([-1], tf.float32)):
        ...     return x * 2.0
        >>> print(tf.compile(double).list_operations(traced=True))
        program double(x_...: float32):
          x_...: float32[x_shape0_...] = input() index=0
          x_shape0_...: int32[] = input_dim(x_...) axis=0
          v...: float32[x_shape0_...] = mul(x_..., 2.0)
          return v...
        """
        return format_program(self.traced if traced else self.program, with_location=not compact)

    def get_kernels(self) -> list[str]:
        """The source of every kernel, in dispatch order.

        >>> def wave(u: tf.Arg([-1], tf.float32)):
        ...     i, = u.indices
        ...     return u[i - 1] + u[i + 1] - 2.0 * u
        >>> kernels = tf.compile(wave).get_kernels()
        >>> len(kernels), "wave_k0" in kernels[0]
        (1, True)
        """
        return list(self.executable.kernel_sources)

    def get_main_function(self) -> str:
        """The host function that allocates buffers and dispatches the kernels.

        >>> prog = tf.compile(lambda: tf.input([-1], tf.float32) * 3.0)
        >>> "tf_main" in prog.get_main_function()
        True
        """
        return self.executable.main_source

    def compiled_code(self) -> str:
        """The whole generated source (for the cpu backend: the C++ translation unit).

        >>> prog = tf.compile(lambda: tf.input([-1], tf.float32) * 3.0)
        >>> source = prog.compiled_code()
        >>> prog.get_main_function() in source, prog.get_kernels()[0] in source
        (True, True)
        """
        return self.executable.full_source

    def __repr__(self) -> str:
        return f"<tf.TensorProgram {self.name}: {len(self.get_kernels())} kernel(s) on {self.device.name}>"


_PLAIN_CALL = TensorProgram.__call__


def _profiling(on: bool) -> None:
    """Programs' calls take the profiled path while a profile is open, so that the plain path
    stays as it is, with nothing to check, when none is."""
    TensorProgram.__call__ = TensorProgram._profiled_call if on else _PLAIN_CALL


profiler.on_toggle(_profiling)


def build_conditions() -> tuple:
    """What a compiled program depends on besides its function and device: the build options
    (debug mode, compiler flags) and the optimizations switched off. The caches of compiled
    programs (eager operations, random generators) key on it, so that a program compiled
    before ``tf.initialize(..., debug=True)`` or in ``tf.optimizations.disabled(...)`` is not
    reused outside."""
    return devices.build_options(), optimizations.disabled_set()


def _signature(input_names: list[str]) -> inspect.Signature:
    """The call signature: one parameter per input, in order. An input whose name cannot be a
    keyword (not an identifier, or repeated) is positional-only, and so is every one before it."""
    usable = [name.isidentifier() and not keyword.iskeyword(name) and name not in input_names[:k]
              for k, name in enumerate(input_names)]
    positional = max((k for k, ok in enumerate(usable) if not ok), default=-1)
    taken = {name for name, ok in zip(input_names, usable) if ok}
    parameters = []
    for k, (name, ok) in enumerate(zip(input_names, usable)):
        if not ok:
            name = next(f"input{k}{'_' * n}" for n in range(len(taken) + 1) if f"input{k}{'_' * n}" not in taken)
            taken.add(name)
        kind = inspect.Parameter.POSITIONAL_ONLY if k <= positional else inspect.Parameter.POSITIONAL_OR_KEYWORD
        parameters.append(inspect.Parameter(name, kind))
    return inspect.Signature(parameters)


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


@tracebacks.user_facing
def compile(fn: Callable | None = None, *,  # noqa: A001
            name: str | None = None) -> TensorProgram | Callable[[Callable], TensorProgram]:
    """Compile a tensor program: a function that creates its inputs with ``tf.input`` (or
    has parameters annotated ``tf.Arg``) and returns tensors. Usable as a decorator::

        @tf.compile
        def add(a: tf.Arg([-1], tf.float32), b: tf.Arg([-1], tf.float32)):
            return a + b

    ``name`` names the program (its kernels, errors, the profile) instead of the function.

    >>> @tf.compile
    ... def add(a: tf.Arg([-1], tf.float32), b: tf.Arg([-1], tf.float32)):
    ...     return a + b
    >>> add(np.array([1, 2, 3], np.float32), np.array([10, 20, 30], np.float32)).numpy
    array([11., 22., 33.], dtype=float32)

    The same program in upstream's style, its inputs made by ``tf.input``:

    >>> def matvec():
    ...     A = tf.input([-1, -1], tf.float32)
    ...     N, M = A.shape
    ...     x = tf.input([M], tf.float32)
    ...     return tf.matmul(A, tf.unsqueeze(x, 1))
    >>> mv = tf.compile(matvec, name="matvec")
    >>> mv(np.eye(2, dtype=np.float32) * 3, np.array([1, 2], np.float32)).numpy
    array([[3.],
           [6.]], dtype=float32)
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
