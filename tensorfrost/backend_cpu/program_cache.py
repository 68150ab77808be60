"""Programs compiled before skip the passes and C++ generation: a cache keyed on the IR as
traced, beside the compiled libraries (compiler.py).

The key hashes the traced program (each node's op, dtype, shape, arguments, attributes,
name, source line and enclosing scope, and the inputs and outputs), tensorfrost's own
source, the op table's spellings, the passes and the emitters' tuning constants as this
process has them, the optimizations switched off, the build options,
the compiler command and the CPU: all that the generated code follows from. An entry holds
what the executable needs besides its library: the library's key, each output's dtype, rank
and alias, the core libraries it calls (loaded first: core_library.py), and the generated
source. It is JSON signed with the cache's secret like a library's record, so an
entry planted, edited or cut short does not verify and the program is compiled as if there
were none; the library it names is verified as on any other hit, which also checks that the
compiler the command resolves to is the one that built it (toolchain.py): an entry of g++'s
never brings back a library for clang. That identity is not hashed into the key, so that a
hit still needs no compiler installed.

Not cached: programs whose compilation calls the user's code (a custom operation's vjp,
which the autodiff pass runs), attributes of kinds the key cannot spell, and compiles while
``TENSORFROST_DUMP_IR`` asks for the passes' output.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from types import SimpleNamespace

from .. import optimizations
from ..ir import dtypes as dt
from ..ir.errors import SourceLocation
from ..ir.node import Node, Program
from ..ir.ops import CONST, INPUT, OPS
from ..opt import pipeline
from . import compiler, emit_cpp, gemm, math_core, temporal, tiling
from .cores import CORES
from .runtime import CpuExecutable, ffi

FORMAT = "tensorfrost program cache 5"
SUFFIX = ".program"
_PLAIN = (int, float, str, bool, type(None))  # attribute values spelled by their repr (which tells them apart)
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_SOURCES = (".py", ".hpp", ".c", ".h")
_package_digest: str | None = None


class _UnspellableError(Exception):
    """An attribute the key cannot spell exactly: the program is not cached."""


def key(traced: Program, backend, options) -> str | None:
    """The cache key of a traced program built by ``backend`` with ``options``, or None
    when it must be compiled anyway."""
    if getattr(backend, "name", None) != "cpu" or os.environ.get("TENSORFROST_DUMP_IR", "") not in ("", "0"):
        return None
    if not optimizations.enabled("program_cache"):
        return None
    spelled = _spell(traced)
    if spelled is None:
        return None
    text = "\n".join([FORMAT, _package(), _tables(), options.kernel_lang, options.compiler_flags, repr(options.debug),
                      compiler.build_identity(), repr(sorted(optimizations.disabled_set())), spelled])
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def load(cache_key: str | None, name: str, backend, options) -> tuple:
    """The executable of the entry ``cache_key`` if it and its library verify, and what its
    compile fired ({optimization: count}, counted again here); else (None, {})."""
    if cache_key is None:
        return None, {}
    data = compiler.read_signed(compiler.entry_path(name, cache_key, SUFFIX))
    if data is None:
        return None, {}
    try:
        entry = json.loads(data)
        if entry["format"] != FORMAT or entry["key"] != cache_key:
            return None, {}
        path = compiler.cached_library(name, entry["library"])
        if path is None:
            return None, {}
        program, source = _outline(entry), _sources(entry)
        by_name = {core.name: core for core in CORES}
        cores = [by_name[name] for name in entry["cores"]]
        fired = {str(k): int(v) for k, v in entry["fired"].items() if k in optimizations.NAMES}
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None, {}  # signed by us, so only an older format: compiled again
    for core in cores:
        core.ensure(compiler.cxx_flags(options.compiler_flags))  # before the library that calls it
    try:
        lib = ffi.dlopen(path)
    except OSError:
        return None, {}  # the normal build rebuilds a library the loader refuses
    compiler.CompileStats.program_hits += 1
    for optimization, count in fired.items():
        optimizations.fired(optimization, count)
    optimizations.fired("program_cache")
    return CpuExecutable(backend, program, source, path, lib), fired


def store(cache_key: str | None, program: Program, executable, fired: dict) -> None:
    """Keep what ``load`` needs to make ``executable`` again without compiling ``program``,
    and what its compile ``fired``."""
    if cache_key is None:
        return
    full, spans, start = executable.full_source, [], 0
    for piece in [*executable.kernel_sources, executable.main_source]:
        start = full.index(piece, start)
        spans.append([start, start + len(piece)])
        start += len(piece)
    outputs = []
    for k, out in enumerate(program.outputs):
        alias = ["input", out.attrs["index"]] if out.op is INPUT else \
            ["output", program.outputs.index(out)] if out in program.outputs[:k] else None
        outputs.append([out.dtype.name, out.rank, alias])
    library = os.path.basename(executable.library_path)[:-len(".so")].rpartition("-")[2]  # its key ends its name
    entry = {"format": FORMAT, "key": cache_key, "library": library,
             "inputs": [[node.dtype.name, node.rank] for node in program.inputs], "outputs": outputs, "source": full,
             "spans": spans, "cores": [core.name for core in CORES if core.used_by(executable)],
             "fired": fired}
    compiler.write_entry(compiler.entry_path(program.name, cache_key, SUFFIX),
                         compiler.signed(json.dumps(entry).encode()))


# -- the key ------------------------------------------------------------------------------------


def _spell(program: Program) -> str | None:
    """The traced program as text that differs whenever the compiled code could."""
    index = {node: k for k, node in enumerate(program.walk())}
    rows = []
    try:
        for node in index:
            if node.op.calls_user_code:  # the user's function may differ from run to run
                return None
            owner = node.scope.owner
            rows.append((node.op.name, node.dtype.name if node.dtype is not None else None,
                         [index[d] for d in node.shape], [index[a] for a in node.args],
                         sorted((name, _value(v, index)) for name, v in node.attrs.items()), node.name,
                         _where(node.location), index[owner] if owner is not None else -1))
        rows.append(([index[n] for n in program.inputs], [index[n] for n in program.outputs],
                     [(str(name), index[n]) for name, n in program.printed], program.name,
                     [str(n) for n in program.input_names], program.returns_tuple, program.returns_one_list,
                     program.max_buffers))
    except (KeyError, _UnspellableError):  # a node outside the program, or an attribute of another kind
        return None
    return repr(rows)


def _value(value, index: dict):
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is tuple or kind is list:
        return (kind.__name__, *(_value(v, index) for v in value))
    if kind is dt.DType:
        return ("dtype", value.name)
    if kind is Node:
        return ("node", index[value])
    raise _UnspellableError


def _where(location) -> tuple | None:
    if location is None:
        return None
    if type(location) is not SourceLocation:
        raise _UnspellableError
    return (location.filename, location.lineno, location.function)


def _package() -> str:
    """A digest of tensorfrost's source (once per process): passes and emitters it changes."""
    global _package_digest
    if _package_digest is None:
        digest = hashlib.sha256(repr(sys.version_info[:2]).encode())
        for folder, folders, files in os.walk(_PACKAGE):
            folders.sort()
            for name in sorted(files):
                if name.endswith(_SOURCES):
                    path = os.path.join(folder, name)
                    with open(path, "rb") as f:
                        digest.update(f"{os.path.relpath(path, _PACKAGE)}\0{len(data := f.read())}\0".encode())
                        digest.update(data)
        _package_digest = digest.hexdigest()
    return _package_digest


