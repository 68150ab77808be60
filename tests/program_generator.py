"""Random kernel programs with native control flow, and the plain-Python oracle they are
checked against (used by test_differential.py).

A generated program is Python source: per-element ``if``/``elif``/``else``, ``for`` loops
over constant or per-element ranges, ``while`` loops, ``break`` and ``continue``, and
variables that start as Python numbers, the way a user writes them. The same source runs
once under ``@tf.kernel_program`` (``F`` is ``tensorfrost``) and once per element as plain
Python on numpy scalars (``F`` is ``SCALAR``): the oracle knows nothing of tensorfrost.

Exact programs (``programs()``): every float value stays on a grid of quarters below 2**10
in magnitude (inputs are quarters, and the only operations are +, -, *2, *-1, abs, min, max,
floor and clamps), so float32 and float64 arithmetic are exact and every backend must agree
with the oracle bit for bit. Smooth programs (``programs(smooth=True)``) use tanh, sin and
products instead, for gradients checked against central differences of the oracle in
float64 (``with_grad`` returns the gradients of the sum of the output w.r.t. ``a`` and ``b``).
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
import textwrap

import numpy as np
from hypothesis import strategies as st

import tensorfrost as tf

LIMIT = 64.0  # every float assignment is clamped to [-LIMIT, LIMIT]
_FOLDER = tempfile.mkdtemp(prefix="tf-generated-")


class SCALAR:
    """The functions a generated program calls, on numpy scalars (float32 and int32, or
    float64 for smooth programs)."""

    real = np.float32
    abs = staticmethod(abs)
    min = staticmethod(min)
    max = staticmethod(max)

    def clamp(self, x, low, high):
        return self.real(min(max(x, low), high))

    def floor(self, x):
        return self.real(np.floor(x))

    def float(self, n):
        return self.real(n)

    def tanh(self, x):
        return self.real(np.tanh(x))

    def sin(self, x):
        return self.real(np.sin(x))

    @staticmethod
    def int(x):
        return np.int32(int(x))


class _Scope:
    def __init__(self, floats, ints, smooth, loops=0, depth=0):
        self.floats, self.ints, self.smooth, self.loops, self.depth = floats, ints, smooth, loops, depth

    def inner(self, counter=None, loop=False):
        ints = self.ints + [counter] if counter else self.ints
        return _Scope(self.floats, ints, self.smooth, self.loops + loop, self.depth + 1)


def _quarter(draw) -> str:
    return repr(draw(st.integers(-16, 16)) / 4)


def _float_expr(draw, scope: _Scope, depth: int = 0) -> str:
    leaf = [lambda: draw(st.sampled_from(scope.floats)), lambda: _quarter(draw),
            lambda: f"F.float({draw(st.sampled_from(scope.ints))})"]
    if depth >= 2:
        return draw(st.sampled_from(leaf))()
    a = _float_expr(draw, scope, depth + 1)
    b = _float_expr(draw, scope, depth + 1)
    forms = [a, f"{a} + {b}", f"{a} - {b}", f"-{a}", f"F.min({a}, {b})", f"F.max({a}, {b})",
             f"({a} if {_condition(draw, scope, 2)} else {b})"]
    forms += ([f"{a} * {b}", f"F.tanh({a})", f"F.sin({a})", f"{a} * 0.5"] if scope.smooth else
              [f"{a} * 2.0", f"F.abs({a})", f"F.floor({a} * 0.5)"])
    return f"({draw(st.sampled_from(forms))})"


def _int_expr(draw, scope: _Scope) -> str:
    n = draw(st.sampled_from(scope.ints))
    m = draw(st.sampled_from(scope.ints))
    return draw(st.sampled_from([n, f"{n} + 1", f"{n} - {m}", f"{n} + {m}", f"F.min({n}, 5)", f"F.max({n}, -5)",
                                 f"F.int({draw(st.sampled_from(scope.floats))})", str(draw(st.integers(-3, 3)))]))


def _condition(draw, scope: _Scope, depth: int = 0) -> str:
    if draw(st.booleans()):
        left, right = _float_expr(draw, scope, 2), draw(st.sampled_from([_quarter(draw), *scope.floats]))
    else:
        left, right = draw(st.sampled_from(scope.ints)), str(draw(st.integers(-2, 3)))
    op = draw(st.sampled_from(["<", "<=", ">", ">=", "==", "!="]))
    text = f"{left} {op} {right}"
    if depth < 1 and draw(st.integers(0, 3)) == 0:
        joiner = draw(st.sampled_from(["and", "or"]))
        text = f"({text}) {joiner} ({_condition(draw, scope, depth + 1)})"
    if draw(st.integers(0, 5)) == 0:
        text = f"not ({text})"
    return text


def _block(draw, scope: _Scope, indent: int) -> list[str]:
    lines = []
    for _ in range(draw(st.integers(1, 3))):
        lines += _statement(draw, scope, indent)
    return lines


def _statement(draw, scope: _Scope, indent: int) -> list[str]:
    pad = "    " * indent
    kinds = ["float", "float", "int", "aug"]
    if scope.depth < 3:
        kinds += ["if", "if", "for", "while"]
    if scope.loops:
        kinds += ["jump"]
    kind = draw(st.sampled_from(kinds))
    if kind == "float":
        var = draw(st.sampled_from(scope.floats))
        if scope.smooth:  # bounded, and differentiable everywhere
            return [f"{pad}{var} = F.tanh({_float_expr(draw, scope)}) * 2.0"]
        return [f"{pad}{var} = F.clamp({_float_expr(draw, scope)}, -{LIMIT}, {LIMIT})"]
    if kind == "int":
        return [f"{pad}{draw(st.sampled_from(scope.ints[:2]))} = {_int_expr(draw, scope)}"]
    if kind == "aug":
        return [f"{pad}{draw(st.sampled_from(scope.ints[:2]))} += {draw(st.integers(1, 2))}"]
    if kind == "jump":
        statement = draw(st.sampled_from(["break", "continue"]))
        return [f"{pad}if {_condition(draw, scope)}:", f"{pad}    {statement}"]
    if kind == "if":
        lines = [f"{pad}if {_condition(draw, scope)}:", *_block(draw, scope.inner(), indent + 1)]
        for _ in range(draw(st.integers(0, 1))):
            lines += [f"{pad}elif {_condition(draw, scope)}:", *_block(draw, scope.inner(), indent + 1)]
        if draw(st.booleans()):
            lines += [f"{pad}else:", *_block(draw, scope.inner(), indent + 1)]
        return lines
    counter = f"k{scope.depth}"
    if kind == "for":
        bound = draw(st.sampled_from(["3", "c", "F.max(c, 0) + 1", "2, c"]))
        return [f"{pad}for {counter} in range({bound}):", *_block(draw, scope.inner(counter, loop=True), indent + 1)]
    # a while loop that a counter bounds, with a data condition (per element or not)
    return [f"{pad}{counter} = 0",
            f"{pad}while ({_condition(draw, scope)}) and {counter} < 4:",
            f"{pad}    {counter} += 1",
            *_block(draw, scope.inner(counter, loop=True), indent + 1)]


@st.composite
def programs(draw, smooth: bool = False) -> str:
    """The source of a generated program ``generated(a, b, c)`` (and, if ``smooth``, of a
    program ``with_grad(a, b, c)`` returning the gradients of its output's sum)."""
    scope = _Scope(["f0", "f1", "a"], ["n0", "n1", "c"], smooth)
    body = [f"f0 = {_quarter(draw)}", "f1 = b", f"n0 = {draw(st.integers(-2, 2))}", "n1 = 0"]
    body += _block(draw, scope, 0)
    header = ("def generated(a: F.Arg([-1], F.float32), b: F.Arg([-1], F.float32), "
              "c: F.Arg([-1], F.int32)):")
    lines = [header, *("    " + line for line in body)]
    if not smooth:
        return "\n".join([*lines, "    return f0, f1, a, n0, n1"]) + "\n"
    lines += ["    return f0 * 0.75 + f1 - a * F.float(n0 + n1)", "",
              "def with_grad(a: F.Arg([-1], F.float32), b: F.Arg([-1], F.float32), c: F.Arg([-1], F.int32)):",
              "    out = generated(a, b, c) + a * 0.0  # per element even where the result is not",
              "    return F.grad(F.sum(out), a), F.grad(F.sum(out), b), out"]
    return "\n".join(lines) + "\n"


def load(source: str, scalar: bool = False, real=np.float32, function: str = "generated"):
    """``function`` of ``source``, calling tensorfrost (or SCALAR, on ``real`` floats)."""
    import hashlib
    name = "generated_" + hashlib.sha256(source.encode()).hexdigest()[:16] + ("_scalar" if scalar else "")
    name += "_" + np.dtype(real).name if scalar else ""
    path = os.path.join(_FOLDER, name + ".py")
    if not os.path.exists(path):
        with open(path, "w") as f:
            f.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    module.F = _ScalarNamespace(real) if scalar else tf
    spec.loader.exec_module(module)
    return getattr(module, function)


class _ScalarNamespace(SCALAR):
    Arg = staticmethod(lambda shape, dtype: None)
    float32, int32 = "float32", "int32"

    def __init__(self, real):
        self.real = real


def inputs(size: int, seed: int, smooth: bool = False) -> list:
    rng = np.random.default_rng(seed)
    if smooth:
        reals = lambda: rng.uniform(-2, 2, size).astype(np.float32)  # noqa: E731
        return [reals(), reals(), rng.integers(-1, 5, size).astype(np.int32)]
    quarters = lambda: (rng.integers(-24, 25, size) / 4).astype(np.float32)  # noqa: E731
    return [quarters(), quarters(), rng.integers(-1, 5, size).astype(np.int32)]


def oracle(source: str, arrays: list, real=np.float32) -> list:
    """The outputs of the program run as plain Python, one element at a time."""
    fn = load(source, scalar=True, real=real)
    rows = [fn(*(real(a[e]) if a.dtype.kind == "f" else np.int32(a[e]) for a in arrays))
            for e in range(len(arrays[0]))]
    rows = [row if isinstance(row, tuple) else (row,) for row in rows]
    dtypes = [real, real, real, np.int32, np.int32][:len(rows[0])]
    return [np.array([row[k] for row in rows], dtype) for k, dtype in enumerate(dtypes)]


def central_gradients(source: str, arrays: list, step: float) -> list:
    """d sum(output) / d a and d b by central differences of the float64 oracle, per element
    (elements are independent), with NaN where a step of ``step`` and one of ``step / 2``
    disagree: a branch or a break changes between them, so the function has no derivative
    that differences can see, and where the float32 program takes another path."""
    # Where float32 takes another path than float64 (an int() of a value that rounds to a
    # whole number in float32 only), the float64 differences describe another function.
    same_path = np.isclose(oracle(source, arrays, np.float32)[0], oracle(source, arrays, np.float64)[0],
                           rtol=1e-3, atol=1e-3)
    grads = []
    for k in (0, 1):
        estimates = []
        for h in (step, step / 2):
            up, down = [a.astype(np.float64) for a in arrays], [a.astype(np.float64) for a in arrays]
            up[k] += h
            down[k] -= h
            up[2], down[2] = arrays[2], arrays[2]
            estimates.append((oracle(source, up, np.float64)[0] - oracle(source, down, np.float64)[0]) / (2 * h))
        agree = np.abs(estimates[0] - estimates[1]) <= 1e-4 * (1 + np.abs(estimates[1]))
        grads.append(np.where(agree & same_path, estimates[1], np.nan))
    return grads


def describe(source: str) -> str:
    return "generated program:\n" + textwrap.indent(source, "    ")
