"""Gradients through loops written the way simulations are: scalar parameters read in loops,
data-dependent whiles, break and continue, a spring chain, a heat equation, a bouncing
ball, a sphere tracer and a backtracking line search (the defects, the ball and the tracer
in both front ends).

Every gradient is compared with central differences, in float64, of a plain numpy/Python
reference that mirrors the program step by step (same clamped indexing, same order of
updates, same break/continue semantics). The programs run in float32, so the tolerances are
rtol 1e-3 to 2e-3. References that branch log how far each branch condition was from its
threshold, and the tests check that the difference step and float32 rounding cannot flip one.
"""

import numpy as np

import tensorfrost as tf

RTOL = 2e-3  # float32 programs of tens to hundreds of dependent steps, against float64 differences


def central(f, p, rel=1e-5):
    """d sum(f(p)) / dp by central differences in float64, one element of p at a time."""
    p = np.array(p, np.float64)
    grad = np.zeros_like(p)
    for index in np.ndindex(p.shape):
        h = rel * max(1.0, abs(p[index]))
        up, down = p.copy(), p.copy()
        up[index] += h
        down[index] -= h
        grad[index] = (np.sum(f(up)) - np.sum(f(down))) / (2 * h)
    return grad


def f64(a):
    return np.asarray(a, np.float64)


# -- 1. a scalar parameter read inside a loop ---------------------------------------------------

X0 = np.array([0.5, 1.0, 2.0, 3.3, -1.0, 4.2, 6.5], np.float32)
A = np.array([1.3], np.float32)


def scale_reference(x0, a, variant, log):
    """x = x0; 3 times x *= a, under ``if x < 5`` or followed by ``if x > 6: break``."""
    out = []
    for x in x0:
        for _ in range(3):
            if variant == "if":
                log.append(abs(x - 5.0))
                if not x < 5.0:
                    continue
            x = x * a
            if variant == "break":
                log.append(abs(x - 6.0))
                if x > 6.0:
                    break
        out.append(x)
    return np.array(out)


def check_scale(variant, x, grad):
    log = []
    want_x = scale_reference(f64(X0), f64(A)[0], variant, log)
    assert min(log, default=1.0) > 0.1  # no element sits near a threshold
    want_grad = central(lambda a: scale_reference(f64(X0), a[0], variant, []), A)
    if variant == "plain":  # the closed form, 3 a^2 sum(x0)
        np.testing.assert_allclose(want_grad, [3 * f64(A)[0] ** 2 * f64(X0).sum()], rtol=1e-8)
    np.testing.assert_allclose(x.numpy, want_x, rtol=1e-5, err_msg=variant)
    np.testing.assert_allclose(grad.numpy, want_grad, rtol=1e-3, err_msg=variant)


def scale_traced(variant):
    def program():
        x0 = tf.input([-1], tf.float32)
        a = tf.input([1], tf.float32)
        x = x0 * 1.0
        with tf.loop(3):
            if variant == "if":
                with tf.if_cond(x < 5.0):
                    x.val = x * a[0]
            else:
                x.val = x * a[0]
                if variant == "break":
                    with tf.if_cond(x > 6.0):
                        tf.break_loop()
        return [x, tf.grad(tf.sum(x), a)]
    return tf.compile(program)


def test_scalar_parameter_in_a_loop_traced(backend):
    for variant in ("plain", "if", "break"):
        check_scale(variant, *scale_traced(variant)(X0, A))


def test_scalar_parameter_in_a_loop_native(backend):
    @tf.kernel_program
    def plain(x0: tf.Arg([-1], tf.float32), a: tf.Arg([1], tf.float32)):
        x = x0 * 1.0
        for _ in range(3):
            x = x * a[0]
        return x, tf.grad(tf.sum(x), a)

    @tf.kernel_program
    def under_if(x0: tf.Arg([-1], tf.float32), a: tf.Arg([1], tf.float32)):
        x = x0 * 1.0
        for _ in range(3):
            if x < 5.0:
                x = x * a[0]
        return x, tf.grad(tf.sum(x), a)

    @tf.kernel_program
    def breaking(x0: tf.Arg([-1], tf.float32), a: tf.Arg([1], tf.float32)):
        x = x0 * 1.0
        for _ in range(3):
            x = x * a[0]
            if x > 6.0:
                break
        return x, tf.grad(tf.sum(x), a)

    for variant, program in (("plain", plain), ("if", under_if), ("break", breaking)):
        check_scale(variant, *program(X0, A))


