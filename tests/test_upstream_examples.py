"""Upstream TensorFrost's example programs (examples/ in its repository) with only the import
changed, at small sizes, compared with numpy: the ones that stopped on our package, and what
stopped them (MSVC compiler flags, a crash at exit)."""

import subprocess
import sys

import numpy as np
import pytest

import tensorfrost as tf
from tensorfrost.ir.errors import CompilerSetupError

# -- examples/Algorithms/indexing_test.ipynb: tf.initialize(tf.cpu, "/O2 /fp:fast /openmp") -------


def _colormap(mag):  # the notebook's polynomial colour map, as numpy
    return np.stack([0.277 + mag * (0.105 + mag * (-0.330 + mag * (-4.634 + mag * (6.228 + mag * (4.776 - 5.435 * mag))))),  # noqa: E501
                     0.005 + mag * (1.404 + mag * (0.214 + mag * (-5.799 + mag * (14.179 + mag * (-13.745 + 4.645 * mag))))),  # noqa: E501
                     0.334 + mag * (1.384 + mag * (0.095 + mag * (-19.332 + mag * (56.690 + mag * (-65.353 + 26.312 * mag)))))],  # noqa: E501
                    axis=-1)


def test_indexing_test_notebook_with_msvc_flags(backend):
    # Upstream's Windows default options, which the notebook passes; g++ gets their equivalents
    # (on opengl they are unused, as upstream's).
    tf.initialize(backend, "/O2 /fp:fast /openmp")

    def test():
        canvas = tf.buffer([32, 32, 3], tf.float32)

        i,j = tf.indices([32, 32])
        x, y = tf.float(i), tf.float(j)
        x, y = x/32.0, y/32.0

        vx = tf.sin(2.0*3.141592*x)
        vy = tf.sin(2.0*3.141592*y)
        mag = 0.5*tf.sqrt(vx*vx + vy*vy)

        mag = tf.clamp(mag, 0.0, 1.0)
        canvas[i, j, 0] = (0.277 + mag * (0.105 + mag * (-0.330 + mag * (-4.634 + mag * (6.228 + mag * (4.776 - 5.435 * mag))))))  # noqa: E501
        canvas[i, j, 1] = (0.005 + mag * (1.404 + mag * (0.214 + mag * (-5.799 + mag * (14.179 + mag * (-13.745 + 4.645 * mag))))))  # noqa: E501
        canvas[i, j, 2] = (0.334 + mag * (1.384 + mag * (0.095 + mag * (-19.332 + mag * (56.690 + mag * (-65.353 + 26.312 * mag))))))  # noqa: E501

        a, = tf.indices([16])
        canvas[a+8, 8, 0] = 1.0
        canvas[8, a+8, 0] = 1.0
        canvas[a+8, 24, 0] = 1.0
        canvas[24, a+8, 0] = 1.0
        return canvas

    t1 = tf.compile(test)
    res = t1().numpy
    x = np.arange(32) / 32.0
    vx, vy = np.sin(2.0 * 3.141592 * x)[:, None], np.sin(2.0 * 3.141592 * x)[None, :]
    expected = _colormap(np.clip(0.5 * np.sqrt(vx * vx + vy * vy), 0.0, 1.0))
    for k in (8, 24):
        expected[8:24, k, 0] = expected[k, 8:24, 0] = 1.0
    # float32 through a degree-6 polynomial with coefficients up to 65 (values up to ~1): 1e-4
    np.testing.assert_allclose(res, expected, atol=1e-4)


def test_an_msvc_flag_without_a_gcc_spelling_is_a_clear_error():
    tf.initialize(tf.cpu, "/O2 /GL")
    try:
        with pytest.raises(CompilerSetupError, match=r"'/GL' is an MSVC option.*g\+\+"):
            tf.compile(lambda: tf.input([-1], tf.float32) + 1.0)
    finally:
        tf.initialize(tf.cpu)


# -- a crash at exit: examples/Simulation/wave_simulation.ipynb stopped (IPython's Image of a file
# that is not there) and the process then died of SIGSEGV instead of exiting with the traceback ---


