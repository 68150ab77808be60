"""ImGui widgets drawn over the window (``tf.imgui``, and the seed's ``tf.imgui_begin``,
``tf.imgui_text``...), through imgui-bundle (``pip install tensorfrost[gui]``).

Widgets are immediate-mode, as upstream: call them every frame between ``begin`` and
``end``; ``render_frame`` draws them over the image. A widget returns its current value (a
slider its value, a button whether it was clicked this frame). ImGui's next frame starts at
the first widget after ``render_frame``, so until then the frame just drawn can be drawn
again (``tf.window.save_frame`` after the last ``render_frame`` keeps its widgets)."""

from __future__ import annotations

import numpy as np

from .ir.errors import ArgumentError, TensorFrostError


class Gui:
    """ImGui's context and renderer for the open window."""

    def __init__(self, glfw_window):
        import imgui_bundle.python_backends.glfw_backend as glfw_backend  # (the gui extra is optional)
        imgui = self.imgui = glfw_backend.imgui
        self.context = imgui.create_context()
        imgui.get_io().set_ini_filename(None)  # no imgui.ini left in the user's directory
        self.renderer = glfw_backend.GlfwRenderer(glfw_window)
        self.in_frame = False  # between ImGui's new_frame and render

    def frame(self):
        """ImGui, its frame started (at the first widget after the last draw)."""
        if not self.in_frame:
            self.renderer.process_inputs()
            self.imgui.new_frame()
            self.in_frame = True
        return self.imgui

    def draw(self) -> None:
        """End the frame and draw its widgets into the window's back buffer."""
        self.frame().render()
        self.in_frame = False
        self.renderer.render(self.imgui.get_draw_data())

    def redraw(self) -> None:
        """Draw the widgets of the frame last drawn again (nothing once the next frame has
        started: ImGui has then reused their draw lists)."""
        draw_data = self.imgui.get_draw_data()
        if not self.in_frame and draw_data is not None and draw_data.valid:
            self.renderer.render(draw_data)

    def wants_mouse(self) -> bool:
        return self.imgui.get_io().want_capture_mouse

    def close(self) -> None:
        if self.in_frame:
            self.imgui.end_frame()
        self.renderer.shutdown()
        self.imgui.destroy_context(self.context)


_active: Gui | None = None
_missing = ""  # why ImGui is not available, if it is not


def open_gui(glfw_window) -> Gui | None:
    """ImGui for a window that just opened (its context current), or None without imgui-bundle
    (the window works; widgets then say what to install)."""
    global _active, _missing
    try:
        _active = Gui(glfw_window)
    except ImportError as exc:
        _active, _missing = None, f"tf.imgui needs imgui-bundle ({exc}): pip install tensorfrost[gui]"
    return _active


def close_gui() -> None:
    global _active
    if _active is not None:
        _active.close()
    _active = None


def _imgui():
    """imgui-bundle's ``imgui``, in a started frame of the open window."""
    if _active is None:
        raise TensorFrostError(_missing or "no window is open: call tf.show_window(width, height, title) before "
                               "tf.imgui widgets")
    return _active.frame()


def begin(name: str) -> None:
    """Start an ImGui window (a panel) titled ``name``; its widgets follow, until ``end``.

    The panel fits its widgets in every frame (ImGui's ``always_auto_resize``): text that
    grows after the first frame, as a frame rate does, is never clipped. It can be dragged
    by its title bar and folded, not resized by hand. ::

        tf.imgui_begin("controls")
        tf.imgui_text(f"{tf.window.fps():.0f} frames/s")
        damping = tf.imgui_slider("damping", damping, 0.9, 1.0)
        tf.imgui_end()
        tf.render_frame(image)

    >>> tf.show_window(320, 200)
    >>> tf.imgui_begin("controls")
    >>> tf.imgui_text("a panel")
    >>> tf.imgui_end()
    >>> tf.render_frame(np.zeros((200, 320, 3), np.float32))
    >>> tf.hide_window()
    """
    imgui = _imgui()
    # ImGui sizes a new panel once, from its first frame, when the text is at its shortest
    # and the sliders' width (65% of a panel still 32 pixels wide) at its smallest.
    imgui.begin(str(name), None, imgui.WindowFlags_.always_auto_resize)


def end() -> None:
    """End the panel that ``begin`` started.

    >>> tf.show_window(320, 200)
    >>> tf.imgui_begin("controls")
    >>> tf.imgui_text("the panel ends below")
    >>> tf.imgui_end()
    >>> tf.render_frame(np.zeros((200, 320, 3), np.float32))
    >>> tf.hide_window()
    """
    _imgui().end()


def text(text: str) -> None:
    """A line of text in the panel.

    >>> tf.show_window(320, 200)
    >>> tf.imgui_begin("controls")
    >>> tf.imgui_text("0 frames/s")
    >>> tf.imgui_end()
    >>> tf.render_frame(np.zeros((200, 320, 3), np.float32))
    >>> tf.hide_window()
    """
    _imgui().text_unformatted(str(text))


def slider(label: str, value: int | float, minimum: int | float, maximum: int | float) -> int | float:
    """A slider from ``minimum`` to ``maximum``; returns its value (an int slider if all three
    are ints, else a float one).

    >>> tf.show_window(320, 200)
    >>> tf.imgui_begin("controls")
    >>> tf.imgui_slider("damping", 0.95, 0.9, 1.0)   # (ImGui keeps a float32)
    0.949999988079071
    >>> tf.imgui_slider("steps", 3, 1, 10)
    3
    >>> tf.imgui_end()
    >>> tf.render_frame(np.zeros((200, 320, 3), np.float32))
    >>> tf.hide_window()
    """
    imgui = _imgui()
    numbers = (value, minimum, maximum)
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in numbers):
        return imgui.slider_int(str(label), int(value), int(minimum), int(maximum))[1]
    if not all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in numbers):
        raise ArgumentError(f"tf.imgui.slider: value, minimum and maximum must be numbers, got {numbers!r}")
    return imgui.slider_float(str(label), float(value), float(minimum), float(maximum))[1]


