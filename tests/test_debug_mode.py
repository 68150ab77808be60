"""Debug mode (issue 32): ``tf.initialize(backend, debug=True)`` checks every index of
every load and store when the program runs and raises ``tf.DebugIndexError`` naming the
user's line, the tensor, the index and the shape; ``debug="nan"`` also checks what kernels
write. Off, the generated code is the code of a program compiled without it."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tensorfrost as tf

FILE = os.path.basename(__file__)


def line_of(text: str) -> int:
    """The line of this file that holds ``text`` (the bad access a message must name)."""
    with open(__file__) as source:
        return next(k for k, line in enumerate(source, 1) if text in line and "line_of" not in line)


def assert_names_line(error, line: int) -> None:
    text = str(error.value)
    assert f"{FILE}:{line}" in text or f'{FILE}", line {line}' in text, text


@pytest.fixture
def debug(backend):
    tf.initialize(backend, debug=True)
    yield backend
    tf.initialize(tf.cpu)


# -- the programs, as users write them -------------------------------------------------------------

def total():
    @tf.kernel_program
    def total(a: tf.Arg([-1], tf.float32)):
        n = a.shape[0]
        s = a[0] * 0.0
        for i in range(n + 1):
            s = s + a[i]  # off by one
        return s
    return total


def gather():
    def gather():
        a = tf.input([-1], tf.float32)
        idx = tf.input([-1], tf.int32)
        return a[idx] * 2.0  # gather
    return tf.compile(gather)


def histogram():
    def histogram():
        bins = tf.input([-1], tf.int32)
        counts = tf.zeros([4], tf.int32)
        tf.scatterAdd(counts[bins], 1)  # scatter
        return counts
    return tf.compile(histogram)


def shifted():
    def shifted():
        grid = tf.input([-1, -1], tf.float32)
        i, j = tf.indices([grid.shape[0], grid.shape[1]])
        return grid[i - 1, j] + grid[i, j]  # above
    return tf.compile(shifted)


def next_positive():
    @tf.kernel_program
    def next_positive(a: tf.Arg([-1], tf.float32)):
        i, = tf.indices([a.shape[0]])
        x = a * 0.0
        if a > 0.0:
            x = a[i + 1]  # next one
        return x
    return next_positive


def put():
    @tf.kernel_program
    def put(a: tf.Arg([-1], tf.float32), where: tf.Arg([-1], tf.int32)):
        out = tf.zeros([3], tf.float32)
        out[where] = a  # store
        return out
    return put


def first_above():
    @tf.kernel_program
    def first_above(a: tf.Arg([-1], tf.float32), t: tf.Arg([], tf.float32)):
        n = a.shape[0]
        i = 0
        while i <= n:  # off by one: reads a[n] when no element is above t
            if a[i] > t:  # the read past the end
                break
            i += 1
        return i
    return first_above


# -- out of range: an error at the user's line -------------------------------------------------------

def test_an_off_by_one_loop_names_the_read_the_index_and_the_shape(debug):
    prog = total()
    a = np.arange(5, dtype=np.float32)
    with pytest.raises(tf.DebugIndexError, match=r"index 5 on axis 0 of tensor 'a' with shape \[5\]") as error:
        prog(a)
    assert_names_line(error, line_of("s = s + a[i]"))
    assert isinstance(error.value, IndexError) and isinstance(error.value, tf.TensorFrostError)


def test_a_gather_with_a_bad_index_tensor(debug):
    prog = gather()
    a = np.arange(5, dtype=np.float32)
    with pytest.raises(tf.DebugIndexError, match=r"index 7 on axis 0 of tensor 'a' with shape \[5\]") as error:
        prog(a, np.array([0, 7, 1], np.int32))
    assert_names_line(error, line_of("return a[idx] * 2.0"))
    with pytest.raises(tf.DebugIndexError, match=r"index -3 on axis 0"):
        prog(a, np.array([0, -3, 1], np.int32))
    np.testing.assert_array_equal(prog(a, np.array([4, 0], np.int32)).numpy, [8.0, 0.0])  # it goes on working


def test_a_scatter_out_of_range(debug):
    prog = histogram()
    with pytest.raises(tf.DebugIndexError, match=r"index 4 on axis 0 of tensor 'counts' with shape \[4\]") as error:
        prog(np.array([0, 1, 4, 1], np.int32))
    assert_names_line(error, line_of("tf.scatterAdd(counts[bins], 1)"))


def test_a_2d_read_at_a_negative_index(debug):
    prog = shifted()
    grid = np.arange(12, dtype=np.float32).reshape(4, 3)
    with pytest.raises(tf.DebugIndexError, match=r"index -1 on axis 0 of tensor 'grid' with shape \[4, 3\]") as error:
        prog(grid)
    assert_names_line(error, line_of("return grid[i - 1, j] + grid[i, j]"))


def test_a_read_under_a_per_element_if_is_checked_where_it_runs(debug):
    prog = next_positive()
    with pytest.raises(tf.DebugIndexError, match=r"index 3 on axis 0 of tensor 'a' with shape \[3\]") as error:
        prog(np.array([1.0, -2.0, 3.0], np.float32))
    assert_names_line(error, line_of("x = a[i + 1]"))
    a = np.array([1.0, 2.0, -3.0], np.float32)  # the last element does not read past the end
    np.testing.assert_array_equal(prog(a).numpy, [2.0, -3.0, 0.0])


def test_a_store_out_of_range(debug):
    prog = put()
    with pytest.raises(tf.DebugIndexError, match=r"index 3 on axis 0 of tensor 'out' with shape \[3\]") as error:
        prog(np.ones(2, np.float32), np.array([0, 3], np.int32))
    assert_names_line(error, line_of("out[where] = a"))


# -- in range: the results of a program without debug mode ------------------------------------------

def _results(a):
    return [gather()(a, np.array([4, 0, 2], np.int32)).numpy,
            histogram()(np.array([0, 3, 3, 1], np.int32)).numpy, put()(a[:2], np.array([2, 0], np.int32)).numpy,
            next_positive()(np.array([1.0, 2.0, -3.0], np.float32)).numpy]


def test_in_range_programs_give_the_same_results(backend):
    a = np.arange(5, dtype=np.float32)
    plain = _results(a)
    tf.initialize(backend, debug=True)
    checked = _results(a)
    for got, want in zip(checked, plain):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(checked[0], [8.0, 0.0, 4.0])
    np.testing.assert_array_equal(checked[1], [1, 1, 0, 2])
    np.testing.assert_array_equal(checked[2], [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(checked[3], [2.0, -3.0, 0.0])


def test_debug_off_generates_the_same_code(backend):
    default = gather().compiled_code()
    tf.initialize(backend, debug=False)
    assert gather().compiled_code() == default
    tf.initialize(backend, debug=True)
    assert gather().compiled_code() != default


def test_the_environment_variable_turns_it_on(backend):
    script = textwrap.dedent(f"""
        import numpy as np
        import tensorfrost as tf
        tf.initialize(tf.{backend.name})
        prog = tf.compile(lambda: tf.input([-1], tf.float32)[tf.input([-1], tf.int32)])
        try:
            prog(np.zeros(2, np.float32), np.array([2], np.int32))
        except tf.DebugIndexError as error:
            print("caught:", error)
    """)
    env = dict(os.environ, TENSORFROST_DEBUG="1")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert "caught: index out of range: index 2 on axis 0" in done.stdout, done.stdout + done.stderr


def test_nan_mode_names_the_kernel_and_the_line(backend):
    tf.initialize(backend, debug="nan")

    def logarithm():
        x = tf.input([-1], tf.float32)
        return tf.log(x)  # NaN below 0
    prog = tf.compile(logarithm)
    np.testing.assert_allclose(prog(np.array([1.0, 2.0], np.float32)).numpy, np.log([1.0, 2.0]), rtol=1e-6)
    with pytest.raises(tf.DebugNanError, match=r"kernel \w+ wrote a NaN or an infinity") as error:
        prog(np.array([1.0, -2.0], np.float32))
    assert f"{FILE}:{line_of('return tf.log(x)')}" in str(error.value)


def test_debug_accepts_only_its_modes():
    with pytest.raises(tf.TensorFrostError, match="debug must be False, True or \"nan\""):
        tf.initialize(tf.cpu, debug="yes")


def test_a_while_on_data_with_an_early_exit_is_checked_only_when_it_runs_past(debug):
    prog = first_above()
    a = np.array([0.5, 2.0, 3.0, 1.0], np.float32)
    assert int(prog(a, 1.5).numpy) == int(np.argmax(a > 1.5))  # it exits before the end: no error
    with pytest.raises(tf.DebugIndexError, match=r"index 4 on axis 0 of tensor 'a' with shape \[4\]") as error:
        prog(a, 5.0)
    assert_names_line(error, line_of("if a[i] > t:"))
