"""The kernel contract: what opt/finalize.py tells emitters and backends about each kernel
(``kernel.contract``), how it survives a copy of the program, and how the IR text shows it."""

import dataclasses
import re

import pytest

import tensorfrost as tf
from tensorfrost.ir.node import clone_program, walk
from tensorfrost.ir.ops import KERNEL, LOAD, STORE
from tensorfrost.ir.printer import format_program
from tensorfrost.opt.pipeline import compile_program
from tensorfrost.tracing.trace import trace


def two_outputs_and_a_sum():
    a = tf.input([-1], tf.float32)
    b = tf.input([-1], tf.float32)
    c = a * 2.0 + b
    e = a - b
    return c, e, (c * c).sum()


def _compiled():
    compiled, _ = compile_program(trace(two_outputs_and_a_sum))
    return compiled, [n for n in compiled.walk() if n.op is KERNEL]


def test_every_kernel_gets_its_index_name_buffers_and_uniforms():
    compiled, kernels = _compiled()
    assert [k.contract.index for k in kernels] == list(range(len(kernels)))
    assert [k.contract.name for k in kernels] == [f"two_outputs_and_a_sum_k{i}" for i in range(len(kernels))]
    for kernel in kernels:
        contract = kernel.contract
        touched = [n.args[0] for n in walk(kernel.body) if n.op in (LOAD, STORE)]
        assert contract.buffers == tuple(dict.fromkeys(touched))  # first-use order
        assert contract.written == frozenset(n.args[0] for n in walk(kernel.body) if n.op is STORE)
        assert contract.written <= set(contract.buffers)
        inside = set(walk(kernel.body))
        assert all(u not in inside for u in contract.uniforms)  # host values only
        assert set(kernel.shape) - {d for d in kernel.shape if d.op.name == "const"} <= set(contract.uniforms)
    assert not any(key in k.attrs for k in kernels for key in ("index", "name", "buffers", "written", "uniforms"))


def test_the_contract_cannot_be_changed_in_place():
    _, kernels = _compiled()
    with pytest.raises(dataclasses.FrozenInstanceError):
        kernels[0].contract.name = "other"
    renamed = dataclasses.replace(kernels[0].contract, name="other")
    assert renamed.name == "other" and renamed.buffers == kernels[0].contract.buffers


def test_a_copied_program_has_contracts_over_its_own_nodes():
    compiled, kernels = _compiled()
    copy = clone_program(compiled)
    copied = [n for n in copy.walk() if n.op is KERNEL]
    nodes = set(copy.walk())
    old = set(compiled.walk())
    for original, kernel in zip(kernels, copied, strict=True):
        contract = kernel.contract
        assert (contract.index, contract.name) == (original.contract.index, original.contract.name)
        for node in (*contract.buffers, *contract.written, *contract.uniforms):
            assert node in nodes and node not in old
        assert [b.name for b in contract.buffers] == [b.name for b in original.contract.buffers]
    numbered = re.compile(r"\d+")  # node ids differ between the copies
    assert numbered.sub("#", format_program(copy)) == numbered.sub("#", format_program(compiled))


def test_the_ir_text_lists_written_buffers_in_buffer_order():
    compiled, kernels = _compiled()
    text = format_program(compiled)
    many = [k for k in kernels if len(k.contract.written) > 1]
    assert many, "fusion should put both elementwise outputs in one kernel"
    for kernel in many:
        line = next(line for line in text.splitlines() if line.strip().startswith(f"{kernel.label}:"))
        expected = ", ".join(repr(b) for b in kernel.contract.buffers if b in kernel.contract.written)
        assert f" written={{{expected}}} " in line
        assert f"index={kernel.contract.index} name='{kernel.contract.name}' buffers=" in line
