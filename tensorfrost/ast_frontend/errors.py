"""The one error of kernel programs, and re-raising any tracing error at the user's line.

Every problem in a ``@tf.kernel_program`` function, found while rewriting it or while
tracing it, is reported as the user's file, line and column, with the line and a caret::

    KernelProgramError: 'try' is not supported in a kernel program
      at File "model.py", line 12, column 5
        try:
        ^^^^
"""

from __future__ import annotations

from ..ir.errors import SourceLocation, TensorFrostError, TraceError, is_library_file


class KernelProgramError(TraceError):
    """An unsupported construct in a kernel program, or any error raised while tracing one,
    located in the user's source. ``original`` holds the exception it replaces, if any.

    >>> from tensorfrost.ast_frontend import KernelProgramError
    >>> def guarded(x: tf.Arg([-1], tf.float32)):
    ...     try:
    ...         return x + 1.0
    ...     finally:
    ...         pass
    >>> try:
    ...     tf.kernel_program(guarded)
    ... except KernelProgramError as error:
    ...     print(str(error).splitlines()[0])
    'try' is not supported in a kernel program
    """

    original: BaseException | None = None


def span_of(node, filename: str, function: str = "") -> SourceLocation:
    """The location of an AST node (its columns are the original file's)."""
    return SourceLocation(filename, getattr(node, "lineno", 0), function, getattr(node, "col_offset", None),
                          getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None))


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


def relocate(exc: BaseException, explain=None) -> BaseException:
    """The error to raise for ``exc``, raised while tracing a kernel program: the same error
    class for tensorfrost errors, a KernelProgramError for anything else, in both cases
    located at the innermost user line of the traceback (with columns where Python has them).
    ``explain(location, exc)`` may return a better message for a known mistake."""
    if isinstance(exc, KernelProgramError) and exc.location is not None and not exc.location.traced:
        return exc  # located by the rewriter already
    tb = _user_frame(exc.__traceback__)
    if tb is None:
        return exc
    code = tb.tb_frame.f_code
    location = SourceLocation(code.co_filename, tb.tb_lineno, code.co_name, code=code, instruction=tb.tb_lasti)
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
