"""Benchmarks of tensorfrost beside its peers (issue 7).

``python -m bench`` runs every workload with tensorfrost, the hand-written C of
``bench/c`` and each installed peer (numpy, numba, jax, torch, torch.compile, taichi),
checks each result against numpy, and prints one table; ``--quick`` uses CI sizes.
See ``bench/__main__.py`` for the options and ``bench/RESULTS.md`` for the last full run.
"""
