"""Tracebacks of the user's mistakes show the user's frames, not tensorfrost's.

A ``TensorFrostError`` raised for a mistake of the user (``ShapeError``, ``DTypeError``,
``TraceError``, ``ArgumentError``, ``KernelProgramError``, ...) leaves ``tf.compile``,
``@tf.kernel_program`` and a program's call with a traceback of the user's own frames: the
call of ``tf.compile`` or of the program, and the lines of the traced function that led to
it (as JAX filters its tracebacks). Its message already names the user's line; the frames
of tracing, passes and backends in between would only hide it::

    Traceback (most recent call last):
      File "model.py", line 9, in <module>
        step = tf.compile(step)
      File "model.py", line 6, in step
        return a + b
    tensorfrost.ir.errors.ShapeError: add: cannot broadcast shapes [4] and [5] ...

An ``InternalError`` (a bug of tensorfrost) and any exception that is no ``TensorFrostError``
keep every frame: those are what a bug report needs. So does a kernel program's report of
another exception that was raised inside tensorfrost (``KernelProgramError.original``: an
``AttributeError`` in a pass, say). ``TENSORFROST_TRACEBACK=full`` keeps
every frame of every error (it is read when the error is raised, so setting
``os.environ`` in a running process works too).

The boundaries are ``user_facing`` (a decorator, for entry points whose call costs little
next to their work) and ``hide_internal_frames`` followed by a bare ``raise`` (for a hot
path, where a ``try`` costs nothing until it catches). A bare ``raise`` adds no frame of its
own on Python 3.11+; on 3.10 it re-raises the traceback it caught, so there the one frame of
the boundary itself stays, in front of the user's.
"""

from __future__ import annotations

import functools
import os
import sys
import sysconfig
import types
import warnings

from .ir.errors import InternalError, TensorFrostError, is_library_file

ENVIRONMENT = "TENSORFROST_TRACEBACK"
MODES = ("user", "full")  # the user's frames only (the default); every frame
_STDLIB_DIR = os.path.abspath(sysconfig.get_paths()["stdlib"]) + os.sep
_warned: set = set()


def mode() -> str:
    """``"user"`` (hide tensorfrost's frames from the user's errors) or ``"full"``, from
    ``TENSORFROST_TRACEBACK`` (unset or empty: ``"user"``; another value warns once and
    counts as ``"user"``: an error raised while reporting an error would hide it)."""
    value = os.environ.get(ENVIRONMENT, "").strip().lower() or "user"
    if value not in MODES:
        if value not in _warned:
            _warned.add(value)
            warnings.warn(f"{ENVIRONMENT}={value!r} is not one of {', '.join(MODES)}; using 'user'", stacklevel=2)
        return "user"
    return value


def is_users_mistake(exc: BaseException) -> bool:
    """True for the errors whose traceback ``hide_internal_frames`` filters: a
    TensorFrostError but an InternalError, and not a kernel program's report of another
    exception (its ``original``) raised inside tensorfrost, which may be a bug of ours."""
    if not isinstance(exc, TensorFrostError) or isinstance(exc, InternalError):
        return False
    original = getattr(exc, "original", None)
    return original is None or isinstance(original, TensorFrostError) or not _raised_inside(original)


def _raised_inside(exc: BaseException) -> bool:
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and is_library_file(tb.tb_frame.f_code.co_filename)


def hide_internal_frames(exc: BaseException) -> BaseException:
    """``exc`` with the frames of tensorfrost taken out of its traceback (and out of those of
    the exceptions it chains to, but an ``InternalError``'s), when it is the user's mistake
    and ``TENSORFROST_TRACEBACK`` is not ``full``. Call it in an ``except`` clause of a
    boundary and re-raise with a bare ``raise`` (which adds no frame of the boundary)."""
    if not is_users_mistake(exc) or mode() == "full":
        return exc
    head = exc.__traceback__  # (the boundary's own frame: where it caught exc)
    filtered = _filtered(head)
    exc.with_traceback(filtered)
    if sys.version_info < (3, 11) and head is not None:
        head.tb_next = filtered  # a bare raise re-raises from the caught traceback there
    _filter_chain(exc)  # (no note is added: doctests compare notes as part of the message)
    return exc


def user_facing(function):
    """Decorate an entry point of the public API: a user's mistake found inside it leaves it
    with the user's frames only (``hide_internal_frames``)."""
    @functools.wraps(function)
    def entry_point(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except TensorFrostError as exc:
            hide_internal_frames(exc)
            raise
    return entry_point


def _filtered(tb: types.TracebackType | None) -> types.TracebackType | None:
    """A copy of the traceback ``tb`` without tensorfrost's frames, nor the standard
    library's frames that tensorfrost called (contextlib, functools: its machinery). The
    first entry is taken to be called by tensorfrost (it is the boundary's)."""
    kept, called_by_library = [], True
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        hidden = is_library_file(filename) or (called_by_library and _is_stdlib(filename))
        if not hidden:
            kept.append(tb)
        called_by_library = hidden
        tb = tb.tb_next
    rebuilt = None
    for entry in reversed(kept):
        rebuilt = types.TracebackType(rebuilt, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return rebuilt


def _is_stdlib(filename: str) -> bool:
    return filename.startswith("<frozen") or (
        os.path.abspath(filename).startswith(_STDLIB_DIR) and "site-packages" not in filename)


def _filter_chain(exc: BaseException) -> None:
    """The exceptions ``exc`` was raised from or while handling, shown after it, filtered too
    (but an InternalError, whose every frame matters)."""
    seen = {id(exc)}
    pending = [exc.__cause__, exc.__context__]
    while pending:
        linked = pending.pop()
        if linked is None or id(linked) in seen:
            continue
        seen.add(id(linked))
        if not isinstance(linked, InternalError):
            linked.with_traceback(_filtered(linked.__traceback__))
        pending += [linked.__cause__, linked.__context__]
