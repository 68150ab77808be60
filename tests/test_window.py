"""The window (tf.show_window, tf.render_frame, input) under a private Xvfb display: an image
of known pixels read back from the framebuffer, on both backends; size and resize; mouse and
keyboard events sent through the X server (xdotool) reach the input queries; the close
request; clear errors."""

import doctest
import shutil
import subprocess

import numpy as np
import pytest

import tensorfrost as tf


@pytest.fixture
def window(x_display):
    tf.show_window(64, 48, "tensorfrost test")
    yield tf.window
    tf.hide_window()


def _stretched(image: np.ndarray, width: int, height: int) -> np.ndarray:
    """Nearest-neighbour stretch of ``image`` to width x height pixels (pixel centres), in
    uint8 as the framebuffer holds it."""
    rows = ((np.arange(height) + 0.5) * image.shape[0] / height).astype(int)
    cols = ((np.arange(width) + 0.5) * image.shape[1] / width).astype(int)
    return np.round(image[rows][:, cols] * 255).astype(np.uint8)


def _pattern(rows: int, cols: int) -> np.ndarray:
    """Distinct colours that 8-bit channels hold exactly (multiples of 1/255)."""
    return (np.arange(rows * cols * 3).reshape(rows, cols, 3) * 37 % 256 / 255.0).astype(np.float32)


def test_a_rendered_tensor_is_what_the_framebuffer_holds(backend, window):
    def gradient_image():  # a [3, 4, 3] image computed on the device
        base = tf.input([3, 4, 3], tf.float32)
        return base * 1.0
    image = _pattern(3, 4)
    tf.render_frame(tf.compile(gradient_image)(image))
    np.testing.assert_array_equal(window.read_frame(), _stretched(image, 64, 48))
    tf.render_frame(image[::-1].copy())  # a numpy array works too; row 0 is the bottom row
    frame = window.read_frame()
    np.testing.assert_array_equal(frame, _stretched(image[::-1], 64, 48))
    assert (frame[0, 0] == np.round(image[2, 0] * 255)).all()


def test_size_and_resize(window):
    assert tf.get_window_size() == (64, 48)
    tf.show_window(80, 60, "resized")  # the open window takes the new size
    for _ in range(20):  # the X server applies it asynchronously
        tf.render_frame(_pattern(2, 2))
        if tf.get_window_size() == (80, 60):
            break
    assert tf.get_window_size() == (80, 60)
    np.testing.assert_array_equal(window.read_frame(), _stretched(_pattern(2, 2), 80, 60))


def _xdotool(*args):
    tool = shutil.which("xdotool")
    if tool is None:
        pytest.skip("xdotool is not installed (apt-get install xdotool) to send X input events")
    subprocess.run([tool, *args], check=True, timeout=10)


def _until(condition, frames=50) -> bool:
    for _ in range(frames):
        tf.render_frame()
        if condition():
            return True
    return False


def test_mouse_and_keys_reach_the_queries(window):
    tf.render_frame(_pattern(2, 2))
    handle = window._display.window.handle
    window._display.glfw.set_window_pos(handle, 0, 0)
    _xdotool("mousemove", "--sync", "20", "30")
    assert _until(lambda: tuple(round(v) for v in tf.get_mouse_position()) == (20, 30)), tf.get_mouse_position()
    assert not tf.is_mouse_button_pressed(tf.MOUSE_BUTTON_0)
    _xdotool("mousedown", "1")
    assert _until(lambda: tf.is_mouse_button_pressed(tf.MOUSE_BUTTON_0))
    _xdotool("mouseup", "1")
    assert _until(lambda: not tf.is_mouse_button_pressed(tf.MOUSE_BUTTON_0))
    window._display.glfw.focus_window(handle)
    _xdotool("keydown", "w")
    assert _until(lambda: tf.is_key_pressed(tf.KEY_W))
    assert not tf.is_key_pressed(tf.KEY_S)
    _xdotool("keyup", "w")
    assert _until(lambda: not tf.is_key_pressed(tf.KEY_W))


