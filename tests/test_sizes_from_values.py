"""Sizes computed from values, as users write them (issue 27, item A): the value of a rank-0
or [1] input, or a value a kernel computes (a sum, a count, a maximum), through arithmetic,
min/max, //, %, casts, as the size of a tensor, the grid of a kernel or the trip count of a
loop; and checks (tf.assert_value, a while loop's trip check) on such scalars, which the
host reads after the kernel that computes them. Both front ends, each program compared
with numpy or plain Python; the C++ of codegen mode compiles and runs them too."""

import re
import shutil
import subprocess

import numpy as np
import pytest
from test_codegen import CPU_RUNTIME

import tensorfrost as tf
from tensorfrost.ir.errors import RuntimeCheckError


def single(result):
    return result[0] if isinstance(result, (tuple, list)) else result


def primes_flags(n):
    return np.array([int(k > 1 and all(k % d for d in range(2, k))) for k in range(n + 1)], np.int32)


# -- the programs (module level: codegen mode compiles the same functions) -------------------


def sieve_kernel_program(n: tf.Arg([], tf.int32)):
    is_prime = tf.ones([n + 1], tf.int32)
    is_prime[0] = 0
    is_prime[1] = 0
    for p in range(2, n + 1):
        if p * p <= n:
            if is_prime[p] == 1:
                k, = tf.indices([(n - p * p) // p + 1])
                is_prime[p * p + k * p] = 0
    return is_prime


def sieve_traced():
    n = tf.input([], tf.int32)
    is_prime = tf.ones([n + 1], tf.int32)
    is_prime[0] = 0
    is_prime[1] = 0
    with tf.loop(2, n + 1) as p:
        with tf.if_cond(p * p <= n):
            with tf.if_cond(is_prime[p] == 1):
                k, = tf.indices([(n - p * p) // p + 1])
                is_prime[p * p + k * p] = 0
    return is_prime


def histogram_kernel_program(data: tf.Arg([-1], tf.int32)):
    bins = tf.zeros([tf.max(data) + 1], tf.int32)  # as many bins as the largest value needs
    tf.scatterAdd(bins[data], 1)
    return bins


def compaction_traced():
    x = tf.input([-1], tf.float32)
    keep = tf.int(x > 0.0)
    count = tf.sum(keep)  # computed on the device: the host reads it to allocate
    slot = tf.prefix_sum(keep) - 1
    out = tf.zeros([count], tf.float32)
    i, = x.indices
    with tf.if_cond(keep == 1):
        out[slot[i]] = x
    return out


def assert_traced():
    n = tf.input([], tf.int32)
    tf.assert_value("n", n >= 0)
    return tf.zeros([n], tf.float32) + 1.0


# -- A: sizes from values ------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 30, 97])
def test_sieve_of_size_n_plus_one(backend, n):
    sieve = tf.kernel_program(sieve_kernel_program)
    np.testing.assert_array_equal(sieve(np.int32(n)).numpy, primes_flags(n))
    np.testing.assert_array_equal(single(tf.compile(sieve_traced)(np.int32(n))).numpy, primes_flags(n))


def test_indices_of_a_length_computed_from_inputs(backend):
    def multiples():
        n = tf.input([], tf.int32)
        p = tf.input([], tf.int32)
        k, = tf.indices([(n - p * p) // p + 1])
        return p * p + k * p

    @tf.kernel_program
    def multiples_kp(n: tf.Arg([], tf.int32), p: tf.Arg([], tf.int32)):
        k, = tf.indices([(n - p * p) // p + 1])
        return p * p + k * p
    for n, p in [(50, 3), (49, 7), (10, 2)]:
        want = np.arange(p * p, n + 1, p)
        np.testing.assert_array_equal(single(tf.compile(multiples)(np.int32(n), np.int32(p))).numpy, want)
        np.testing.assert_array_equal(multiples_kp(np.int32(n), np.int32(p)).numpy, want)


def test_histogram_with_as_many_bins_as_the_data_needs(backend):
    def histogram():
        data = tf.input([-1], tf.int32)
        count = tf.max(data) + 1
        bins = tf.zeros([count], tf.int32)
        tf.scatterAdd(bins[data], 1)
        return bins
    for data in ([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5], [0, 0], [7]):
        data = np.array(data, np.int32)
        np.testing.assert_array_equal(tf.kernel_program(histogram_kernel_program)(data).numpy, np.bincount(data))
        np.testing.assert_array_equal(single(tf.compile(histogram)(data)).numpy, np.bincount(data))


def test_compaction_whose_output_size_is_a_device_sum(backend):
    @tf.kernel_program
    def compact(x: tf.Arg([-1], tf.float32)):
        keep = tf.int(x > 0.0)
        slot = tf.prefix_sum(keep) - 1
        out = tf.zeros([tf.sum(keep)], tf.float32)
        i, = x.indices
        if keep == 1:
            out[slot[i]] = x
        return out
    for x in ([1.5, -2.0, 3.0, 0.0, -1.0, 7.0], [-1.0, -2.0], np.linspace(-1, 1, 301)):
        x = np.array(x, np.float32)
        np.testing.assert_array_equal(single(tf.compile(compaction_traced)(x)).numpy, x[x > 0])
        np.testing.assert_array_equal(compact(x).numpy, x[x > 0])


def test_sizes_through_min_max_floordiv_mod_and_casts(backend):
    @tf.kernel_program
    def grid(n: tf.Arg([], tf.int32), s: tf.Arg([], tf.float32), a: tf.Arg([-1], tf.float32)):
        rows = tf.max(tf.min(n, 4) * tf.int(s * 2.0) % 7, 1)
        out = tf.zeros([rows, tf.min(n // 2, a.shape[0])], tf.float32)
        i, j = out.indices
        out[i, j] = a[j] * tf.float(i + 1)
        return out

    def grid_traced():
        n = tf.input([], tf.int32)
        s = tf.input([], tf.float32)
        a = tf.input([-1], tf.float32)
        rows = tf.max(tf.min(n, 4) * tf.int(s * 2.0) % 7, 1)
        out = tf.zeros([rows, tf.min(n // 2, a.shape[0])], tf.float32)
        i, j = out.indices
        out[i, j] = a[j] * tf.float(i + 1)
        return out
    a = np.arange(1, 6, dtype=np.float32)
    for n, s in [(3, 1.5), (9, 2.0), (7, 0.25)]:
        rows, cols = max(min(n, 4) * int(s * 2.0) % 7, 1), min(n // 2, 5)
        want = np.arange(1, rows + 1, dtype=np.float32)[:, None] * a[None, :cols]
        np.testing.assert_array_equal(grid(np.int32(n), np.float32(s), a).numpy, want)
        np.testing.assert_array_equal(single(tf.compile(grid_traced)(np.int32(n), np.float32(s), a)).numpy, want)


def test_a_size_from_a_size(backend):
    @tf.kernel_program
    def nested(n: tf.Arg([], tf.int32)):
        a = tf.zeros([n * 2], tf.int32)
        b = tf.zeros([a.shape[0] // 3 + 1], tf.int32)
        c = tf.zeros([b.shape[0] * b.shape[0] - n], tf.int32)
        i, = c.indices
        c[i] = i % (n // 2 + 1) + a.shape[0]
        return c

    def nested_traced():
        n = tf.input([], tf.int32)
        a = tf.zeros([n * 2], tf.int32)
        b = tf.zeros([a.shape[0] // 3 + 1], tf.int32)
        c = tf.zeros([b.shape[0] * b.shape[0] - n], tf.int32)
        i, = c.indices
        c[i] = i % (n // 2 + 1) + a.shape[0]
        return c
    for n in (7, 12):
        b = 2 * n // 3 + 1
        want = np.arange(b * b - n) % (n // 2 + 1) + 2 * n
        np.testing.assert_array_equal(nested(np.int32(n)).numpy, want)
        np.testing.assert_array_equal(single(tf.compile(nested_traced)(np.int32(n))).numpy, want)


def test_one_element_inputs_and_values_as_sizes(backend):
    @tf.kernel_program
    def ramps(n: tf.Arg([1], tf.int32), x: tf.Arg([-1], tf.float32)):
        a, = tf.indices([n[0] + 1])
        b, = tf.indices([n])
        c, = tf.indices([tf.sum(tf.int(x > 0.0)) * 2])  # a sum of a 1-D tensor has shape [1]
        return a * 2, b + 1, c
    a, b, c = ramps(np.array([4], np.int32), np.array([1.0, -1.0, 2.0], np.float32))
    np.testing.assert_array_equal(a.numpy, np.arange(5) * 2)
    np.testing.assert_array_equal(b.numpy, np.arange(4) + 1)
    np.testing.assert_array_equal(c.numpy, np.arange(4))


def test_a_size_counted_by_a_loop_on_the_device(backend):
    @tf.kernel_program
    def positives(x: tf.Arg([-1], tf.float32)):
        total = 0
        for i in range(x.shape[0]):
            if x[i] > 0.0:
                total = total + 1
        out = tf.zeros([total + 1], tf.int32)
        k, = out.indices
        out[k] = k * total
        return out

    def counts():
        x = tf.input([-1], tf.float32)
        total = tf.const(0)
        with tf.loop(x.shape[0]) as i:
            with tf.if_cond(x[i] > 0.0):
                total.val = total + 1
        before = tf.zeros([total * 2], tf.float32)
        total.val = total + 5  # a size reads the variable's value where it is used
        after = tf.zeros([total], tf.float32)
        return before, after
    x = np.array([1.0, -1.0, 2.0, 3.0, -0.5], np.float32)
    np.testing.assert_array_equal(positives(x).numpy, np.arange(4) * 3)
    before, after = tf.compile(counts)(x)
    assert before.numpy.shape == (6,) and after.numpy.shape == (8,)


def test_kernel_grids_from_values(backend):
    def squares():
        n = tf.input([], tf.int32)
        out = tf.buffer([n + 1], tf.int32)
        with tf.kernel([n + 1]) as i:
            out[i] = i * i
        return out

    def table():
        n = tf.input([], tf.int32)
        rows, cols = tf.max(n // 3, 1), n % 5 + 2
        out = tf.buffer([rows, cols], tf.float32)
        with tf.kernel([rows, cols], group_size=[4, 4]) as (i, j):
            out[i, j] = tf.float(i * 10 + j)
        return out
    np.testing.assert_array_equal(single(tf.compile(squares)(np.int32(6))).numpy, np.arange(7) ** 2)
    want = np.arange(4)[:, None] * 10.0 + np.arange(5)[None, :]
    np.testing.assert_array_equal(single(tf.compile(table)(np.int32(13))).numpy, want)


def test_loops_whose_trip_count_is_a_computed_scalar(backend):
    @tf.kernel_program
    def running(x: tf.Arg([-1], tf.float32), n: tf.Arg([], tf.int32)):
        steps = (n - 1) // 2 + 1
        y = tf.zeros([steps], tf.float32)
        for t in range(steps):  # each trip reads an element another trip wrote: a host loop
            y = y + x[t % x.shape[0]]
            y[t] = y[t] * 2.0
        for _ in range(tf.sum(tf.int(x > 1.5))):  # a count of the device's
            y = y + 1.0
        return y

    def triangle():
        n = tf.input([], tf.int32)
        x = tf.input([-1], tf.float32)
        acc = tf.zeros(x.shape, tf.float32)
        with tf.loop(n * 2 - 1) as i:
            acc.val = acc + tf.float(i)
        return acc
    x = np.array([1.0, 2.0, 3.0], np.float32)
    for n in (1, 6):
        steps = (n - 1) // 2 + 1
        y = np.zeros(steps, np.float32)
        for t in range(steps):
            y = y + x[t % 3]
            y[t] *= 2.0
        np.testing.assert_array_equal(running(x, np.int32(n)).numpy, y + 2.0)
        np.testing.assert_array_equal(single(tf.compile(triangle)(np.int32(n), x)).numpy,
                                      np.full(3, sum(range(2 * n - 1)), np.float32))


# -- checks on scalars the host reads ----------------------------------------------------------


def test_assert_value_on_scalar_inputs(backend):
    @tf.kernel_program
    def scaled(n: tf.Arg([], tf.int32), x: tf.Arg([-1], tf.float32)):
        tf.assert_value("n positive", n > 0)
        tf.assert_value("n below the length", n < x.shape[0])
        return x * tf.float(n)
    traced = tf.compile(assert_traced)
    np.testing.assert_array_equal(single(traced(np.int32(3))).numpy, np.ones(3, np.float32))
    with pytest.raises(RuntimeCheckError, match="'n' is false"):
        traced(np.int32(-2))
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(scaled(np.int32(2), x).numpy, x * 2)
    with pytest.raises(RuntimeCheckError, match="'n positive' is false"):
        scaled(np.int32(0), x)
    with pytest.raises(RuntimeCheckError, match="'n below the length' is false"):
        scaled(np.int32(4), x)


def test_assert_value_on_a_sum_the_device_computes(backend):
    def normalized():
        x = tf.input([-1], tf.float32)
        total = tf.sum(x)
        tf.assert_value("total positive", total > 0.0)
        return x / total
    program = tf.compile(normalized)
    np.testing.assert_array_equal(single(program(np.array([1.0, 3.0], np.float32))).numpy, [0.25, 0.75])
    with pytest.raises(RuntimeCheckError, match="'total positive' is false"):
        program(np.array([-1.0, -3.0], np.float32))


def test_while_loop_on_a_scalar_condition(backend):
    """The loop's trip check reads a scalar the loop's kernels compute."""
    @tf.kernel_program
    def doubling(a: tf.Arg([-1], tf.float32), k: tf.Arg([], tf.int32)):
        b = tf.copy(a)
        while b[k] < 1.0:
            b[k] = b[k] * 2.0
            b[k + 1] = b[k + 1] + 1.0
        return b

    def doubling_traced():
        a = tf.input([-1], tf.float32)
        k = tf.input([], tf.int32)
        b = tf.copy(a)
        with tf.loop(0, 100, 1):
            with tf.if_cond(b[k] >= 1.0):
                tf.break_loop()
            b[k] = b[k] * 2.0
        return b
    a = np.array([0.1, 0.2, 0.3], np.float32)
    want, want_traced = a.copy(), a.copy()
    while want[0] < 1.0:
        want[0] *= np.float32(2.0)
        want[1] += np.float32(1.0)
    while want_traced[2] < 1.0:
        want_traced[2] *= np.float32(2.0)
    np.testing.assert_array_equal(doubling(a, np.int32(0)).numpy, want)
    np.testing.assert_array_equal(single(tf.compile(doubling_traced)(a, np.int32(2))).numpy, want_traced)


# -- sizes that do not fit -----------------------------------------------------------------------


def test_sizes_from_values_that_do_not_fit_are_clear_errors(backend):
    @tf.kernel_program
    def square(n: tf.Arg([], tf.int32)):
        return tf.zeros([n * n], tf.int32)

    @tf.kernel_program
    def shorter(n: tf.Arg([], tf.int32)):
        return tf.zeros([n - 5], tf.int32)

    @tf.kernel_program
    def counted(x: tf.Arg([-1], tf.int32)):
        return tf.zeros([tf.sum(x)], tf.int32)
    with pytest.raises(RuntimeCheckError, match=r"shape \[10000000000\] has more elements than the 2147483647"):
        square(np.int32(100000))
    with pytest.raises(RuntimeCheckError, match=r"shape\[0\] is -3, a negative size"):
        shorter(np.int32(2))
    with pytest.raises(RuntimeCheckError, match=r"shape\[0\] is -4, a negative size"):
        counted(np.array([1, -5], np.int32))
    assert counted(np.array([1, 2], np.int32)).numpy.shape == (3,)


# -- codegen mode --------------------------------------------------------------------------------

_HARNESS = CPU_RUNTIME + r"""
int main() {
    CpuRuntime runtime;
    TFContext tf{&runtime};
    TFTensor n = tf.allocate("n", {}, TFType::Int);
    *(int*)n.buffer.get() = 30;
    TFTensor x = tf.allocate("x", {6}, TFType::Float);
    const float values[] = {1.5f, -2.0f, 3.0f, 0.0f, -1.0f, 7.0f};
    for (int k = 0; k < 6; k++) ((float*)x.buffer.get())[k] = values[k];
    TFTensor data = tf.allocate("data", {5}, TFType::Int);
    const int bins[] = {3, 1, 4, 1, 5};
    for (int k = 0; k < 5; k++) ((int*)data.buffer.get())[k] = bins[k];
    TFTensor results[] = {@SIEVE@(tf, n), @COMPACT@(tf, x), @HISTOGRAM@(tf, data)};
    for (const TFTensor& t : results) {
        std::printf("%zu\n", t.size());
        for (size_t k = 0; k < t.size(); k++) std::printf("%u\n", ((uint*)t.buffer.get())[k]);
    }
    try {
        TFTensor negative = tf.allocate("n", {}, TFType::Int);
        *(int*)negative.buffer.get() = -2;
        @ASSERTED@(tf, negative);
    } catch (const tf_error& e) {
        std::printf("%s\n", e.what());
    }
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="no g++ to compile the generated C++")
def test_codegen_main_functions_read_sizes_and_checks_on_the_host(tmp_path):
    tf.initialize(tf.codegen, kernel_lang=tf.cpp_lang)
    try:
        first_main, first_kernel = len(tf.get_all_generated_main_functions()), len(tf.get_all_generated_kernels())
        tf.kernel_program(sieve_kernel_program)
        tf.compile(compaction_traced)
        tf.kernel_program(histogram_kernel_program)
        tf.compile(assert_traced)
    finally:
        tf.initialize(tf.cpu)
    mains = tf.get_all_generated_main_functions()[first_main:]
    kernels = tf.get_all_generated_kernels()[first_kernel:]
    names = [re.search(r"(\w+)\(TFContext", main).group(1) for main in mains]
    entries = [source.split('extern "C" void ')[1].split("(")[0] for source in kernels]
    harness = _HARNESS.replace("@KERNELS@", ", ".join(["nullptr"] * first_kernel + entries))
    for slot, name in zip(("@SIEVE@", "@COMPACT@", "@HISTOGRAM@", "@ASSERTED@"), names, strict=True):
        harness = harness.replace(slot, name)
    source = tmp_path / "sizes.cpp"
    source.write_text(tf.get_cpp_header() + "".join(kernels) + "".join(mains) + harness)
    binary = tmp_path / "sizes"
    build = subprocess.run(["g++", "-std=c++17", "-O1", "-fopenmp", "-o", str(binary), str(source)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    lines = subprocess.run([str(binary)], capture_output=True, text=True, check=True).stdout.splitlines()
    words = []
    for _ in range(3):
        size = int(lines.pop(0))
        words.append(np.array([int(w) for w in lines[:size]], np.uint32))
        del lines[:size]
    x = np.array([1.5, -2.0, 3.0, 0.0, -1.0, 7.0], np.float32)
    np.testing.assert_array_equal(words[0].view(np.int32), primes_flags(30))
    np.testing.assert_array_equal(words[1].view(np.float32), x[x > 0])
    np.testing.assert_array_equal(words[2].view(np.int32), np.bincount([3, 1, 4, 1, 5]))
    assert lines == ["tf.assert_value: 'n' is false"]