CLOSED_POOL = """
import numpy as np, tensorfrost as tf
from tensorfrost.backend_cpu import runtime
tf.initialize(tf.cpu)
t = tf.tensor(np.ones(1 << 16, np.float32))
out = tf.compile(lambda: tf.input([-1], tf.float32) * 2.0)(t)
total = float(out.numpy.sum())
# At exit the collector may free the pool library's lib object (which closes it) before tensors
# held in reference cycles (a traceback's frames); their destructors are that library's functions.
runtime.ffi.dlclose(runtime.pool().lib)
del t, out
print(total)
"""


def test_tensors_freed_after_the_pool_library_object_do_not_crash():
    result = subprocess.run([sys.executable, "-c", CLOSED_POOL], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, (result.returncode, result.stderr[-2000:])
    assert result.stdout.split() == [str(2.0 * (1 << 16))]


# -- examples/ML/VMC/camera.py: host code indexes a module parameter it set to a numpy array ------
# (upstream's modules keep the array; here the parameter holds the uploaded tensor, which reads
# as numpy does)


def _quaternion_to_matrix(q):
    w, x, y, z = q
    return np.array([
        [1 - 2*y*y - 2*z*z,     2*x*y - 2*z*w,     2*x*z + 2*y*w],
        [    2*x*y + 2*z*w, 1 - 2*x*x - 2*z*z,     2*y*z - 2*x*w],
        [    2*x*z - 2*y*w,     2*y*z + 2*x*w, 1 - 2*x*x - 2*y*y]
    ])


class Camera(tf.Module):
    def __init__(self, position=(0.0, 0.0, 0.0), quaternion=(1.0, 0.0, 0.0, 0.0)):
        super().__init__()
        self.camera = tf.Parameter([4, 3], tf.float32, optimize = False)
        self.params = tf.Parameter([-1], tf.float32)
        self.position = np.array(position, dtype=np.float32)
        self.quaternion = np.array(quaternion, dtype=np.float32)
        self.brightness = 1.0
        self.focal_length = 1.5

    def initialize_properties(self):
        self.cam_p = [self.camera[0, 0], self.camera[0, 1], self.camera[0, 2]]
        self.cam_f = [self.camera[3, 0], self.camera[3, 1], self.camera[3, 2]]
        self.brightness = self.params[0]
        self.focal_length = self.params[1]

    def get_camera_matrix(self):
        return np.stack([self.position, *_quaternion_to_matrix(self.quaternion)])

    def update_params(self):
        self.camera = self.get_camera_matrix()
        all_params = [self.brightness, self.focal_length]
        self.params = np.array(all_params, dtype=np.float32)

    def update_tensors(self):
        self.camera = tf.tensor(self.camera)
        self.params = tf.tensor(self.params)


def test_vmc_camera_parameters_read_back_on_the_host(backend):
    def shade():  # a program reads the same parameters as tensors
        cam = Camera()
        cam.initialize_input()
        cam.initialize_properties()
        p = tf.input([-1, 3], tf.float32)
        i, = tf.indices([p.shape[0]])
        depth = (p[i, 0] - cam.cam_p[0]) * cam.cam_f[0] + (p[i, 1] - cam.cam_p[1]) * cam.cam_f[1] + \
            (p[i, 2] - cam.cam_p[2]) * cam.cam_f[2]
        return depth * cam.focal_length * cam.brightness
    program = tf.compile(shade)
    q = np.array([np.cos(0.3), 0.0, np.sin(0.3), 0.0])  # a turn about y
    cam = Camera(position=(1.0, -2.0, 0.5), quaternion=q)
    cam.update_params()
    cam.initialize_properties()  # on the host, after a numpy array was assigned to each parameter
    matrix = np.stack([np.float32([1.0, -2.0, 0.5]), *_quaternion_to_matrix(q).astype(np.float32)])
    assert cam.cam_p == [1.0, -2.0, 0.5] and cam.cam_f == list(matrix[3])
    assert (cam.brightness, cam.focal_length) == (1.0, 1.5)
    np.testing.assert_array_equal(cam.camera[1:], matrix[1:])  # slices too, as numpy reads them
    np.testing.assert_array_equal(list(cam.params), [1.0, 1.5])
    cam.update_tensors()
    points = np.arange(12, dtype=np.float32).reshape(4, 3)
    # float32 products of a few terms of size ~10: 1e-5 relative
    np.testing.assert_allclose(program(cam, points).numpy, (points - matrix[0]) @ matrix[3] * 1.5, rtol=1e-5)
