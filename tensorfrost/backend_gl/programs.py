"""Compiling GLSL compute shaders into GL programs, once per process for each source.

A shader the driver rejects raises ``CompileError`` with the driver's log, the offending
source lines, and the path of a file holding the whole source; the GL objects of the
failed attempt are deleted, so the process goes on working. That file is created anew
(``mkstemp``) in a directory private to the process: a predictable name in the shared
temporary directory would let another user plant a link there and have us overwrite
whatever it points at.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile

from ..ir.errors import CompileError
from . import context


class GlProgram:
    """A linked compute program, the location of its uniform words ``tf_u`` and the words it
    holds now (uniforms are state of the program: a call with the same ones sets none)."""

    __slots__ = ("id", "uniform_location", "words")

    def __init__(self, program_id: int, uniform_location: int):
        self.id = program_id
        self.uniform_location = uniform_location
        self.words = b""


_cache: dict[str, GlProgram] = {}
_source_dir: str | None = None  # this process's directory of failed shaders (0700)


class CacheStats:
    """Counters of this process (for tests)."""

    compiles = 0
    hits = 0


def _text(log) -> str:
    return log.decode(errors="replace") if isinstance(log, bytes) else str(log)


def _save_source(source: str, name: str) -> str:
    """A new file holding ``source`` (its path), or why there is none."""
    global _source_dir
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    try:
        if _source_dir is None or not os.path.isdir(_source_dir):
            _source_dir = tempfile.mkdtemp(prefix="tensorfrost-gl-")
        fd, path = tempfile.mkstemp(dir=_source_dir, prefix=f"{re.sub(r'[^A-Za-z0-9_]', '_', name)[:40]}-{digest}-",
                                    suffix=".comp")
        with os.fdopen(fd, "w") as f:
            f.write(source)
    except OSError as error:
        return f"nowhere: it could not be saved ({error.strerror})"
    return path


def _quote_lines(source: str, log: str) -> str:
    """The source lines a Mesa / NVIDIA style log points at ("0:12(5)" or "0(12)")."""
    lines = source.splitlines()
    wanted = sorted({int(m) for m in re.findall(r"\b\d+[:(](\d+)\)?", log) if 0 < int(m) <= len(lines)})
    return "\n".join(f"{n:5d} | {lines[n - 1]}" for n in wanted[:20])


def _fail(stage: str, log: str, source: str, name: str) -> CompileError:
    path = _save_source(source, name)
    quoted = _quote_lines(source, log)
    message = f"the OpenGL driver failed to {stage} the shader of {name} (source in {path}):\n{log.strip()}"
    if quoted:
        message += "\n" + quoted
    return CompileError(message)


def compile_program(source: str, name: str) -> GlProgram:
    """The GL program of a compute shader source (compiled on first use in this process)."""
    found = _cache.get(source)
    if found is not None:
        CacheStats.hits += 1
        return found
    gl = context.opengl().GL

    shader = gl.glCreateShader(gl.GL_COMPUTE_SHADER)
    try:
        gl.glShaderSource(shader, source)
        gl.glCompileShader(shader)
        if not gl.glGetShaderiv(shader, gl.GL_COMPILE_STATUS):
            raise _fail("compile", _text(gl.glGetShaderInfoLog(shader)), source, name)
        program = gl.glCreateProgram()
        gl.glAttachShader(program, shader)
        gl.glLinkProgram(program)
        gl.glDetachShader(program, shader)
        if not gl.glGetProgramiv(program, gl.GL_LINK_STATUS):
            log = _text(gl.glGetProgramInfoLog(program))
            gl.glDeleteProgram(program)
            raise _fail("link", log, source, name)
    finally:
        gl.glDeleteShader(shader)
    compiled = GlProgram(int(program), int(gl.glGetUniformLocation(program, "tf_u")))
    _cache[source] = compiled
    CacheStats.compiles += 1
    return compiled
