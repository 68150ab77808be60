"""N-body: a few thousand stars under gravity, splatted into the image with atomic adds.
Drag with the left button to turn the view; the ImGui sliders set the time step and the
exposure.

    python examples/nbody_window.py                     # a window (a display, or xvfb-run -a)
    python examples/nbody_window.py --frames 60 --out frames --backend opengl   # headless

With ``--frames N`` the run stops after N frames and the view turns by itself; with
``--out DIR`` each frame is written as DIR/frame_NNNN.png.
"""

import argparse
import os

import numpy as np

import tensorfrost as tf


def nbody_step():
    pos = tf.input([-1, 3], tf.float32)
    vel = tf.input(pos.shape, tf.float32)
    canvas = tf.input([-1, -1, 3], tf.float32)  # only its shape: the image's size
    params = tf.input([4], tf.float32)  # time step, softening, view angle, exposure
    n = pos.shape[0]
    i, = tf.indices([n])
    fx, fy, fz = tf.zeros([n]), tf.zeros([n]), tf.zeros([n])
    with tf.loop(n) as j:  # every star pulls every other one
        dx, dy, dz = pos[j, 0] - pos[i, 0], pos[j, 1] - pos[i, 1], pos[j, 2] - pos[i, 2]
        r2 = dx * dx + dy * dy + dz * dz + params[1]
        inv = 1.0 / (r2 * tf.sqrt(r2))
        fx.val, fy.val, fz.val = fx + dx * inv, fy + dy * inv, fz + dz * inv
    k, d = tf.indices(vel.shape)
    force = tf.select(d == 0, fx[k], tf.select(d == 1, fy[k], fz[k]))
    vel_new = vel + force * (params[0] / tf.float(n))
    pos_new = pos + vel_new * params[0]

    height, width = canvas.shape[0], canvas.shape[1]
    image = tf.zeros([height, width, 3])
    s, c = tf.indices([n, 3])
    angle = params[2]
    x = pos_new[s, 0] * tf.cos(angle) + pos_new[s, 2] * tf.sin(angle)  # turned about the vertical axis
    z = pos_new[s, 2] * tf.cos(angle) - pos_new[s, 0] * tf.sin(angle)
    y = pos_new[s, 1] * 0.8 + z * 0.6  # and seen from above the disk
    px = tf.int((x * 0.3 + 0.5) * tf.float(width))
    py = tf.int((y * 0.3 + 0.5) * tf.float(height))
    inside = (px >= 0) & (px < width) & (py >= 0) & (py < height)
    tint = tf.select(c == 0, 1.0, tf.select(c == 1, 0.8, 0.6))
    with tf.if_cond(inside):
        tf.scatterAdd(image[py, px, c], tint)
    shown = 1.0 - tf.exp(-image * params[3])
    return [pos_new, vel_new, shown]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stars", type=int, default=2048)
    parser.add_argument("--frames", type=int, default=0, help="stop after this many frames (0: until closed)")
    parser.add_argument("--out", default="", help="write each frame as a PNG into this directory")
    parser.add_argument("--backend", default="cpu", choices=["cpu", "opengl"])
    args = parser.parse_args()

    tf.initialize(getattr(tf, args.backend))
    step = tf.compile(nbody_step)
    rng = np.random.default_rng(0)
    radius = rng.uniform(0.2, 1.0, args.stars) ** 0.5
    theta = rng.uniform(0, 2 * np.pi, args.stars)
    pos = np.stack([radius * np.cos(theta), rng.normal(0, 0.05, args.stars), radius * np.sin(theta)], 1)
    vel = np.stack([-np.sin(theta), np.zeros(args.stars), np.cos(theta)], 1) * (0.9 / np.sqrt(radius))[:, None]
    pos, vel = tf.tensor(pos.astype(np.float32)), tf.tensor(vel.astype(np.float32))
    canvas = tf.tensor(np.zeros((256, 256, 3), np.float32))
    tf.show_window(512, 512, "tensorfrost: n-body")
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        tf.window.read_frame()  # start recording frames
    dt, exposure, angle, last_x, frame = 0.004, 0.6, 0.4, None, 0
    while not tf.window_should_close() and (args.frames == 0 or frame < args.frames):
        mx, _ = tf.get_mouse_position()
        if tf.is_mouse_button_pressed(tf.MOUSE_BUTTON_0):
            angle += 0.01 * (mx - last_x) if last_x is not None else 0.0
            last_x = mx
        else:
            last_x = None
        if args.frames:
            angle += 0.02
        pos, vel, image = step(pos, vel, canvas, np.array([dt, 0.01, angle, exposure], np.float32))
        tf.imgui_begin("n-body")
        tf.imgui_text(f"{args.stars} stars, {tf.window.fps():.0f} frames/s")
        dt = tf.imgui_slider("time step", dt, 0.0, 0.02)
        exposure = tf.imgui_slider("exposure", exposure, 0.05, 4.0)
        tf.imgui_end()
        tf.render_frame(image)
        if args.out:
            tf.window.save_frame(os.path.join(args.out, f"frame_{frame:04d}.png"))
        frame += 1
    print(f"n-body, {args.stars} stars on {args.backend}: {frame} frames, "
          f"{tf.window.fps() if frame > 1 else 0:.0f} frames/s at the end")
    tf.hide_window()


if __name__ == "__main__":
    main()
