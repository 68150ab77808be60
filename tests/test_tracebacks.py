"""The tracebacks of users' mistakes hold the user's frames only (tensorfrost/tracebacks.py);
``TENSORFROST_TRACEBACK=full`` and an InternalError keep tensorfrost's frames."""

import os
import sys
import traceback

import numpy as np
import pytest

import tensorfrost as tf
from tensorfrost import program as program_module
from tensorfrost import tracebacks
from tensorfrost.ast_frontend import KernelProgramError
from tensorfrost.backend_cpu import program_cache

PACKAGE = os.path.dirname(os.path.abspath(tf.__file__)) + os.sep
HERE = os.path.abspath(__file__)
# Python 3.10 re-raises a caught traceback as it was caught: there the boundary's own frame stays.
BOUNDARIES = {(os.path.join(PACKAGE, "tracebacks.py"), "entry_point"),
              (os.path.join(PACKAGE, "program.py"), "__call__")}


def frames_of(exc):
    return traceback.extract_tb(exc.__traceback__)


def internal_frames(exc):
    found = [f for f in frames_of(exc) if os.path.abspath(f.filename).startswith(PACKAGE)]
    if sys.version_info < (3, 11):
        found = [f for f in found if (os.path.abspath(f.filename), f.name) not in BOUNDARIES]
    return found


def user_lines(exc):
    return [f.lineno for f in frames_of(exc) if os.path.abspath(f.filename) == HERE]


def line_of(function, text):
    """The line number in this file of the first line of ``function`` that contains ``text``."""
    import inspect
    lines, first = inspect.getsourcelines(function)
    return first + next(k for k, line in enumerate(lines) if text in line)


@pytest.fixture
def default_mode(monkeypatch):
    monkeypatch.delenv(tracebacks.ENVIRONMENT, raising=False)


def mismatched():
    a = tf.input([4], tf.float32)
    b = tf.input([5], tf.float32)
    return a + b


def test_shape_error_in_compile_shows_only_user_frames(backend, default_mode):
    with pytest.raises(tf.ShapeError) as info:
        tf.compile(mismatched)
    exc = info.value
    assert internal_frames(exc) == []
    # the call of tf.compile and the line of the function that made the mistake
    assert line_of(mismatched, "return a + b") in user_lines(exc)
    assert line_of(test_shape_error_in_compile_shows_only_user_frames, "tf.compile(mismatched)") in user_lines(exc)


def plus_one(x: tf.Arg([-1], tf.float32)):
    return x + 1.0


@pytest.mark.parametrize("call", ["wrong rank", "too many", "unknown keyword", "wrong dtype"])
def test_argument_error_of_a_call_shows_only_user_frames(backend, default_mode, call):
    prog = tf.compile(plus_one)
    arguments = {"wrong rank": ((np.zeros((2, 2), np.float32),), {}),
                 "too many": ((np.zeros(2, np.float32), np.zeros(2, np.float32)), {}),
                 "unknown keyword": ((), {"y": np.zeros(2, np.float32)}),
                 "wrong dtype": ((tf.tensor(np.zeros(2, np.int32)),), {})}[call]
    with pytest.raises(tf.ArgumentError) as info:
        prog(*arguments[0], **arguments[1])
    assert internal_frames(info.value) == []
    assert line_of(test_argument_error_of_a_call_shows_only_user_frames, "prog(*arguments[0]") in user_lines(info.value)
    assert prog(np.ones(3, np.float32)).numpy.tolist() == [2.0, 2.0, 2.0]  # the program still works


def test_kernel_program_error_shows_the_users_line(backend, default_mode):
    def build():
        @tf.kernel_program
        def scaled_sum(a: tf.Arg([4], tf.float32), b: tf.Arg([5], tf.float32)):
            s = a * 2.0
            return s + b
        return scaled_sum

    with pytest.raises(tf.ShapeError) as info:
        build()
    assert internal_frames(info.value) == []
    lines = user_lines(info.value)
    assert line_of(build, "return s + b") in lines  # the line in the kernel program's body
    assert line_of(build, "@tf.kernel_program") in lines
    body = next(f for f in frames_of(info.value) if f.lineno == line_of(build, "return s + b"))
    assert body.name == "scaled_sum"  # the frame has the function's name, not its rewritten twin's


