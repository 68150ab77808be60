"""Running compiled programs on the CPU: buffers in C memory, calls through cffi."""

from __future__ import annotations

import functools
import math
import os
import re
import signal
import threading
import weakref
from sys import getrefcount
from weakref import getweakrefcount

import numpy as np
from cffi import FFI

from .. import optimizations
from ..ir import dtypes as dt
from ..ir.errors import CompileError, generated_code_rejected, runtime_check_error
from ..ir.node import walk
from ..ir.ops import INPUT, KERNEL
from ..ir.target import Target
from ..runtime import MAX_ELEMENTS, Shape, SingleOutput, TensorMemory
from .compiler import CompilerSetupError, build_library, unit_count
from .emit_cpp import CppProgram
from .fast_call import load as load_fast_call
from .fast_call import start_build as start_fast_call_build
from .fast_call import wait_for_build as wait_for_fast_call_build

# Kernels run on pool.c's threads; OpenMP's remain for code without them (codegen mode's
# kernels) and they spin for a while before sleeping. GCC's default (300,000 spins, ~0.3 ms)
# makes them fight the working threads whenever other processes share the cores; ~20 us
# still catches back-to-back regions. A user's setting wins.
os.environ.setdefault("GOMP_SPINCOUNT", "20000")

ffi = FFI()
ffi.cdef("""
typedef struct { void* data; int32_t shape[8]; int32_t rank; } tf_arg;
typedef void (*tf_task_fn)(void* context, long long begin, long long end);
typedef struct { void* (*alloc)(long long bytes); void (*release)(void* data); int* interrupted;
                 void (*parallel)(long long count, tf_task_fn fn, void* context); long long* counters; } tf_allocator;
int tf_main(const tf_arg* in, tf_arg* out, char* error, int error_size, const tf_allocator* allocator);
void* tf_pool_alloc(long long bytes);
void tf_pool_release(void* data);
void tf_pool_trim(void);
void tf_pool_set_threads(int threads);
void tf_pool_parallel(long long count, tf_task_fn fn, void* context);
long long tf_pool_cached_bytes(void);
long long tf_pool_live_bytes(void);
int* tf_watch_interrupts(void);
typedef struct { void* main; const tf_arg* in; tf_arg* out; char* error; int error_size;
                 const tf_allocator* allocator; int offer_count; void* offers[64]; int taken[64];
                 long long elapsed_ns; } tf_frame;
int tf_invoke(tf_frame* frame);
long long* tf_profile_counters(void);
void tf_pool_drop(void* data);
void* memset(void* ptr, int value, size_t size);
void* dlopen(const char* file, int mode);
""")
libc = ffi.dlopen(None)
ERROR_SIZE = 2048  # bytes of a program's error buffer at least (error_size: room for its longest message)
STOPPED_BY_CTRL_C = 2  # tf_main's status when the Ctrl-C flag stopped it
MAX_RANK = 8
SPARE_BYTES = 1 << 20  # outputs up to this size keep their storage for the program's next calls
SPARES = 3  # ... at most this many per output
MAX_OFFERS = 64  # spare storages offered to one call (as in pool.c)
OUTPUT_KINDS = {None: 0, "input": 1, "output": 2}  # fast_call.c's FRESH, INPUT, RESULT: an alias's kind
OFFERS_PER_OUTPUT = 2
POOL_SOURCE = os.path.join(os.path.dirname(__file__), "pool.c")
# calls the Python fast path ran and outputs it placed in offered spares (fast_call.c counts its own)
PYTHON_PATH_COUNTS = {"fast_call": 0, "spare_outputs": 0}


