"""The workloads, one module each, in table order: W (issue 7), C (compile and call
overhead), L (the algorithm library of issue 16)."""

from __future__ import annotations

import importlib

MODULES = ["w1_elementwise", "w2_wave", "w3_mandelbrot", "w4_nbody", "w5_matmul", "w6_mlp", "w7_rowsum",
           "c1_compile", "c2_overhead", "l1_sort", "l2_random", "l3_fft", "l4_cholesky", "l5_conv"]


def all_workloads() -> dict:
    """Every workload by id (``W1`` ... ``C2``), importing the modules that exist."""
    out = {}
    for name in MODULES:
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as e:
            if e.name == f"{__name__}.{name}":
                continue
            raise
        out[module.WORKLOAD.id] = module.WORKLOAD
    return out
