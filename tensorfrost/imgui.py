"""ImGui widgets drawn over the window (``tf.imgui``, and the seed's ``tf.imgui_begin``,
``tf.imgui_text``...), through imgui-bundle (``pip install tensorfrost[gui]``).

Widgets are immediate-mode, as upstream: call them every frame between ``begin`` and
``end``; ``render_frame`` draws them over the image and starts the next frame. A widget
returns its current value (a slider its value, a button whether it was clicked this
frame)."""

from __future__ import annotations

import numpy as np

from .ir.errors import ArgumentError, TensorFrostError


class Gui:
    """ImGui's context and renderer for the open window."""

    def __init__(self, glfw_window):
        from imgui_bundle import imgui
        from imgui_bundle.python_backends.glfw_backend import GlfwRenderer
        self.imgui = imgui
        self.context = imgui.create_context()
        imgui.get_io().set_ini_filename(None)  # no imgui.ini left in the user's directory
        self.renderer = GlfwRenderer(glfw_window)
        self.new_frame()

    def new_frame(self) -> None:
        self.renderer.process_inputs()
        self.imgui.new_frame()

    def draw(self) -> None:
        self.imgui.render()
        self.renderer.render(self.imgui.get_draw_data())

    def wants_mouse(self) -> bool:
        return self.imgui.get_io().want_capture_mouse

    def close(self) -> None:
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


def _gui() -> Gui:
    if _active is None:
        raise TensorFrostError(_missing or "no window is open: call tf.show_window(width, height, title) before "
                               "tf.imgui widgets")
    return _active


def begin(name: str) -> None:
    """Start an ImGui window titled ``name`` (its widgets follow, until ``end``)."""
    _gui().imgui.begin(str(name))


def end() -> None:
    _gui().imgui.end()


def text(text: str) -> None:
    _gui().imgui.text_unformatted(str(text))


def slider(label: str, value, minimum, maximum):
    """A slider from ``minimum`` to ``maximum``; returns its value (an int slider if all three
    are ints, else a float one)."""
    imgui = _gui().imgui
    numbers = (value, minimum, maximum)
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in numbers):
        return imgui.slider_int(str(label), int(value), int(minimum), int(maximum))[1]
    if not all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in numbers):
        raise ArgumentError(f"tf.imgui.slider: value, minimum and maximum must be numbers, got {numbers!r}")
    return imgui.slider_float(str(label), float(value), float(minimum), float(maximum))[1]


def button(label: str) -> bool:
    """A button; True in the frame it was clicked."""
    return bool(_gui().imgui.button(str(label)))


def checkbox(label: str, value: bool) -> bool:
    """A checkbox; returns whether it is checked."""
    return bool(_gui().imgui.checkbox(str(label), bool(value))[1])


def plotlines(label: str, values, values_offset: int = 0, overlay_text: str = "", scale_min: float | None = None,
              scale_max: float | None = None, graph_size=(0.0, 0.0), stride: int = 4) -> None:
    """A line plot of ``values`` (a 1-D float array); the scale is the values' range unless given."""
    imgui = _gui().imgui
    array = np.ascontiguousarray(np.asarray(values, dtype=np.float32).reshape(-1))
    big = float(np.finfo(np.float32).max)  # ImGui's "from the data"
    imgui.plot_lines(str(label), array, int(values_offset), str(overlay_text),
                     big if scale_min is None else float(scale_min), big if scale_max is None else float(scale_max),
                     imgui.ImVec2(*graph_size), int(stride))


def scale_all_sizes(scale: float) -> None:
    """Scale every ImGui size (padding, spacing...) by ``scale``, e.g. for a high-DPI screen."""
    _gui().imgui.get_style().scale_all_sizes(float(scale))


def color_picker3(label: str, color):
    """An RGB colour picker; returns the colour as a float32 array of 3 values in [0, 1]."""
    values = _color(color, 3, "color_picker3")
    return np.array(_gui().imgui.color_picker3(str(label), values)[1], np.float32)


def color_picker4(label: str, color):
    """An RGBA colour picker; returns the colour as a float32 array of 4 values in [0, 1]."""
    imgui = _gui().imgui
    picked = imgui.color_picker4(str(label), imgui.ImVec4(*_color(color, 4, "color_picker4")))[1]
    return np.array([picked.x, picked.y, picked.z, picked.w], np.float32)


def add_background_text(text: str, position, color) -> None:
    """Text drawn on the window under the widgets: at ``position`` (x, y pixels from the
    top-left corner), in ``color`` (r, g, b, a in [0, 1])."""
    imgui = _gui().imgui
    r, g, b, a = _color(color, 4, "add_background_text")
    x, y = (float(v) for v in position)
    imgui.get_background_draw_list().add_text(imgui.ImVec2(x, y), imgui.color_convert_float4_to_u32(
        imgui.ImVec4(r, g, b, a)), str(text))


def _color(color, count: int, what: str) -> list[float]:
    values = np.asarray(color, dtype=np.float64).reshape(-1)
    if values.size != count:
        raise ArgumentError(f"tf.imgui.{what}: color must have {count} values, got {values.size}")
    return [float(v) for v in values]