# -- 2. a while with a data-dependent trip count -----------------------------------------------

C_WHILE = np.array([0.3, 1.0, 2.0, 7.0, 12.0, 9.5], np.float32)


def grow_reference(c, log):
    out = []
    for x in c:
        while True:
            log.append(abs(x - 10.0))
            if not x < 10.0:
                break
            x = x * 1.5
        out.append(x)
    return np.array(out)


def check_grow(x, grad):
    log = []
    want_x = grow_reference(f64(C_WHILE), log)
    assert min(log) > 0.1
    want_grad = central(lambda c: grow_reference(c, []), C_WHILE)
    # each element is multiplied by 1.5 a different number of times (12.0: none)
    np.testing.assert_allclose(want_grad, 1.5 ** np.array([9, 6, 4, 1, 0, 1]), rtol=1e-8)
    np.testing.assert_allclose(x.numpy, want_x, rtol=1e-5)
    np.testing.assert_allclose(grad.numpy, want_grad, rtol=1e-5)


def test_while_with_data_dependent_trip_count_native(backend):
    @tf.kernel_program
    def grow(c: tf.Arg([-1], tf.float32)):
        x = c * 1.0
        while x < 10.0:
            x = x * 1.5
        return x, tf.grad(tf.sum(x), c)
    check_grow(*grow(C_WHILE))


def test_while_with_data_dependent_trip_count_traced(backend):
    def grow():
        c = tf.input([-1], tf.float32)
        x = c * 1.0
        with tf.loop(1000):
            with tf.if_cond(x >= 10.0):
                tf.break_loop()
            x.val = x * 1.5
        return [x, tf.grad(tf.sum(x), c)]
    check_grow(*tf.compile(grow)(C_WHILE))


# -- 3. continue ---------------------------------------------------------------------------------

C_CONTINUE = np.array([0.5, 1.0, 1.5, 3.0], np.float32)


def skip_reference(c, log):
    out = []
    for x in c:
        for _ in range(6):
            log.append(abs(x - 2.0))
            if x > 2.0:
                continue
            x = x * 1.5
        out.append(x)
    return np.array(out)


def check_skip(x, grad):
    log = []
    want_x = skip_reference(f64(C_CONTINUE), log)
    assert min(log) > 0.1
    np.testing.assert_allclose(want_x, [2.53125, 2.25, 2.25, 3.0])  # the README's numbers
    want_grad = central(lambda c: skip_reference(c, []), C_CONTINUE)
    np.testing.assert_allclose(x.numpy, want_x, rtol=1e-6)
    np.testing.assert_allclose(grad.numpy, want_grad, rtol=1e-5)


def test_continue_native(backend):
    @tf.kernel_program
    def skip(c: tf.Arg([-1], tf.float32)):
        x = c * 1.0
        for _ in range(6):
            if x > 2.0:
                continue
            x = x * 1.5
        return x, tf.grad(tf.sum(x), c)
    check_skip(*skip(C_CONTINUE))


def test_continue_traced(backend):
    def skip():
        c = tf.input([-1], tf.float32)
        x = c * 1.0
        with tf.loop(6):
            with tf.if_cond(x > 2.0):
                tf.continue_loop()
            x.val = x * 1.5
        return [x, tf.grad(tf.sum(x), c)]
    check_skip(*tf.compile(skip)(C_CONTINUE))


# -- nested loops (frames of substeps), the shape of item 8's loops without its branches ---------

C_NESTED = np.array([0.3, 0.7, 1.2, -0.9], np.float32)


def substeps_reference(c):
    x = c * 1.0
    for _ in range(2):
        for _ in range(3):
            x = x * c
    return x