def test_close_request_ends_the_loop(window):
    assert not tf.window_should_close()
    window._display.glfw.set_window_should_close(window._display.window.handle, True)  # the close button
    assert tf.window_should_close()
    assert tf.window_should_close()  # and stays closed
    with pytest.raises(tf.TensorFrostError, match="no window is open: call tf.show_window"):
        tf.render_frame(_pattern(2, 2))


def test_bad_images_and_sizes_are_named(window):
    with pytest.raises(tf.ArgumentError, match=r"shape \[height, width, 3\], got \[4, 4\]"):
        tf.render_frame(np.zeros((4, 4), np.float32))
    with pytest.raises(tf.ArgumentError, match="must be float32, got float64"):
        tf.render_frame(np.zeros((4, 4, 3)))
    with pytest.raises(tf.ArgumentError, match="got a list"):
        tf.render_frame([[0.0, 0.0, 0.0]])
    with pytest.raises(tf.ArgumentError, match="width must be a whole number of pixels"):
        tf.show_window(0, 10, "x")
    tf.render_frame(_pattern(2, 2))  # still usable
    assert tf.window.fps() >= 0.0


def test_imgui_widgets_take_clicks_and_show_in_the_frame(window):
    tf.show_window(320, 240, "widgets")
    handle = window._display.window.handle
    window._display.glfw.set_window_pos(handle, 0, 0)
    gui = tf.imgui._imgui()
    state = {"speed": 2.0, "count": 3, "clicks": 0, "on": False}

    def frame():
        tf.imgui_begin("controls")
        tf.imgui_text("a label")
        width = gui.calc_item_width()  # of the slider's frame (its label follows it)
        state["speed"] = tf.imgui_slider("speed", state["speed"], 0.0, 10.0)
        low, high = gui.get_item_rect_min(), gui.get_item_rect_max()
        state["slider"] = (low, gui.ImVec2(low.x + width, high.y))
        state["count"] = tf.imgui_slider("count", state["count"], 0, 10)
        state["on"] = tf.imgui_checkbox("on", state["on"])
        state["clicks"] += tf.imgui_button("reset")
        state["button"] = (gui.get_item_rect_min(), gui.get_item_rect_max())
        tf.imgui_plotlines("history", np.sin(np.arange(32, dtype=np.float32)))
        tf.imgui_end()
        tf.render_frame(np.zeros((4, 4, 3), np.float32))

    def click(rect, fraction=0.5):
        low, high = rect
        x, y = int(low.x + (high.x - low.x) * fraction), int((low.y + high.y) / 2)
        _xdotool("mousemove", "--sync", str(x), str(y))
        for _ in range(3):
            frame()
        assert not tf.is_mouse_button_pressed(tf.MOUSE_BUTTON_0)  # over a widget: ImGui's, not the program's
        _xdotool("mousedown", "1")
        for _ in range(3):
            frame()
        _xdotool("mouseup", "1")
        for _ in range(3):
            frame()

    assert _until(lambda: tf.get_window_size() == (320, 240) and window._display.glfw.get_window_pos(handle) == (0, 0))
    for _ in range(3):
        frame()
    assert isinstance(state["count"], int) and isinstance(state["speed"], float)
    click(state["button"])
    assert state["clicks"] == 1 and state["speed"] == 2.0
    click(state["slider"], fraction=0.9)  # a click sets the slider where it lands
    assert 7.0 < state["speed"] <= 10.0
    tf.window.read_frame()
    frame()
    pixels = tf.window.read_frame()
    low, high = state["button"]
    button = pixels[240 - int(high.y):240 - int(low.y), int(low.x):int(high.x)]  # rows count from the bottom
    assert button.max() > 0 and pixels[-20:, :20].max() == 0  # the widget drawn; the image at the top left


