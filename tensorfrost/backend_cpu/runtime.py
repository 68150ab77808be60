"""Running compiled programs on the CPU: buffers in C memory, calls through cffi."""

from __future__ import annotations

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
int tf_main(const tf_arg* in, tf_arg* out, char* error, int error_size);
void* aligned_alloc(size_t alignment, size_t size);
void free(void* ptr);
void* memset(void* ptr, int value, size_t size);
""")
libc = ffi.dlopen(None)
ERROR_SIZE = 2048
MAX_RANK = 8


def _allocate(count: int):
    size = max(count, 1) * 4
    size = (size + 63) // 64 * 64
    ptr = libc.aligned_alloc(64, size)
    if ptr == ffi.NULL:
        raise MemoryError(f"out of memory allocating {size} bytes")
    return ffi.gc(ptr, libc.free, size=size)


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
        if self.lib.tf_main(ins, outs, error, ERROR_SIZE) != 0:
            raise RuntimeCheckError(ffi.string(error).decode(errors="replace"))
        by_address = {int(ffi.cast("uintptr_t", m.storage)): m for m in memories}
        results = []
        for k in range(self.n_outputs):
            slot = outs[k]
            address = int(ffi.cast("uintptr_t", slot.data))
            found = by_address.get(address)
            if found is None:
                shape = tuple(slot.shape[a] for a in range(slot.rank))
                found = TensorMemory(shape, self.output_dtypes[k], ffi.gc(slot.data, libc.free), self.backend)
                by_address[address] = found
            results.append(found)
        return results


class CpuBackend:
    name = "cpu"

    def upload(self, array: np.ndarray, dtype: dt.DType) -> TensorMemory:
        if array.ndim > MAX_RANK:
            raise ValueError(f"tensors have at most {MAX_RANK} axes, got {array.ndim}")
        words = np.ascontiguousarray(array, dtype=dtype.storage)
        ptr = _allocate(words.size)
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