def test_nested_loops(backend):
    def traced():
        c = tf.input([-1], tf.float32)
        x = c * 1.0
        with tf.loop(2):
            with tf.loop(3):
                x.val = x * c
        return [x, tf.grad(tf.sum(x), c)]

    @tf.kernel_program
    def native(c: tf.Arg([-1], tf.float32)):
        x = c * 1.0
        for _ in range(2):
            for _ in range(3):
                x = x * c
        return x, tf.grad(tf.sum(x), c)

    want = central(substeps_reference, C_NESTED)
    np.testing.assert_allclose(want, 7 * f64(C_NESTED) ** 6, rtol=1e-8)  # c^7
    for name, program in (("traced", tf.compile(traced)), ("native", native)):
        x, grad = program(C_NESTED)
        np.testing.assert_allclose(x.numpy, substeps_reference(f64(C_NESTED)), rtol=1e-5, err_msg=name)
        np.testing.assert_allclose(grad.numpy, want, rtol=1e-5, err_msg=name)


# -- 4. a mass-spring chain, symplectic Euler ---------------------------------------------------

DT = 0.02


def chain_reference(x0, target, k):
    """8 unit masses on unit springs, the first tied to a wall at 0; 50 symplectic Euler steps."""
    n = len(x0)
    i = np.arange(n)
    x, v = x0.copy(), np.zeros(n)
    for _ in range(50):
        left = np.where(i > 0, x[np.clip(i - 1, 0, n - 1)], 0.0)
        stretch_left = x - left - 1.0
        stretch_right = np.where(i < n - 1, x[np.clip(i + 1, 0, n - 1)] - x - 1.0, 0.0)
        v = v + DT * (k * (stretch_right - stretch_left) - 0.1 * v)
        x = x + DT * v
    return np.sum((x - target) ** 2)


def test_mass_spring_chain_stiffness_gradient(backend):
    @tf.kernel_program
    def chain(x0: tf.Arg([-1], tf.float32), target: tf.Arg([-1], tf.float32), k: tf.Arg([1], tf.float32)):
        i, = x0.indices
        n = x0.shape[0]
        x = x0 * 1.0
        v = x0 * 0.0
        for _ in range(50):
            left = tf.select(i > 0, x[i - 1], 0.0)  # the wall
            stretch_left = x - left - 1.0
            stretch_right = tf.select(i < n - 1, x[i + 1] - x - 1.0, 0.0)
            v = v + DT * (k[0] * (stretch_right - stretch_left) - 0.1 * v)
            x = x + DT * v
        loss = tf.sum((x - target) ** 2)
        return loss, tf.grad(loss, k)

    i = np.arange(8)
    x0 = (i + 1 + 0.3 * np.sin(1.7 * i)).astype(np.float32)
    target = ((i + 1) * 1.05).astype(np.float32)
    k = np.array([20.0], np.float32)
    loss, grad = chain(x0, target, k)
    want = central(lambda kk: chain_reference(f64(x0), f64(target), kk[0]), k)
    np.testing.assert_allclose(loss.numpy, [chain_reference(f64(x0), f64(target), 20.0)], rtol=1e-4)
    np.testing.assert_allclose(grad.numpy, want, rtol=RTOL)


# -- 5. a 1-D heat equation ---------------------------------------------------------------------


def heat_reference(u0, w, d):
    n = len(u0)
    i = np.arange(n)
    u = u0.copy()
    for _ in range(100):
        u = u + d * (u[np.clip(i - 1, 0, n - 1)] - 2.0 * u + u[np.clip(i + 1, 0, n - 1)])
    return np.sum(w * u)


