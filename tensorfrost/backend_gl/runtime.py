"""Running compiled programs with OpenGL: SSBOs, cached shader programs, the Python host.

Tensors are shader storage buffers of 32-bit words (``GlBuffer``): a tensor of ``n``
elements takes ``n * itemsize`` bytes rounded up to whole words (8- and 16-bit elements are
packed, 64-bit ones take two words), held on the host as numpy arrays of ``dtype.storage``;
64-bit uniforms take two words. A program's kernels are
compiled to GLSL programs when it is built (once per process for a given source); its
host part runs as generated Python (``host.py``), which calls back into the executable to
allocate, dispatch, read back and check. Every dispatch is followed by a memory barrier,
so kernels and host reads see earlier writes.

A shader binds at most ``GlBackend.max_buffers`` storage buffers. Fission and the kernel
split keep most kernels within it; a kernel still over it (one that reads what it writes
inside a loop, say) binds the others directly and reaches the rest through the arena
(``emit/binding.plan_bindings``): one buffer, shared by every dispatch, that the
tensors are copied into before the dispatch and the written ones back from after it, on the
GPU (``glCopyBufferSubData``). ``ArenaStats`` counts those dispatches.
"""

from __future__ import annotations

import atexit
import ctypes
import functools
import os
import threading
from types import SimpleNamespace

import numpy as np

from ..emit import features
from ..emit.binding import dispatch_groups, plan_bindings
from ..emit.glsl import GRID_LOCAL, NV_FLOAT_ATOMICS, emit_kernel
from ..ir import dtypes as dt
from ..ir.errors import CompileError, GlThreadError, RuntimeCheckError, TensorFrostError, generated_code_rejected
from ..ir.node import walk
from ..ir.target import Target
from ..runtime import MAX_ELEMENTS, TensorMemory
from . import context
from .host import ShaderExecutable, ShaderKernel
from .programs import compile_program

MAX_RANK = 8
# Storage buffers a shader binds directly, when lower than the driver's limit: tests lower it
# (to 4, to 1) so that small programs go through fission, the kernel split and the arena.
MAX_DIRECT_BINDINGS: int | None = None
_MAX_ARENA_WORDS = 2**31 - 1  # the shader indexes the arena with an int
MAX_THREADS = 2**32 - 1  # the flat thread index is a 32-bit uint
_MIN_BYTES = 16  # GL wants non-empty buffers; empty tensors get a few bytes
_deleted: list = []  # ids of collected buffers, deleted at the next GL call (not inside __del__)
# Released buffers kept for the next allocation of the same size: glBufferData costs about
# 0.5 ms per MB on the calling thread (llvmpipe), and programs allocate their outputs anew
# each call. At most _POOL_LIMIT bytes wait here; the rest are deleted.
_POOL_LIMIT = 256 << 20
_pool: dict = {}  # allocated bytes -> [buffer ids]
_pooled_bytes = [0]


_EGL_BAD_ACCESS = 0x3002  # eglMakeCurrent: the context is current on another thread


def _gl():
    return context.opengl().GL


_SSBO = 0x90D2  # GL_SHADER_STORAGE_BUFFER
_COPY_READ, _COPY_WRITE = 0x8F36, 0x8F37  # GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER
_BARRIERS = 0x2000 | 0x200  # GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT


@functools.cache
def _raw() -> SimpleNamespace:
    """PyOpenGL's unwrapped entry points (errors still checked) for the calls of every
    dispatch: its wrappers convert arguments at 3 us a call, 39 us for glUniform1uiv."""
    v = context.opengl().raw.GL.VERSION
    return SimpleNamespace(glUseProgram=v.GL_2_0.glUseProgram, glUniform1uiv=v.GL_3_0.glUniform1uiv,
                           glBindBufferBase=v.GL_3_0.glBindBufferBase, glBindBufferRange=v.GL_3_0.glBindBufferRange,
                           glDispatchCompute=v.GL_4_3.glDispatchCompute, glMemoryBarrier=v.GL_4_2.glMemoryBarrier,
                           glBindBuffer=v.GL_1_5.glBindBuffer, glCopyBufferSubData=v.GL_3_1.glCopyBufferSubData)


