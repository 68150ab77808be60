"""2D stable fluids (semi-Lagrangian advection, Jacobi pressure projection): drag with the
left button to stir dye into the fluid; the ImGui sliders set the pressure iterations and
how fast the dye fades.

    python examples/fluid_window.py                     # a window (a display, or xvfb-run -a)
    python examples/fluid_window.py --frames 60 --out frames --backend opengl   # headless

With ``--frames N`` the run stops after N frames and a scripted stirrer circles the middle;
with ``--out DIR`` each frame is written as DIR/frame_NNNN.png.
"""

import argparse
import math
import os

import numpy as np

import tensorfrost as tf


def _sample(field, y, x):
    """``field`` at fractional (row, column), bilinear; reads outside are clamped to the edge."""
    y0, x0 = tf.floor(y), tf.floor(x)
    fy, fx = y - y0, x - x0
    i0, j0 = tf.int(y0), tf.int(x0)
    top = field[i0, j0] * (1.0 - fx) + field[i0, j0 + 1] * fx
    bottom = field[i0 + 1, j0] * (1.0 - fx) + field[i0 + 1, j0 + 1] * fx
    return top * (1.0 - fy) + bottom * fy


def fluid_step():
    vx = tf.input([-1, -1], tf.float32)
    vy = tf.input(vx.shape, tf.float32)
    dye = tf.input(vx.shape, tf.float32)
    params = tf.input([8], tf.float32)  # row, column, push along rows, push along columns, radius, fade, iterations
    h, w = vx.shape
    i, j = vx.indices
    dy, dx = tf.float(i) - params[0], tf.float(j) - params[1]
    stir = tf.exp(-(dy * dy + dx * dx) / (params[4] * params[4]))
    vx1, vy1 = vx + stir * params[3], vy + stir * params[2]
    dye1 = dye + stir * tf.min(tf.abs(params[2]) + tf.abs(params[3]), 1.0)

    back_y, back_x = tf.float(i) - vy1, tf.float(j) - vx1  # where this cell's fluid came from
    vx2, vy2 = _sample(vx1, back_y, back_x), _sample(vy1, back_y, back_x)
    dye2 = _sample(dye1, back_y, back_x) * params[5]

    divergence = 0.5 * (vx2[i, j + 1] - vx2[i, j - 1] + vy2[i + 1, j] - vy2[i - 1, j])
    pressure = tf.zeros([h, w])
    with tf.loop(tf.int(params[6])):
        pressure.val = (pressure[i - 1, j] + pressure[i + 1, j] + pressure[i, j - 1] + pressure[i, j + 1]
                        - divergence) * 0.25
    vx3 = vx2 - 0.5 * (pressure[i, j + 1] - pressure[i, j - 1])
    vy3 = vy2 - 0.5 * (pressure[i + 1, j] - pressure[i - 1, j])

    y, x, c = tf.indices([h, w, 3])
    amount = tf.clamp(dye2[y, x], 0.0, 1.0)
    image = amount * tf.select(c == 0, 0.95, tf.select(c == 1, 0.55, 0.25)) + (1.0 - amount) * 0.05
    return [vx3, vy3, dye2, image]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=192, help="grid cells per side")
    parser.add_argument("--frames", type=int, default=0, help="stop after this many frames (0: until closed)")
    parser.add_argument("--out", default="", help="write each frame as a PNG into this directory")
    parser.add_argument("--backend", default="cpu", choices=["cpu", "opengl"])
    args = parser.parse_args()

    tf.initialize(getattr(tf, args.backend))
    step = tf.compile(fluid_step)
    n = args.size
    fields = [tf.tensor(np.zeros((n, n), np.float32)) for _ in range(3)]
    tf.show_window(512, 512, "tensorfrost: stir the fluid")
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        tf.window.read_frame()  # start recording frames
    iterations, fade, last, frame = 30, 0.995, None, 0
    while not tf.window_should_close() and (args.frames == 0 or frame < args.frames):
        width, height = tf.get_window_size()
        mx, my = tf.get_mouse_position()
        cell = np.array([(1.0 - my / height) * n, mx / width * n])  # the image's row 0 is the window's bottom
        push = np.zeros(2)
        if tf.is_mouse_button_pressed(tf.MOUSE_BUTTON_0):
            push = (cell - last) * 0.5 if last is not None else push
            last = cell
        else:
            last = None
        if args.frames:  # a stirrer circling the middle
            t = frame * 0.15
            cell = n * (0.5 + 0.25 * np.array([math.sin(t), math.cos(t)]))
            push = 1.5 * np.array([math.cos(t), -math.sin(t)])
        params = np.array([cell[0], cell[1], push[0], push[1], n / 30, fade, iterations, 0], np.float32)
        *fields, image = step(*fields, params)
        tf.imgui_begin("fluid")
        tf.imgui_text(f"{n}x{n} cells, {tf.window.fps():.0f} frames/s")
        iterations = tf.imgui_slider("pressure iterations", iterations, 1, 100)
        fade = tf.imgui_slider("dye kept per step", fade, 0.9, 1.0)
        if tf.imgui_button("clear"):
            fields = [tf.tensor(np.zeros((n, n), np.float32)) for _ in range(3)]
        tf.imgui_end()
        tf.render_frame(image)
        if args.out:
            tf.window.save_frame(os.path.join(args.out, f"frame_{frame:04d}.png"))
        frame += 1
    print(f"fluid {n}x{n} on {args.backend}: {frame} frames, {tf.window.fps() if frame > 1 else 0:.0f} frames/s "
          "at the end")
    tf.hide_window()


if __name__ == "__main__":
    main()
