"""``@tf.kernel_program``: tensor programs written with native Python control flow.

The function's source is parsed with gast, its ``for``/``while``/``if``/``break``/
``continue`` and assignments are rewritten into calls of a small runtime over the tracer
(``tf.loop``, ``tf.if_cond``, variables set like ``x.val = ...``), and the result is
traced and compiled like ``tf.compile``. Both styles build the same IR.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable

from ..ir.builder import active
from ..ir.errors import TraceError
from ..program import TensorProgram
from ..tracebacks import user_facing
from ..tracing.tensor import Tensor
from .errors import KernelProgramError, relocate
from .function import compile_function, explain, helpers_used, twin

__all__ = ["kernel_program", "static_range", "KernelProgramError"]


@user_facing
def kernel_program(fn: Callable | None = None, *,
                   name: str | None = None) -> TensorProgram | Callable[[Callable], TensorProgram]:
    """Compile a function written with Python control flow into a tensor program::

        @tf.kernel_program
        def mandelbrot(c_re: tf.Arg([-1, -1], tf.float32), c_im: tf.Arg([-1, -1], tf.float32)):
            z_re, z_im, n = 0.0, 0.0, 0
            for k in range(128):                 # a loop in the program
                z_re, z_im = z_re*z_re - z_im*z_im + c_re, 2.0*z_re*z_im + c_im
                n += 1
                if z_re*z_re + z_im*z_im > 256.0:
                    break
            return n

    ``for k in range(...)``, ``while`` with a tensor condition and ``while True`` are loops
    in the program; ``if`` with a tensor condition is an if scope; names assigned in them
    are carried through automatically. Loops over lists, tuples, ``enumerate``, ``zip`` and
    ``tf.static_range`` unroll while tracing. Plain Python helpers called from the function
    are rewritten too. The code means what its Python means (semantics.py): ``/`` of integer
    tensors is float32, ``%`` takes the sign of the divisor, ``min``/``max``/``round``/...
    work on tensors, ``print`` and ``assert`` of tensors act when the program runs.
    ``prog.transformed_source`` shows the rewritten code. Errors point at the user's line
    (``KernelProgramError``, or the tensorfrost error raised there).

    >>> @tf.kernel_program
    ... def collatz_steps(n: tf.Arg([-1], tf.int32)):
    ...     steps = 0
    ...     while n != 1:                       # a loop in the program, per element
    ...         n = n // 2 if n % 2 == 0 else 3 * n + 1
    ...         steps += 1
    ...     return steps
    >>> collatz_steps(np.array([1, 2, 3, 6, 7], np.int32)).tolist()
    [0, 1, 7, 8, 16]
    """
    if fn is None:
        return functools.partial(kernel_program, name=name)
    function = fn.__func__ if isinstance(fn, types.MethodType) else fn
    if not isinstance(function, types.FunctionType):
        raise TraceError(f"tf.kernel_program: expected a function, got {type(fn).__name__}")
    compiled = compile_function(function)
    rewritten = twin(function)
    if function is not fn:
        rewritten = types.MethodType(rewritten, fn.__self__)
    helpers = []

    def call(*args):
        try:
            return rewritten(*args)
        except Exception as exc:  # re-raised at the user's line
            raise relocate(exc, explain).with_traceback(exc.__traceback__) from None  # (its frames kept)
        finally:
            helpers.extend(h for h in helpers_used(active()) if h is not compiled)

    program = TensorProgram(fn, name=name, call=call)
    program.transformed_source = "\n\n".join([compiled.source, *(h.source for h in helpers)])
    return program


def static_range(*args: int) -> range:
    """``range(...)`` that a kernel program unrolls while tracing (its counter is a Python
    int), where ``range`` itself would make a loop in the program::

        for i in tf.static_range(3):
            acc = acc + weights[i] * x[i]    # weights: a Python list

    >>> weights = [1.0, 10.0, 100.0]
    >>> @tf.kernel_program
    ... def weighted(x: tf.Arg([3], tf.float32)):
    ...     acc = 0.0
    ...     for i in tf.static_range(3):       # unrolled: i is 0, 1, 2
    ...         acc = acc + weights[i] * x[i]
    ...     return acc
    >>> weighted(np.array([1, 2, 3], np.float32)).item()
    321.0
    """
    if any(isinstance(a, Tensor) for a in args):
        raise TraceError("tf.static_range needs Python ints (it is unrolled while tracing); use range(...) "
                         "for a loop over tensor bounds")
    return range(*args)