class _Pool:
    """The process-wide buffer pool (pool.c), shared by Python and every program."""

    def __init__(self):
        with open(POOL_SOURCE) as f:
            source = f.read()
        paths = []

        def build(rebuild=False):
            paths.append(build_library(source, "tf_pool", language="c", rebuild=rebuild))
            return paths[-1]
        self.lib = load_library(build(), lambda: build(rebuild=True), "tf_invoke")
        # Never unmapped: at exit the garbage collector may free this lib object before tensors
        # in reference cycles, whose destructors (tf_pool_release, tf_pool_drop) are its functions.
        libc.dlopen(paths[-1].encode(), os.RTLD_LAZY | os.RTLD_NOLOAD | os.RTLD_NODELETE)
        self.allocator = ffi.new("tf_allocator*")
        self.allocator.alloc = self.lib.tf_pool_alloc
        self.allocator.release = self.lib.tf_pool_release
        self.lib.tf_pool_set_threads(_thread_count())
        self.allocator.parallel = self.lib.tf_pool_parallel
        # what generated code counts with TF_COUNT (optimizations that fire at run time)
        self.counters = ffi.new("long long[]", len(optimizations.NAMES))
        self.allocator.counters = self.counters
        optimizations.add_counter_source(self.read_counters, self.reset_counters)
        # Ctrl-C stops a running program only while Python's own handler is the one installed
        # (and from the main thread, where signal handlers are set); otherwise it waits.
        if threading.current_thread() is threading.main_thread() and \
                signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self.allocator.interrupted = self.lib.tf_watch_interrupts()

    def read_counters(self) -> dict:
        """What fired at run time: in generated code (TF_COUNT), and on the call paths."""
        found = {name: int(self.counters[k]) for k, name in enumerate(optimizations.NAMES)}
        native = self.fast_call.counts() if "fast_call" in self.__dict__ and self.fast_call else (0, 0)
        found["fast_call"] += native[0] + PYTHON_PATH_COUNTS["fast_call"]
        found["spare_outputs"] += native[1] + PYTHON_PATH_COUNTS["spare_outputs"]
        return found

    def reset_counters(self) -> None:
        ffi.memmove(self.counters, bytes(8 * len(optimizations.NAMES)), 8 * len(optimizations.NAMES))
        if "fast_call" in self.__dict__ and self.fast_call:
            self.fast_call.counts(0)
        PYTHON_PATH_COUNTS.update(dict.fromkeys(PYTHON_PATH_COUNTS, 0))

    @functools.cached_property
    def fast_call(self):
        """fast_call.c's module, or None (see fast_call.py)."""
        return load_fast_call(_address(ffi.addressof(self.lib, "tf_invoke")))

    def own(self, ptr, count: int, itemsize: int = 4):
        """Return ``ptr`` (a buffer of ``count`` elements of ``itemsize`` bytes) to the pool when Python drops it."""
        return ffi.gc(ptr, self.lib.tf_pool_release, size=buffer_bytes(count, itemsize))

    def allocate(self, count: int, itemsize: int = 4):
        size = buffer_bytes(count, itemsize)
        ptr = self.lib.tf_pool_alloc(size)
        if ptr == ffi.NULL:
            raise MemoryError(f"out of memory allocating {size} bytes")
        return self.own(ptr, count, itemsize)


def _address(pointer) -> int:
    return int(ffi.cast("intptr_t", pointer))


def _storage_samples() -> tuple:
    """A storage of each kind CPU tensors hold, with its address: blocks owned through ffi.gc,
    numpy arrays' memory (ffi.from_buffer)."""
    owned = ffi.gc(ffi.cast("void*", 4096), lambda _: None)
    shared = ffi.from_buffer(np.zeros(1, np.float32), require_writable=False)
    return tuple((sample, _address(sample)) for sample in (owned, shared))


def _thread_count() -> int:
    """Threads for kernels: ``OMP_NUM_THREADS`` (its first number) if set, else the cores this
    process may run on."""
    setting = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    if setting.isdigit() and int(setting) > 0:
        return min(int(setting), 1 << 16)  # (pool.c caps it lower; a C int must hold it)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _interrupted() -> None:
    """A program stopped by Ctrl-C: Python's own handler was called too, so running any
    Python function raises KeyboardInterrupt; if a handler of the user's ran and did not
    raise, or the program ran outside the main thread, raise it here."""
    _run_pending_signal_handlers()
    raise KeyboardInterrupt


def _run_pending_signal_handlers() -> None:
    pass  # entering a Python function is where the interpreter runs them


def buffer_bytes(count: int, itemsize: int = 4) -> int:
    """Bytes of a buffer of ``count`` elements of ``itemsize`` bytes, as the C++ prelude computes them."""
    return (max(count * itemsize, 1) + 63) // 64 * 64


def load_library(path: str, rebuild, entry: str):
    """``ffi.dlopen(path)``, which must define the function ``entry``; a library the loader
    refuses is rebuilt once (``rebuild()`` builds it again and returns its path), so a bad
    cache entry never fails for good."""
    try:
        lib = ffi.dlopen(path)
    except OSError:
        path = rebuild()
        try:
            lib = ffi.dlopen(path)
        except OSError as error:
            raise CompilerSetupError(f"the compiled library {path} cannot be loaded: {error}") from None
    try:
        ffi.addressof(lib, entry)
    except AttributeError:  # a $CXX that is not a C++ compiler, or one that drops exported symbols
        raise CompilerSetupError(f"the library {path} has no function {entry}: the C++ compiler did not build what "
                                 "it was given (check $CXX)") from None
    return lib


