"""Shared test setup: every test that takes ``backend`` runs once per backend."""

import numpy as np
import pytest

import tensorfrost as tf

# Backends the whole suite runs on (the OpenGL backend adds itself here).
BACKENDS = ["cpu"]


@pytest.fixture(params=BACKENDS)
def backend(request):
    """Select a backend for the test; yields the device object."""
    device = getattr(tf, request.param)
    tf.initialize(device)
    yield device
    tf.initialize(tf.cpu)


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
