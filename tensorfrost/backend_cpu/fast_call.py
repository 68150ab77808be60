"""Building and loading fast_call.c, the C extension that runs a program's steady-state calls.

It is compiled once per machine (then cached like every library) in a thread started beside
the first program's g++ run, so that a cold start waits for neither one after the other.
Where it cannot be built or loaded (no Python headers, no C compiler) the module is None and
runtime.py's Python path serves every call.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shlex
import sys
import sysconfig
import threading
from importlib.machinery import ExtensionFileLoader

from ..ir.errors import CompileError, CompilerSetupError
from .compiler import build_library

SOURCE = os.path.join(os.path.dirname(__file__), "fast_call.c")
MODULE_NAME = "_tf_fast_call"  # its PyInit function's name

_lock = threading.Lock()
_build: dict = {}  # "thread": the one that builds it; "path": the library's path, or None


def start_build() -> None:
    """Start compiling the extension in a thread, once per process (a cache hit takes ~1 ms)."""
    with _lock:
        if "thread" not in _build:
            _build["thread"] = threading.Thread(target=_build_library, name="tensorfrost fast_call", daemon=True)
            _build["thread"].start()


def wait_for_build() -> None:
    """Wait for the compile start_build started (it stops at the compiler's timeout)."""
    with _lock:
        thread = _build.get("thread")
    if thread is not None:
        thread.join()


def load(invoke_address: int):
    """The extension's module bound to pool.c's tf_invoke (at ``invoke_address``), or None."""
    start_build()
    wait_for_build()
    path = _build.get("path")
    if path is None:
        return None
    try:
        loader = ExtensionFileLoader(MODULE_NAME, path)
        module = importlib.util.module_from_spec(importlib.util.spec_from_loader(MODULE_NAME, loader))
        loader.exec_module(module)
    except (ImportError, OSError):
        return None
    module.bind(invoke_address)
    return module


def _build_library() -> None:
    include = sysconfig.get_paths().get("include")
    path = None
    if include and os.path.isfile(os.path.join(include, "Python.h")):
        with open(SOURCE) as f:
            source = f.read()
        # The interpreter's build in the key: two builds of one version may share a headers' path.
        build = hashlib.sha256(f"{sys.version} {sysconfig.get_config_var('EXT_SUFFIX')}".encode()).hexdigest()[:16]
        try:
            path = build_library(f"/* for the Python build {build} */\n{source}", "tf_fast_call",
                                 f"-I{shlex.quote(include)}", language="c")
        except (CompilerSetupError, CompileError):
            pass
    _build["path"] = path