def test_unsupported_construct_in_kernel_program(backend, default_mode):
    def build():
        @tf.kernel_program
        def guarded(a: tf.Arg([-1], tf.float32)):
            try:
                pass
            finally:
                pass
            return a
        return guarded

    with pytest.raises(KernelProgramError, match="'try' is not supported") as info:
        build()
    assert internal_frames(info.value) == []
    assert line_of(build, "@tf.kernel_program") in user_lines(info.value)


def test_full_switch_keeps_internal_frames(backend, monkeypatch):
    monkeypatch.setenv(tracebacks.ENVIRONMENT, "full")
    with pytest.raises(tf.ShapeError) as info:
        tf.compile(mismatched)
    files = {os.path.basename(f.filename) for f in internal_frames(info.value)}
    assert {"program.py", "trace.py"} <= files
    assert line_of(mismatched, "return a + b") in user_lines(info.value)
    prog = tf.compile(plus_one)
    with pytest.raises(tf.ArgumentError) as info:
        prog(1, 2)
    assert any(f.name == "_checked_arguments" for f in internal_frames(info.value))


def test_unknown_switch_value_warns_and_filters(monkeypatch):
    monkeypatch.setenv(tracebacks.ENVIRONMENT, "sometimes")
    with pytest.warns(UserWarning, match="TENSORFROST_TRACEBACK='sometimes' is not one of user, full"):
        assert tracebacks.mode() == "user"


def test_internal_error_keeps_every_frame(backend, default_mode, monkeypatch):
    def broken_pass(program):
        raise tf.InternalError("a pass broke an invariant")

    monkeypatch.setattr(program_cache, "load", lambda *args: (None, {}))  # (a cache hit would skip the passes)
    monkeypatch.setattr(program_module, "compile_program", broken_pass)
    with pytest.raises(tf.InternalError) as info:
        tf.compile(plus_one)
    names = {f.name for f in internal_frames(info.value)}
    assert {"__init__", "_build"} <= names


def test_other_exceptions_keep_every_frame(backend, default_mode):
    def fails():
        x = tf.input([-1], tf.float32)
        raise ValueError("the user's own bug")
        return x

    with pytest.raises(ValueError) as info:
        tf.compile(fails)
    assert {"program.py", "trace.py"} <= {os.path.basename(f.filename) for f in internal_frames(info.value)}


def test_chained_exceptions_are_filtered_too(default_mode):
    def inner_library_raise():
        try:
            {}["missing"]
        except KeyError as error:
            raise tf.ShapeError("a user's mistake") from error

    # a boundary around a function of this file: every frame here is the user's
    with pytest.raises(tf.ShapeError) as info:
        tracebacks.user_facing(inner_library_raise)()
    cause = info.value.__cause__
    assert isinstance(cause, KeyError)
    assert internal_frames(info.value) == [] and line_of(inner_library_raise, '{}["missing"]') in user_lines(cause)


def test_a_call_under_a_profile_shows_only_user_frames(backend, default_mode):
    prog = tf.compile(plus_one)
    with tf.profile():
        with pytest.raises(tf.ArgumentError) as info:
            prog(np.zeros((2, 2), np.float32))
    assert internal_frames(info.value) == []
    assert line_of(test_a_call_under_a_profile_shows_only_user_frames, "prog(np.zeros((2, 2)") in user_lines(info.value)


def test_an_eager_operations_error_shows_only_user_frames(default_mode):
    a, b = tf.tensor(np.zeros(3, np.float32)), tf.tensor(np.zeros(4, np.float32))
    with pytest.raises(tf.ShapeError, match="do not broadcast") as info:
        a + b  # noqa: B018
    assert internal_frames(info.value) == []
    assert user_lines(info.value)
