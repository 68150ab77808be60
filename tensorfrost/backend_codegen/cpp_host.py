"""C++ main functions for codegen mode: the host part of a program, calling a TFContext.

A program ``QRDecomposition`` with input ``A`` and two outputs becomes::

    std::tuple<TFTensor, TFTensor> QRDecomposition(TFContext tf, TFTensor A) {
        tf.check_tensor(A, "A", 2, TFType::Float);
        const int A_shape0 = (int)A.shape[0];
        ...
        TFTensor Q = tf.allocate("Q", {(uint)m, (uint)n}, TFType::Float);
        tf.dispatch(0, {Q}, {A}, {asuint(m), asuint(n)}, {(uint)m, (uint)n}, {256});
        ...
        return {Q, R};
    }

Host scalar arithmetic uses the C++ prelude's helpers, so ``get_cpp_header()`` is that
prelude followed by the TFContext API (``tensorfrost_api.hpp``).
"""

from __future__ import annotations

import os

from ..backend_cpu.emit_cpp import prelude
from ..emit.binding import local_size
from ..emit.clike import BodyEmitter, Lang, c_string, identifier
from ..emit.host import HostEmitter
from ..emit.names import unique_name
from ..ir import dtypes as dt
from ..ir.node import Node, Program
from ..opt.analysis import set_variables

_API_PATH = os.path.join(os.path.dirname(__file__), "tensorfrost_api.hpp")
_TYPES = {dt.float32: "Float", dt.int32: "Int", dt.uint32: "Uint", dt.bool1: "Bool"}
_READ = {dt.float32: "asfloat({})", dt.int32: "asint({})", dt.uint32: "{}", dt.bool1: "({} != 0u)"}


class HostLang(Lang):
    name = "cpp"
    signed_overflow_wraps = False
    types = {dt.float32: "float", dt.int32: "int", dt.uint32: "uint", dt.bool1: "bool"}


def cpp_header() -> str:
    """The C++ the generated main functions need: helpers of the C++ prelude + TFContext."""
    with open(_API_PATH) as f:
        api = f.read()
    return prelude() + "\n" + api


def group_size(kernel: Node) -> int:
    return local_size(kernel)


class MainFunction(HostEmitter, BodyEmitter):
    """The C++ main function of a program; kernel ``k`` is dispatched as ``kernel_offset + k``."""

    locate_buffers = False  # code shipped elsewhere names no paths of this machine

    def __init__(self, program: Program, function_name: str, kernel_offset: int):
        super().__init__(HostLang())
        self.program = program
        self.kernel_offset = kernel_offset
        self.mutable = set_variables(program.walk())
        used = set()  # parameters keep the user's names, in ASCII, where they are free
        params = []
        for node, label in zip(program.inputs, program.input_names, strict=True):
            name = unique_name(label, used) if label else identifier(node, self.names)
            self.names[node] = name
            params.append(f"TFTensor {name}")
        self.depth = 1
        self.scope(program.root.nodes)
        outputs = [self.name(o) for o in program.outputs]
        if program.returns_tuple:
            result = f"std::tuple<{', '.join(['TFTensor'] * len(outputs))}>"
            self.emit(f"return {{{', '.join(outputs)}}};")
        else:
            result = "TFTensor"
            self.emit(f"return {outputs[0]};")
        signature = f"{result} {function_name}({', '.join(['TFContext tf', *params])})"
        self.source = "\n".join([signature, "{", *self.lines, "}", ""])

    def shape_list(self, dims) -> str:
        return "{" + ", ".join(f"(uint){self.value(d)}" for d in dims) + "}"

    def stmt_input(self, node: Node) -> None:
        label = self.program.input_names[node.attrs["index"]] or self.name(node)
        self.emit(f"tf.check_tensor({self.name(node)}, {c_string(label)}, {node.rank}, TFType::{_TYPES[node.dtype]});")

    def stmt_input_dim(self, node: Node) -> None:
        self.emit(f"const int {self.name(node)} = (int){self.name(node.args[0])}.shape[{node.attrs['axis']}];")

    def stmt_assert(self, node: Node) -> None:
        values = ", ".join(f"(long long)({self.value(a)})" for a in node.args[1:])
        self.emit(f"tf.check({self.value(node.args[0])}, {c_string(node.attrs['message'])}, {{{values}}});")

    def stmt_alloc(self, node: Node) -> None:
        # A size computed at run time must not wrap to a huge uint, nor exceed 32-bit indexing
        # (tf.check throws a tf_error with the message).
        for check in self.size_checks(node):
            holds, values = self.c_size_check(node, check, holds=True)
            self.emit(f"tf.check({holds}, {c_string(check.message)}, {{{', '.join(values)}}});")
        label = node.name or self.name(node)
        self.emit(f"TFTensor {self.name(node)} = tf.allocate({c_string(label)}, {self.shape_list(node.shape)}, "
                  f"TFType::{_TYPES[node.dtype]});")

    def stmt_free(self, node: Node) -> None:
        self.emit(f"tf.deallocate({self.name(node.args[0])});")

    def stmt_readback(self, node: Node) -> None:
        memory = node.args[0]
        index = self.flat_index(memory, node.args[1:]) if len(node.args) > 1 else "0"
        word = f"tf.read_word({self.name(memory)}, {index})"
        self.emit(self.lang.declare(node.dtype, self.name(node), _READ[node.dtype].format(word)))

    def stmt_region(self, node: Node) -> None:
        which = "begin" if node.attrs["begin"] else "end"
        self.emit(f"tf.region_{which}({c_string(node.attrs['name'])});")

    def stmt_kernel(self, node: Node) -> None:
        written = node.contract.written
        read_write = ", ".join(self.name(b) for b in node.contract.buffers if b in written)
        read_only = ", ".join(self.name(b) for b in node.contract.buffers if b not in written)
        uniforms = ", ".join(f"asuint({self.value(u)})" for u in node.contract.uniforms)
        shape = self.shape_list(node.shape) if node.shape else "{}"
        self.emit(f"tf.dispatch({self.kernel_offset + node.contract.index}, {{{read_write}}}, {{{read_only}}}, "
                  f"{{{uniforms}}}, {shape}, {{{group_size(node)}}});")
