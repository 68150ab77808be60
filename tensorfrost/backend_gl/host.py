"""The host part of a kernel program as Python: allocations, dispatches, host control flow.

The root scope of a compiled program becomes the source of a Python function
``tf_main(rt, inputs)`` that the OpenGL runtime calls with itself as ``rt``; buffers are
TensorMemory objects (the inputs, and what ``rt.alloc`` returns), and the function returns
the output ones. Host scalars
are numpy scalars of their node's dtype, and every elementwise op runs through the op
table's numpy reference, so host arithmetic has exactly the semantics of the interpreter
(C division, wrapping integers, ...). No C++ compiler is involved.
"""

from __future__ import annotations

import math
import struct
from time import perf_counter

import numpy as np

from ..emit.binding import buffer_order
from ..emit.clike import identifier
from ..emit.host import HostEmitter
from ..ir import dtypes as dt
from ..ir.errors import RuntimeCheckError, TensorFrostError, runtime_check_error
from ..ir.node import Node, Program
from ..ir.ops import ALLOC, CONST, KERNEL
from ..opt.analysis import kernel_traffic, set_variables
from ..runtime import MAX_ELEMENTS, TensorMemory, shape_problem
from .split import split_kernel

SCALAR_TYPES = {d: d.numpy.type for d in dt.ALL}  # (bool1: np.bool_, bfloat16: ml_dtypes')