def test_heat_equation_diffusivity_gradient(backend):
    def heat():
        u0 = tf.input([-1], tf.float32)
        w = tf.input(u0.shape, tf.float32)
        d = tf.input([1], tf.float32)
        u = u0 * 1.0
        i, = u.indices
        with tf.loop(100):
            u.val = u + d[0] * (u[i - 1] - 2.0 * u + u[i + 1])  # u[-1] reads u[0], u[n] reads u[n-1]
        loss = tf.sum(w * u)
        return [loss, tf.grad(loss, d)]

    rng = np.random.default_rng(5)
    u0 = rng.uniform(0.0, 1.0, 16).astype(np.float32)
    # clamped borders conserve sum(u), so a plain sum would have a zero gradient: weight it
    w = np.linspace(-1.0, 1.5, 16).astype(np.float32)
    d = np.array([0.21], np.float32)
    loss, grad = tf.compile(heat)(u0, w, d)
    want = central(lambda dd: heat_reference(f64(u0), f64(w), dd[0]), d)
    assert abs(want[0]) > 0.1
    np.testing.assert_allclose(loss.numpy, [heat_reference(f64(u0), f64(w), 0.21)], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(grad.numpy, want, rtol=RTOL)


# -- 6. a projectile bouncing on the floor ------------------------------------------------------

G, STEP = 9.8, 0.05


def bounce_reference(v0, e, log):
    out = []
    for vy in v0:
        y = 0.5
        for _ in range(60):
            vy = vy - G * STEP
            y = y + vy * STEP
            log.append(abs(y))
            if y < 0.0:
                y = -y * e
                vy = -vy * e
        out.append(y)
    return np.array(out)


def test_bouncing_projectile_restitution_gradient(backend):
    @tf.kernel_program
    def bounce(v0: tf.Arg([-1], tf.float32), e: tf.Arg([1], tf.float32)):
        y = v0 * 0.0 + 0.5
        vy = v0 * 1.0
        for _ in range(60):
            vy = vy - G * STEP
            y = y + vy * STEP
            if y < 0.0:
                y = -y * e[0]
                vy = -vy * e[0]
        loss = tf.sum(y)
        return loss, y, tf.grad(loss, e)

    v0 = np.array([2.5, 3.0, 4.0, 5.5, 8.5, 12.0], np.float32)  # 6, 4, 4, 2, 1 and 1 bounces
    e = np.array([0.8], np.float32)
    log = []
    heights = bounce_reference(f64(v0), 0.8, log)
    assert min(log) > 1e-3  # no bounce within 1e-3 of a step boundary: the differences see no event
    want = central(lambda ee: bounce_reference(f64(v0), ee[0], []), e)
    loss, y, grad = bounce(v0, e)
    np.testing.assert_allclose(y.numpy, heights, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(loss.numpy, [heights.sum()], rtol=1e-3)
    np.testing.assert_allclose(grad.numpy, want, rtol=RTOL)


def test_bouncing_projectile_restitution_gradient_traced(backend):
    """The same projectile in the tracing style: tf.loop and tf.if_cond with .val updates."""
    def bounce():
        v0 = tf.input([-1], tf.float32)
        e = tf.input([1], tf.float32)
        y = v0 * 0.0 + 0.5
        vy = v0 * 1.0
        with tf.loop(60):
            vy.val = vy - G * STEP
            y.val = y + vy * STEP
            with tf.if_cond(y < 0.0):
                y.val = -y * e[0]
                vy.val = -vy * e[0]
        loss = tf.sum(y)
        return [loss, tf.grad(loss, e)]

    v0 = np.array([2.5, 3.0, 4.0, 5.5, 8.5, 12.0], np.float32)
    e = np.array([0.8], np.float32)
    heights = bounce_reference(f64(v0), 0.8, [])  # (the native test checks that no bounce is near a step)
    loss, grad = tf.compile(bounce)(v0, e)
    np.testing.assert_allclose(loss.numpy, [heights.sum()], rtol=1e-3)
    np.testing.assert_allclose(grad.numpy, central(lambda ee: bounce_reference(f64(v0), ee[0], []), e), rtol=RTOL)


# -- 7. a sphere tracer -------------------------------------------------------------------------

H, W, MISS = 12, 16, 8.0


def sphere_rays():
    py, px = np.indices((H, W)).astype(np.float64)
    u = (px + 0.5) / W * 2.0 - 1.0
    v = (1.0 - (py + 0.5) / H * 2.0) * (H / W)
    norm = np.sqrt(u * u + v * v + 1.5 * 1.5)
    return u / norm, v / norm, 1.5 / norm


def sphere_reference(r, log=None):
    """The image (t at the hit, MISS elsewhere) and each pixel's number of march steps."""
    dx, dy, dz = sphere_rays()
    t = np.zeros((H, W))
    hit = np.zeros((H, W), bool)
    alive = np.ones((H, W), bool)
    steps = np.zeros((H, W), int)
    for _ in range(64):
        d = np.sqrt((dx * t) ** 2 + (dy * t) ** 2 + (-3.0 + dz * t) ** 2) - r
        if log is not None:
            log.append(np.abs(d - 1e-4)[alive])
        stop = alive & (d < 1e-4)
        hit |= stop
        alive &= ~stop
        t = np.where(alive, t + d, t)
        steps += alive
    return np.where(hit, t, MISS), steps


def test_sphere_tracer_radius_gradient(backend):
    @tf.kernel_program
    def render(r: tf.Arg([1], tf.float32)):
        py, px = tf.indices([H, W])
        u = (tf.float(px) + 0.5) / W * 2.0 - 1.0
        v = (1.0 - (tf.float(py) + 0.5) / H * 2.0) * (H / W)
        norm = tf.sqrt(u * u + v * v + 1.5 * 1.5)
        dx, dy, dz = u / norm, v / norm, 1.5 / norm
        t = 0.0
        hit = 0.0
        for _ in range(64):
            x, y, z = dx * t, dy * t, -3.0 + dz * t
            d = tf.sqrt(x * x + y * y + z * z) - r[0]
            if d < 1e-4:
                hit = 1.0
                break
            t = t + d
        image = tf.select(hit > 0.5, t, MISS)
        loss = tf.sum(tf.sum(image))
        return image, tf.grad(loss, r)

    r = np.array([1.0], np.float32)
    log = []
    image, steps = sphere_reference(1.0, log)
    # every pixel's hit/miss status and number of march steps is the same at r - h, r and r + h
    # (a step more or less moves t by up to 1e-4, which the differences would see), and no
    # break decision is within float32 rounding of the threshold
    for shifted in (1.0 - 1e-5, 1.0 + 1e-5):
        np.testing.assert_array_equal(sphere_reference(shifted)[1], steps)
    assert min(np.min(a) for a in log if a.size) > 1e-5
    hits = image != MISS
    assert 40 < hits.sum() < H * W - 40  # both hits and misses in the picture
    want = central(lambda rr: sphere_reference(rr[0])[0], r)
    got_image, grad = render(r)
    np.testing.assert_allclose(got_image.numpy, image, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(grad.numpy, want, rtol=RTOL)


def test_sphere_tracer_radius_gradient_traced(backend):
    """The same sphere tracer in the tracing style: tf.loop, tf.if_cond, tf.break_loop."""
    def render():
        r = tf.input([1], tf.float32)
        py, px = tf.indices([H, W])
        u = (tf.float(px) + 0.5) / W * 2.0 - 1.0
        v = (1.0 - (tf.float(py) + 0.5) / H * 2.0) * (H / W)
        norm = tf.sqrt(u * u + v * v + 1.5 * 1.5)
        dx, dy, dz = u / norm, v / norm, 1.5 / norm
        t = tf.zeros([H, W], tf.float32)
        hit = tf.zeros([H, W], tf.float32)
        with tf.loop(64):
            x, y, z = dx * t, dy * t, -3.0 + dz * t
            d = tf.sqrt(x * x + y * y + z * z) - r[0]
            with tf.if_cond(d < 1e-4):
                hit.val = 1.0
                tf.break_loop()
            t.val = t + d
        image = tf.select(hit > 0.5, t, MISS)
        return [image, tf.grad(tf.sum(tf.sum(image)), r)]

    r = np.array([1.0], np.float32)
    image, _ = sphere_reference(1.0)  # (the native test checks that no decision is near a flip)
    got_image, grad = tf.compile(render)(r)
    np.testing.assert_allclose(got_image.numpy, image, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(grad.numpy, central(lambda rr: sphere_reference(rr[0])[0], r), rtol=RTOL)


# -- 8. gradient descent with a backtracking line search ---------------------------------------


def search_reference(c, log):
    out = []
    for cc in c:
        x = 0.0
        for _ in range(4):
            g = 2.0 * (x - cc) + 0.4 * x ** 3
            fx = (x - cc) ** 2 + 0.1 * x ** 4
            s = 2.0
            for _ in range(6):
                s = s * 0.5
                xn = x - s * g
                fn = (xn - cc) ** 2 + 0.1 * xn ** 4
                bound = fx - 1e-4 * s * g * g
                log.append(abs(fn - bound))
                if fn > bound:
                    continue
                x = xn
                break
        out.append(x)
    return np.array(out)


def test_backtracking_line_search_with_continue(backend):
    @tf.kernel_program
    def search(c: tf.Arg([-1], tf.float32)):
        x = c * 0.0
        for _ in range(4):
            g = 2.0 * (x - c) + 0.4 * x * x * x
            fx = (x - c) * (x - c) + 0.1 * x * x * x * x
            s = 2.0
            for _ in range(6):
                s = s * 0.5
                xn = x - s * g
                fn = (xn - c) * (xn - c) + 0.1 * xn * xn * xn * xn
                if fn > fx - 1e-4 * s * g * g:
                    continue
                x = xn
                break
        return x, tf.grad(tf.sum(x), c)

    c = np.array([1.25, 1.5, 2.75, 3.0, 3.5, 4.0, -3.0], np.float32)
    log = []
    want_x = search_reference(f64(c), log)
    assert min(log) > 1e-3  # no Armijo test is within rounding or the difference step of its bound
    want = central(lambda cc: search_reference(cc, []), c)
    x, grad = search(c)
    np.testing.assert_allclose(x.numpy, want_x, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grad.numpy, want, rtol=RTOL, atol=1e-5)


# -- an n-body simulation: each step's force loop reads the positions the step then updates ------


NBODY_STEPS, NBODY_DT = 30, 0.01


def nbody_reference(p, v):
    for _ in range(NBODY_STEPS):
        d = p[None, :, :] - p[:, None, :]
        r2 = np.sum(d * d, axis=-1) + 0.01
        force = np.sum(d / (r2 * np.sqrt(r2))[..., None], axis=1)
        v = v + force * NBODY_DT
        p = p + v * NBODY_DT
    return np.sum(p * p)


def test_nbody_gradient_through_the_force_loop(backend):
    """The inner loop over bodies reads the positions as memory (pos[j, 0]); the step
    updates them after it, so the backward pass must replay it on the positions it read."""
    def nbody():
        pos0 = tf.input([-1, 3], tf.float32)
        vel0 = tf.input(pos0.shape, tf.float32)
        n = pos0.shape[0]
        pos, vel = pos0 * 1.0, vel0 * 1.0
        i, = tf.indices([n])
        with tf.loop(NBODY_STEPS):
            fx, fy, fz = tf.zeros([n]), tf.zeros([n]), tf.zeros([n])
            with tf.loop(n) as j:
                dx, dy, dz = pos[j, 0] - pos[i, 0], pos[j, 1] - pos[i, 1], pos[j, 2] - pos[i, 2]
                r2 = dx * dx + dy * dy + dz * dz + 0.01
                inv = 1.0 / (r2 * tf.sqrt(r2))
                fx.val, fy.val, fz.val = fx + dx * inv, fy + dy * inv, fz + dz * inv
            k, d = tf.indices(vel.shape)
            vel.val = vel + tf.select(d == 0, fx[k], tf.select(d == 1, fy[k], fz[k])) * NBODY_DT
            pos.val = pos + vel * NBODY_DT
        loss = tf.sum(tf.sum(pos * pos))
        return [loss, tf.grad(loss, vel0)]
    rng = np.random.default_rng(0)
    p0 = rng.normal(size=(12, 3)).astype(np.float32)
    v0 = (rng.normal(size=(12, 3)) * 0.1).astype(np.float32)
    loss, grad = tf.compile(nbody)(p0, v0)
    np.testing.assert_allclose(loss.numpy.reshape(()), nbody_reference(f64(p0), f64(v0)), rtol=1e-4)
    want = np.zeros((12, 3))
    for index in np.ndindex(12, 3):
        def shifted(h, index=index):
            v = f64(v0).copy()
            v[index] += h
            return nbody_reference(f64(p0), v)
        want[index] = (shifted(1e-6) - shifted(-1e-6)) / 2e-6
    np.testing.assert_allclose(grad.numpy, want, rtol=RTOL, atol=2e-4)
