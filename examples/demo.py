"""tensorfrost demo: a Mandelbrot set and a wave simulation, each fused into one native kernel.

Run:  python examples/demo.py [output.png]

It prints what it compiled and how fast it ran, and writes an image with both results.
"""

import sys
import time

import numpy as np

import tensorfrost as tf


def mandelbrot():
    c_re = tf.input([-1, -1], tf.float32)
    c_im = tf.input(c_re.shape, tf.float32)
    z_re = tf.const(0.0)
    z_im = tf.const(0.0)
    n = tf.const(0)
    with tf.loop(256):
        z_re_new = z_re * z_re - z_im * z_im + c_re
        z_im_new = 2.0 * z_re * z_im + c_im
        z_re.val = z_re_new
        z_im.val = z_im_new
        n.val = n + 1
        with tf.if_cond(z_re * z_re + z_im * z_im > 256.0):
            tf.break_loop()
    return n


def wave_step():
    u = tf.input([-1, -1], tf.float32)
    v = tf.input(u.shape, tf.float32)
    i, j = u.indices
    laplacian = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - u * 4.0
    v_new = (v + 0.2 * laplacian) * 0.9995
    u_new = u + 0.2 * v_new
    return [u_new, v_new]


def colorize(values):
    t = np.clip(values, 0.0, 1.0)[..., None]
    low, mid, high = np.array([10, 20, 60]), np.array([230, 120, 40]), np.array([255, 250, 220])
    rgb = np.where(t < 0.5, low + (mid - low) * (t * 2), mid + (high - mid) * (t * 2 - 1))
    return rgb.astype(np.uint8)


def main(out_path="demo.png"):
    tf.initialize(tf.cpu)
    size = 512

    start = time.perf_counter()
    fractal = tf.compile(mandelbrot)
    print(f"compiled mandelbrot: {len(fractal.get_kernels())} kernel, {time.perf_counter() - start:.2f} s")
    y, x = np.mgrid[-1.25:1.25:complex(0, size), -2.0:0.7:complex(0, size)].astype(np.float32)
    start = time.perf_counter()
    counts = fractal(x, y).numpy
    elapsed = time.perf_counter() - start
    print(f"mandelbrot {size}x{size}: {elapsed * 1e3:.1f} ms ({size * size / elapsed / 1e6:.1f} Mpixel/s), "
          f"{(counts == 256).mean() * 100:.1f}% of pixels inside the set")

    start = time.perf_counter()
    wave = tf.compile(wave_step)
    print(f"compiled wave step: {len(wave.get_kernels())} kernel, {time.perf_counter() - start:.2f} s")
    i, j = np.mgrid[0:size, 0:size]
    u0 = np.exp(-((i - size / 3) ** 2 + (j - size / 2) ** 2) / 200.0).astype(np.float32)
    u, v = tf.tensor(u0), tf.tensor(np.zeros_like(u0))
    steps = 400
    start = time.perf_counter()
    for _ in range(steps):
        u, v = wave(u, v)
    field = u.numpy
    elapsed = time.perf_counter() - start
    print(f"wave {size}x{size}, {steps} steps: {elapsed * 1e3:.0f} ms "
          f"({size * size * steps / elapsed / 1e9:.2f} Gcell-steps/s)")

    image = np.concatenate([colorize(np.log1p(counts) / np.log1p(256)),
                            colorize(0.5 + field / (2 * np.abs(field).max() + 1e-9))], axis=1)
    tf.window.save_png(out_path, image)
    print(f"wrote {out_path} ({image.shape[1]}x{image.shape[0]}: Mandelbrot set | wave after {steps} steps)")


if __name__ == "__main__":
    main(*sys.argv[1:2])