class PythonHost(HostEmitter):
    """Generates ``tf_main`` for a program; ``source`` is its text, ``namespace`` its globals."""

    def __init__(self, program: Program):
        self.program = program
        self.mutable = set_variables(program.walk())
        self.names: dict[Node, str] = {}
        self.namespace: dict = {"np": np}
        for dtype, scalar in SCALAR_TYPES.items():
            self.namespace[f"_{dtype.name}"] = scalar
            self.namespace[f"_dtype_{dtype.name}"] = dtype
        self.lines = []
        self.depth = 1
        self.arithmetic = False  # whether host scalars are computed (numpy then must not warn)
        self.scope(program.root.nodes)
        self.emit(f"return [{', '.join(self.name(o) for o in program.outputs)}]")
        if self.arithmetic:  # (errstate costs microseconds: only the programs that need it)
            self.lines = ['    with np.errstate(all="ignore"):'] + ["    " + line for line in self.lines]
        self.source = "\n".join(["def tf_main(rt, inputs):", *self.lines]) + "\n"

    # -- names and values ---------------------------------------------------------------------

    def name(self, node: Node) -> str:
        return identifier(node, self.names)

    def value(self, node: Node) -> str:
        if node.op is CONST and node not in self.mutable:
            name = f"_c{node.id}"
            self.namespace[name] = SCALAR_TYPES[node.dtype](node.attrs["value"])
            return name
        return self.name(node)

    def global_value(self, prefix: str, value) -> str:
        name = f"_{prefix}{len(self.namespace)}"
        self.namespace[name] = value
        return name

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def scope(self, nodes) -> None:
        start = len(self.lines)
        for node in nodes:
            handler = getattr(self, "stmt_" + node.op.name, None)
            if handler is not None:
                handler(node)
            elif node.op.kind == "elementwise" and node.shape == ():
                self.arithmetic = True
                ref = self.global_value("ref_" + node.op.name + "_", node.op.ref)
                args = ", ".join(self.value(a) for a in node.args)
                self.emit(f"{self.name(node)} = _{node.dtype.name}({ref}({args}))")
            else:
                raise TensorFrostError(f"the OpenGL host program cannot run {node.op.name} of shape "
                                       f"{list(node.shape)} ({node.label}) outside a kernel")
        if len(self.lines) == start:
            self.emit("pass")

    def block(self, node: Node, header: str) -> None:
        self.emit(header)
        self.depth += 1
        self.scope(node.body.nodes)
        self.depth -= 1

    # -- statements ----------------------------------------------------------------------------

    def stmt_input(self, node: Node) -> None:
        self.emit(f"{self.name(node)} = inputs[{node.attrs['index']}]")

    def stmt_input_dim(self, node: Node) -> None:
        source = self.name(node.args[0])
        self.emit(f"{self.name(node)} = _int32({source}.shape[{node.attrs['axis']}])")

    def stmt_const(self, node: Node) -> None:
        if node.shape != ():
            raise TensorFrostError(f"the OpenGL host program cannot hold the tensor constant {node.label}")
        if node in self.mutable:
            self.emit(f"{self.name(node)} = {self.global_value('init', SCALAR_TYPES[node.dtype](node.attrs['value']))}")

    def stmt_set(self, node: Node) -> None:
        target = node.args[0]
        self.emit(f"{self.name(target)} = _{target.dtype.name}({self.value(node.args[1])})")

    def stmt_assert(self, node: Node) -> None:
        message = self.global_value("message", node.attrs["message"])
        location = self.global_value("location", node.location)
        values = "".join(f"{self.value(a)}, " for a in node.args[1:])
        self.emit(f"if not {self.value(node.args[0])}: rt.fail({message}, {location}, ({values}))")

    def exact_leaf(self, node: Node) -> str:
        return f"int({self.value(node)})"

    def check_sizes(self, node: Node) -> None:
        """The size checks of an allocation or a kernel's grid that involve host arithmetic
        (``rt.alloc`` checks the rest of an allocation's), on Python ints, which do not wrap."""
        for check in self.size_checks(node):
            dims = [node.shape[axis] for axis in check.dims]
            if node.op is ALLOC and check.kind != "wrapped" and not any(self.computed(d) for d in dims):
                continue
            if check.kind == "wrapped":
                exact, value = self.exact_size(check.value), f"int({self.value(check.value)})"
                failed, values = f"{exact} != {value}", [exact, value]
            else:
                values = [self.exact_size(d) for d in dims]
                failed = f"{values[0]} < 0" if check.kind == "negative" else f"{' * '.join(values)} > {MAX_ELEMENTS}"
            message = self.global_value("message", check.message)
            self.emit(f"if {failed}: rt.fail({message}, None, ({''.join(v + ', ' for v in values)}))")

    def stmt_alloc(self, node: Node) -> None:
        self.check_sizes(node)
        dims = "".join(f"{self.value(d)}, " for d in node.shape)
        label = self.global_value("label", self.allocation_label(node))  # (user text stays out of the source)
        self.emit(f"{self.name(node)} = rt.alloc(({dims}), _dtype_{node.dtype.name}, {label})")

    def stmt_free(self, node: Node) -> None:
        self.emit(f"rt.free({self.name(node.args[0])})")

    def stmt_readback(self, node: Node) -> None:
        index = "".join(f"{self.value(i)}, " for i in node.args[1:])
        self.emit(f"{self.name(node)} = rt.readback({self.name(node.args[0])}, _{node.dtype.name}, ({index}))")

    def stmt_region(self, node: Node) -> None:
        self.emit(f"rt.region({node.attrs['name']!r}, {bool(node.attrs['begin'])})")

    def stmt_kernel(self, node: Node) -> None:
        self.check_sizes(node)
        buffers = "".join(f"{self.name(b)}, " for b in buffer_order(node))
        uniforms = "".join(f"{self.value(u)}, " for u in node.contract.uniforms)
        grid = "".join(f"{self.value(d)}, " for d in node.shape)
        self.emit(f"rt.dispatch({node.contract.index}, ({buffers}), ({uniforms}), ({grid}))")
        for buffer, message in self.finite_checks(node):
            self.emit(f"rt.check_finite({self.name(buffer)}, {self.global_value('message', message)})")

    def stmt_loop(self, node: Node) -> None:
        begin, end, step = (self.value(a) for a in node.args)
        self.block(node, f"for {self.name(node)} in rt.range({begin}, {end}, {step}):")

    def stmt_if(self, node: Node) -> None:
        self.block(node, f"if {self.value(node.args[0])}:")

    def stmt_break(self, node: Node) -> None:
        self.emit("break")

    def stmt_continue(self, node: Node) -> None:
        self.emit("continue")


def build_host(program: Program):
    """(source, the compiled ``tf_main`` function) of a program's host part."""
    host = PythonHost(program)
    namespace = dict(host.namespace)
    code = compile(host.source, f"<tensorfrost host {program.name}>", "exec")
    exec(code, namespace)  # noqa: S102 - our own generated source
    return host.source, namespace["tf_main"]