class ArenaStats:
    """Counters of this process (for tests): dispatches that reached tensors through the
    arena, and the tensor copies into it and back."""

    dispatches = 0
    copies_in = 0
    copies_out = 0


def _copy(source: int, target: int, source_offset: int, target_offset: int, nbytes: int) -> None:
    raw = _raw()
    raw.glBindBuffer(_COPY_READ, source)
    raw.glBindBuffer(_COPY_WRITE, target)
    raw.glCopyBufferSubData(_COPY_READ, _COPY_WRITE, source_offset, target_offset, nbytes)


def _take_pooled(size: int) -> int:
    ids = _pool.get(size)
    if not ids:
        return 0
    _pooled_bytes[0] -= size
    return ids.pop()


def _flush_deleted() -> None:
    if _deleted:
        ids = list(_deleted)
        del _deleted[:len(ids)]
        _gl().glDeleteBuffers(len(ids), np.array(ids, dtype=np.uint32))


class GlBuffer:
    """A shader storage buffer of ``nbytes`` bytes (filled from ``data`` if given)."""

    __slots__ = ("id", "nbytes")
    live_bytes = 0  # of every buffer not yet released

    def __init__(self, nbytes: int, data: np.ndarray | None = None):
        _flush_deleted()
        self.id = 0
        self.nbytes = int(nbytes)
        size = max(self.nbytes, _MIN_BYTES)
        if data is None:  # contents undefined, as a fresh buffer's: a released one of this size will do
            self.id = _take_pooled(size)
            if self.id:
                GlBuffer.live_bytes += size
                return
        gl = _gl()
        buffer = int(gl.glGenBuffers(1))
        pointer = data.ctypes.data_as(ctypes.c_void_p) if data is not None and data.nbytes else None
        try:
            gl.glBindBuffer(gl.GL_SHADER_STORAGE_BUFFER, buffer)
            gl.glBufferData(gl.GL_SHADER_STORAGE_BUFFER, max(self.nbytes, _MIN_BYTES), pointer, gl.GL_DYNAMIC_DRAW)
        except Exception as exc:
            gl.glDeleteBuffers(1, np.array([buffer], dtype=np.uint32))
            raise TensorFrostError(f"OpenGL could not allocate a buffer of {self.nbytes} bytes: {exc}") from exc
        self.id = buffer
        GlBuffer.live_bytes += max(self.nbytes, _MIN_BYTES)

    def read(self, out: np.ndarray, offset: int = 0) -> np.ndarray:
        """Copy ``out.nbytes`` bytes from ``offset`` into ``out`` (a contiguous array)."""
        if offset < 0 or offset + out.nbytes > self.nbytes:
            raise TensorFrostError(f"reading {out.nbytes} bytes at {offset} from a buffer of {self.nbytes}")
        if out.nbytes:
            gl = _gl()
            gl.glBindBuffer(gl.GL_SHADER_STORAGE_BUFFER, self.id)
            # a ctypes pointer: PyOpenGL does not fill a numpy array passed directly
            gl.glGetBufferSubData(gl.GL_SHADER_STORAGE_BUFFER, offset, out.nbytes,
                                  out.ctypes.data_as(ctypes.c_void_p))
        return out

    def release(self) -> None:
        if self.id:
            size = max(self.nbytes, _MIN_BYTES)
            if _pooled_bytes[0] + size <= _POOL_LIMIT:
                _pool.setdefault(size, []).append(self.id)
                _pooled_bytes[0] += size
            else:
                _deleted.append(self.id)
            self.id = 0
            GlBuffer.live_bytes -= size

    def __del__(self):
        self.release()


