"""C++ for a compiled program: one translation unit with its kernels and host function.

Each kernel is a function over its grid: OpenMP splits the outer axes across threads and
the innermost axis is a plain loop the compiler vectorizes. The host function
``tf_main`` checks the inputs, allocates buffers (freed by RAII, so an error frees them
too), dispatches kernels in host loops and ifs, and hands the outputs to the caller.
"""

from __future__ import annotations

import os

from ..emit.clike import BodyEmitter, Lang, identifier
from ..ir.node import Node, Program, walk

PRELUDE_PATH = os.path.join(os.path.dirname(__file__), "prelude.hpp")
PARALLEL_THRESHOLD = 8192  # grid elements below which a kernel runs on one thread
PARALLEL_THRESHOLD_LOOPS = 64  # ... when each element runs a loop


class CppLang(Lang):
    name = "cpp"


def prelude() -> str:
    with open(PRELUDE_PATH) as f:
        return f.read()


def _mutable(program: Program) -> set:
    return {n.args[0] for n in program.walk() if n.op.name == "set"}


class CppProgram:
    """The generated source of one program, split as the API exposes it."""

    def __init__(self, program: Program):
        self.program = program
        self.lang = CppLang()
        self.names: dict[Node, str] = {}
        self.mutable = _mutable(program)
        kernels = [n for n in program.walk() if n.op.name == "kernel"]
        self.kernel_sources = [self.kernel(k) for k in kernels]
        self.main_source = self.host()
        self.full_source = "\n".join([prelude(), "// ---- kernels", *self.kernel_sources, "// ---- host",
                                      self.main_source])

    def name(self, node: Node) -> str:
        if node not in self.names:
            self.names[node] = identifier(node)
        return self.names[node]

    # -- kernels --------------------------------------------------------------------------------

    def kernel(self, kernel: Node) -> str:
        attrs = kernel.attrs
        params = []
        for buffer in attrs["buffers"]:
            qualifier = "" if buffer in attrs["written"] else "const "
            params.append(f"{qualifier}{self.lang.storage_types[buffer.dtype]}* __restrict {self.name(buffer)}")
        for uniform in attrs["uniforms"]:
            params.append(f"const {self.lang.type(uniform.dtype)} {self.name(uniform)}")
        rank = kernel.rank
        grid_vars = [f"i{k}" for k in range(rank)]
        body = BodyEmitter(self.lang, kernel.shape, grid_vars, "tf_t" if rank else None, self.names)
        body.mutable = self.mutable
        dims = [body.value(d) for d in kernel.shape]
        lines = [f"static void {attrs['name']}({', '.join(params)}) {{"]
        if rank == 0:
            body.depth = 1
            body.scope(kernel.body.nodes)
            lines += body.lines
        else:
            has_loops = any(n.op.name == "loop" for n in walk(kernel.body))
            threshold = PARALLEL_THRESHOLD_LOOPS if has_loops else PARALLEL_THRESHOLD
            total = " * ".join(f"(long long)({d})" for d in dims)
            collapse = f" collapse({rank - 1})" if rank > 2 else ""
            lines.append(f"    #pragma omp parallel for schedule(static){collapse} if ({total} >= {threshold})")
            for k in range(rank - 1):
                lines.append("    " * (k + 1) + f"for (int32_t i{k} = 0; i{k} < {dims[k]}; i{k}++) {{")
            inner = "    " * rank
            lines.append(inner + f"for (int32_t i{rank - 1} = 0; i{rank - 1} < {dims[-1]}; i{rank - 1}++) {{")
            flat = "i0"
            for k in range(1, rank):
                flat = f"({flat}) * {dims[k]} + i{k}" if k > 1 else f"i0 * {dims[1]} + i1"
            lines.append(inner + f"    const int32_t tf_t = {flat};")
            body.depth = rank + 1
            body.scope(kernel.body.nodes)
            lines += body.lines
            for k in range(rank, 0, -1):
                lines.append("    " * k + "}")
        lines.append("}")
        return "\n".join(lines)

    # -- host ------------------------------------------------------------------------------------

    def host(self) -> str:
        emitter = _HostEmitter(self)
        emitter.depth = 2
        emitter.scope(self.program.root.nodes)
        emitter.outputs()
        lines = ['extern "C" int tf_main(const tf_arg* in, tf_arg* out, char* error, int error_size, '
                 "const tf_allocator* allocator) {",
                 "    if (allocator) tf_allocator_in_use = *allocator;",
                 "    try {", *emitter.lines, "    } catch (const std::exception& e) {",
                 '        std::snprintf(error, (size_t)error_size, "%s", e.what());', "        return 1;",
                 "    }", "    return 0;", "}"]
        return "\n".join(lines)