def _panel_frames(gui, image, frames, lines=("saved text",)) -> dict:
    """``frames`` frames of ``image`` under a panel of text lines and a button; the panel's
    rectangle (pixels from the window's top left) as ImGui measured it in the last frame, and
    ``content``, the bottom-right corner of its widgets as laid out (unclipped)."""
    panel = {}
    for _ in range(frames):
        tf.imgui_begin("panel")
        items = []
        for line in lines:
            tf.imgui_text(line)
            items.append(gui.get_item_rect_max())
        tf.imgui_button("a button")
        items.append(gui.get_item_rect_max())
        low, size = gui.get_window_pos(), gui.get_window_size()
        panel.update(x=int(low.x), y=int(low.y), width=int(size.x), height=int(size.y), title=gui.get_frame_height(),
                     content=(max(item.x for item in items), max(item.y for item in items)))
        tf.imgui_end()
        tf.render_frame(image)
    return panel


def test_one_save_frame_at_the_end_keeps_the_imgui_panel(window, tmp_path):
    """The first save_frame of a program (recording not started) draws the frame last shown
    again: its image and the panel drawn in it, the panel's body in ImGui's window colour."""
    image = np.full((4, 4, 3), 0.2, np.float32)  # 51 of 255: exact in 8 bits
    tf.show_window(320, 240, "save")
    tf.render_frame(image)
    tf.window.save_frame(str(tmp_path / "plain.png"))
    tf.hide_window()
    tf.show_window(320, 240, "save")
    gui = tf.imgui._imgui()
    panel = _panel_frames(gui, image, frames=3)
    tf.window.save_frame(str(tmp_path / "panel.png"))
    plain, saved = _read_png(tmp_path / "plain.png"), _read_png(tmp_path / "panel.png")
    assert (plain == 51).all()
    top, bottom, left, right = panel["y"], panel["y"] + panel["height"], panel["x"], panel["x"] + panel["width"]
    outside = np.ones(saved.shape[:2], bool)
    outside[top:bottom, left:right] = False
    np.testing.assert_array_equal(saved[outside], plain[outside])  # the image, where no panel is
    body = saved[top + int(panel["title"]) + 1:bottom - 1, left + 1:right - 1].reshape(-1, 3)
    colours, counts = np.unique(body, axis=0, return_counts=True)
    background = gui.get_style().color_(gui.Col_.window_bg)
    alpha = background.w
    want = [np.round((c * alpha + 0.2 * (1 - alpha)) * 255) for c in (background.x, background.y, background.z)]
    assert np.abs(colours[counts.argmax()].astype(int) - want).max() <= 1, (colours[counts.argmax()], want)
    assert (body.max(axis=1) > 200).any()  # white text (and the button) in it


def test_panels_fit_text_that_grows_after_their_first_frame(window):
    """ImGui sizes a new panel from its first frame's content; a frame rate's text grows
    later. Panels fit their content in every frame, so no line is clipped."""
    tf.show_window(480, 240, "fit")
    gui = tf.imgui._imgui()
    image = np.zeros((4, 4, 3), np.float32)
    _panel_frames(gui, image, frames=2, lines=("0 frames/s",))
    long_lines = ("a line much longer than the first frame's, as a frame rate grows", "and a second one")
    panel = _panel_frames(gui, image, frames=3, lines=long_lines)
    padding = gui.get_style().window_padding
    widest = max(gui.calc_text_size(line).x for line in long_lines)
    assert panel["width"] >= widest + 2 * padding.x, (panel, widest)
    right, bottom = panel["content"]  # every line and the button inside the panel's padding
    assert panel["x"] + panel["width"] >= right + padding.x, panel
    assert panel["y"] + panel["height"] >= bottom + padding.y, panel


def test_widgets_without_a_window_are_an_error():
    tf.hide_window()
    with pytest.raises(tf.TensorFrostError, match="no window is open"):
        tf.imgui_text("x")


