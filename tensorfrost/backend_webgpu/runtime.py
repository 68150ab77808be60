"""Running compiled programs with WebGPU: storage buffers, WGSL pipelines, the Python host.

Tensors are storage buffers (``WgpuBuffer``) of their elements as numpy lays them out: bool1
takes a 32-bit word, 8- and 16-bit elements are packed four or two to a word (read back in
whole words); 64-bit dtypes are refused by the target (the WGSL kernels do not spell them).
A program's kernels become WGSL compute pipelines when it is built (once per process for a
given source, ``emit/wgsl.py``); its host part runs as the generated Python of the OpenGL
backend (``backend_gl/host.py``), calling back ``alloc``, ``dispatch``, ``readback``... here.

Dispatches are recorded into one command encoder, in order (WebGPU orders the passes of a
submission, so each kernel sees the writes of the ones before), and submitted when the host
needs a value (a readback, a download) or the call ends. Each dispatch's uniform words
take their own aligned row of one uniform buffer, bound with a dynamic offset; the rows are
written just before the submission (``queue.write_buffer`` is ordered after the work
submitted before it). Released buffers are kept for the next allocation of the same size,
as on OpenGL (never one that wgpu has released: a tensor freed by the garbage collector
with its buffer). A kernel over the adapter's storage-buffer limit is split
(``backend_gl/split.py``); one still over it binds most buffers directly and reaches the
rest through the arena, as on OpenGL (``emit/binding.plan_bindings``): one buffer that
the tensors are copied into before the pass, at offsets passed as uniforms, and the written
ones back from after it (copies and passes of one encoder run in order). WebGPU binds no
buffer in parts yet: one over the adapter's largest binding is an error.

Programs run from any thread, one at a time (``WebGpuBackend.lock``). Where the device has
timestamp queries, each call's passes write the GPU's clock (the first one its start, every
one its end), resolved at the end of the call for ``get_last_execution_time``.
"""

from __future__ import annotations

import itertools
import math
import sys
import threading
import time

import numpy as np

from ..backend_gl.host import ShaderExecutable, ShaderKernel
from ..backend_gl.runtime import ArenaStats
from ..emit.binding import dispatch_groups, plan_bindings
from ..emit.shader import uniform_words
from ..emit.wgsl import emit_kernel
from ..ir import dtypes as dt
from ..ir.errors import RuntimeCheckError, TensorFrostError, generated_code_rejected
from ..ir.node import walk
from ..ir.target import Target
from ..runtime import MAX_ELEMENTS, TensorMemory
from . import context

MAX_RANK = 8
MAX_THREADS = 2**32 - 1  # the flat thread index is a u32
_MIN_BYTES = 16  # WebGPU binds no empty buffer
_UNIFORM_BYTES = 1 << 18  # the uniform rows of one submission (more dispatches: submitted in several)
_POOL_LIMIT = 256 << 20  # bytes of released buffers kept for reuse
_MAX_ARENA_WORDS = 2**31 - 1  # the shader indexes the arena with an i32
# Tests lower the storage buffers a shader binds directly (to 4, to 1) so that small programs
# go through fission, the kernel split and the arena.
MAX_DIRECT_BINDINGS: int | None = None
_pool: dict = {}  # bytes -> [(serial, GPUBuffer)]
_pooled_bytes = [0]
_serials = itertools.count(1)
_pipelines: dict = {}  # WGSL source -> (pipeline, bind group layout)


