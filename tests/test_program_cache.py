"""The cache of programs keyed on their traced IR (backend_cpu/program_cache.py): a hit skips
the passes, C++ generation and g++ and computes the same; an entry planted, edited or cut
short is never used (the program is compiled again, right); programs that differ in
anything the compiled code follows from get different keys."""

import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import tensorfrost as tf
from tensorfrost.backend import backend_for, build_options, cpu
from tensorfrost.backend_cpu import compiler, math_core, program_cache
from tensorfrost.backend_cpu.compiler import CompileStats
from tensorfrost.backend_cpu.runtime import pool
from tensorfrost.opt.pipeline import PASSES
from tensorfrost.tracing.trace import trace


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TENSORFROST_CACHE_DIR", str(tmp_path / "cache"))
    tf.initialize(tf.cpu)
    _ = pool().fast_call  # the buffer pool and the call extension, built once per process: not counted below
    math_core.CORE.ensure(compiler.cxx_flags(""))  # (and the math core, which tf.sin calls)
    return tmp_path / "cache"


def _program(offset=0.5):
    def aliased():
        x = tf.input([-1, -1], tf.float32)
        y = tf.input(x.shape, tf.float32)
        z = tf.sin(x) * 2.0 + y + offset
        return [z, x, z, tf.sum(z, axis=1)]  # an input and a repeated output among them
    return aliased


def _check(outputs, x, y, offset=0.5):
    z = np.sin(x) * 2.0 + y + offset
    for got, want in zip(outputs, [z, x, z, z.sum(axis=1)]):
        np.testing.assert_allclose(got.numpy, want, rtol=1e-5, atol=1e-5)  # float32 sin, a sum of 7 terms


def _compile_counting(fn):
    before = (CompileStats.compiles, CompileStats.program_hits)
    prog = tf.compile(fn)
    return prog, CompileStats.compiles - before[0], CompileStats.program_hits - before[1]


def test_a_hit_skips_compiling_and_computes_the_same(cache):
    x, y = (np.random.default_rng(k).normal(size=(5, 7)).astype(np.float32) for k in (1, 2))
    first, compiles, hits = _compile_counting(_program())
    assert (compiles, hits) == (1, 0)
    second, compiles, hits = _compile_counting(_program())
    assert (compiles, hits) == (0, 1)
    _check(first(x, y), x, y)
    _check(second(x, y), x, y)
    out = second(x, y)
    assert out[1] is not None and out[0].numpy.tolist() == out[2].numpy.tolist()
    # the hit keeps the call that skips the argument checks (it compares the inputs' ranks)
    _check(second.executable.call_fast((tf.tensor(x), tf.tensor(y))), x, y)
    assert second.get_kernels() == first.get_kernels() and second.compiled_code() == first.compiled_code()
    assert second.get_main_function() == first.get_main_function()
    numbered = re.compile(r"\d+")  # node ids count up through the process
    assert numbered.sub("#", second.list_operations()) == numbered.sub("#", first.list_operations())
    assert list(second.pass_times) == [name for name, _ in PASSES]


def _two_sums():
    x = tf.input([-1, -1], tf.float32)
    return tf.sum(x, axis=1) + tf.sum(x * x, axis=1)  # merge_loops runs both sums in one loop


def test_a_hit_shows_the_ir_of_the_switches_it_was_compiled_under(cache):
    """After a hit, `program` is compiled again from the traced IR: with the optimizations
    that were off when the program was compiled, not those off when it is read."""
    numbered = re.compile(r"\d+")
    passes = [name for name in tf.optimizations.NAMES if name != "program_cache"]
    with tf.optimizations.disabled(*passes):
        first, _, _ = _compile_counting(_two_sums)
        second, compiles, hits = _compile_counting(_two_sums)
    assert (compiles, hits) == (0, 1)
    optimized = tf.compile(_two_sums).list_operations()
    plain = first.list_operations()
    assert numbered.sub("#", optimized) != numbered.sub("#", plain)  # the switches change the IR
    assert numbered.sub("#", second.list_operations()) == numbered.sub("#", plain)


def _entry(cache):
    (entry,) = cache.glob("aliased-*" + program_cache.SUFFIX)
    return entry


def _edited(data):
    body, _, mac = data.rpartition(b"\nhmac ")
    entry = json.loads(body)
    entry["outputs"][0][1] = 1  # a rank the library does not produce
    return json.dumps(entry).encode() + b"\nhmac " + mac