def _read_png(path) -> np.ndarray:
    """The pixels of a PNG that save_png wrote (8-bit RGB, filter 0 on every row)."""
    import struct
    import zlib
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, at = {}, 8
    while at < len(data):
        (length,), kind = struct.unpack(">I", data[at:at + 4]), data[at + 4:at + 8]
        chunks[kind] = chunks.get(kind, b"") + data[at + 8:at + 8 + length]
        at += 12 + length
    width, height = struct.unpack(">II", chunks[b"IHDR"][:8])
    rows = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(height, 1 + width * 3)
    assert (rows[:, 0] == 0).all()
    return rows[:, 1:].reshape(height, width, 3)


def test_saved_pngs_follow_the_umask_and_keep_a_replaced_files_mode(tmp_path):
    """A PNG is written beside its path and renamed over it (never half a file), yet gets the
    mode open() would give it (mkstemp's 0600 before): 0666 less the umask for a new file, a
    replaced file's own mode."""
    import os
    import stat

    from tensorfrost.window import save_png
    rgb = (np.arange(2 * 3 * 3).reshape(2, 3, 3) * 11).astype(np.uint8)
    path = tmp_path / "frame.png"
    previous = os.umask(0o027)
    try:
        save_png(str(path), rgb)
    finally:
        os.umask(previous)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    np.testing.assert_array_equal(_read_png(path), rgb)
    os.chmod(path, 0o604)
    save_png(str(path), rgb[::-1].copy())
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o604
    np.testing.assert_array_equal(_read_png(path), rgb[::-1])


EXAMPLES = {"wave_window": ["--size", "128"], "mandelbrot_window": [], "nbody_window": ["--stars", "1024"],
            "fluid_window": ["--size", "96"]}