class _Piece:
    """A shader running a kernel (or, for a split kernel, some of its writes), with its
    compiled variants: one per way of binding its buffers."""

    def __init__(self, backend: GlBackend, node, keep: set | None):
        self.backend = backend
        self.node = node
        self.keep = keep
        self.shader = emit_kernel(node, backend.native_float_add, keep=keep, **backend.driver)
        # over the binding limit: always planned, compiled at the first dispatch (its sizes
        # choose what goes to the arena)
        self.over_budget = len(self.shader.slots) > backend.max_buffers
        self.variants = {} if self.over_budget else {
            (): (self._compile(self.shader.source, self.shader.name), self.shader.slots)}

    def _compile(self, source: str, name: str):
        try:
            return compile_program(source, name)
        except CompileError as error:
            raise generated_code_rejected("the OpenGL driver", f"kernel {name}", walk(self.node.body),
                                          error.message) from None

    def program(self, parts: dict, grid2d: bool, arena: tuple = (), arena_parts: int = 0):
        """(GL program, slots with their bindings) of the variant binding buffers in ``parts``
        and reaching those in ``arena`` through the arena, in a flat or a 3-D dispatch."""
        slots = self.shader.slots
        key = tuple(sorted((slot.binding, parts[slot.node]) for slot in slots if slot.node in parts)
                    ) if parts else ()
        if arena:
            key += ("arena", arena_parts, *(slots.index(s) for s in slots if s.node in arena))
        key += ("grid",) if grid2d else ()
        if key not in self.variants:
            shader = emit_kernel(self.node, self.backend.native_float_add, parts, self.backend.elements_per_part,
                                 self.keep, grid2d, arena, arena_parts, **self.backend.driver)
            how = "some buffers in the arena" if arena else "buffers in parts"
            program = self._compile(shader.source, f"{self.shader.name} ({how})")
            self.variants[key] = (program, shader.slots)
        return self.variants[key]


class _Kernel(ShaderKernel):
    piece_type = _Piece


