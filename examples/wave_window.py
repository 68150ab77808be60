"""A wave you poke with the mouse: click or drag in the window to push the surface; ImGui
shows the frame rate and sets the damping. Keys: R resets, Escape quits.

    python examples/wave_window.py                      # a window (a display, or xvfb-run -a)
    python examples/wave_window.py --frames 60 --out frames --backend opengl   # headless run

With ``--out DIR`` each frame is written as DIR/frame_NNNN.png; with ``--frames N`` the run
stops after N frames, and the pokes are scripted (a drop every 15 frames).
"""

import argparse
import os
import time

import numpy as np

import tensorfrost as tf


def wave_step():
    u = tf.input([-1, -1], tf.float32)
    v = tf.input(u.shape, tf.float32)
    poke = tf.input([5], tf.float32)  # row, column, radius, strength, damping
    h, w = u.shape
    i, j = u.indices
    laplacian = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - u * 4.0
    dy, dx = tf.float(i) - poke[0], tf.float(j) - poke[1]
    push = poke[3] * tf.exp(-(dy * dy + dx * dx) / (poke[2] * poke[2]))
    v_new = (v + 0.25 * laplacian) * poke[4]
    u_new = u + 0.5 * v_new + push
    y, x, c = tf.indices([h, w, 3])
    height = tf.clamp(u_new[y, x] * 0.5 + 0.5, 0.0, 1.0)
    image = tf.select(c == 0, height * height, tf.select(c == 1, height, 0.4 + 0.6 * height))
    return [u_new, v_new, image]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=256, help="grid cells per side")
    parser.add_argument("--frames", type=int, default=0, help="stop after this many frames (0: until closed)")
    parser.add_argument("--out", default="", help="write each frame as a PNG into this directory")
    parser.add_argument("--backend", default="cpu", choices=["cpu", "opengl"])
    args = parser.parse_args()

    tf.initialize(getattr(tf, args.backend))
    step = tf.compile(wave_step)
    n = args.size
    u, v = tf.tensor(np.zeros((n, n), np.float32)), tf.tensor(np.zeros((n, n), np.float32))
    tf.show_window(512, 512, "tensorfrost: poke the wave")
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        tf.window.read_frame()  # start recording frames
    damping, frame, busy = 0.995, 0, 0.0
    while not tf.window_should_close() and (args.frames == 0 or frame < args.frames):
        if tf.is_key_pressed(tf.KEY_ESCAPE):
            break
        width, height = tf.get_window_size()
        mx, my = tf.get_mouse_position()
        row, col = (1.0 - my / height) * n, mx / width * n  # the image's row 0 is the window's bottom
        strength = 0.05 if tf.is_mouse_button_pressed(tf.MOUSE_BUTTON_0) else 0.0
        if args.frames and frame % 15 == 0:  # scripted drops for headless runs
            row, col, strength = n * (0.3 + 0.4 * ((frame * 7) % 11) / 10), n * (0.3 + 0.4 * ((frame * 3) % 7) / 6), 1.0
        if tf.is_key_pressed(tf.KEY_R):
            u, v = tf.tensor(np.zeros((n, n), np.float32)), tf.tensor(np.zeros((n, n), np.float32))
        start = time.perf_counter()
        u, v, image = step(u, v, np.array([row, col, n / 40, strength, damping], np.float32))
        busy = 0.9 * busy + 0.1 * (time.perf_counter() - start)

        tf.imgui_begin("wave")
        tf.imgui_text(f"{tf.window.fps():.0f} frames/s, step {busy * 1e3:.2f} ms")
        damping = tf.imgui_slider("damping", damping, 0.95, 1.0)
        if tf.imgui_button("reset"):
            u, v = tf.tensor(np.zeros((n, n), np.float32)), tf.tensor(np.zeros((n, n), np.float32))
        tf.imgui_end()
        tf.render_frame(image)
        if args.out:
            tf.window.save_frame(os.path.join(args.out, f"frame_{frame:04d}.png"))
        frame += 1
    print(f"wave {n}x{n} on {args.backend}: {frame} frames, {tf.window.fps() if frame > 1 else 0:.0f} frames/s "
          f"at the end, the step {busy * 1e3:.2f} ms of each")
    tf.hide_window()


if __name__ == "__main__":
    main()