def button(label: str) -> bool:
    """A button; True in the frame it was clicked.

    >>> tf.show_window(320, 200)
    >>> tf.imgui_begin("controls")
    >>> tf.imgui_button("reset")                     # not clicked in this frame
    False
    >>> tf.imgui_end()
    >>> tf.render_frame(np.zeros((200, 320, 3), np.float32))
    >>> tf.hide_window()
    """
    return bool(_imgui().button(str(label)))


def checkbox(label: str, value: bool) -> bool:
    """A checkbox; returns whether it is checked.

    >>> tf.show_window(320, 200)
    >>> tf.imgui_begin("controls")
    >>> tf.imgui_checkbox("paused", True)
    True
    >>> tf.imgui_end()
    >>> tf.render_frame(np.zeros((200, 320, 3), np.float32))
    >>> tf.hide_window()
    """
    return bool(_imgui().checkbox(str(label), bool(value))[1])


def plotlines(label: str, values: np.ndarray | list, values_offset: int = 0, overlay_text: str = "",
              scale_min: float | None = None, scale_max: float | None = None,
              graph_size: tuple[float, float] = (0.0, 0.0), stride: int = 4) -> None:
    """A line plot of ``values`` (a 1-D float array); the scale is the values' range unless given.

    >>> tf.show_window(320, 200)
    >>> tf.imgui_begin("controls")
    >>> tf.imgui_plotlines("loss", np.array([3.0, 2.0, 1.5], np.float32))
    >>> tf.imgui_end()
    >>> tf.render_frame(np.zeros((200, 320, 3), np.float32))
    >>> tf.hide_window()
    """
    imgui = _imgui()
    array = np.ascontiguousarray(np.asarray(values, dtype=np.float32).reshape(-1))
    big = float(np.finfo(np.float32).max)  # ImGui's "from the data"
    imgui.plot_lines(str(label), array, int(values_offset), str(overlay_text),
                     big if scale_min is None else float(scale_min), big if scale_max is None else float(scale_max),
                     imgui.ImVec2(*graph_size), int(stride))


def scale_all_sizes(scale: float) -> None:
    """Scale every ImGui size (padding, spacing...) by ``scale``, e.g. for a high-DPI screen.

    >>> tf.show_window(320, 200)
    >>> tf.imgui_begin("controls")
    >>> tf.imgui.scale_all_sizes(1.0)
    >>> tf.imgui_end()
    >>> tf.render_frame(np.zeros((200, 320, 3), np.float32))
    >>> tf.hide_window()
    """
    _imgui().get_style().scale_all_sizes(float(scale))


def color_picker3(label: str, color):
    """An RGB colour picker; returns the colour as a float32 array of 3 values in [0, 1].

    >>> tf.show_window(320, 200)
    >>> tf.imgui_begin("controls")
    >>> tf.imgui.color_picker3("tint", [1.0, 0.5, 0.0])
    array([1. , 0.5, 0. ], dtype=float32)
    >>> tf.imgui_end()
    >>> tf.render_frame(np.zeros((200, 320, 3), np.float32))
    >>> tf.hide_window()
    """
    values = _color(color, 3, "color_picker3")
    return np.array(_imgui().color_picker3(str(label), values)[1], np.float32)


def color_picker4(label: str, color):
    """An RGBA colour picker; returns the colour as a float32 array of 4 values in [0, 1].

    >>> tf.show_window(320, 200)
    >>> tf.imgui_begin("controls")
    >>> tf.imgui.color_picker4("tint", [1.0, 0.5, 0.0, 1.0])
    array([1. , 0.5, 0. , 1. ], dtype=float32)
    >>> tf.imgui_end()
    >>> tf.render_frame(np.zeros((200, 320, 3), np.float32))
    >>> tf.hide_window()
    """
    imgui = _imgui()
    picked = imgui.color_picker4(str(label), imgui.ImVec4(*_color(color, 4, "color_picker4")))[1]
    return np.array([picked.x, picked.y, picked.z, picked.w], np.float32)


def add_background_text(text: str, position, color) -> None:
    """Text drawn on the window under the widgets: at ``position`` (x, y pixels from the
    top-left corner), in ``color`` (r, g, b, a in [0, 1]).

    >>> tf.show_window(320, 200)
    >>> tf.imgui_begin("controls")
    >>> tf.imgui.add_background_text("under the widgets", (10, 180), (1, 1, 1, 1))
    >>> tf.imgui_end()
    >>> tf.render_frame(np.zeros((200, 320, 3), np.float32))
    >>> tf.hide_window()
    """
    imgui = _imgui()
    r, g, b, a = _color(color, 4, "add_background_text")
    x, y = (float(v) for v in position)
    imgui.get_background_draw_list().add_text(imgui.ImVec2(x, y), imgui.color_convert_float4_to_u32(
        imgui.ImVec4(r, g, b, a)), str(text))


def _color(color, count: int, what: str) -> list[float]:
    values = np.asarray(color, dtype=np.float64).reshape(-1)
    if values.size != count:
        raise ArgumentError(f"tf.imgui.{what}: color must have {count} values, got {values.size}")
    return [float(v) for v in values]
