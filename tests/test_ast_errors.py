"""Errors of @tf.kernel_program: each names the construct and points at the user's file,
line and column with the source line and a caret, never at tensorfrost's own files.

None of these programs reaches a backend: they fail while rewriting or tracing."""

import inspect
import os
import sys

import pytest

import tensorfrost as tf
from tensorfrost.ast_frontend import KernelProgramError

LIBRARY = os.path.dirname(tf.__file__)
ITEMS = [1.0, 2.0]


def line_of(fn, marker: str) -> int:
    lines, start = inspect.getsourcelines(fn)
    return start + next(k for k, line in enumerate(lines) if marker in line)


def check(error, fn, marker: str, *words):
    message = str(error)
    line = line_of(fn, marker)
    assert f'File "{__file__}", line {line}' in message, message
    assert marker.split("#")[0].strip() in message, message
    if sys.version_info >= (3, 11):  # before, Python has no columns for errors raised while tracing
        assert f"line {line}, column " in message and "^" in message, message
    assert LIBRARY not in message, message
    for word in words:
        assert word in message, message


def fails_to_compile(fn, error=KernelProgramError):
    with pytest.raises(error) as info:
        tf.kernel_program(fn)
    return info.value


# -- constructs the rewrite rejects ---------------------------------------------------------------


def test_try_is_rejected():
    def program(a: tf.Arg([-1], tf.float32)):
        try:  # mark
            b = a * 2.0
        except ValueError:
            b = a
        return b
    check(fails_to_compile(program), program, "try:  # mark", "'try' is not supported")


def test_with_other_than_tf_scopes_is_rejected():
    def program(a: tf.Arg([-1], tf.float32)):
        with open(__file__) as f:  # mark
            f.read()
        return a
    check(fails_to_compile(program), program, "with open(__file__) as f:  # mark", "'with' is not supported")


def test_yield_global_del_are_rejected():
    def generator(a: tf.Arg([-1], tf.float32)):
        yield a  # mark

    def uses_global(a: tf.Arg([-1], tf.float32)):
        global ITEMS  # mark
        return a

    def deletes(a: tf.Arg([-1], tf.float32)):
        b = a
        del b  # mark
        return a
    check(fails_to_compile(generator), generator, "yield a  # mark", "'yield' is not supported")
    check(fails_to_compile(uses_global), uses_global, "global ITEMS  # mark", "'global' is not supported")
    check(fails_to_compile(deletes), deletes, "del b  # mark", "'del' is not supported")


def test_nonlocal_is_rejected():
    total = 0

    def program(a: tf.Arg([-1], tf.float32)):
        nonlocal total  # mark
        return a
    check(fails_to_compile(program), program, "nonlocal total  # mark", "'nonlocal' is not supported")
    assert total == 0


def test_return_inside_a_range_loop_is_rejected():
    def program(a: tf.Arg([-1], tf.float32)):
        for _ in range(3):
            return a  # mark
        return a
    check(fails_to_compile(program), program, "return a  # mark", "'return' inside a loop")


def test_loop_counter_used_after_the_loop_is_rejected():
    def program(a: tf.Arg([-1], tf.float32)):
        for k in range(3):  # mark  # noqa: B007 (k is used after the loop: the error)
            a = a + 1.0
        return a * k
    check(fails_to_compile(program), program, "for k in range(3):  # mark", "loop counter 'k'")


def test_a_lambda_is_not_a_kernel_program():
    with pytest.raises(KernelProgramError, match="lambda"):
        tf.kernel_program(lambda: 1.0)


# -- errors found while tracing --------------------------------------------------------------------


def test_return_inside_a_tensor_if():
    def program(a: tf.Arg([-1], tf.float32)):
        if a > 0.0:
            return a  # mark
        return -a
    check(fails_to_compile(program), program, "return a  # mark", "'return' inside a tensor if")


def test_a_list_indexed_by_a_loop_tensor():
    def program(a: tf.Arg([-1], tf.float32)):
        s = a
        for k in range(2):
            s = s + ITEMS[k]  # mark
        return s
    check(fails_to_compile(program), program, "s = s + ITEMS[k]  # mark", "'ITEMS' is indexed with a tensor",
          "tf.static_range")


def test_a_variable_defined_in_only_one_branch():
    def program(a: tf.Arg([-1], tf.float32)):
        if a > 0.0:  # mark
            y = a
        return y
    check(fails_to_compile(program), program, "if a > 0.0:  # mark", "'y' is assigned in only one branch")


def test_a_loop_variable_read_before_its_first_assignment():
    def program(a: tf.Arg([-1], tf.float32)):
        total = a
        for k in range(3):
            total = total + prev  # mark  # noqa: F821 (Python: UnboundLocalError in the first trip)
            prev = a * k  # noqa: F841
        return total
    check(fails_to_compile(program), program, "total = total + prev  # mark",
          "variable 'prev' is used before it is assigned")


def test_break_under_a_tensor_condition_in_a_python_loop():
    def program(a: tf.Arg([-1], tf.float32)):
        for w in ITEMS:
            if a > w:
                break  # mark
            a = a * w
        return a
    check(fails_to_compile(program), program, "break  # mark", "cannot leave a Python loop")


def test_an_int_tensor_variable_assigned_a_float():
    def program(a: tf.Arg([-1], tf.float32)):
        s = tf.int(a)  # an int32 tensor (a Python int would become float32)
        for _ in range(3):
            s = s + a  # mark
        return s
    check(fails_to_compile(program), program, "s = s + a  # mark", "'s' is a tf.int32 variable",
          "(...).astype(tf.float32)")


def test_while_else_with_a_tensor_condition():
    def program(a: tf.Arg([-1], tf.float32)):
        while a > 1.0:  # mark
            a = a * 0.5
        else:
            a = a + 1.0
        return a
    check(fails_to_compile(program), program, "while a > 1.0:  # mark", "'while ... else'")


def test_python_exceptions_are_reraised_at_the_users_line():
    settings = {}

    def program(a: tf.Arg([-1], tf.float32)):
        return a * settings["scale"]  # mark
    check(fails_to_compile(program), program, 'return a * settings["scale"]  # mark', "KeyError: 'scale'")


def test_tensorfrost_errors_keep_their_class_and_get_a_caret():
    def program(a: tf.Arg([-1], tf.float32)):
        b = tf.zeros([3]) + tf.zeros([4])  # mark
        return a + b
    error = fails_to_compile(program, tf.ShapeError)
    check(error, program, "b = tf.zeros([3]) + tf.zeros([4])  # mark", "cannot broadcast")


def _helper_with_error(x):
    return x + undefined_name  # noqa: F821  # mark


def test_errors_inside_helpers_point_at_the_helper():
    def program(a: tf.Arg([-1], tf.float32)):
        return _helper_with_error(a)
    check(fails_to_compile(program), _helper_with_error, "return x + undefined_name", "NameError")