def _spelling_text(how) -> str:
    """A spelling as the same text in every process: a template, or a function by its name
    and what its closure holds (a function's repr names its address, which differs)."""
    if callable(how):
        held = [_spelling_text(cell.cell_contents) for cell in how.__closure__ or ()]
        return f"{how.__module__}.{how.__qualname__}({', '.join(held)})"
    if isinstance(how, dict):
        return repr(sorted((key, _spelling_text(value)) for key, value in how.items()))
    return repr(how)


def _tables() -> str:
    """The op table's spellings, the list of passes and the emitters' tuning constants (tile
    and band sizes, the GEMM's thresholds) as this process has them (a test or a user may
    change them at run time, which the package's source does not show)."""
    tunables = [(module.__name__, name, value) for module in (emit_cpp, gemm, temporal, tiling)
                for name, value in sorted(vars(module).items()) if name.isupper() and type(value) in (int, float)]
    return repr([(name, [(lang, _spelling_text(how)) for lang, how in sorted((op.emit or {}).items())])
                 for name, op in sorted(OPS.items())]
                + [(name, run.__module__, run.__qualname__) for name, run in pipeline.PASSES] + tunables)


# -- what the executable needs ------------------------------------------------------------------


def _outline(entry: dict) -> Program:
    """A program with the inputs and outputs of the compiled one (all an executable reads)."""
    program = Program()
    size = Node(CONST, dt.int32, (), attrs={"value": 0})
    # ranks too: the calls that skip the argument checks compare them (rank 0 declined them all)
    program.inputs = [Node(INPUT, dt.dtype_of(d), (size,) * int(rank), attrs={"index": k})
                      for k, (d, rank) in enumerate(entry["inputs"])]
    for dtype, rank, alias in entry["outputs"]:
        shape = (size,) * int(rank)
        if alias is None:
            out = Node(OPS["copy"], dt.dtype_of(dtype), shape)
        elif alias[0] == "input":
            out = Node(INPUT, dt.dtype_of(dtype), shape, attrs={"index": int(alias[1])})
        else:
            out = program.outputs[int(alias[1])]
        program.outputs.append(out)
    return program


def _sources(entry: dict) -> SimpleNamespace:
    full = entry["source"]
    pieces = [full[start:stop] for start, stop in entry["spans"]]
    return SimpleNamespace(kernel_sources=pieces[:-1], main_source=pieces[-1], full_source=full,
                           uses_math_core=math_core.CORE.name in entry["cores"])
