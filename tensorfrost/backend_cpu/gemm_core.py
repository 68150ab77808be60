"""The GEMM core library: gemm.hpp compiled once per compiler, flags and CPU, not into every
program that multiplies matrices (it cost each of their units 0.25 s of g++).

Programs call its entry point by a name that holds a digest of all it was built from
(``tf_gemm_core_<digest>``, passed to g++ as the macro ``TF_GEMM_CORE``), so their keys change
with it and two builds of it never stand in for each other. It is a cached library like any
other (compiler.py: built from the source in memory, loaded only if its signed record
verifies) and is loaded into the process's global scope before any program that calls it,
where the program's library finds the name when it is loaded; it stays loaded for good.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import threading

from ..ir.errors import CompilerSetupError
from . import compiler, gemm

NAME = "tf_gemm_core"
_loaded: dict[str, ctypes.CDLL] = {}  # entry point name -> the loaded library
_lock = threading.Lock()


def entry_point(flags: list[str]) -> str:
    """The core's entry point for programs compiled with ``flags``."""
    text = "\n".join([compiler.build_identity(), " ".join(flags), gemm.core_source()])
    return f"{NAME}_{hashlib.sha256(text.encode()).hexdigest()[:16]}"


def program_flags(flags: list[str]) -> list[str]:
    """``flags`` with the macro naming the core's entry point, for a program's units."""
    return [*flags, f"-D{gemm.CORE_SYMBOL}={entry_point(flags)}"]


def ensure(flags: list[str]) -> None:
    """Load the core for programs compiled with ``flags`` (verified, or built first)."""
    name = entry_point(flags)
    with _lock:
        if name in _loaded:
            return
        source, core_flags = [gemm.core_source()], [*flags, f"-D{gemm.CORE_SYMBOL}={name}"]
        path = compiler.build_with_flags(source, NAME, core_flags, "c++")
        try:
            _loaded[name] = ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_GLOBAL)
        except OSError:  # verified, yet the loader refuses it: built again, once
            path = compiler.build_with_flags(source, NAME, core_flags, "c++", rebuild=True)
            try:
                _loaded[name] = ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_GLOBAL)
            except OSError as error:
                raise CompilerSetupError(f"the compiled library {path} cannot be loaded: {error}") from None


def start(flags: list[str]):
    """``ensure(flags)`` in a thread; returns the function that waits for it (and raises its error)."""
    if entry_point(flags) in _loaded:
        return lambda: None
    failed: list[BaseException] = []

    def run():
        try:
            ensure(flags)
        except BaseException as error:  # raised by wait(), in the caller's thread
            failed.append(error)

    thread = threading.Thread(target=run, name="tensorfrost-gemm-core", daemon=True)
    thread.start()

    def wait():
        thread.join()
        if failed:
            raise failed[0]
    return wait
