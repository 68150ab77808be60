"""Fusion and the pass pipeline: how many kernels, which buffers, what the passes remove."""

import numpy as np
from test_seed_examples import wave_eq

import tensorfrost as tf
from tensorfrost.ir import dtypes as dt
from tensorfrost.ir.ops import OPS
from tensorfrost.opt.pipeline import PASSES


def test_wave_step_is_one_kernel_without_temporaries():
    prog = tf.compile(wave_eq)
    assert len(prog.get_kernels()) == 1
    main = prog.get_main_function()
    assert main.count("tf_buffer ") == 2  # the two outputs, nothing in between


def test_chain_of_ten_elementwise_ops_is_one_kernel(rng):
    def chain():
        x = tf.input([-1, -1])
        y = tf.sin(x) * 2.0 + 1.0
        y = tf.exp(-y * y) - tf.abs(y)
        y = tf.sqrt(tf.abs(y) + 1.0) / (y * y + 2.0)
        return tf.tanh(y)
    prog = tf.compile(chain)
    assert len(prog.get_kernels()) == 1
    x = rng.standard_normal((33, 17)).astype(np.float32)
    y = np.sin(x) * 2 + 1
    y = np.exp(-y * y) - np.abs(y)
    y = np.sqrt(np.abs(y) + 1) / (y * y + 2)
    np.testing.assert_allclose(prog(x).numpy, np.tanh(y), rtol=2e-6, atol=1e-6)


def test_reduction_feeding_elementwise_stores_only_the_reduction(rng):
    def normalize():
        x = tf.input([-1, -1])
        total = tf.sum(x * x, axis=1)
        return x / tf.unsqueeze(tf.sqrt(total), 1)
    prog = tf.compile(normalize)
    # the squares are recomputed inside the reduction loop; only the row norms cross kernels
    assert len(prog.get_kernels()) == 2
    main = prog.get_main_function()
    assert main.count("tf_buffer ") == 2
    assert "_memory.reset();" in main  # the temporary is freed after its last use
    x = rng.standard_normal((6, 9)).astype(np.float32)
    np.testing.assert_allclose(prog(x).numpy, x / np.linalg.norm(x, axis=1, keepdims=True), rtol=1e-5)


def test_cheap_values_are_recomputed_not_stored(rng):
    def program():
        x = tf.input([-1, -1])
        y = x * 3.0 + 1.0  # cheap: recomputed in each consumer kernel
        rows = tf.sum(y, axis=1)
        return [y * 2.0, rows]
    prog = tf.compile(program)
    main = prog.get_main_function()
    assert main.count("tf_buffer ") == 2  # the two outputs only
    x = rng.standard_normal((4, 5)).astype(np.float32)
    a, b = prog(x)
    np.testing.assert_allclose(a.numpy, (x * 3 + 1) * 2, rtol=1e-6)
    np.testing.assert_allclose(b.numpy, (x * 3 + 1).sum(1), rtol=1e-5)


def test_loop_invariant_values_leave_the_loop(rng):
    """Each body's own position (and what only depends on it) is read once per element, not
    once per iteration of the sum over the other bodies; values of the counter stay."""
    def potential():
        pos = tf.input([-1, 2])
        i, j = tf.indices([pos.shape[0], pos.shape[0]])
        own = pos[i, 0] * 2.0 + pos[i, 1]
        other = pos[j, 0] * 2.0 + pos[j, 1]
        return tf.sum(tf.abs(other - own), axis=1)
    prog = tf.compile(potential)
    [kernel] = [n for n in prog.program.walk() if n.op.name == "kernel"]
    [loop] = [n for n in kernel.body.nodes if n.op.name == "loop"]
    before = kernel.body.nodes[:kernel.body.nodes.index(loop)]
    in_loop = list(loop.body.nodes)
    assert sum(n.op.name == "load" for n in before) == 2  # pos[i, 0], pos[i, 1]
    assert sum(n.op.name == "load" for n in in_loop) == 2  # pos[j, 0], pos[j, 1]
    x = rng.standard_normal((37, 2)).astype(np.float32)
    key = x[:, 0] * 2 + x[:, 1]
    np.testing.assert_allclose(prog(x).numpy, np.abs(key[None, :] - key[:, None]).sum(1), rtol=1e-5)


def test_constant_folding_cse_and_dead_code():
    def program():
        x = tf.input([-1])
        unused = tf.exp(x) * 5.0  # noqa: F841 (dead: must not be computed)
        k = 2.0 * 3.0 + 1.0
        return [x * k + tf.sin(x) * tf.sin(x)]
    prog = tf.compile(program)
    (kernel,) = prog.get_kernels()
    exp, sin = (OPS[name].spelling("cpp", [dt.float32]).split("(")[0] + "(" for name in ("exp", "sin"))
    assert exp not in kernel
    assert kernel.count(sin) == 1
    assert "7.0f" in kernel


def test_pass_pipeline_is_named_and_timed():
    prog = tf.compile(wave_eq)
    assert list(prog.pass_times) == [name for name, _ in PASSES]
    assert all(t >= 0 for t in prog.pass_times.values())


def test_ir_dump_on_request(tmp_path, monkeypatch):
    monkeypatch.setenv("TENSORFROST_DUMP_IR", str(tmp_path))
    tf.compile(wave_eq)
    dumped = sorted(p.name for p in tmp_path.iterdir())
    assert any(".fuse." in name for name in dumped)
    assert "kernel" in (tmp_path / next(n for n in dumped if ".finalize." in n)).read_text()


def test_list_operations_shows_traced_and_compiled_ir():
    prog = tf.compile(wave_eq)
    assert "kernel" in prog.list_operations()
    assert "kernel" not in prog.list_operations(traced=True)
    assert "laplacian" in prog.list_operations(traced=True)


def test_generated_code_is_readable():
    prog = tf.compile(wave_eq)
    code = prog.compiled_code()
    assert "laplacian" in code and "wave_eq_k0" in code
    assert "tf_parallel(" in prog.get_kernels()[0]  # its rows spread over the threads


def test_fission_splits_a_kernel_into_parts_within_the_buffer_limit():
    """A target that binds few buffers per kernel (OpenGL drivers: 16) gets kernels cut into
    consecutive parts; values and variables crossing parts go through buffers."""
    from tensorfrost.ir.interpreter import run as interpret
    from tensorfrost.ir.node import clone_program
    from tensorfrost.opt.pipeline import compile_program
    from tensorfrost.tracing.trace import trace

    def program():
        xs = [tf.input([-1], tf.float32) for _ in range(6)]
        acc = xs[0] * 1.0
        i, = acc.indices
        for k in range(6):  # updates in place: the kernel reads a buffer it writes
            acc[i] = acc[i] * 0.5 + xs[k] * float(k + 1)
        return [acc * 2.0, acc + xs[1]]
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(9).astype(np.float32) for _ in range(6)]
    traced = trace(program)
    want = interpret(clone_program(traced), arrays)
    traced.max_buffers = 4
    compiled, _ = compile_program(traced)
    kernels = [n for n in compiled.walk() if n.op.name == "kernel"]
    assert len(kernels) > 2 and all(len(k.contract.buffers) <= 4 for k in kernels)
    for got, expected in zip(interpret(compiled, arrays), want):
        np.testing.assert_allclose(got, expected, rtol=1e-6)
