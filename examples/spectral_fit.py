"""Learn a deblurring filter in the frequency domain with tf.fft and tf.optimizers.Adam.

    python examples/spectral_fit.py                       # 100 steps of a 32 x 32 image
    python examples/spectral_fit.py --steps 500 --size 128 --backend opengl --out fit.png

A synthetic image (rings, a square and a bar) is blurred by a Gaussian (a circular
convolution). The model is one complex frequency response H [size, size // 2 + 1, 2]:
``restored = irfft2(H * rfft2(blurred))``. Each training step is one compiled program
(forward transforms, the mean squared error against the sharp image, the gradient back
through both FFTs, the Adam update). H starts at zero and learns the inverse of the blur
where the blur leaves enough signal. The script prints the loss as it goes and writes
target | blurred | restored side by side to a PNG.

``tests/test_fft.py`` runs ``main`` with a few steps and checks that the loss falls.
"""

from __future__ import annotations

import argparse

import numpy as np

import tensorfrost as tf


def sharp_image(size: int) -> np.ndarray:
    """A [size, size] float32 test picture in [0, 1]."""
    y, x = (np.mgrid[0:size, 0:size] + 0.5) / size
    rings = 0.5 + 0.5 * np.cos(40.0 * np.hypot(x - 0.3, y - 0.35))
    image = np.where(np.hypot(x - 0.3, y - 0.35) < 0.25, rings, 0.0)
    image += ((abs(x - 0.72) < 0.12) & (abs(y - 0.7) < 0.12)) * 0.9
    image += (abs(y - x * 0.5 - 0.05) < 0.02) * 0.6
    return np.clip(image, 0.0, 1.0).astype(np.float32)


def blur(image: np.ndarray, sigma: float) -> np.ndarray:
    """Circular Gaussian blur of ``image`` (a product of spectra)."""
    size = image.shape[0]
    f = np.fft.fftfreq(size)
    gain = np.exp(-2.0 * (np.pi * sigma) ** 2 * (f[:, None] ** 2 + f[None, :] ** 2))
    return np.fft.ifft2(np.fft.fft2(image) * gain).real.astype(np.float32)


class SpectralFilter(tf.Module):
    """A learned complex frequency response applied to real images [size, size]."""

    def __init__(self, size: int):
        super().__init__()
        self.size = size
        self.response = tf.Parameter([size, size // 2 + 1, 2], tf.float32, random_scale=0.0)

    def forward(self, image):
        spectrum = tf.fft.rfft2(image)
        h, s = self.response, spectrum
        re = tf.fft.real(h) * tf.fft.real(s) - tf.fft.imag(h) * tf.fft.imag(s)
        im = tf.fft.real(h) * tf.fft.imag(s) + tf.fft.imag(h) * tf.fft.real(s)
        return tf.fft.irfft2(tf.fft.complex(re, im), (self.size, self.size))

    def loss(self, blurred, target):
        error = self.forward(blurred) - target
        return tf.mean(tf.mean(error * error, axis=1), axis=0)


def to_rgb(*images: np.ndarray) -> np.ndarray:
    row = np.concatenate([np.clip(im, 0.0, 1.0) for im in images], axis=1)
    return np.repeat((row * 255.0 + 0.5).astype(np.uint8)[:, :, None], 3, axis=2)


def main(argv=None) -> list[float]:
    """Train; return the loss of every step."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--size", type=int, default=32, help="image side (any size; powers of two are fastest)")
    parser.add_argument("--sigma", type=float, default=1.5, help="blur radius in pixels")
    parser.add_argument("--lr", type=float, default=0.3)
    parser.add_argument("--backend", choices=["cpu", "opengl"], default="cpu")
    parser.add_argument("--out", default="spectral_fit.png", help="PNG to write ('' for none)")
    args = parser.parse_args(argv)
    tf.initialize(getattr(tf, args.backend))

    target = sharp_image(args.size)
    blurred = blur(target, args.sigma)
    model = SpectralFilter(args.size)
    opt = tf.optimizers.adam(model, learning_rate=args.lr)
    opt.initialize_parameters(seed=0)
    # Static sizes: the program holds only the transform that fits them (no run-time choice).
    side = [args.size, args.size]
    step = opt.compile_step(tf.Arg(side, tf.float32), tf.Arg(side, tf.float32))
    losses = []
    for k in range(args.steps):
        losses.append(float(np.asarray(step(blurred, target).numpy).ravel()[0]))
        if k % max(args.steps // 10, 1) == 0 or k == args.steps - 1:
            print(f"step {k:4d}  loss {losses[-1]:.6f}")
    if args.out:
        restore = tf.compile(lambda: model_forward(args.size))
        restored = restore(blurred, model.response).numpy
        tf.window.save_png(args.out, to_rgb(target, blurred, restored))
        print(f"wrote {args.out} (target | blurred | restored)")
    return losses


def model_forward(size: int):
    """The trained filter applied to an image, as a program of the image and the response."""
    image = tf.input([size, size], tf.float32)
    response = tf.input([size, size // 2 + 1, 2], tf.float32)
    model = SpectralFilter(size)
    model.response = response
    return model.forward(image)


if __name__ == "__main__":
    main()