# Libraries our programs link whose threads or process-wide state outlive a call: OpenMP
# workers stay parked in their runtime's code between parallel regions, so closing the last
# program that loaded it would unmap code those threads are running.
_RESIDENT = (b"libgomp.so.1", b"libomp.so", b"libomp.so.5", b"libiomp5.so", b"libstdc++.so.6", b"libgcc_s.so.1")


def _unload(lib) -> None:
    """Close a dropped program's library, once the runtimes it loaded are made permanent."""
    try:
        dlopen = libc.dlopen
    except AttributeError:  # no dlopen to pin them with: keep the library rather than risk it
        return
    for name in _RESIDENT:  # RTLD_NOLOAD: only those already loaded; RTLD_NODELETE: for good
        dlopen(name, os.RTLD_LAZY | os.RTLD_NOLOAD | os.RTLD_NODELETE)
    try:
        ffi.dlclose(lib)
    except ValueError:
        pass  # already closed


_pool: _Pool | None = None


def pool() -> _Pool:
    global _pool
    if _pool is None:
        _pool = _Pool()
    return _pool


class CpuExecutable:
    def __init__(self, backend, program, source: CppProgram, library_path: str, lib=None):
        self.backend = backend
        self.lib = ffi.dlopen(library_path) if lib is None else lib
        # Unmapped when the program is dropped: only this object and its native caller call
        # into the library, and no call can be running once both are unreachable (buffers
        # belong to the pool's library). Not at exit, when OpenMP threads may still be winding down.
        self.library_holder = _LibraryHolder()
        weakref.finalize(self.library_holder, _unload, self.lib).atexit = False
        self.library_path = library_path
        self.kernel_sources = source.kernel_sources
        self.kernel_count = len(source.kernel_sources)
        self.main_source = source.main_source
        self.full_source = source.full_source
        self.calls_math_core = source.uses_math_core  # (its library needs that core loaded first)
        self.pool = pool()
        outputs = program.outputs
        self.outputs = []  # per output: (dtype, rank, alias) where alias says which tensor it is
        for k, out in enumerate(outputs):
            if out.op is INPUT:
                alias = ("input", out.attrs["index"])
            elif out in outputs[:k]:
                alias = ("output", outputs.index(out))
            else:
                alias = None
            self.outputs.append((out.dtype, out.rank, alias))
        self.ins = ffi.new("tf_arg[]", max(len(program.inputs), 1))
        self.outs = ffi.new("tf_arg[]", max(len(outputs), 1))
        self.error_size = error_size(source.full_source)
        self.error = ffi.new("char[]", self.error_size)
        self.lock = threading.Lock()
        # Programs never write their inputs: a numpy array an output does not return can be read
        # in place. Per input: (its slot, rank, dtype, the numpy dtype of arrays read in place or None).
        returned = {alias[1] for *_, alias in self.outputs if alias and alias[0] == "input"}
        self.in_slots = [(self.ins[k], node.rank, node.dtype, node.dtype.storage
                          if k not in returned and np.dtype(node.dtype.numpy) is node.dtype.storage else None)
                         for k, node in enumerate(program.inputs)]
        self.frame = ffi.new("tf_frame*", {"main": ffi.cast("void*", ffi.addressof(self.lib, "tf_main")),
                                           "in": self.ins, "out": self.outs, "error": self.error,
                                           "error_size": self.error_size, "allocator": self.pool.allocator})
        self.invoke = self.pool.lib.tf_invoke
        # The out array's shapes and pointers and the frame's offers, read and written as words.
        outs, frame = memoryview(ffi.buffer(self.outs)), memoryview(ffi.buffer(self.frame))
        self.offer_count = frame[ffi.offsetof("tf_frame", "offer_count"):].cast("i")
        self.offers = frame[ffi.offsetof("tf_frame", "offers"):].cast("q")[:MAX_OFFERS]
        self.elapsed_ns = frame[ffi.offsetof("tf_frame", "elapsed_ns"):].cast("q")
        stride, first = ffi.sizeof("tf_arg"), ffi.offsetof("tf_arg", "shape")
        fresh = [k for k, (*_, alias) in enumerate(self.outputs) if alias is None]
        self.fresh = [(self.outs[k], outs[k * stride + first:][:4 * self.outputs[k][1]].cast("i"),
                       outs[k * stride:].cast("q"), self.outputs[k][0], [], [None, None]) for k in fresh]
        # per output (as many as MAX_OFFERS allows): (tensor, address) of its earlier small outputs
        self.spares = [entry[4] for entry in self.fresh][:MAX_OFFERS // OFFERS_PER_OUTPUT]
        self.spare_bytes = SPARE_BYTES if optimizations.enabled("spare_outputs") else -1  # -1: none kept
        self.all_fresh = len(self.fresh) == len(self.outputs)
        self.fast = optimizations.enabled("fast_call")
        self.native = self._native_caller(fresh) if self.fast else None
        if self.native is not None:  # one lock for both paths, as they share the frame
            self.lock = _CallerLock(self.pool.fast_call, self.native)

    def _native_caller(self, fresh: list):
        """fast_call.c's caller for this program (it reads the same slots, frame and spares), or
        None: Python's path then serves every call. It must not hold the executable (a capsule
        is no garbage collector's container, so a cycle through it would never be freed)."""
        module = self.pool.fast_call
        if module is None:
            return None
        offsets = [ffi.offsetof("tf_frame", field) for field in ("offers", "offer_count")]
        frame = _address(self.frame)
        fresh_index = {k: j for j, k in enumerate(fresh)}
        results = [(OUTPUT_KINDS[None], fresh_index[k]) if alias is None else (OUTPUT_KINDS[alias[0]], alias[1])
                   for k, (*_, alias) in enumerate(self.outputs)]
        return module.make(
            (frame, _address(self.ins), _address(self.outs), frame + offsets[0], frame + offsets[1],
             _address(self.error), self.error_size, ffi.sizeof("tf_arg")),
            (TensorMemory, SingleOutput, np.ndarray, Shape, self.backend, runtime_check_error),
            tuple((dtype, rank, array_dtype) for _, rank, dtype, array_dtype in self.in_slots),
            tuple((entry[3], entry[4], k) for entry, k in zip(self.fresh, fresh)), tuple(results),
            _storage_samples(), functools.partial(_new_output, self.fresh, self.pool.lib.tf_pool_drop, self.backend,
                                                  self.spare_bytes),
            (self.frame, self.ins, self.outs, self.error, self.library_holder))

    def __call__(self, memories) -> list:
        """The outputs for checked arguments: tensors of this backend with their inputs' dtypes and ranks."""
        lock = self.lock
        lock.acquire()  # (cheaper than a with block)
        try:
            for entry, memory in zip(self.in_slots, memories):
                entry[0].data = memory.storage
                _write_shape(entry[0], memory.shape)
            return self._run(memories)
        finally:
            lock.release()

    @property
    def call_fast(self):
        """A function of the arguments that gives the outputs when no argument needs converting,
        else None (nothing run): fast_call.c's where it was built; None when the "fast_call"
        optimization was off when the program was built (every call takes the checked path)."""
        if not self.fast:
            return None
        if self.native is None:
            return self._call_python
        return functools.partial(self.pool.fast_call.run, self.native)

    def _call_python(self, args: tuple) -> list | None:
        """As fast_call.c's run: the outputs, or None (nothing run) unless each argument is a
        tensor of this backend with its input's dtype and rank or a numpy array the program can
        read in place; the checked path then converts the arguments or says what is wrong."""
        if len(args) != len(self.in_slots):
            return None
        backend, lock = self.backend, self.lock
        lock.acquire()
        try:
            for entry, value in zip(self.in_slots, args):
                kind = type(value)
                if kind is TensorMemory or kind is SingleOutput:
                    if value.backend is not backend or value.dtype is not entry[2] or len(value.shape) != entry[1]:
                        return None
                    entry[0].data = value.storage
                    _write_shape(entry[0], value.shape)
                elif not _read_in_place(value, entry):
                    return None
            PYTHON_PATH_COUNTS["fast_call"] += 1
            return self._run(args)
        finally:
            lock.release()

    def _run(self, arguments) -> list:
        """Call the program on what the slots hold (``arguments``, for outputs that return one)."""
        offered = self._offer()
        status = self.invoke(self.frame)
        if status:
            self._fail(status)
        backend, drop, outputs = self.backend, self.pool.lib.tf_pool_drop, []
        for j, entry in enumerate(self.fresh):
            memory = offered.get(entry[2][0])
            if memory is None:
                memory = _new_output(self.fresh, drop, backend, self.spare_bytes, j)
            else:  # a spare no one holds (another output's may be of another dtype)
                memory.shape, memory.dtype = _output_shape(entry[1], entry[5]), entry[3]
                PYTHON_PATH_COUNTS["spare_outputs"] += 1
            outputs.append(memory)
        return outputs if self.all_fresh else self._with_aliases(arguments, outputs)

    def _fail(self, status: int):
        if status == STOPPED_BY_CTRL_C:  # (fast_call.c's failed() says the same)
            _interrupted()
        raise runtime_check_error(ffi.string(self.error).decode(errors="replace"))

    def last_execution_time(self) -> float:
        """Milliseconds the last call's native part took."""
        return self.elapsed_ns[0] / 1e6

    def kernel_profile(self) -> list[tuple[float, int, int]]:
        """A profiling build's (seconds, launches, bytes) per kernel since the last read,
        in dispatch order (``BuildOptions.profile``); the counters start again from zero."""
        words = np.frombuffer(ffi.buffer(self.lib.tf_profile_counters(), 8 * 3 * self.kernel_count), np.int64)
        rows = [(int(ns) / 1e9, int(launches), int(moved)) for ns, launches, moved in words.reshape(-1, 3)]
        words[:] = 0
        return rows

    def _offer(self) -> dict:
        """Offer the call the storage of spare outputs no one holds, two per output (an
        intermediate buffer of the same size may take one first): {address: spare tensor}."""
        offers, count, offered = self.offers, 0, {}
        for spares in self.spares:
            first = count
            for spare in spares:
                # Held by the spare alone (and getrefcount's argument): no tensor, view of its
                # storage or weak reference can see the tensor's values change.
                if getrefcount(spare[0]) == 2 and getrefcount(spare[0].storage) == 2 and not getweakrefcount(spare[0]):
                    offers[count] = spare[1]
                    offered[spare[1]] = spare[0]
                    count += 1
                    if count - first == OFFERS_PER_OUTPUT:
                        break
        self.offer_count[0] = count
        return offered

    def _with_aliases(self, arguments, fresh: list) -> list:
        results = []
        for _, _, alias in self.outputs:
            if alias is None:
                results.append(fresh.pop(0))
            else:
                results.append(arguments[alias[1]] if alias[0] == "input" else results[alias[1]])
        return results


class _LibraryHolder:
    """Keeps a program's library loaded while it lives (see CpuExecutable)."""


class _CallerLock:
    """fast_call.c's lock of a program's caller, for the Python path's calls."""

    __slots__ = ("acquire", "release")

    def __init__(self, module, caller):
        self.acquire = functools.partial(module.acquire, caller)
        self.release = functools.partial(module.release, caller)


def error_size(source: str) -> int:
    """Bytes of error buffer that hold the longest message ``source`` (a program's C++) can
    write, whole. Each message is one string literal (``c_string`` escapes line breaks), so
    none is longer than its line, and each ``{k}`` in it becomes at most 20 digits; the
    prelude's out-of-memory message adds its own words to a buffer's name."""
    longest = max((len(line) + 17 * line.count("{") for line in source.splitlines()), default=0)
    return max(ERROR_SIZE, longest + 128)


def _read_in_place(value, entry: tuple) -> bool:
    """Point the slot at a numpy array's memory if the program can read it there: C-contiguous,
    aligned, of the input's storage dtype and rank, not empty (the caller's arguments keep it
    alive through the call)."""
    if type(value) is not np.ndarray or value.dtype is not entry[3] or value.ndim != entry[1]:
        return False
    flags = value.flags
    if not (flags.c_contiguous and flags.aligned and 0 < value.size <= MAX_ELEMENTS):
        return False
    entry[0].data = ffi.from_buffer(value, require_writable=False)
    _write_shape(entry[0], value.shape)
    return True


def _write_shape(slot, shape: tuple) -> None:
    slot.rank = len(shape)
    slot.shape[0:len(shape)] = shape


def _output_shape(words, last: list) -> Shape:
    """The Shape an output slot's words hold: the last one when they are the same."""
    if words.tobytes() != last[0]:
        last[:] = words.tobytes(), Shape(words)
    return last[1]


def _new_output(fresh: list, drop, backend, spare_bytes: int, j: int) -> TensorMemory:
    """Fresh output j over the storage the program allocated: owned by Python (``drop`` gives it
    back to the pool) and, if at most ``spare_bytes``, kept as a spare to offer to later calls (the newest)."""
    slot, words, pointer, dtype, spares, last = fresh[j]
    memory = TensorMemory(_output_shape(words, last), dtype, ffi.gc(slot.data, drop), backend)
    if buffer_bytes(math.prod(words), dtype.itemsize) <= spare_bytes:
        spares.append((memory, pointer[0]))
        del spares[:-SPARES]
    return memory


class CpuBackend:
    name = "cpu"
    target = Target("cpu", ("cpp",))

    def upload(self, array: np.ndarray, dtype: dt.DType) -> TensorMemory:
        if array.ndim > MAX_RANK:
            raise ValueError(f"tensors have at most {MAX_RANK} axes, got {array.ndim}")
        words = np.ascontiguousarray(array, dtype=dtype.storage)
        ptr = pool().allocate(words.size, dtype.itemsize)
        if words.size:
            ffi.memmove(ptr, ffi.from_buffer(words), words.nbytes)
        else:
            libc.memset(ptr, 0, 64)
        return TensorMemory(array.shape, dtype, ptr, self)

    def memory_usage(self) -> tuple[int, int]:
        """``(allocated, unused)`` bytes: buffers in use plus those the pool keeps for reuse,
        and the latter alone."""
        cached = int(pool().lib.tf_pool_cached_bytes())
        return int(pool().lib.tf_pool_live_bytes()) + cached, cached

    def share(self, array: np.ndarray, dtype: dt.DType) -> TensorMemory:
        """A tensor over ``array``'s memory, no copy: ``array`` is C-contiguous, non-empty and
        holds ``dtype``'s elements. The tensor keeps ``array`` (and what owns it) alive."""
        return TensorMemory(array.shape, dtype, ffi.from_buffer(array, require_writable=False), self)

    def host_view(self, memory: TensorMemory) -> np.ndarray:
        """A numpy array over the tensor's memory, no copy (it keeps the memory alive)."""
        words = ffi.buffer(memory.storage, max(memory.size * memory.dtype.itemsize, 1))
        return np.frombuffer(words, dtype=memory.dtype.storage, count=memory.size).reshape(memory.shape)

    def download(self, memory: TensorMemory) -> np.ndarray:
        count = memory.size
        words = np.frombuffer(ffi.buffer(memory.storage, max(count * memory.dtype.itemsize, 1)),
                              dtype=memory.dtype.storage, count=count).reshape(memory.shape)
        return words != 0 if memory.dtype is dt.bool1 else words.copy()

    def build(self, program, options) -> CpuExecutable:
        source = CppProgram(program, profile=options.profile)
        units = source.units(unit_count(source.cost))
        start_fast_call_build()  # beside this program's g++ run, the first time
        try:
            path = build_library(units, program.name, options.compiler_flags)
        except CompilerSetupError:
            raise  # $CXX, PATH or the timeout: not a problem of the generated code
        except CompileError as error:
            log = error.message
            if options.compiler_flags:
                log = f"(compiled with your flags {options.compiler_flags!r}: check them first)\n{log}"
            raise _rejected(program, log) from None
        finally:
            wait_for_fast_call_build()  # its compiler's processes never outlive this call
        lib = load_library(path, lambda: build_library(units, program.name, options.compiler_flags, rebuild=True),
                           "tf_main")
        return CpuExecutable(self, program, source, path, lib)


def _rejected(program, log: str) -> CompileError:
    """g++'s error, pointed at the user's lines of the kernel (or host code) it is in."""
    function = re.search(r"In function [^\w]*(?:\w+\s+)*?(\w+)\(", log)
    name = function.group(1) if function else ""
    kernels = [n for n in program.walk() if n.op is KERNEL
               and (name == n.contract.name or name.startswith(f"{n.contract.name}_"))]
    kernel = max(kernels, key=lambda n: len(n.contract.name), default=None)  # p_k1 is not p_k12
    if kernel is not None:
        return generated_code_rejected("the C++ compiler", f"kernel {kernel.contract.name}", walk(kernel.body), log)
    return generated_code_rejected("the C++ compiler", f"the host code of {program.name}", program.walk(), log)