class _HostEmitter(BodyEmitter):
    def __init__(self, cpp: CppProgram):
        super().__init__(cpp.lang, names=cpp.names)
        self.cpp = cpp
        self.mutable = cpp.mutable

    def stmt_input(self, node: Node) -> None:
        k = node.attrs["index"]
        ctype = self.lang.storage_types[node.dtype]
        self.emit(f"const {ctype}* {self.name(node)} = (const {ctype}*)in[{k}].data;")

    def stmt_input_dim(self, node: Node) -> None:
        self.emit(f"const int32_t {self.name(node)} = in[{node.args[0].attrs['index']}].shape[{node.attrs['axis']}];")

    def stmt_assert(self, node: Node) -> None:
        message = node.attrs["message"].replace("\\", "\\\\").replace('"', '\\"')
        if node.location is not None:
            message += f" (at {node.location})".replace("\\", "\\\\").replace('"', '\\"')
        values = ", ".join(f"(long long)({self.value(a)})" for a in node.args[1:])
        self.emit(f'if (!({self.value(node.args[0])})) tf_fail("{message}", {{{values}}});')

    def stmt_alloc(self, node: Node) -> None:
        count = " * ".join(f"(long long)({self.value(d)})" for d in node.shape) or "1"
        name = self.name(node)
        ctype = self.lang.storage_types[node.dtype]
        self.emit(f'tf_buffer {name}_memory({count}, "{node.name or name}");')
        self.emit(f"{ctype}* {name} = ({ctype}*){name}_memory.data;")

    def stmt_free(self, node: Node) -> None:
        self.emit(f"{self.name(node.args[0])}_memory.reset();")

    def stmt_readback(self, node: Node) -> None:
        memory = node.args[0]
        index = self.flat_index(memory, node.args[1:]) if len(node.args) > 1 else "0"
        self.emit(self.lang.declare(node.dtype, self.name(node),
                                    self.lang.buffer_read(self.name(memory), index, memory.dtype)))

    def stmt_region(self, node: Node) -> None:
        self.emit(f"// region {'begin' if node.attrs['begin'] else 'end'}: {node.attrs['name']}")

    def stmt_kernel(self, node: Node) -> None:
        args = [self.name(b) for b in node.attrs["buffers"]] + [self.value(u) for u in node.attrs["uniforms"]]
        self.emit(f"{node.attrs['name']}({', '.join(args)});")

    def outputs(self) -> None:
        released = {}
        for k, out in enumerate(self.cpp.program.outputs):
            name = self.name(out)
            if out.op.name == "input":
                self.emit(f"out[{k}].data = in[{out.attrs['index']}].data;")
            elif out in released:
                self.emit(f"out[{k}].data = out[{released[out]}].data;")
            else:
                self.emit(f"out[{k}].data = {name}_memory.release();")
                released[out] = k
            self.emit(f"out[{k}].rank = {out.rank};")
            for axis, dim in enumerate(out.shape):
                self.emit(f"out[{k}].shape[{axis}] = {self.value(dim)};")