@pytest.mark.parametrize("damage", ["edited", "truncated", "planted", "removed"])
def test_a_damaged_entry_is_compiled_again_never_loaded(cache, damage):
    x, y = (np.random.default_rng(k).normal(size=(3, 4)).astype(np.float32) for k in (3, 4))
    tf.compile(_program())
    entry = _entry(cache)
    data = entry.read_bytes()
    if damage == "edited":
        entry.write_bytes(_edited(data))
    elif damage == "truncated":
        entry.write_bytes(data[: len(data) // 2])
    elif damage == "planted":  # well formed, but signed without the user's secret key
        body = data.rpartition(b"\nhmac ")[0]
        entry.write_bytes(body + b"\nhmac " + b"0" * 64 + b"\n")
    else:
        entry.unlink()
    prog, compiles, hits = _compile_counting(_program())
    assert hits == 0 and compiles == 0  # the passes ran again; the library itself was a verified hit
    _check(prog(x, y), x, y)
    assert _entry(cache).read_bytes() == data  # written again, as it was
    assert _compile_counting(_program())[2] == 1


def test_a_damaged_library_behind_a_good_entry_is_rebuilt(cache):
    x, y = (np.random.default_rng(k).normal(size=(3, 4)).astype(np.float32) for k in (5, 6))
    tf.compile(_program())
    (library,) = cache.glob("aliased-*.so")
    library.write_bytes(library.read_bytes()[:1000])
    prog, compiles, hits = _compile_counting(_program())
    assert (compiles, hits) == (1, 0)
    _check(prog(x, y), x, y)


def test_an_untrusted_cache_directory_still_caches_in_a_private_one(tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    tf.initialize(tf.cpu)
    pool()  # built before, in the usual cache: only the program's compile is to warn
    monkeypatch.setenv("TENSORFROST_CACHE_DIR", str(shared))
    with pytest.warns(UserWarning, match="others can write to it"):
        _compile_counting(_program(0.25))
    prog, compiles, hits = _compile_counting(_program(0.25))
    assert (compiles, hits) == (0, 1) and list(shared.iterdir()) == []
    x = np.ones((2, 3), np.float32)
    _check(prog(x, x), x, x, 0.25)


def _key(fn, flags=""):
    tf.initialize(tf.cpu, flags=flags)
    try:
        return program_cache.key(trace(fn), backend_for(cpu), build_options())
    finally:
        tf.initialize(tf.cpu)


def test_keys_differ_with_anything_the_code_follows_from():
    def scaled(factor, dtype=tf.float32):
        def program():
            x = tf.input([-1], dtype)
            return x * factor
        return program

    def moved():
        x = tf.input([-1], tf.float32)

        return x * 2.0  # the same program on another line: its checks name the line

    base = _key(scaled(2.0))
    assert base is not None and base == _key(scaled(2.0))
    others = [_key(scaled(3.0)), _key(scaled(-2.0)), _key(scaled(2, tf.int32)), _key(moved),
              _key(scaled(2.0), flags="-O2")]
    assert None not in others and len({base, *others}) == 6


def test_programs_that_run_user_code_while_compiling_are_not_cached():
    def forward(inputs, tensor, axes):
        return [tf.tanh(inputs[0])]

    def vjp(inputs, gradient, tensor):
        return [gradient * (1.0 - tensor * tensor)]

    tf.register_custom_operation("program_cache_tanh", ["f_f"], forward, vjp)

    def program():
        a = tf.input([-1], tf.float32)
        b = tf.custom("program_cache_tanh", [a])
        return [b, tf.grad(tf.sum(b), a)]

    assert _key(program) is None
    assert _key(_program()) is not None


def test_the_entry_names_its_library_by_key(cache):
    tf.compile(_program())
    entry = json.loads(compiler.read_signed(str(_entry(cache))))
    assert os.path.exists(compiler.entry_path("aliased", entry["library"], ".so"))


def test_an_op_spelled_otherwise_at_run_time_gets_another_key(monkeypatch):
    """The op table and the pass list are read as the process has them, not as shipped."""
    from tensorfrost.ir.ops import OPS

    def program():
        return tf.sin(tf.input([-1], tf.float32))
    base = _key(program)
    monkeypatch.setitem(OPS["sin"].emit, "c", "tf_cos({0})")
    assert _key(program) not in (None, base)
    monkeypatch.undo()
    assert _key(program) == base


def test_keys_are_the_same_in_every_process():
    """Spellings that are functions of the dtypes enter the key by name, not by address:
    another process computes the same key, so its compiles hit the disk cache."""
    script = ("import tensorfrost as tf\n"
              "from tensorfrost.backend import backend_for, build_options, cpu\n"
              "from tensorfrost.backend_cpu import program_cache\n"
              "from tensorfrost.tracing.trace import trace\n"
              "def program():\n"
              "    x = tf.input([-1], tf.int64)\n"
              "    return [(x << 3) // 5, tf.min(x, 7), tf.float(x) / 3.0]\n"
              "print(program_cache.key(trace(program), backend_for(cpu), build_options()))\n")
    keys = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
            for _ in range(2)}
    assert len(keys) == 1 and len(next(iter(keys)).strip()) == 32, keys
