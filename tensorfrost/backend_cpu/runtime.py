"""Running compiled programs on the CPU: buffers in C memory, calls through cffi."""

from __future__ import annotations

import os

import numpy as np
from cffi import FFI

from ..ir import dtypes as dt
from ..ir.errors import RuntimeCheckError
from ..runtime import TensorMemory
from .compiler import build_library
from .emit_cpp import CppProgram

ffi = FFI()
ffi.cdef("""
typedef struct { void* data; int32_t shape[8]; int32_t rank; } tf_arg;
typedef struct { void* (*alloc)(long long bytes); void (*release)(void* block, long long bytes); } tf_allocator;
int tf_main(const tf_arg* in, tf_arg* out, char* error, int error_size, const tf_allocator* allocator);
void* tf_pool_alloc(long long bytes);
void tf_pool_release(void* block, long long bytes);
void tf_pool_trim(void);
long long tf_pool_cached_bytes(void);
void* memset(void* ptr, int value, size_t size);
""")
libc = ffi.dlopen(None)
ERROR_SIZE = 2048
MAX_RANK = 8
POOL_SOURCE = os.path.join(os.path.dirname(__file__), "pool.cpp")


class _Pool:
    """The process-wide buffer pool (pool.cpp), shared by Python and every program."""

    def __init__(self):
        with open(POOL_SOURCE) as f:
            self.lib = ffi.dlopen(build_library(f.read(), "tf_pool"))
        self.allocator = ffi.new("tf_allocator*")
        self.allocator.alloc = self.lib.tf_pool_alloc
        self.allocator.release = self.lib.tf_pool_release

    def own(self, ptr, count: int):
        """Return ``ptr`` (a buffer of ``count`` words) to the pool when Python drops it."""
        size = buffer_bytes(count)
        release = self.lib.tf_pool_release
        return ffi.gc(ptr, lambda p: release(p, size), size=size)

    def allocate(self, count: int):
        size = buffer_bytes(count)
        ptr = self.lib.tf_pool_alloc(size)
        if ptr == ffi.NULL:
            raise MemoryError(f"out of memory allocating {size} bytes")
        return self.own(ptr, count)


def buffer_bytes(count: int) -> int:
    """Bytes of a buffer of ``count`` 32-bit words, as the C++ prelude computes them."""
    return (max(count, 1) * 4 + 63) // 64 * 64


_pool: _Pool | None = None


def pool() -> _Pool:
    global _pool
    if _pool is None:
        _pool = _Pool()
    return _pool


class CpuExecutable:
    def __init__(self, backend, program, source: CppProgram, library_path: str):
        self.backend = backend
        self.lib = ffi.dlopen(library_path)
        self.library_path = library_path
        self.kernel_sources = source.kernel_sources
        self.main_source = source.main_source
        self.full_source = source.full_source
        self.output_dtypes = [o.dtype for o in program.outputs]
        self.n_outputs = len(program.outputs)
        self.pool = pool()

    def __call__(self, memories: list) -> list:
        ins = ffi.new("tf_arg[]", max(len(memories), 1))
        for k, memory in enumerate(memories):
            slot = ins[k]
            slot.data = memory.storage
            shape = memory.shape
            slot.rank = len(shape)
            for axis, size in enumerate(shape):
                slot.shape[axis] = size
        outs = ffi.new("tf_arg[]", self.n_outputs)
        error = ffi.new("char[]", ERROR_SIZE)
        if self.lib.tf_main(ins, outs, error, ERROR_SIZE, self.pool.allocator) != 0:
            raise RuntimeCheckError(ffi.string(error).decode(errors="replace"))
        by_address = {int(ffi.cast("uintptr_t", m.storage)): m for m in memories}
        results = []
        for k in range(self.n_outputs):
            slot = outs[k]
            address = int(ffi.cast("uintptr_t", slot.data))
            found = by_address.get(address)
            if found is None:
                shape = tuple(slot.shape[a] for a in range(slot.rank))
                storage = self.pool.own(slot.data, int(np.prod(shape, dtype=np.int64)))
                found = TensorMemory(shape, self.output_dtypes[k], storage, self.backend)
                by_address[address] = found
            results.append(found)
        return results


class CpuBackend:
    name = "cpu"

    def upload(self, array: np.ndarray, dtype: dt.DType) -> TensorMemory:
        if array.ndim > MAX_RANK:
            raise ValueError(f"tensors have at most {MAX_RANK} axes, got {array.ndim}")
        words = np.ascontiguousarray(array, dtype=dtype.storage)
        ptr = pool().allocate(words.size)
        if words.size:
            ffi.memmove(ptr, ffi.from_buffer(words), words.nbytes)
        else:
            libc.memset(ptr, 0, 64)
        return TensorMemory(array.shape, dtype, ptr, self)

    def download(self, memory: TensorMemory) -> np.ndarray:
        count = memory.size
        words = np.frombuffer(ffi.buffer(memory.storage, max(count, 1) * 4), dtype=memory.dtype.storage,
                              count=count).reshape(memory.shape)
        return words != 0 if memory.dtype is dt.bool1 else words.copy()

    def build(self, program) -> CpuExecutable:
        from ..backend import settings
        source = CppProgram(program)
        path = build_library(source.full_source, program.name, settings.compiler_flags)
        return CpuExecutable(self, program, source, path)
