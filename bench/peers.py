"""Which implementations can run here, and how many threads each gets.

An implementation ("impl") is one way to run a workload: ``tensorfrost``, ``c`` (the
hand-written C in ``bench/c``), or a library peer. Each needs a module (or gcc); the ones
whose module is missing are skipped and listed as such. Thread counts are fixed through
environment variables before any library is imported (``configure_threads``), and again
through each library's own call when it is first used (``limit_threads``).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import shutil

# Every implementation a workload may define, in table order, with the module it needs.
IMPLS: dict[str, str | None] = {
    "tensorfrost": "tensorfrost",
    "c": None,
    "numpy": "numpy",
    "numba": "numba",
    "jax": "jax",
    "torch": "torch",
    "torch.compile": "torch",
    "taichi": "taichi",
    "glsl": "OpenGL",  # hand-written GLSL compute shaders (bench/gl.py), PyOpenGL on tensorfrost's context
}
# The OpenGL rows (bench/gl.py): the ratios of issue 18's item 5 are taken among these.
GL_IMPLS = ("tensorfrost (opengl)", "glsl", "taichi (opengl)")
# The WebGPU rows (bench/webgpu.py): issue 30's ratios are taken against these and GL_IMPLS[0].
WEBGPU_IMPLS = ("tensorfrost (webgpu)", "taichi (vulkan)")
# The implementations that are neither tensorfrost nor the hand-written C: "library peers".
LIBRARY_PEERS = ("numpy", "numba", "jax", "torch", "torch.compile", "taichi")
_LIMITED: set[str] = set()


def base_impl(name: str) -> str:
    """The registry name of an implementation variant: ``tensorfrost (sum)`` -> ``tensorfrost``."""
    return name.split(" (")[0]


def is_library_peer(name: str) -> bool:
    return base_impl(name) in LIBRARY_PEERS


def available(name: str) -> bool:
    """True when the implementation ``name`` (or a variant of it) can run on this machine."""
    name = base_impl(name)
    if name == "c":
        return shutil.which(os.environ.get("CC", "gcc")) is not None
    module = IMPLS.get(name)
    return module is not None and importlib.util.find_spec(module) is not None


def versions() -> dict[str, str]:
    """Versions of the installed peers (without importing the heavy ones twice)."""
    out = {}
    for module in sorted({m for m in IMPLS.values() if m}):
        if importlib.util.find_spec(module) is None:
            continue
        try:
            from importlib.metadata import version
            out[module] = version(module)
        except Exception:  # noqa: BLE001 - a missing distribution record is not fatal
            out[module] = "?"
    return out


def configure_threads(threads: int) -> None:
    """Set the thread count for every runtime through its environment variables. Must run
    before numpy, jax, numba or torch are imported to take full effect."""
    n = str(threads)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ[var] = n
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    flags = os.environ.get("XLA_FLAGS", "")
    if "intra_op_parallelism_threads" not in flags:
        os.environ["XLA_FLAGS"] = (flags + f" --xla_cpu_multi_thread_eigen=true "
                                   f"intra_op_parallelism_threads={n}").strip()
    os.environ.setdefault("TI_LOG_LEVEL", "warn")


def threads() -> int:
    """The thread count chosen by ``configure_threads`` (all cores if it was not called)."""
    return int(os.environ.get("OMP_NUM_THREADS") or os.cpu_count() or 1)


def limit_threads(name: str):
    """Import the module of implementation ``name``, apply the thread count through the
    library's own API the first time, and return the module."""
    name = base_impl(name)
    module = importlib.import_module(IMPLS[name] or "ctypes")
    if name in _LIMITED:
        return module
    _LIMITED.add(name)
    n = threads()
    if name == "numba":
        module.set_num_threads(min(n, module.config.NUMBA_NUM_THREADS))
    elif name in ("torch", "torch.compile"):
        module.set_num_threads(n)
    elif name == "taichi":
        module.init(arch=module.cpu, cpu_max_num_threads=n, default_fp=module.f32, log_level=module.WARN)
    elif name == "tensorfrost":
        module.initialize(module.cpu)
    return module
