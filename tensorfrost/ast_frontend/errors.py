"""The one error of kernel programs, and re-raising any tracing error at the user's line.

Every problem in a ``@tf.kernel_program`` function, found while rewriting it or while
tracing it, is reported as the user's file, line and column, with the line and a caret::

    KernelProgramError: 'try' is not supported in a kernel program
      at File "model.py", line 12, column 5
        try:
        ^^^^
"""

from __future__ import annotations

import itertools
import linecache

from ..ir.errors import SourceLocation, TensorFrostError, TraceError, is_library_file


class KernelProgramError(TraceError):
    """An unsupported construct in a kernel program, or any error raised while tracing one,
    located in the user's source. ``original`` holds the exception it replaces, if any."""

    original: BaseException | None = None


class SourceSpan(SourceLocation):
    """A location with columns: rendered with the source line and a caret under the span."""

    __slots__ = ("col", "end_lineno", "end_col")

    def __init__(self, filename: str, lineno: int, col: int | None = None, end_lineno: int | None = None,
                 end_col: int | None = None, function: str = ""):
        super().__init__(filename, lineno, function)
        self.col, self.end_lineno, self.end_col = col, end_lineno, end_col

    def describe(self) -> str:
        head = f'File "{self.filename}", line {self.lineno}'
        text = linecache.getline(self.filename, self.lineno).rstrip()
        if self.col is None:
            return head + (f"\n    {text.strip()}" if text.strip() else "")
        head += f", column {self.col + 1}"
        if not text.strip():
            return head
        indent = len(text) - len(text.lstrip())
        start = max(self.col - indent, 0)
        stripped = text.strip()
        if self.end_lineno == self.lineno and self.end_col is not None and self.end_col > self.col:
            width = self.end_col - self.col
        else:
            width = len(stripped) - start
        return f"{head}\n    {stripped}\n    {' ' * start}{'^' * max(width, 1)}"


def span_of(node, filename: str, function: str = "") -> SourceSpan:
    """The location of an AST node (its columns are the original file's)."""
    return SourceSpan(filename, getattr(node, "lineno", 0), getattr(node, "col_offset", None),
                      getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None), function)


def error_at(node, filename: str, message: str) -> KernelProgramError:
    return KernelProgramError(message, span_of(node, filename))


def _user_frame(tb):
    """The innermost traceback entry in user code (not tensorfrost, not the stdlib's frozen modules)."""
    found = None
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if not is_library_file(filename) and not filename.startswith("<frozen"):
            found = tb
        tb = tb.tb_next
    return found


def _position(tb) -> tuple:
    code = tb.tb_frame.f_code
    if hasattr(code, "co_positions") and tb.tb_lasti >= 0:
        position = next(itertools.islice(code.co_positions(), tb.tb_lasti // 2, None), None)
        if position is not None and position[0] is not None:
            return position
    return tb.tb_lineno, None, None, None


def relocate(exc: BaseException, explain=None) -> BaseException:
    """The error to raise for ``exc``, raised while tracing a kernel program: the same error
    class for tensorfrost errors, a KernelProgramError for anything else, in both cases
    located at the innermost user line of the traceback (with columns where Python has them).
    ``explain(location, exc)`` may return a better message for a known mistake."""
    if isinstance(exc, KernelProgramError) and isinstance(exc.location, SourceSpan):
        return exc
    tb = _user_frame(exc.__traceback__)
    if tb is None:
        return exc
    lineno, end_lineno, col, end_col = _position(tb)
    location = SourceSpan(tb.tb_frame.f_code.co_filename, lineno, col, end_lineno, end_col,
                          tb.tb_frame.f_code.co_name)
    if isinstance(exc, TensorFrostError):
        message = exc.message
    else:
        message = f"{type(exc).__name__}: {exc}"
    better = explain(location, exc) if explain is not None else None
    if better is not None:
        error = KernelProgramError(better, location)
    elif isinstance(exc, TensorFrostError) and not isinstance(exc, KernelProgramError):
        try:
            error = type(exc)(message, location)
        except TypeError:  # a subclass with another constructor
            error = KernelProgramError(message, location)
    else:
        error = KernelProgramError(message, location)
    error.original = exc
    return error