def buffer_bytes(count: int, dtype: dt.DType) -> int:
    """Bytes of the buffer of ``count`` elements of ``dtype``: whole 32-bit words."""
    return -(-count * dtype.itemsize // 4) * 4


class GlExecutable(ShaderExecutable):
    """A program built for OpenGL (the host function's callbacks: ``ShaderExecutable``)."""

    kernel_type = _Kernel

    def __init__(self, backend: GlBackend, program):
        super().__init__(backend, program)
        self.open_regions = 0

    def __call__(self, memories: list) -> list:
        self.backend.make_current()
        _flush_deleted()
        try:
            return list(self.main(self, memories))
        finally:
            while self.open_regions:
                self.region("", False)

    # -- called by the host function ----------------------------------------------------------

    def storage(self, count: int, dtype: dt.DType) -> GlBuffer:
        return GlBuffer(buffer_bytes(count, dtype))

    def element(self, memory: TensorMemory, flat: int):
        return memory.storage.read(np.zeros(1, dtype=memory.dtype.storage), flat * memory.dtype.itemsize)[0]

    def region(self, name: str, begin: bool) -> None:
        gl = _gl()
        if begin:
            label = name.encode()
            gl.glPushDebugGroup(gl.GL_DEBUG_SOURCE_APPLICATION, 0, len(label), label)
            self.open_regions += 1
        elif self.open_regions:
            gl.glPopDebugGroup()
            self.open_regions -= 1

    def dispatch(self, index: int, buffers, uniforms, grid) -> None:
        kernel = self.kernels[index]
        found = kernel.groups.get(grid)
        if found is None:
            found = kernel.groups[grid] = self._groups(kernel, grid)
        groups, grid2d = found
        if groups is None:  # an empty grid
            return
        memories = dict(zip(kernel.order, buffers, strict=True))
        words = kernel.pack_uniforms(uniforms) if uniforms else None
        for piece in kernel.pieces:
            self._dispatch_piece(piece, memories, words, groups, grid2d)

    def _groups(self, kernel: _Kernel, grid) -> tuple:
        """(the work groups of a dispatch of ``grid``, or None when it is empty; whether 3-D)."""
        threads = 1
        for size in grid:
            threads *= int(size)
        if threads <= 0:
            return None, False
        if threads > MAX_THREADS:
            raise RuntimeCheckError(f"kernel {kernel.name} has {threads} threads, more than the {MAX_THREADS} "
                                    "one OpenGL dispatch can index")
        # a body that reads only the flat index divides nothing: flat is as fast there, and
        # llvmpipe ran Mandelbrot 15-25% faster flat than in any 2-D group shape
        groups = self._grid_groups(grid) if any(p.shader.indexed for p in kernel.pieces) else None
        if groups is not None:
            return groups, True
        groups = (*dispatch_groups(threads, self.backend.max_groups_x), 1) if kernel.node.rank else (1, 1, 1)
        if groups[1] > self.backend.limits.max_groups[1]:
            raise RuntimeCheckError(f"kernel {kernel.name}: {threads} threads need more work groups than this "
                                    "OpenGL driver allows")
        return groups, False

    def _grid_groups(self, grid) -> tuple | None:
        """The groups of a 3-D dispatch of ``grid`` (x along the last axis, y the one before, z
        the rest), or None where a flat one is better: rank 1, rows narrower than a group's
        (idle threads), or more groups than the driver allows along an axis."""
        if len(grid) < 2 or int(grid[-1]) < GRID_LOCAL[0]:
            return None
        rest = 1
        for size in grid[:-2]:
            rest *= int(size)
        groups = (-(-int(grid[-1]) // GRID_LOCAL[0]), -(-int(grid[-2]) // GRID_LOCAL[1]), rest)
        fits = all(g <= limit for g, limit in zip(groups, self.backend.limits.max_groups, strict=True))
        return groups if fits else None

    def _dispatch_piece(self, piece: _Piece, memories: dict, words, groups, grid2d: bool) -> None:
        part_bytes = self.backend.elements_per_part * 4
        if piece.over_budget or any(memories[slot.node].storage.nbytes > part_bytes for slot in piece.shader.slots):
            self._dispatch_planned(piece, memories, words, groups, grid2d)
            return
        program, slots = piece.program({}, grid2d)
        raw = _raw()
        self._use(program, words)
        for slot in slots:
            raw.glBindBufferBase(_SSBO, slot.binding, memories[slot.node].storage.id)
        raw.glDispatchCompute(*groups)
        raw.glMemoryBarrier(_BARRIERS)

    @staticmethod
    def _use(program, words) -> None:
        raw = _raw()
        raw.glUseProgram(program.id)
        if words is not None and program.words != words:  # a program keeps its uniforms
            program.words = words
            raw.glUniform1uiv(program.uniform_location, len(words) // 4, words)

    def _dispatch_planned(self, piece: _Piece, memories: dict, words, groups, grid2d: bool) -> None:
        """A dispatch binding buffers over the block size limit range by range, and reaching
        those over the binding limit through the arena."""
        backend, slots = self.backend, piece.shader.slots
        storages = [memories[slot.node].storage for slot in slots]
        plan = plan_bindings([st.nbytes // 4 for st in storages], [slot.written for slot in slots],
                             [id(st) for st in storages], backend.max_buffers, backend.elements_per_part,
                             [2 if slot.node.dtype.bits == 64 else 1 for slot in slots])
        if plan is None:
            raise RuntimeCheckError(f"kernel {piece.shader.name}: its {len(slots)} buffers need more storage "
                                    f"buffer bindings than the {backend.max_buffers} this OpenGL driver allows a "
                                    "shader, even with most of them in one arena buffer")
        if plan.arena_words > _MAX_ARENA_WORDS:
            names = ", ".join(slots[k].node.label for k in plan.offsets)
            raise RuntimeCheckError(f"kernel {piece.shader.name} binds more buffers than this OpenGL driver allows "
                                    f"a shader, and those it reaches through one arena buffer ({names}) hold "
                                    f"{plan.arena_words} 32-bit words, more than the {_MAX_ARENA_WORDS} one arena "
                                    "can index: use fewer or smaller tensors in that kernel")
        parts = {slot.node: plan.parts[k] for k, slot in enumerate(slots)
                 if plan.parts[k] > 1 and k not in plan.offsets}
        in_arena = sorted(plan.offsets)  # the order of their offset uniforms
        arena = tuple(slots[k].node for k in in_arena)
        program, bound = piece.program(parts, grid2d, arena, plan.arena_parts(backend.elements_per_part))
        arena_buffer = backend.arena(plan.arena_words * 4) if arena else None
        copies = {storages[k]: plan.offsets[k] for k in in_arena}  # one copy of a tensor bound twice
        for storage, offset in copies.items():
            if storage.nbytes:
                _copy(storage.id, arena_buffer.id, 0, offset * 4, storage.nbytes)
        if arena:
            offsets = np.array([plan.offsets[k] for k in in_arena], dtype=np.uint32).tobytes()
            words = (words or b"") + offsets
        self._use(program, words)
        raw, part_bytes = _raw(), backend.elements_per_part * 4
        for slot in bound:
            if slot.offset is not None:
                continue
            buffer = arena_buffer if slot.node is None else memories[slot.node].storage
            if slot.parts == 1 and slot.node is not None:
                raw.glBindBufferBase(_SSBO, slot.binding, buffer.id)
                continue
            # a buffer over the block size limit is bound range by range (the arena always: it
            # may have grown past the range it is used in)
            for part in range(slot.parts):
                size = min(part_bytes, buffer.nbytes - part * part_bytes)
                raw.glBindBufferRange(_SSBO, slot.binding + part, buffer.id, part * part_bytes, size)
        raw.glDispatchCompute(*groups)
        raw.glMemoryBarrier(_BARRIERS)
        if not arena:
            return
        written = {storages[k] for k in in_arena if slots[k].written}
        for storage in written:
            if storage.nbytes:
                _copy(arena_buffer.id, storage.id, copies[storage] * 4, 0, storage.nbytes)
        ArenaStats.dispatches += 1
        ArenaStats.copies_in += len(copies)
        ArenaStats.copies_out += len(written)


class GlBackend:
    """The ``tf.opengl`` device: tensors in SSBOs, kernels as GLSL compute shaders."""

    name = "opengl"

    def memory_usage(self) -> tuple[int, int]:
        """``(allocated, unused)`` bytes of storage buffers: those holding tensors plus those
        kept for reuse, and the latter alone."""
        return GlBuffer.live_bytes + _pooled_bytes[0], _pooled_bytes[0]

    def __init__(self):
        try:
            self.limits = context.ensure_context()
        except Exception as exc:
            if getattr(exc, "err", None) != _EGL_BAD_ACCESS:
                raise
            raise GlThreadError(f"tf.opengl: thread '{threading.current_thread().name}' cannot use tensorfrost's "
                                "OpenGL context: another thread holds it (an OpenGL context is current on one "
                                "thread only); use tf.opengl from the thread that first used it") from None
        # GL contexts are bound to one thread: the one that created this backend holds it.
        self.thread = threading.current_thread()
        mode = os.environ.get("TENSORFROST_GL_FLOAT_ATOMICS", "native")
        self.native_float_add = NV_FLOAT_ATOMICS in self.limits.extensions and mode != "cas"
        self.max_groups_x = self.limits.max_groups[0]
        alignment = max(self.limits.offset_alignment, 8)  # (even words: a 64-bit element is in one part)
        self.elements_per_part = self.limits.max_block_bytes // alignment * alignment // 4
        # what the kernel emitters check a kernel's dtypes against (features.py)
        self.driver = {"extensions": frozenset(self.limits.extensions),
                       "renderer": f"this OpenGL driver ({self.limits.renderer})"}
        self._arena: GlBuffer | None = None
        atexit.register(self._drop_arena)  # before the module's globals go (GlBuffer.release reads them)

    @property
    def target(self) -> Target:  # (not cached: tests lower MAX_DIRECT_BINDINGS)
        """What this driver can do: every dtype whose extension it has, 32-bit compare-and-swap
        (the host holds the checks of extensions per kernel, in emit/features.py)."""
        extensions, renderer = self.driver["extensions"], self.driver["renderer"]
        missing = {d: f"{renderer} lacks {extension}" for extension, kinds in features.EXTENSIONS.values()
                   if extension not in extensions for d in kinds}
        return Target("opengl", ("glsl",), frozenset(dt.ALL) - set(missing), missing, self.max_buffers,
                      atomic_bits=32, atomic_why=f" ({features.ATOMIC_INT64}), which tensorfrost's OpenGL backend "
                      "does not use")

    @property
    def max_buffers(self) -> int:
        """Storage buffers a shader binds directly: fission and the kernel split aim at it, the
        arena reaches the rest (``MAX_DIRECT_BINDINGS`` lowers it)."""
        return min(self.limits.max_blocks, MAX_DIRECT_BINDINGS or self.limits.max_blocks)

    def _drop_arena(self) -> None:
        if self._arena is not None:
            self._arena.release()
            self._arena = None

    def arena(self, nbytes: int) -> GlBuffer:
        """The arena buffer, of at least ``nbytes`` bytes: one for every dispatch (GL runs the
        copies and dispatches in order), grown by half again when too small."""
        if self._arena is None or self._arena.nbytes < nbytes:
            grown = max(nbytes, self._arena.nbytes * 3 // 2 if self._arena else 0)
            self._drop_arena()
            self._arena = GlBuffer(grown)
        return self._arena

    def make_current(self) -> None:
        """Make the compute context current; from another thread, a GlThreadError instead
        of the raw EGL_BAD_ACCESS (or of GL calls with no context)."""
        here = threading.current_thread()
        if here is not self.thread:
            ended = "" if self.thread.is_alive() else ", which has ended"
            raise GlThreadError(f"tf.opengl: OpenGL work was asked of thread '{here.name}', but tensorfrost's "
                                f"OpenGL context belongs to thread '{self.thread.name}'{ended} (an OpenGL context "
                                "is current on one thread only): run OpenGL programs and read OpenGL tensors on "
                                "that thread, or use tf.cpu tensors elsewhere")
        context.ensure_current()

    def upload(self, array: np.ndarray, dtype: dt.DType) -> TensorMemory:
        if array.ndim > MAX_RANK:
            raise TensorFrostError(f"tensors have at most {MAX_RANK} axes, got {array.ndim}")
        if array.size > MAX_ELEMENTS:
            raise TensorFrostError(f"{array.size} elements is more than the {MAX_ELEMENTS} a tensor can hold")
        self.make_current()
        data = np.ascontiguousarray(array, dtype=dtype.storage).reshape(-1)
        nbytes = buffer_bytes(data.size, dtype)
        if nbytes != data.nbytes:  # packed elements: the last word filled with zeros
            padded = np.zeros(nbytes, dtype=np.uint8)
            padded[:data.nbytes] = data.view(np.uint8)
            data = padded
        return TensorMemory(array.shape, dtype, GlBuffer(nbytes, data), self)

    def download(self, memory: TensorMemory) -> np.ndarray:
        self.make_current()
        words = memory.storage.read(np.empty(memory.size, dtype=memory.dtype.storage)).reshape(memory.shape)
        return words != 0 if memory.dtype is dt.bool1 else words

    def build(self, program, options) -> GlExecutable:
        self.make_current()
        executable = GlExecutable(self, program)
        if options.profile:
            executable.profile_dispatches(_gl().glFinish)
        return executable