@pytest.mark.parametrize("device", ["cpu", "opengl"])
@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_the_window_examples_run_headless_and_write_their_frames(x_display, tmp_path, example, device):
    import os
    import sys
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", example + ".py")
    result = subprocess.run([sys.executable, path, "--frames", "60", "--out", str(tmp_path), "--backend", device,
                             *EXAMPLES[example]], capture_output=True, text=True, timeout=300,
                            env=dict(os.environ, DISPLAY=x_display))
    assert result.returncode == 0, result.stderr[-3000:]
    assert "60 frames" in result.stdout
    frames = sorted(p.name for p in tmp_path.iterdir())
    assert frames == [f"frame_{k:04d}.png" for k in range(60)]
    last = _read_png(tmp_path / "frame_0059.png")
    height, width, _ = last.shape
    below_widgets = last[height * 2 // 5:, :, :]  # the picture, not the ImGui window at the top left
    colours, counts = np.unique(below_widgets.reshape(-1, 3), axis=0, return_counts=True)
    assert len(colours) > 3 and counts.max() < 0.995 * counts.sum()  # a picture, not a flat colour


def test_no_display_says_how_to_run_headless():
    import os
    import sys
    script = ("import tensorfrost as tf\ntry:\n    tf.show_window(64, 48, 'x')\nexcept tf.TensorFrostError as e:\n"
              "    print(e)\n")
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
    assert "cannot open a window: no display" in result.stdout and "xvfb-run -a" in result.stdout, result


def test_overlay_background_text_and_colour_pickers(window):
    tf.show_window(320, 240, "overlay")
    black = np.zeros((4, 4, 3), np.float32)
    tf.window.read_frame()  # record
    tf.window.show_fps()
    for _ in range(3):
        tf.imgui.add_background_text("marker", (8, 40), (0.0, 1.0, 0.0, 1.0))  # left of the panel (at x 60)
        tf.imgui_begin("colours")
        rgb = tf.imgui.color_picker3("rgb", [0.25, 0.5, 0.75])
        rgba = tf.imgui.color_picker4("rgba", (0.1, 0.2, 0.3, 0.4))
        tf.imgui_end()
        tf.render_frame(black)
    np.testing.assert_allclose(rgb, [0.25, 0.5, 0.75], atol=1e-6)  # no click: the colour given
    np.testing.assert_allclose(rgba, [0.1, 0.2, 0.3, 0.4], atol=1e-6)
    frame = tf.window.read_frame()[::-1]  # rows from the top, like the window's coordinates
    overlay, marker = frame[6:24, 6:200], frame[38:58, 6:58]
    assert (overlay[..., 0] > 128).any() and (overlay[..., 2] < overlay[..., 0]).any()  # yellowish text
    assert (marker[..., 1] > 128).any() and (marker[..., 0] < 64).all()  # green text only
    with pytest.raises(tf.ArgumentError, match="color must have 3 values, got 2"):
        tf.imgui.color_picker3("bad", [0.0, 1.0])


GPU_RESIDENT = """
import numpy as np, tensorfrost as tf
from tensorfrost.backend_gl import context
tf.initialize(tf.opengl)
assert type(context._compute).__name__ == "_HiddenWindowContext", context._compute
backend = tf.backend.backend_for(tf.opengl)
downloads = []
original = type(backend).download
type(backend).download = lambda self, memory: downloads.append(memory.shape) or original(self, memory)

def scaled():
    image = tf.input([3, 4, 3], tf.float32)
    return image * 0.5

image = (np.arange(36).reshape(3, 4, 3) * 28 % 256 / 255.0).astype(np.float32)  # halves are whole levels
shown = tf.compile(scaled)(image)
tf.show_window(64, 48, "gpu")
tf.render_frame(shown)
frame = tf.window.read_frame()
rows, cols = ((np.arange(48) + 0.5) * 3 / 48).astype(int), ((np.arange(64) + 0.5) * 4 / 64).astype(int)
want = np.round(image[rows][:, cols] * 0.5 * 255)
print("difference", int(np.abs(frame.astype(int) - want).max()), "downloads", len(downloads))
tf.hide_window()
print("after", float(np.abs(tf.compile(scaled)(image).numpy - image * 0.5).max()))
"""


def test_with_a_display_opengl_tensors_are_drawn_from_their_buffers(x_display, tmp_path):
    """Where a display is, the GL compute context is a hidden window; showing it draws a
    tensor straight from its storage buffer: no read-back, same pixels; compute goes on after
    the window closes."""
    import os
    import sys
    result = subprocess.run([sys.executable, "-c", GPU_RESIDENT], capture_output=True, text=True, timeout=120,
                            env=dict(os.environ, DISPLAY=x_display, TENSORFROST_CACHE_DIR=str(tmp_path)))
    assert result.returncode == 0, result.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    assert lines["difference"] == "0 downloads 0", result.stdout  # 8-bit rounding of exact values: exact
    assert float(lines["after"]) == 0.0, result.stdout  # halving is exact in float32


# What window.py calls to run ImGui: not the user's API
IMGUI_PLUMBING = {"Gui", "open_gui", "close_gui"}


def _window_api() -> dict:
    """Every public function and class of tf.window and tf.imgui (the names tf.show_window,
    tf.imgui_begin, ... are these)."""
    found = {}
    for module in (tf.window, tf.imgui):
        for name, obj in vars(module).items():
            if not name.startswith("_") and name not in IMGUI_PLUMBING and callable(obj) \
                    and getattr(obj, "__module__", None) == module.__name__:
                found[f"{module.__name__}.{name}"] = obj
    return found


@pytest.mark.parametrize("name", sorted(_window_api()))
def test_the_window_api_examples_run(x_display, name):
    """The docstring examples of the window's names (which tests/test_docstring_examples.py
    leaves to this file: they need a display), run as doctests in a window of Xvfb."""
    tests = [t for t in doctest.DocTestFinder().find(_window_api()[name], name, globs={"tf": tf, "np": np})
             if t.examples]
    assert tests, f"{name} has no docstring with a '>>>' example"
    report = []
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    try:
        failed = sum(runner.run(test, out=report.append).failed for test in tests)
    finally:
        tf.hide_window()
    assert failed == 0, "".join(report)
