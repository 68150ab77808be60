"""Golden generated code: the seed's programs (wave, Mandelbrot, QR, matmul, an MLP training
step) as the cpu backend's C++ (without the prelude) and as codegen mode's GLSL, HLSL and
WGSL, compared with the files in tests/golden (the WGSL compiled by wgpu too); and the same
programs interpreted after each pass. A change to the compiler that changes generated code
shows up in review as a diff of those files: rewrite them with

    TENSORFROST_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py

and commit them with the change."""

import os
import re

import numpy as np
import pytest
from conftest import webgpu_unavailable_reason
from test_seed_examples import matmul_op, qr_decomposition, wave_eq

import tensorfrost as tf
from tensorfrost.backend_codegen import mode
from tensorfrost.ir.interpreter import run as interpret
from tensorfrost.ir.node import clone_program
from tensorfrost.opt.pipeline import PASSES

TESTS = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(TESTS, "golden")
UPDATE = os.environ.get("TENSORFROST_UPDATE_GOLDEN", "") not in ("", "0")


def mandelbrot():
    c_re = tf.input([-1, -1], tf.float32)
    c_im = tf.input(c_re.shape, tf.float32)
    z_re, z_im, n = tf.const(0.0), tf.const(0.0), tf.const(0)
    with tf.loop(128):
        z_re_new = z_re * z_re - z_im * z_im + c_re
        z_im.val = 2.0 * z_re * z_im + c_im
        z_re.val = z_re_new
        n.val = n + 1
        with tf.if_cond(z_re * z_re + z_im * z_im > 256.0):
            tf.break_loop()
    return n


def mlp_step():
    """One SGD step of a two-layer tanh network on a squared error (autodiff, matmuls)."""
    x = tf.input([-1, 16], tf.float32)
    y = tf.input([x.shape[0], 4], tf.float32)
    w1 = tf.input([16, 32], tf.float32)
    w2 = tf.input([32, 4], tf.float32)
    hidden = tf.tanh(x @ w1)
    error = hidden @ w2 - y
    loss = tf.mean(tf.mean(error * error))
    return [w1 - 0.01 * tf.grad(loss, w1), w2 - 0.01 * tf.grad(loss, w2), loss]


PROGRAMS = {"wave": wave_eq, "mandelbrot": mandelbrot, "qr": qr_decomposition, "matmul": matmul_op,
            "mlp_step": mlp_step}


def _cpp(function, name: str) -> str:
    """The cpu backend's source of ``function``: its kernels and host function."""
    source = tf.compile(function, name=name).compiled_code()
    return source[source.index("// ---- kernels"):] + "\n"


def _codegen(function, name: str, lang: str, monkeypatch) -> str:
    """Codegen mode's main function and kernels, as the first program of a fresh process."""
    for name in ("main_functions", "kernels"):
        monkeypatch.setattr(mode._Generated, name, [])
    monkeypatch.setattr(mode._Generated, "function_names", set())
    tf.initialize(tf.codegen, kernel_lang=getattr(tf, f"{lang}_lang"))
    try:
        tf.compile(function, name=name)
    finally:
        tf.initialize(tf.cpu)
    return "\n".join([*mode._Generated.main_functions, *mode._Generated.kernels]) + "\n"


@pytest.mark.parametrize("target", ["cpp", "glsl", "hlsl", "wgsl"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_generated_code_matches_the_golden_file(name, target, monkeypatch):
    tf.initialize(tf.cpu)
    function = PROGRAMS[name]
    text = _cpp(function, name) if target == "cpp" else _codegen(function, name, target, monkeypatch)
    # the user's lines that messages name, wherever the clone is and whatever moves in the tests
    text = re.sub(r"<tests>/([\w.]+):\d+", r"<tests>/\1:<line>", text.replace(TESTS, "<tests>"))
    path = os.path.join(GOLDEN, f"{name}.{target}")
    if UPDATE:
        os.makedirs(GOLDEN, exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    with open(path) as f:
        golden = f.read()
    assert text == golden, (f"the generated code of {name} ({target}) differs from {path}; if the change is "
                            "meant, rewrite the golden files with TENSORFROST_UPDATE_GOLDEN=1 and review the diff")


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_golden_wgsl_kernels_compile_with_wgpu(name, monkeypatch):
    """Each WGSL kernel of a golden program is a module wgpu (naga) accepts and a compute
    pipeline it builds: a golden file that only looks right fails here."""
    reason = webgpu_unavailable_reason()
    if reason is not None:
        pytest.skip(f"no WebGPU device: {reason}")
    from tensorfrost.backend_webgpu.context import context
    _codegen(PROGRAMS[name], name, "wgsl", monkeypatch)
    kernels = list(mode._Generated.kernels)
    device = context().device
    assert kernels and all(k.lang == "wgsl" for k in kernels)
    for k, source in enumerate(kernels):
        module = device.create_shader_module(label=f"{name}_k{k}", code=str(source))
        device.create_compute_pipeline(layout="auto", compute={"module": module, "entry_point": "main"})


def _inputs(name: str, rng) -> list:
    shapes = {"wave": [(6, 7), (6, 7)], "mandelbrot": [(5, 6), (5, 6)], "qr": [(6, 4)], "matmul": [(3, 4), (4, 5)],
              "mlp_step": [(5, 16), (5, 4), (16, 32), (32, 4)]}[name]
    arrays = [rng.standard_normal(shape).astype(np.float32) for shape in shapes]
    if name == "mandelbrot":  # points near the set's edge: some escape early, some never
        arrays = [a * 1.2 - 0.4 for a in arrays]
    return arrays


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_each_pass_keeps_the_seed_programs_results(name):
    """The reference interpreter runs each golden program after every pass and gets what it
    got after the first (autodiff expands tf.grad, which it cannot run); float32 sums may be
    reordered by a pass: a few ulp."""
    arrays = _inputs(name, np.random.default_rng(7))
    tf.initialize(tf.interpreter)
    try:
        program = tf.compile(PROGRAMS[name], name=name).traced
    finally:
        tf.initialize(tf.cpu)
    program = PASSES[0][1](program)
    want = interpret(clone_program(program), arrays)
    for pass_name, run_pass in PASSES[1:]:
        program = run_pass(program)
        got = interpret(clone_program(program), arrays)
        for k, (g, w) in enumerate(zip(got, want, strict=True)):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, err_msg=f"output {k} after {pass_name}")
