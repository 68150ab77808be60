"""Core libraries: code that many programs call, compiled once per compiler, flags and CPU
instead of into each of them (the GEMM core, gemm_core.py; the math core, math_core.py).

A program's units reach a core by names that hold a digest of all the core was built from
(``<name>_<digest>``, passed to g++ as a macro), so their keys change with it and two builds
of it never stand in for each other. A core is a cached library like any other (compiler.py:
built from the source in memory, loaded only if its signed record verifies) and is loaded
into the process's global scope before any program that calls it, where the program's
library finds the names when it is loaded; it stays loaded for good.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import threading
from collections.abc import Callable

from ..ir.errors import CompilerSetupError
from . import compiler


class CoreLibrary:
    """One core: ``source()`` is its text; a unit holding ``marker`` calls it, through the
    macro ``symbol`` (its entry point's name); ``used_by(executable)`` says whether a
    compiled program calls it (so that its cached entry loads the core first)."""

    def __init__(self, name: str, symbol: str, marker: str, source: Callable[[], str],
                 used_by: Callable[[object], bool]):
        self.name, self.symbol, self.marker, self.source, self.used_by = name, symbol, marker, source, used_by
        self.loaded: dict[str, ctypes.CDLL] = {}  # entry point name -> the loaded library
        self._entry_points: dict[tuple, str] = {}  # (a cached program's load asks for it again)
        self._lock = threading.Lock()

    def entry_point(self, flags: list[str]) -> str:
        """The core's entry point for programs compiled with ``flags``."""
        key = tuple(flags)
        if key not in self._entry_points:
            text = "\n".join([compiler.build_identity(), " ".join(flags), self.source()])
            self._entry_points[key] = f"{self.name}_{hashlib.sha256(text.encode()).hexdigest()[:16]}"
        return self._entry_points[key]

    def define(self, flags: list[str]) -> str:
        """The flag that names the entry point, for the units (and the core) built with ``flags``."""
        return f"-D{self.symbol}={self.entry_point(flags)}"

    def ensure(self, flags: list[str]) -> None:
        """Load the core for programs compiled with ``flags`` (verified, or built first)."""
        name = self.entry_point(flags)
        with self._lock:
            if name in self.loaded:
                return
            source, core_flags = [self.source()], [*flags, self.define(flags)]
            path = compiler.build_with_flags(source, self.name, core_flags, "c++")
            try:
                self.loaded[name] = ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_GLOBAL)
            except OSError:  # verified, yet the loader refuses it: built again, once
                path = compiler.build_with_flags(source, self.name, core_flags, "c++", rebuild=True)
                try:
                    self.loaded[name] = ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_GLOBAL)
                except OSError as error:
                    raise CompilerSetupError(f"the compiled library {path} cannot be loaded: {error}") from None

    def start(self, flags: list[str]):
        """``ensure(flags)`` in a thread; returns the function that waits for it (and raises its error)."""
        if self.entry_point(flags) in self.loaded:
            return lambda: None
        failed: list[BaseException] = []

        def run():
            try:
                self.ensure(flags)
            except BaseException as error:  # raised by wait(), in the caller's thread
                failed.append(error)

        thread = threading.Thread(target=run, name=f"tensorfrost-{self.name}", daemon=True)
        thread.start()

        def wait():
            thread.join()
            if failed:
                raise failed[0]
        return wait
