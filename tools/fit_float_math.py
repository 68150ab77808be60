"""Fit the polynomials of ``tensorfrost/backend_cpu/float_math.hpp`` (a maintainer's tool).

    pip install mpmath && python tools/fit_float_math.py

Each is fitted for least relative error by least squares on Chebyshev nodes, reweighted
toward the largest errors (Lawson's iteration, which tends to the minimax polynomial), in
float64 against mpmath's values; the printed error is measured on a finer grid with the
coefficients as float_math.hpp holds them (float64, as hex). Their last bits may differ from
one machine's BLAS to another's; any run's are as good.
"""

import mpmath as mp
import numpy as np

mp.mp.dps = 40


def fit(exact, tail, lo, hi, terms, nodes=4000, rounds=60):
    """Coefficients c of exact(t) ~ lead(t) + sum c_k tail(t, k), for t in [lo, hi]."""
    t = (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (np.arange(nodes) + 0.5) / nodes)
    points = [mp.mpf(float(v)) for v in t]
    value = np.array([float(exact(v)) for v in points])
    basis = np.array([[float(tail(v, k)) for k in range(terms)] for v in points]) / value[:, None]
    target = np.array([float((exact(v) - exact.lead(v)) / exact(v)) for v in points])
    weight = np.ones(nodes)
    for _ in range(rounds):
        c, *_ = np.linalg.lstsq(basis * np.sqrt(weight)[:, None], target * np.sqrt(weight), rcond=None)
        error = np.abs(basis @ c - target)
        weight *= error / error.max() + 1e-12
        weight /= weight.sum()
    return c


def worst(exact, approx, lo, hi, n=20001):
    return max(abs(float((approx(v) - exact(mp.mpf(v))) / exact(mp.mpf(v)))) for v in np.linspace(lo, hi, n))


class Function:
    def __init__(self, f, lead):
        self.f, self.lead = f, lead

    def __call__(self, t):
        return self.f(t)


def odd(name, f, hi, terms):  # f(a) = a + a z P(z), z = a^2
    c = fit(Function(f, lambda a: a), lambda a, k: a ** (2 * k + 3), 1e-6, hi, terms)
    approx = lambda a: a + a ** 3 * np.polyval(c[::-1], a * a)  # noqa: E731
    return name, c, worst(f, approx, 1e-6, hi)


def exp2():  # 2^f = 1 + f P(f), |f| <= 1/2
    f = Function(lambda t: mp.power(2, t), lambda t: 1)
    c = fit(f, lambda t, k: t ** (k + 1), -0.5, 0.5, 8)
    return "exp2: 2^f, P(f)", c, worst(f, lambda t: 1 + t * np.polyval(c[::-1], t), -0.5, 0.5)


def log():  # log m = 2 atanh s = 2 s + 2 s z R(z), z = s^2, |s| <= (sqrt 2 - 1) / (sqrt 2 + 1)
    top = (2 ** 0.5 - 1) / (2 ** 0.5 + 1) + 1e-4
    f = Function(lambda s: 2 * mp.atanh(s), lambda s: 2 * s)
    c = fit(f, lambda s, k: 2 * s ** (2 * k + 3), 1e-6, top, 6)
    approx = lambda s: 2 * s + 2 * s ** 3 * np.polyval(c[::-1], s * s)  # noqa: E731
    return "log: 2 atanh s, R(z)", c, worst(f, approx, 1e-6, top)


def main():
    for name, c, error in [exp2(), log(), odd("sin r, |r| <= pi/2: Q(z)", mp.sin, np.pi / 2 + 1e-3, 6),
                           odd("sinh a, a < 1: P(z)", mp.sinh, 1.0, 5),
                           odd("tanh a, a < 1/2: P(z)", mp.tanh, 0.5, 7)]:
        print(f"{name}: relative error 2^{np.log2(error):.1f}")
        print("    " + ", ".join(float(v).hex() for v in c))


if __name__ == "__main__":
    main()
