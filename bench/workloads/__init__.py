"""The workloads of issue 7, one module each, in table order."""

from __future__ import annotations

import importlib

MODULES = ["w1_elementwise", "w2_wave", "w3_mandelbrot", "w4_nbody", "w5_matmul", "w6_mlp", "w7_rowsum",
           "c1_compile", "c2_overhead"]


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
