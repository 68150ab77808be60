"""From a Python function to its rewritten twin: source, gast parse, analysis, rewrite,
compile with the original file name and line numbers, and a cache per function.

The rewritten function is built inside a factory so that it closes over the runtime
(``_tf_rt``) and over the original function's closure cells; it runs with the original
globals. Globals and closure values are read when the function runs under the tracer, so
they act as compile-time constants of the kernel program::

    twin = rewritten_callable(helper)   # helper itself if it is not a user function
"""

from __future__ import annotations

import ast
import copy
import inspect
import os
import sysconfig
import types
import weakref

import gast

from ..ir.builder import active
from ..ir.errors import SourceLocation, is_library_file
from . import runtime
from .analysis import analyse
from .errors import KernelProgramError
from .rewrite import RUNTIME, Rewriter

_LIBRARY_DIRS = tuple(os.path.abspath(p) + os.sep for p in
                      {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")})


class Compiled:
    """The rewrite of one code object: the code of the twin, its source, its original tree."""

    __slots__ = ("code", "source", "tree", "filename")

    def __init__(self, code, source: str, tree, filename: str):
        self.code, self.source, self.tree, self.filename = code, source, tree, filename


_COMPILED: dict[types.CodeType, Compiled] = {}
_TWINS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_USED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # builder -> helpers rewritten for it


def is_user_function(obj) -> bool:
    """A plain Python function (or method) of the user's: not tensorfrost, not a library."""
    fn = obj.__func__ if isinstance(obj, types.MethodType) else obj
    if not isinstance(fn, types.FunctionType) or getattr(fn, "_tf_rewritten", False):
        return False
    filename = fn.__code__.co_filename
    if filename.startswith("<frozen") or fn.__name__ == "<lambda>" or is_library_file(filename):
        return False
    return not os.path.abspath(filename).startswith(_LIBRARY_DIRS)


def compile_function(fn: types.FunctionType) -> Compiled:
    """The rewrite of ``fn``'s code (cached: every function with this code shares it)."""
    compiled = _COMPILED.get(fn.__code__)
    if compiled is None:
        compiled = _COMPILED[fn.__code__] = _compile(fn)
    return compiled


def twin(fn: types.FunctionType):
    """The rewritten function of ``fn``: same globals, closure cells and defaults."""
    found = _TWINS.get(fn)
    if found is None:
        compiled = compile_function(fn)
        cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
        cells[RUNTIME] = types.CellType(runtime)
        closure = tuple(cells[n] for n in compiled.code.co_freevars) or None
        found = types.FunctionType(compiled.code, fn.__globals__, fn.__name__, fn.__defaults__, closure)
        found.__kwdefaults__ = fn.__kwdefaults__
        found.__qualname__, found.__doc__, found.__module__ = fn.__qualname__, fn.__doc__, fn.__module__
        found._tf_rewritten = True
        _TWINS[fn] = found
    return found


def rewritten_callable(fn):
    """What a kernel program calls for ``fn``: the twin of a user function, else ``fn``."""
    if not is_user_function(fn):
        return fn
    if isinstance(fn, types.MethodType):
        return types.MethodType(rewritten_callable(fn.__func__), fn.__self__)
    if not _has_source(fn):  # defined in a REPL without history: run it as it is
        return fn
    found = twin(fn)
    builder = active()
    if builder is not None:
        _USED.setdefault(builder, {})[fn.__code__] = compile_function(fn)
    return found


def _has_source(fn) -> bool:
    if fn.__code__ in _COMPILED:
        return True
    try:
        inspect.getsourcelines(fn)
    except OSError:
        return False
    return True


def helpers_used(builder) -> list[Compiled]:
    """The helpers rewritten while ``builder``'s program was traced."""
    return list(_USED.get(builder, {}).values())


# -- source to code -----------------------------------------------------------------------------


def _source(fn) -> tuple:
    """(function definition as a gast tree with the file's line numbers and columns, filename)."""
    filename = fn.__code__.co_filename
    try:
        lines, first = inspect.getsourcelines(fn)
    except OSError:
        raise KernelProgramError(f"cannot read the source of {fn.__qualname__} (defined in {filename}); "
                                 "a kernel program must be defined in a file") from None
    text = "".join(lines)
    indented = text[:1].isspace()
    try:
        module = gast.parse("if True:\n" + text if indented else text)
    except SyntaxError as exc:
        raise KernelProgramError(f"cannot parse the source of {fn.__qualname__}: {exc.msg}",
                                 SourceLocation(filename, first)) from None
    body = module.body[0].body if indented else module.body
    defs = [s for s in body if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef))]
    if not defs:
        raise KernelProgramError(f"{fn.__qualname__} is not defined by a 'def' statement (a lambda?); "
                                 "kernel programs and their helpers need one", SourceLocation(filename, max(first, 1)))
    fn_def = defs[0]
    gast.increment_lineno(fn_def, max(first, 1) - (2 if indented else 1))
    return fn_def, filename


