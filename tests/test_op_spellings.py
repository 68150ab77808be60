"""Each elementwise op's spelling belongs to its op-table entry, per language, as a function
of its operands' dtypes (ir/ops_math.py): every spelling of every op, for every dtype its
type rule accepts, names only helpers its language's prelude defines, and no prelude defines
a helper twice (no language needs overloading: WGSL has none). The C++ side is compiled."""

import itertools
import re
import shutil
import subprocess

import pytest

from tensorfrost.backend_cpu.emit_cpp import CppLang, prelude
from tensorfrost.emit import glsl
from tensorfrost.ir import dtypes as dt
from tensorfrost.ir.errors import DTypeError
from tensorfrost.ir.ops import ELEMENTWISE, OPS, elementwise_types

HELPER = re.compile(r"\b(?:tf|TF)_\w+\b")


def _operand_dtypes(op):
    """Every list of operand dtypes the op's type rule accepts, as converted for it (what
    the emitters spell: conversions are made before the op)."""
    choices = [(d,) * op.arity for d in dt.ALL]
    if op.arity == 3:  # select: a bool condition and two values
        choices += [(dt.bool1, d, d) for d in dt.ALL]
    seen = []
    for dtypes in choices:
        try:
            converted, _ = elementwise_types(op, list(dtypes))
        except (DTypeError, TypeError, KeyError, ValueError):
            continue
        if list(converted) not in seen:
            seen.append(list(converted))
    return seen


CASES = [(name, dtypes) for name, op in sorted(OPS.items()) if op.kind == ELEMENTWISE and op.arity
         for dtypes in _operand_dtypes(op)]


def test_every_elementwise_op_accepts_some_dtype():
    spelled = {name for name, _ in CASES}
    assert spelled == {n for n, o in OPS.items() if o.kind == ELEMENTWISE and o.arity}


def _shader_definitions() -> dict:
    counts: dict = {}
    for _, text, _ in glsl._PRELUDE:
        for name in re.findall(r"^\w+\s+(tf_\w+)\s*\(", text, re.M):
            counts[name] = counts.get(name, 0) + 1
    return counts


def test_no_shader_prelude_helper_is_overloaded():
    twice = sorted(name for name, count in _shader_definitions().items() if count > 1)
    assert not twice, f"defined more than once (overloads): {twice}"


def test_every_shader_spelling_names_a_defined_helper():
    defined = set(_shader_definitions()) | {"TF_NAN", "TF_INF"}
    missing = set()
    for name, dtypes in CASES:
        template = OPS[name].spelling("glsl", dtypes)
        missing |= {(name, tuple(d.name for d in dtypes), h) for h in HELPER.findall(template) if h not in defined}
    assert not missing, sorted(missing)[:20]


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ (apt-get install g++)")
def test_every_cpp_spelling_compiles_and_names_no_overload(tmp_path):
    """One function per (op, operand dtypes) returning the op's C++ spelling (and its wrapping
    one for signed values); the address of each helper it names is taken, which does not
    compile where the name is overloaded."""
    types = CppLang.types
    lines, helpers = [prelude(False)], set()
    for k, (name, dtypes) in enumerate(CASES):
        op = OPS[name]
        spellings = [op.spelling("cpp", dtypes)]
        if "cpp_int_wrap" in op.emit and dtypes[0].kind == "i":
            spellings.append(op.spelling("cpp_int_wrap", dtypes))
        params = ", ".join(f"{types[d]} a{i}" for i, d in enumerate(dtypes))
        for j, template in enumerate(spellings):
            body = template.format(*[f"a{i}" for i in range(len(dtypes))])
            lines.append(f"// {name}{tuple(d.name for d in dtypes)}\n"
                         f"static inline auto t_{k}_{j}({params}) {{ return {body}; }}")
            helpers |= {h for h in re.findall(r"\b(tf_\w+)\s*\(", template)}
    lines += [f"static auto* const p_{k} = &{h};" for k, h in enumerate(sorted(helpers - {"tf_bitcast"}))]
    source = tmp_path / "spellings.cpp"
    source.write_text("\n".join(lines) + "\n")
    done = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-fopenmp", "-Wno-unused", str(source)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[:4000]


def test_value_codes_name_what_a_language_holds():
    from tensorfrost.ir.ops_math import value_code
    codes = {d.name: value_code(d) for d in dt.ALL}
    assert codes == {"float16": "f32", "bfloat16": "f32", "float32": "f32", "float64": "f64", "int8": "i32",
                     "int16": "i32", "int32": "i32", "int64": "i64", "uint8": "u32", "uint16": "u32",
                     "uint32": "u32", "uint64": "u64", "bool1": "b"}
    assert len(set(itertools.chain(codes.values()))) == 7
