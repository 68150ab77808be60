"""The exceptions of tensorfrost, and where in the user's program they happened.

Every error a user can cause derives from ``TensorFrostError``. Errors raised while a
program is traced carry the user's file and line (``SourceLocation``), found by walking
the Python stack to the first frame outside the tensorfrost package.
"""

from __future__ import annotations

import itertools
import linecache
import os
import sys
import sysconfig

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_STDLIB_DIR = os.path.abspath(sysconfig.get_paths()["stdlib"])


class SourceLocation:
    """A place in the user's source: file, line, function, and the columns of the expression
    when known. Rendered with the source line and a caret under the expression::

        File "model.py", line 12, column 9
            y = a + b
                ^^^^^

    The columns of a traced call are read from the frame's code object only when the
    location is rendered (``code``/``instruction``), so tracing pays nothing for them."""

    __slots__ = ("filename", "lineno", "function", "_columns", "_code", "_instruction")

    def __init__(self, filename: str, lineno: int, function: str = "", col: int | None = None,
                 end_lineno: int | None = None, end_col: int | None = None, code=None, instruction: int = -1):
        self.filename = filename
        self.lineno = lineno
        self.function = function
        self._columns = (col, end_lineno, end_col) if col is not None or code is None else None
        self._code, self._instruction = code, instruction

    @property
    def col(self) -> int | None:
        return self._spans()[0]

    @property
    def end_lineno(self) -> int | None:
        return self._spans()[1]

    @property
    def end_col(self) -> int | None:
        return self._spans()[2]

    def _spans(self) -> tuple:
        if self._columns is None:  # the instruction a frame was at: its source positions
            self._columns = (None, None, None)
            positions = getattr(self._code, "co_positions", None)  # Python 3.11+
            if positions is not None and self._instruction >= 0:
                found = next(itertools.islice(positions(), self._instruction // 2, None), None)
                if found is not None and found[0] == self.lineno and found[2] is not None:
                    self._columns = (found[2], found[1], found[3])
        return self._columns

    @property
    def traced(self) -> bool:
        """True for the place a running frame was at (columns from its code), False for a
        place the front end named (an AST node's)."""
        return self._code is not None

    @property
    def line(self) -> str:
        return linecache.getline(self.filename, self.lineno).rstrip()

    def __str__(self) -> str:
        return f"{self.filename}:{self.lineno}"

    def describe(self) -> str:
        """`file:line[, column]` followed by the source line and a caret under the expression."""
        head = f'File "{self.filename}", line {self.lineno}'
        text = self.line
        col, end_lineno, end_col = self._spans()
        if col is None:
            return head + (f"\n    {text.strip()}" if text.strip() else "")
        head += f", column {col + 1}"
        if not text.strip():
            return head
        indent = len(text) - len(text.lstrip())
        start = max(col - indent, 0)
        stripped = text.strip()
        if end_lineno == self.lineno and end_col is not None and end_col > col:
            width = end_col - col
        else:
            width = len(stripped) - start
        return f"{head}\n    {stripped}\n    {' ' * start}{'^' * max(width, 1)}"


def is_library_file(filename: str) -> bool:
    return os.path.abspath(filename).startswith(_PACKAGE_DIR + os.sep)


def warning_level() -> int:
    """The ``stacklevel`` of the innermost caller outside tensorfrost, for ``warnings.warn``
    called by the caller of this function (the warning then shows the user's line)."""
    level, frame = 2, sys._getframe(2)  # level 1 is the caller of warnings.warn, level 2 its caller
    while frame is not None and is_library_file(frame.f_code.co_filename):
        level, frame = level + 1, frame.f_back
    return level


def _is_python_internal(filename: str) -> bool:
    """The standard library (contextlib, functools...): not where a user's line is."""
    if filename.startswith("<frozen"):
        return True
    path = os.path.abspath(filename)
    return path.startswith(_STDLIB_DIR + os.sep) and "site-packages" not in path


def user_location(skip_library: bool = True) -> SourceLocation | None:
    """The innermost stack frame that belongs to the user's code, not to tensorfrost or
    the standard library."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not skip_library or not (is_library_file(filename) or _is_python_internal(filename)):
            return SourceLocation(filename, frame.f_lineno, frame.f_code.co_name, code=frame.f_code,
                                  instruction=frame.f_lasti)
        frame = frame.f_back
    return None


class TensorFrostError(Exception):
    """Base class of every error tensorfrost raises on purpose.

    >>> try:
    ...     tf.compile(lambda: tf.input([2], tf.float32) + tf.input([3], tf.float32))
    ... except tf.TensorFrostError as error:     # catches every kind below
    ...     print(type(error).__name__, error.message)
    ShapeError add: cannot broadcast shapes [2] and [3] (axis 0: 2 vs 3)
    """

    def __init__(self, message: str, location: SourceLocation | None = None):
        self.message = message
        self.location = location
        super().__init__(self._render())

    def _render(self) -> str:
        if self.location is None:
            return self.message
        return f"{self.message}\n  at {self.location.describe()}"


class TraceError(TensorFrostError):
    """A tensor program is malformed: wrong use of an operation while tracing.

    >>> try:
    ...     tf.input([-1], tf.float32)           # outside a program
    ... except tf.TraceError as error:
    ...     print(error)
    tensor operations can only be used inside a tensor program ...
    """


class ShapeError(TensorFrostError):
    """Shapes that cannot work together (at trace time or when a program is called).

    >>> def mismatched():
    ...     return tf.input([2], tf.float32) + tf.input([3], tf.float32)
    >>> try:
    ...     tf.compile(mismatched)
    ... except tf.ShapeError as error:
    ...     print(error)
    add: cannot broadcast shapes [2] and [3] (axis 0: 2 vs 3)
      at File "<doctest ...>", line 2, ...
    """


class DTypeError(TensorFrostError):
    """A value of the wrong data type.

    >>> def bits(x: tf.Arg([-1], tf.float32)):
    ...     return x & 1                         # bitwise and of floats
    >>> try:
    ...     tf.compile(bits)
    ... except tf.DTypeError as error:
    ...     print(error.message)
    and: expected integer or bool operands, got tf.float32, tf.float32
    """


class ArgumentError(TensorFrostError):
    """A compiled program was called with the wrong arguments.

    >>> def add(a: tf.Arg([-1], tf.float32), b: tf.Arg([-1], tf.float32)):
    ...     return a + b
    >>> add = tf.compile(add)
    >>> try:
    ...     add(np.ones(2, np.float32))
    ... except tf.ArgumentError as error:
    ...     print(error)
    add takes 2 input(s) (a, b), got 1
    >>> try:
    ...     add(np.ones((2, 2), np.float32), np.ones(2, np.float32))   # a matrix where a vector goes
    ... except tf.ArgumentError as error:
    ...     print(error)
    argument 0 ('a') of add: expected a tensor of rank 1, got rank 2 (shape ...)
    """




class RuntimeCheckError(TensorFrostError):
    """A check inside a running program failed (for example a broken shape relation).

    >>> def add(a: tf.Arg([-1], tf.float32), b: tf.Arg([-1], tf.float32)):
    ...     return a + b                         # a and b must have one length
    >>> try:
    ...     tf.compile(add)(np.ones(2, np.float32), np.ones(3, np.float32))
    ... except tf.RuntimeCheckError as error:
    ...     print(error)
    add: b.shape[0] is 3 but must equal a.shape[0], which is 2 (the two are combined elementwise) ...
    """


class DebugIndexError(RuntimeCheckError, IndexError):
    """Debug mode (``tf.initialize(..., debug=True)``): an index left its tensor's shape.

    >>> tf.initialize(tf.cpu, debug=True)
    >>> def last_plus_one(x: tf.Arg([-1], tf.float32)):
    ...     return x[x.shape[0]]
    >>> try:
    ...     tf.compile(last_plus_one)(np.zeros(3, np.float32))
    ... except tf.DebugIndexError as error:     # an IndexError too
    ...     print(isinstance(error, IndexError), str(error).splitlines()[0])
    True index out of range: ...
    >>> tf.initialize(tf.cpu)
    """

    PREFIX = "index out of range:"  # how the message of its check begins (a backend sees only the text)


class DebugNanError(RuntimeCheckError, ArithmeticError):
    """Debug mode ``"nan"``: a kernel wrote a NaN or an infinity.

    >>> tf.initialize(tf.cpu, debug="nan")
    >>> def root(x: tf.Arg([-1], tf.float32)):
    ...     return tf.sqrt(x)
    >>> try:
    ...     tf.compile(root)(np.array([4.0, -1.0], np.float32))
    ... except tf.DebugNanError as error:
    ...     print(str(error).splitlines()[0])
    NaN or Inf: ...
    >>> tf.initialize(tf.cpu)
    """

    PREFIX = "NaN or Inf:"


def runtime_check_error(message: str, location: SourceLocation | None = None) -> RuntimeCheckError:
    """The error of a failed run-time check whose message is ``message``: a debug mode's
    class when the message is one of its checks'."""
    kind = next((k for k in (DebugIndexError, DebugNanError) if message.startswith(k.PREFIX)), RuntimeCheckError)
    return kind(message, location)


class InternalError(TensorFrostError):
    """An invariant of tensorfrost itself does not hold: a bug to report, not a user error.

    >>> issubclass(tf.InternalError, tf.TensorFrostError), issubclass(tf.CompileError, tf.InternalError)
    (True, True)
    """


class CompileError(InternalError):
    """The native compiler or the driver rejected generated code (a bug of tensorfrost:
    the message names the user's lines whose code it was).

    >>> issubclass(tf.CompileError, tf.InternalError)   # caught by ``except tf.InternalError`` too
    True
    """


def generated_code_rejected(tool: str, what: str, nodes, log: str) -> CompileError:
    """The error for ``tool`` (the C++ compiler, the OpenGL driver) rejecting the code of
    ``what`` (a kernel), generated from ``nodes``: it points at the user's lines of those
    nodes first and gives the tool's output after."""
    nodes = list(nodes)
    computing = [n for n in nodes if n.op.kind not in ("source", "memory")]  # the ops, not their reads
    seen, places = set(), []
    for node in computing + nodes:
        where = node.location
        if where is not None and (where.filename, where.lineno) not in seen:
            seen.add((where.filename, where.lineno))
            places.append(where)
    lines = "".join(f"\n  {place.describe()}" for place in places[:4])
    message = (f"internal error: {tool} rejected the code tensorfrost generated for {what}"
               + (f", from your operations at:{lines}" if lines else "")
               + "\nThis is a bug in tensorfrost; please report it with this message. "
               + f"{tool[0].upper() + tool[1:]} said:\n{log.strip()}")
    error = CompileError(message)
    error.location = places[0] if places else None  # (the message already shows it, before the log)
    return error


class CompilerSetupError(TensorFrostError):
    """The C++ compiler could not be run, hung, died (a signal, a crash of its own), wrote no
    library, or the disk was full: a problem of the machine or its setup (``$CXX``, ``PATH``,
    the timeout, the cache directory), not of the generated code, and not a bug of
    tensorfrost (so not an ``InternalError``): the message says what to change.

    >>> issubclass(tf.CompilerSetupError, tf.InternalError)
    False
    >>> issubclass(tf.CompilerSetupError, tf.TensorFrostError)
    True
    """


class CheckpointError(TensorFrostError):
    """A file ``Module.load`` cannot use: not an archive ``Module.save`` writes (cut short,
    damaged, another format), or values that do not fit the module's parameters.

    >>> import os, tempfile
    >>> class Model(tf.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.w = tf.Parameter([2], tf.float32)
    >>> path = os.path.join(tempfile.mkdtemp(), "model.npz")
    >>> with open(path, "wb") as f:
    ...     _ = f.write(b"not a checkpoint")
    >>> try:
    ...     Model().load(path)
    ... except tf.CheckpointError as error:
    ...     print(error)
    Model.load(...model.npz): the file is not an .npz archive ...
    """


class GlThreadError(TensorFrostError):
    """OpenGL work asked of a thread that does not hold tensorfrost's OpenGL context.

    >>> issubclass(tf.GlThreadError, tf.TensorFrostError)
    True
    """