def _compile(fn) -> Compiled:
    fn_def, filename = _source(fn)
    if isinstance(fn_def, gast.AsyncFunctionDef):
        raise KernelProgramError("'async def' is not supported in a kernel program",
                                 SourceLocation(filename, fn_def.lineno, col=fn_def.col_offset))
    tree = copy.deepcopy(fn_def)  # kept as written, to map error positions to expressions

    def resolve(node):
        return _resolve(fn, node)

    rewriter = Rewriter(analyse(fn_def), filename, resolve, is_user_function)
    rewritten = rewriter.function(fn_def)
    source = ast.unparse(gast.gast_to_ast(rewritten))
    # The factory is never run: it only makes the twin close over the runtime and the cells.
    # The twin is defined under another name, so that the function's own name, inside it,
    # still means the global (a recursive helper calls itself through it).
    name, rewritten.name = fn_def.name, "_tf_twin"  # (fn_def may be the node renamed here)
    factory = gast.parse(f"def _tf_make({', '.join((RUNTIME, *fn.__code__.co_freevars))}):\n    pass").body[0]
    factory.body = [rewritten]
    module = ast.fix_missing_locations(gast.gast_to_ast(gast.Module(body=[factory], type_ignores=[])))
    code = compile(module, filename, "exec")
    make = next(c for c in code.co_consts if isinstance(c, types.CodeType) and c.co_name == "_tf_make")
    inner = next(c for c in make.co_consts if isinstance(c, types.CodeType) and c.co_name == "_tf_twin")
    inner = inner.replace(co_name=name, co_qualname=fn.__qualname__) if hasattr(inner, "co_qualname") \
        else inner.replace(co_name=name)
    return Compiled(inner, source, tree, filename)


def _resolve(fn, node):
    """The value of a global, closure or builtin name, or of a module's attribute."""
    if isinstance(node, gast.Name):
        if node.id in fn.__code__.co_freevars:
            cell = fn.__closure__[fn.__code__.co_freevars.index(node.id)]
            try:
                return cell.cell_contents
            except ValueError:
                raise LookupError(node.id) from None
        if node.id in fn.__globals__:
            return fn.__globals__[node.id]
        builtins_ = fn.__globals__.get("__builtins__", {})
        builtins_ = builtins_ if isinstance(builtins_, dict) else vars(builtins_)
        if node.id in builtins_:
            return builtins_[node.id]
        raise LookupError(node.id)
    if isinstance(node, gast.Attribute):
        base = _resolve(fn, node.value)
        if isinstance(base, types.ModuleType) and hasattr(base, node.attr):
            return getattr(base, node.attr)
    raise LookupError(type(node).__name__)


# -- explaining errors -----------------------------------------------------------------------------


def explain(location: SourceLocation, exc: BaseException):
    """A better message for a known mistake at ``location``, or None."""
    if "cannot be used as a Python int" not in str(exc) or location.col is None:
        return None
    for compiled in list(_COMPILED.values()):
        if compiled.filename != location.filename:
            continue
        for node in gast.walk(compiled.tree):
            if isinstance(node, gast.Subscript) and (node.lineno, node.col_offset, node.end_lineno,
                                                     node.end_col_offset) == (location.lineno, location.col,
                                                                              location.end_lineno, location.end_col):
                seq = ast.unparse(gast.gast_to_ast(node.value))
                return (f"the Python list or tuple '{seq}' is indexed with a tensor (such as the counter of a "
                        f"range loop, which is a loop in the program): iterate over it instead (for item in "
                        f"{seq}: ...), or loop with tf.static_range(...), which unrolls and counts with Python "
                        "ints")
    return None