class ShaderExecutable:
    """A program built for a shader backend (OpenGL, WebGPU): calling it runs the host
    function, which calls back the methods below (``rt.alloc``, ``rt.dispatch``, ...). A
    backend's subclass gives ``kernel_type`` (built per kernel node, with ``pieces`` of
    ``shader``s), ``storage(nbytes)`` for a new buffer, ``element(memory, flat)`` to read
    one, ``dispatch`` and ``region``."""

    kernel_type: type

    def __init__(self, backend, program):
        self.backend = backend
        self.program = program
        self.kernels = [self.kernel_type(backend, k) for k in program.walk() if k.op is KERNEL]
        self.kernel_sources = ["\n".join(p.shader.source for p in k.pieces) for k in self.kernels]
        self.main_source, self.main = build_host(program)
        self.full_source = "\n".join([*self.kernel_sources, "# ---- host (Python)", self.main_source])

    def profile_dispatches(self, wait) -> None:
        """Make this a profiling build (``BuildOptions.profile``): each dispatch timed from an
        idle device to the end of its work (``wait()`` blocks until the device is idle), its
        launches and bytes (``kernel_traffic``, from the buffers' sizes) counted."""
        traffic = [dict(kernel_traffic(k.node)) for k in self.kernels]
        passes = [[traffic[i][node] for node in k.order] for i, k in enumerate(self.kernels)]
        self.profile = [[0.0, 0, 0] for _ in self.kernels]
        untimed = self.dispatch

        def dispatch(index: int, buffers, uniforms, grid) -> None:
            wait()
            start = perf_counter()
            untimed(index, buffers, uniforms, grid)
            wait()
            row = self.profile[index]
            row[0] += perf_counter() - start
            row[1] += 1
            row[2] += sum(p * m.size * m.dtype.itemsize for p, m in zip(passes[index], buffers, strict=True))

        self.dispatch = dispatch  # (the host function calls rt.dispatch: the instance's, now)

    def kernel_profile(self) -> list[tuple[float, int, int]]:
        """A profiling build's (seconds, launches, bytes) per kernel since the last read, in
        dispatch order; the counts start again from zero."""
        rows = [tuple(row) for row in self.profile]
        self.profile = [[0.0, 0, 0] for _ in self.kernels]
        return rows

    def alloc(self, dims, dtype: dt.DType, label: str) -> TensorMemory:
        """A buffer of a shape computed by the host code: ``label`` names it in errors."""
        shape = tuple(int(d) for d in dims)
        problem = shape_problem(shape)
        if problem is not None:  # a negative size is never clamped to an empty tensor
            raise RuntimeCheckError(f"{label}: {problem}")
        return TensorMemory(shape, dtype, self.storage(math.prod(shape), dtype), self.backend)

    def free(self, memory: TensorMemory) -> None:
        memory.storage.release()

    def readback(self, memory: TensorMemory, scalar_type, index=()):
        """The element at ``index`` (clamped to the shape; element 0 without one)."""
        flat = 0
        for i, size in zip(index, memory.shape, strict=False):
            flat = flat * size + min(max(int(i), 0), max(size - 1, 0))
        word = self.element(memory, flat)
        return scalar_type(word != 0 if memory.dtype is dt.bool1 else word)

    @staticmethod
    def range(begin, end, step):
        step = int(step)
        return map(np.int32, range(int(begin), int(end), step)) if step else ()

    def check_finite(self, memory: TensorMemory, message: str) -> None:
        """Debug mode ``"nan"``: fail with ``message`` if ``memory`` holds a NaN or an infinity."""
        if not np.isfinite(self.backend.download(memory).astype(np.float64)).all():
            raise runtime_check_error(message)

    @staticmethod
    def fail(message: str, location, values) -> None:
        # a NUL shows as the cpu's messages show it (C strings cannot hold one)
        raise runtime_check_error(message.format(*values).replace("\0", "\\x00"), location)


# The struct format of a uniform of each dtype: a 32-bit word, two for 64-bit dtypes (16-bit
# floats pass their value as a float32, 8- and 16-bit ints as int32 / uint32).
_UNIFORM_NUMPY = {"f": np.float32, "i": np.int32, "I": np.uint32, "d": np.float64, "q": np.int64, "Q": np.uint64}


def _uniform_kind(dtype: dt.DType) -> str:
    if dtype.bits == 64:
        return {"f": "d", "i": "q"}.get(dtype.kind, "Q")
    return {"f": "f", "i": "i"}.get(dtype.kind, "I")


class ShaderKernel:
    """One kernel of a program on a shader backend: its pieces (one unless split to the
    backend's buffer limit; ``piece_type`` is the backend's) and how to pack its uniforms."""

    piece_type: type

    def __init__(self, backend, node):
        self.node = node
        self.name = node.contract.name
        self.order = buffer_order(node)
        pieces = split_kernel(node, backend.max_buffers)
        self.pieces = [self.piece_type(backend, node, keep) for keep in (pieces or [None])]
        self.uniforms = struct.Struct("=" + "".join(_uniform_kind(u.dtype) for u in node.contract.uniforms))
        self.groups: dict = {}  # grid -> the backend's work groups for it

    def pack_uniforms(self, values) -> bytes:
        try:
            return self.uniforms.pack(*values)
        except (struct.error, TypeError):  # a numpy bool (struct wants ints): converted as numpy assigns
            return b"".join(np.array(value).astype(_UNIFORM_NUMPY[kind]).tobytes()
                            for kind, value in zip(self.uniforms.format[1:], values, strict=True))
