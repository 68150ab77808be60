"""A Mandelbrot explorer: drag with the left button to pan, hold E / Q to zoom in / out, set
the iterations with the ImGui slider.

    python examples/mandelbrot_window.py                  # a window (a display, or xvfb-run -a)
    python examples/mandelbrot_window.py --frames 60 --out frames   # headless: a scripted zoom

With ``--frames N`` the run stops after N frames and zooms towards a point of the boundary
by itself; with ``--out DIR`` each frame is written as DIR/frame_NNNN.png.
"""

import argparse
import os

import numpy as np

import tensorfrost as tf


@tf.kernel_program
def mandelbrot(view: tf.Arg([4], tf.float32), size: tf.Arg([2], tf.int32), iterations: tf.Arg([1], tf.int32)):
    """view: centre x, centre y, half-height, aspect; the image's row 0 is its bottom."""
    y, x, c = tf.indices([size[1], size[0], 3])
    cx = view[0] + (tf.float(x) / tf.float(size[0]) * 2.0 - 1.0) * view[2] * view[3]
    cy = view[1] + (tf.float(y) / tf.float(size[1]) * 2.0 - 1.0) * view[2]
    zx, zy, n = 0.0, 0.0, 0
    while n < iterations[0] and zx * zx + zy * zy < 16.0:
        zx, zy = zx * zx - zy * zy + cx, 2.0 * zx * zy + cy
        n += 1
    t = tf.float(n) / tf.float(iterations[0])
    return tf.select(n == iterations[0], 0.0, 0.5 + 0.5 * tf.cos(6.2832 * (t * 3.0 + tf.float(c) * 0.33 + 0.6)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=0, help="stop after this many frames (0: until closed)")
    parser.add_argument("--out", default="", help="write each frame as a PNG into this directory")
    parser.add_argument("--backend", default="cpu", choices=["cpu", "opengl"])
    args = parser.parse_args()

    tf.initialize(getattr(tf, args.backend))
    tf.show_window(640, 480, "tensorfrost: Mandelbrot")
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        tf.window.read_frame()  # start recording frames
    centre, half_height, iterations = np.array([-0.5, 0.0]), 1.2, 128
    target = np.array([-0.7453, 0.1127])  # a point of the boundary, for the scripted zoom
    dragging, frame = None, 0
    while not tf.window_should_close() and (args.frames == 0 or frame < args.frames):
        width, height = tf.get_window_size()
        mouse = np.array(tf.get_mouse_position())
        if tf.is_mouse_button_pressed(tf.MOUSE_BUTTON_0):
            if dragging is not None:  # the point under the cursor stays under it
                centre += (dragging - mouse) * np.array([1.0, -1.0]) * 2.0 * half_height / height
            dragging = mouse
        else:
            dragging = None
        if tf.is_key_pressed(tf.KEY_E) or args.frames:
            half_height *= 0.96
        if tf.is_key_pressed(tf.KEY_Q):
            half_height /= 0.96
        if args.frames:
            centre += (target - centre) * 0.1
        view = np.array([centre[0], centre[1], half_height, width / height], np.float32)
        image = mandelbrot(view, np.array([width // 2, height // 2], np.int32), np.array([iterations], np.int32))
        tf.imgui_begin("view")
        tf.imgui_text(f"centre {centre[0]:.6f} {centre[1]:+.6f}, zoom {1.2 / half_height:.1f}x")
        tf.imgui_text(f"{tf.window.fps():.0f} frames/s")
        iterations = tf.imgui_slider("iterations", iterations, 16, 1024)
        tf.imgui_end()
        tf.render_frame(image)
        if args.out:
            tf.window.save_frame(os.path.join(args.out, f"frame_{frame:04d}.png"))
        frame += 1
    print(f"mandelbrot on {args.backend}: {frame} frames, zoom {1.2 / half_height:.1f}x, "
          f"{tf.window.fps() if frame > 1 else 0:.0f} frames/s at the end")
    tf.hide_window()


if __name__ == "__main__":
    main()
