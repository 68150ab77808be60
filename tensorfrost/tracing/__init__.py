"""The tracing layer: ``Tensor`` and the API that records a Python function as an IR program
(``api``: inputs, constants, indices, loops, ifs, scatters; ``indexing``; ``algorithms``;
``mathfn``), the driver that runs a function under the tracer (``trace``), and the
vector-Jacobian products of the structural ops (``vjp``). Both front ends sit on it; it
builds on the core IR (``tensorfrost.ir``)."""

# (they provide the functions some of Tensor's methods call: see tensor.provide)
from . import algorithms, api, helpers, indexing, kernel  # noqa: E402,F401