class WgpuBuffer:
    """A storage buffer of ``nbytes`` bytes (filled from ``data`` if given). ``serial`` names
    the GPU buffer for the bind-group cache (a Python id may be reused)."""

    __slots__ = ("buffer", "serial", "nbytes", "size")
    live_bytes = 0

    def __init__(self, device, nbytes: int, data: np.ndarray | None = None):
        self.nbytes = int(nbytes)
        self.size = max(-(-self.nbytes // 4) * 4, _MIN_BYTES)
        pooled = _pooled(self.size) if data is None else None
        if pooled is not None:
            self.serial, self.buffer = pooled
        else:
            self.serial, self.buffer = next(_serials), None
            usage = context.context().wgpu.BufferUsage
            flags = usage.STORAGE | usage.COPY_SRC | usage.COPY_DST
            buffer = device.create_buffer(size=self.size, usage=flags, mapped_at_creation=data is not None)
            if data is not None:  # (written straight into the mapped buffer: no padded copy first)
                _write_mapped(buffer, np.ascontiguousarray(data).reshape(-1).view(np.uint8))
            self.buffer = buffer
        WgpuBuffer.live_bytes += self.size

    def release(self) -> None:
        if self.buffer is not None:
            if _alive(self.buffer) and _pooled_bytes[0] + self.size <= _POOL_LIMIT:
                _pool.setdefault(self.size, []).append((self.serial, self.buffer))
                _pooled_bytes[0] += self.size
            self.buffer = None
            WgpuBuffer.live_bytes -= self.size

    def __del__(self, finalizing=sys.is_finalizing):  # (a default: the module's globals go before its objects)
        if not finalizing():  # (at exit: nothing to keep, and wgpu is going too)
            self.release()


def _write_mapped(buffer, raw: np.ndarray) -> None:
    """``raw``'s bytes into the start of a buffer mapped at its creation, and unmap it
    (WebGPU maps at multiples of 8 bytes: the last few bytes go in a zero-filled tail)."""
    whole = raw.nbytes // 8 * 8
    if whole:
        buffer.write_mapped(raw[:whole], 0)
    if whole < raw.nbytes:
        tail = np.zeros(-(-(raw.nbytes - whole) // 4) * 4, np.uint8)
        tail[:raw.nbytes - whole] = raw[whole:]
        buffer.write_mapped(tail, whole)
    buffer.unmap()


def _alive(buffer) -> bool:
    """Whether wgpu has not released ``buffer``: the garbage collector finalizes every object of
    an unreachable cycle (a traceback's frames holding tensors, say), the GPUBuffer too, even
    when this buffer's finalizer puts it in the pool, where a released one would crash
    wgpu-native at its next bind group."""
    return getattr(buffer, "_internal", None) is not None


def _pooled(size: int):
    """A kept ``(serial, GPUBuffer)`` of ``size`` bytes that wgpu has not released, or None."""
    kept = _pool.get(size)
    while kept:
        _pooled_bytes[0] -= size
        serial, buffer = kept.pop()
        if _alive(buffer):
            return serial, buffer
    return None


def _pipeline(device, source: str, name: str, slots: int, uniform_bytes: int, nodes):
    """(compute pipeline, bind group layout) of a WGSL source: ``slots`` storage buffers at
    bindings 0..slots-1, then the uniform rows (a dynamic offset) if ``uniform_bytes``."""
    found = _pipelines.get(source)
    if found is not None:
        return found
    wgpu = context.context().wgpu
    stage = wgpu.ShaderStage.COMPUTE
    entries = [{"binding": k, "visibility": stage, "buffer": {"type": "storage"}} for k in range(slots)]
    if uniform_bytes:
        entries.append({"binding": slots, "visibility": stage,
                        "buffer": {"type": "uniform", "has_dynamic_offset": True, "min_binding_size": uniform_bytes}})
    try:
        module = device.create_shader_module(code=source)
        layout = device.create_bind_group_layout(entries=entries)
        pipeline = device.create_compute_pipeline(layout=device.create_pipeline_layout(bind_group_layouts=[layout]),
                                                  compute={"module": module, "entry_point": "main"})
    except Exception as error:  # wgpu's GPUValidationError and friends: a bug of the emitter
        raise generated_code_rejected("the WebGPU shader compiler", f"kernel {name}", nodes, str(error)) from None
    _pipelines[source] = pipeline, layout
    return pipeline, layout


class _Variant:
    """One compiled way of binding a piece's buffers: its pipeline, the slots it binds (the
    arena last, where some buffers live there; a buffer in parts one binding per range) and
    its bind groups, cached by buffer."""

    def __init__(self, backend: WebGpuBackend, node, shader):
        self.backend = backend
        self.bound = [slot for slot in shader.slots if slot.offset is None]
        self.uniform_bytes = -(-uniform_words(node, shader.slots) // 4) * 16
        self.bindings = sum(slot.parts for slot in self.bound)
        self.pipeline, self.layout = _pipeline(backend.device, shader.source, shader.name, self.bindings,
                                               self.uniform_bytes, walk(node.body))
        self.groups: dict = {}  # buffer serials -> bind group

    def bind_group(self, buffers: list):
        """The bind group of ``buffers`` (one per bound slot, in binding order) and the uniforms."""
        key = tuple(b.serial for b in buffers)
        found = self.groups.get(key)
        if found is None:
            if len(self.groups) > 256:  # (bind groups keep their buffers alive)
                self.groups.clear()
            part_bytes = self.backend.elements_per_part * 4
            entries = []
            for slot, buffer in zip(self.bound, buffers, strict=True):
                for part in range(slot.parts):  # (one range: the whole buffer)
                    offset = part * part_bytes if slot.parts > 1 else 0
                    size = min(part_bytes, buffer.size - offset) if slot.parts > 1 else buffer.size
                    entries.append({"binding": len(entries),
                                    "resource": {"buffer": buffer.buffer, "offset": offset, "size": size}})
            if self.uniform_bytes:
                entries.append({"binding": len(entries), "resource": {"buffer": self.backend.uniforms, "offset": 0,
                                                                      "size": self.uniform_bytes}})
            found = self.groups[key] = self.backend.device.create_bind_group(layout=self.layout, entries=entries)
        return found


class _Piece:
    """A kernel (or, for a split kernel, some of its writes) as pipelines: one binding every
    buffer whole, or, over the adapter's buffer limit or its largest binding, one per plan of
    the buffers reached through the arena and bound in parts (made at the first dispatch
    that needs it: its sizes choose)."""

    def __init__(self, backend: WebGpuBackend, node, keep: set | None):
        self.backend, self.node, self.keep = backend, node, keep
        self.shader = emit_kernel(node, keep)
        self.slots = self.shader.slots
        self.over_budget = len(self.slots) > backend.max_buffers
        self.variants: dict = {}  # (slots in the arena, parts of each slot, the arena's parts) -> _Variant
        if not self.over_budget:
            self.variant((), {}, 1)

    def variant(self, arena: tuple, parts: dict, arena_parts: int) -> _Variant:
        key = (tuple(k for k, slot in enumerate(self.slots) if slot.node in arena),
               tuple(parts.get(slot.node, 1) for slot in self.slots), arena_parts)
        found = self.variants.get(key)
        if found is None:
            shader = self.shader if not arena and not parts else emit_kernel(
                self.node, self.keep, arena, parts, self.backend.elements_per_part, arena_parts)
            found = self.variants[key] = _Variant(self.backend, self.node, shader)
        return found


class _Kernel(ShaderKernel):
    piece_type = _Piece


class WebGpuExecutable(ShaderExecutable):
    """A program built for WebGPU (the host function's callbacks: ``ShaderExecutable``)."""

    kernel_type = _Kernel

    _resolved = None  # the GPU clock's start and end of the last call (timestamp queries)
    _elapsed_ms = 0.0  # the last call's wall time, where the device has no timestamp queries

    def __call__(self, memories: list) -> list:
        backend = self.backend
        with backend.lock:  # (one command encoder and one row of uniforms per device)
            start = time.perf_counter()
            backend.clock_started = False
            try:
                return list(self.main(self, memories))
            finally:
                if backend.clock_started:
                    if self._resolved is None:
                        usage = backend.wgpu.BufferUsage
                        self._resolved = backend.device.create_buffer(size=16, usage=usage.QUERY_RESOLVE
                                                                      | usage.COPY_SRC)
                    backend.encoder().resolve_query_set(backend.clock, 0, 2, self._resolved, 0)
                self._clocked = backend.clock_started
                backend.flush()
                self._elapsed_ms = (time.perf_counter() - start) * 1000.0

    def last_execution_time(self) -> float:
        """Milliseconds the last call's kernels ran, by the GPU's clock from the start of its
        first dispatch to the end of its last one (where the device has timestamp queries;
        else the call's wall time, which does not wait for the GPU)."""
        if self.backend.clock is None:
            return self._elapsed_ms
        if not getattr(self, "_clocked", False):
            return 0.0  # (the call dispatched nothing)
        with self.backend.lock:
            ticks = np.frombuffer(self.backend.device.queue.read_buffer(self._resolved), np.uint64)
        return max(int(ticks[1]) - int(ticks[0]), 0) / 1e6  # (WebGPU's timestamps count nanoseconds)

    # -- called by the host function ----------------------------------------------------------

    def storage(self, count: int, dtype: dt.DType) -> WgpuBuffer:
        return self.backend.buffer(count * dtype.itemsize)

    def element(self, memory: TensorMemory, flat: int):
        return self.backend.read(memory.storage, memory.dtype, flat, 1)[0]

    def region(self, name: str, begin: bool) -> None:
        """Debug regions (OpenGL's debug groups) are not marked on WebGPU yet."""

    def dispatch(self, index: int, buffers, uniforms, grid) -> None:
        kernel = self.kernels[index]
        groups = kernel.groups.get(grid, False)
        if groups is False:
            groups = kernel.groups[grid] = self._groups(kernel, grid)
        if groups is None:  # an empty grid
            return
        memories = dict(zip(kernel.order, buffers, strict=True))
        words = kernel.pack_uniforms(uniforms) if uniforms else b""
        part_bytes = self.backend.elements_per_part * 4
        for piece in kernel.pieces:
            storages = [memories[slot.node].storage for slot in piece.slots]
            if piece.over_budget or any(storage.size > part_bytes for storage in storages):
                self._dispatch_planned(piece, storages, words, groups)
            else:
                self.backend.record(piece.variant((), {}, 1), storages, words, groups)

    def _dispatch_planned(self, piece: _Piece, storages: list, words: bytes, groups: tuple) -> None:
        """A dispatch binding buffers over the adapter's largest binding range by range, and
        reaching those over its buffer limit through the arena: copied into it before the
        pass, the written ones back after (copies and passes of one encoder run in order)."""
        backend, slots = self.backend, piece.slots
        sizes = [-(-storage.nbytes // 4) for storage in storages]
        plan = plan_bindings(sizes, [slot.written for slot in slots], [storage.serial for storage in storages],
                             backend.max_buffers, backend.elements_per_part)
        if plan is None or plan.arena_words > _MAX_ARENA_WORDS:
            raise RuntimeCheckError(f"kernel {piece.shader.name} binds {len(slots)} buffers of {sum(sizes) * 4} "
                                    f"bytes, more storage buffer bindings than the {backend.max_buffers} "
                                    f"{backend.limits.description} allows a shader, even with most of them in one "
                                    "arena buffer: use fewer or smaller tensors in that kernel")
        in_arena = sorted(plan.offsets)  # (the order of their offset uniforms)
        parts = {slot.node: plan.parts[k] for k, slot in enumerate(slots)
                 if plan.parts[k] > 1 and k not in plan.offsets}
        variant = piece.variant(tuple(slots[k].node for k in in_arena), parts,
                                plan.arena_parts(backend.elements_per_part) if in_arena else 1)
        direct = [storages[k] for k in range(len(slots)) if k not in plan.offsets]
        if not in_arena:
            backend.record(variant, direct, words, groups)
            return
        arena = backend.arena(plan.arena_words * 4)
        copies = {storages[k]: (plan.offsets[k], sizes[k]) for k in in_arena}  # (one copy of a tensor bound twice)
        encoder = backend.encoder()
        for storage, (offset, count) in copies.items():
            if count:
                encoder.copy_buffer_to_buffer(storage.buffer, 0, arena.buffer, offset * 4, count * 4)
        offsets = np.array([plan.offsets[k] for k in in_arena], dtype=np.uint32).tobytes()
        backend.record(variant, [*direct, arena], words + offsets, groups)
        written = {storages[k] for k in in_arena if slots[k].written}
        encoder = backend.encoder()  # (a new one if recording the pass submitted the work before it)
        for storage in written:
            offset, count = copies[storage]
            if count:
                encoder.copy_buffer_to_buffer(arena.buffer, offset * 4, storage.buffer, 0, count * 4)
        ArenaStats.dispatches += 1
        ArenaStats.copies_in += len(copies)
        ArenaStats.copies_out += len(written)

    def _groups(self, kernel: _Kernel, grid) -> tuple | None:
        threads = math.prod(int(size) for size in grid)
        if threads <= 0:
            return None
        if threads > MAX_THREADS:
            raise RuntimeCheckError(f"kernel {kernel.name} has {threads} threads, more than the {MAX_THREADS} "
                                    "one WebGPU dispatch can index")
        if not kernel.node.rank:
            return 1, 1, 1
        limit = self.backend.limits.max_groups
        groups = (*dispatch_groups(threads, limit), 1)
        if groups[1] > limit:
            raise RuntimeCheckError(f"kernel {kernel.name}: {threads} threads need more work groups than "
                                    f"{self.backend.limits.description} allows")
        return groups


class WebGpuBackend:
    """The ``tf.webgpu`` device: tensors in storage buffers, kernels as WGSL compute shaders."""

    name = "webgpu"
    _fence = None  # the word ``wait`` reads (made on the first profiled call)
    _idle = True  # nothing submitted since the queue was last seen done (by ``wait`` or ``read``)

    def __init__(self):
        found = context.context()
        self.wgpu, self.device, self.limits = found.wgpu, found.device, found.limits
        self._arena: WgpuBuffer | None = None
        # words of one binding range of a buffer bound in parts (an offset WebGPU allows; tests lower it)
        align = max(self.limits.storage_alignment, 4)
        self.elements_per_part = self.limits.max_binding_bytes // align * align // 4
        usage = self.wgpu.BufferUsage
        self.uniforms = self.device.create_buffer(size=_UNIFORM_BYTES, usage=usage.UNIFORM | usage.COPY_DST)
        self._alignment = max(self.limits.uniform_alignment, 16)
        self._encoder = None
        self._rows = bytearray()  # the uniform rows of the dispatches recorded so far
        self.lock = threading.RLock()  # programs run from any thread, one at a time
        # the GPU clock: the first pass of a call writes its start, every pass the end
        self.clock = self.device.create_query_set(type="timestamp", count=2) \
            if "timestamp-query" in found.features else None
        self.clock_started = False

    @property
    def max_buffers(self) -> int:
        """Storage buffers a shader binds directly: fission and the kernel split aim at it, the
        arena reaches the rest (``MAX_DIRECT_BINDINGS`` lowers it)."""
        return min(self.limits.max_buffers, MAX_DIRECT_BINDINGS or self.limits.max_buffers)

    def arena(self, nbytes: int) -> WgpuBuffer:
        """The arena buffer, of at least ``nbytes`` bytes (grown by doubling)."""
        if self._arena is None or self._arena.nbytes < nbytes:
            grown = max(2 * (self._arena.nbytes if self._arena else 0), 1 << 16)
            self._arena = self.buffer(max(nbytes, min(grown, self.limits.max_buffer_bytes)))
        return self._arena

    @property
    def target(self) -> Target:  # (not cached: tests lower MAX_DIRECT_BINDINGS)
        missing = {d: "WGSL has no 64-bit types" for d in dt.ALL if d.bits == 64}
        return Target("webgpu", ("wgsl",), frozenset(d for d in dt.ALL if d not in missing), missing,
                      self.max_buffers, atomic_bits=32, atomic_why=" (WGSL's atomics are 32-bit)")

    def memory_usage(self) -> tuple[int, int]:
        """``(allocated, unused)`` bytes of storage buffers: those holding tensors plus those
        kept for reuse, and the latter alone."""
        return WgpuBuffer.live_bytes + _pooled_bytes[0], _pooled_bytes[0]

    def buffer(self, nbytes: int, data: np.ndarray | None = None) -> WgpuBuffer:
        if nbytes > self.limits.max_buffer_bytes:
            raise RuntimeCheckError(f"a buffer of {nbytes} bytes is larger than the {self.limits.max_buffer_bytes} "
                                    f"{self.limits.description} allows")
        return WgpuBuffer(self.device, nbytes, data)

    # -- recording and submitting work ----------------------------------------------------------

    def record(self, variant: _Variant, buffers: list, words: bytes, groups: tuple) -> None:
        """A pass running ``variant`` on ``buffers`` (one per bound slot) with uniform ``words``."""
        if variant.uniform_bytes and len(self._rows) + self._alignment + variant.uniform_bytes > _UNIFORM_BYTES:
            self.flush()
        offsets = []
        if variant.uniform_bytes:
            start = -(-len(self._rows) // self._alignment) * self._alignment
            self._rows += bytes(start - len(self._rows)) + words + bytes(variant.uniform_bytes - len(words))
            offsets = [start]
        writes = None
        if self.clock is not None:
            writes = {"query_set": self.clock, "end_of_pass_write_index": 1}
            if not self.clock_started:
                writes["beginning_of_pass_write_index"] = 0
                self.clock_started = True
        compute = self.encoder().begin_compute_pass(timestamp_writes=writes)
        compute.set_pipeline(variant.pipeline)
        compute.set_bind_group(0, variant.bind_group(buffers), offsets)
        compute.dispatch_workgroups(*groups)
        compute.end()

    def encoder(self):
        """The command encoder recording this submission's work."""
        if self._encoder is None:
            self._encoder = self.device.create_command_encoder()
        return self._encoder

    def flush(self) -> None:
        """Submit the dispatches recorded so far (without waiting for them)."""
        if self._encoder is None:
            return
        if self._rows:
            self.device.queue.write_buffer(self.uniforms, 0, bytes(self._rows))
        encoder, self._encoder, self._rows = self._encoder, None, bytearray()
        self.device.queue.submit([encoder.finish()])
        self._idle = False

    def read(self, storage: WgpuBuffer, dtype: dt.DType, first: int, count: int) -> np.ndarray:
        """``count`` elements of ``dtype`` from element ``first`` (after the work recorded so far)."""
        if count == 0:
            return np.empty(0, dtype.storage)
        with self.lock:
            self.flush()
            start, end = first * dtype.itemsize, (first + count) * dtype.itemsize  # (copied in whole words)
            data = self.device.queue.read_buffer(storage.buffer, start // 4 * 4, -(-end // 4) * 4 - start // 4 * 4)
            self._idle = True  # (the read came after all the work submitted before it)
        return np.frombuffer(data, dtype=dtype.storage, count=count, offset=start % 4).copy()

    # -- the backend interface --------------------------------------------------------------------

    def upload(self, array: np.ndarray, dtype: dt.DType) -> TensorMemory:
        if array.ndim > MAX_RANK:
            raise TensorFrostError(f"tensors have at most {MAX_RANK} axes, got {array.ndim}")
        if array.size > MAX_ELEMENTS:
            raise TensorFrostError(f"{array.size} elements is more than the {MAX_ELEMENTS} a tensor can hold")
        data = np.ascontiguousarray(array, dtype=dtype.storage).reshape(-1)
        return TensorMemory(array.shape, dtype, self.buffer(data.nbytes, data), self)

    def download(self, memory: TensorMemory) -> np.ndarray:
        values = self.read(memory.storage, memory.dtype, 0, memory.size).reshape(memory.shape)
        return values != 0 if memory.dtype is dt.bool1 else values

    def build(self, program, options) -> WebGpuExecutable:
        executable = WebGpuExecutable(self, program)
        if options.profile:
            executable.profile_dispatches(self.wait)
        return executable

    def wait(self) -> None:
        """Submit the work recorded so far and block until the device has done it (profiling):
        a read of a word waits for the queue (wgpu 0.32's on_submitted_work_done_sync fails).
        With nothing submitted since the queue was last seen done (the wait before a dispatch,
        after the wait that ended the one before), there is nothing to wait for: the read's
        round trip would be counted as the program's time and no kernel's."""
        with self.lock:
            if self._encoder is None and self._idle:
                return
            self.flush()
            if self._fence is None:
                self._fence = self.device.create_buffer(size=4, usage=self.wgpu.BufferUsage.COPY_SRC)
            self.device.queue.read_buffer(self._fence, 0, 4)
            self._idle = True
