"""A window that shows tensors as images, with mouse and keyboard input (``tf.window``, and
the seed's names ``tf.show_window``, ``tf.render_frame``...).

One window at a time, as upstream. ``render_frame(img)`` takes a ``[height, width, 3]``
float32 tensor (TensorMemory of any backend, or a numpy array) and stretches it to the
window with nearest-neighbour sampling; row 0 of the image is the window's bottom row, as
upstream draws it (OpenGL's convention). ``read_frame()`` gives the pixels last drawn, in
the same orientation, for tests and screenshots (``save_frame``); ``record`` writes the
frames shown as a video.

The window is a GLFW window with its own OpenGL context (``backend_gl.context.Window``);
glfw and PyOpenGL are imported when the window opens, so the rest of tensorfrost never
needs them. Headless, run under Xvfb: ``xvfb-run -a python script.py``.
"""

from __future__ import annotations

import os
import struct
import tempfile
import time
import zlib

import numpy as np

from . import imgui, video
from .backend_gl import context
from .ir.errors import ArgumentError, TensorFrostError
from .private_files import new_file_mode
from .runtime import TensorMemory

# GLFW's codes (tf.KEY_A == glfw.KEY_A), so that they need no glfw to be named.
MOUSE_BUTTON_0, MOUSE_BUTTON_1, MOUSE_BUTTON_2 = 0, 1, 2
KEYS = {**{f"KEY_{chr(c)}": c for c in range(ord("A"), ord("Z") + 1)},
        **{f"KEY_{d}": ord("0") + d for d in range(10)},
        "KEY_SPACE": 32, "KEY_APOSTROPHE": 39, "KEY_COMMA": 44, "KEY_MINUS": 45, "KEY_PERIOD": 46,
        "KEY_ESCAPE": 256, "KEY_ENTER": 257, "KEY_TAB": 258, "KEY_BACKSPACE": 259, "KEY_RIGHT": 262,
        "KEY_LEFT": 263, "KEY_DOWN": 264, "KEY_UP": 265, "KEY_LEFT_SHIFT": 340, "KEY_LEFT_CONTROL": 341,
        "KEY_RIGHT_SHIFT": 344, "KEY_RIGHT_CONTROL": 345}
globals().update(KEYS)

_VERTEX = """#version 430 core
void main() {  // one triangle that covers the viewport
    vec2 corner = vec2(float((gl_VertexID & 1) << 2) - 1.0, float((gl_VertexID & 2) << 1) - 1.0);
    gl_Position = vec4(corner, 0.0, 1.0);
}
"""
_FRAGMENT_BUFFER = """#version 430 core
layout(std430, binding = 0) readonly buffer image_words { float words[]; };
uniform ivec2 size;
uniform vec2 viewport;
out vec4 color;
void main() {  // nearest neighbour, straight from the tensor's buffer ([height, width, 3] floats)
    ivec2 texel = min(ivec2(gl_FragCoord.xy * vec2(size) / viewport), size - 1);
    int at = (texel.y * size.x + texel.x) * 3;
    color = vec4(words[at], words[at + 1], words[at + 2], 1.0);
}
"""
_FRAGMENT = """#version 430 core
uniform sampler2D image;
uniform vec2 viewport;
out vec4 color;
void main() {  // nearest neighbour: the texel under this pixel's centre
    ivec2 size = textureSize(image, 0);
    ivec2 texel = min(ivec2(gl_FragCoord.xy * vec2(size) / viewport), size - 1);
    color = vec4(texelFetch(image, texel, 0).rgb, 1.0);
}
"""


class _Display:
    """The open window: its GL objects, the last image drawn, and frame timing."""

    def __init__(self, width: int, height: int, title: str):
        self.window = context.open_window(width, height, title)
        GL = context.opengl().GL  # noqa: N806 (the name GL code uses)
        self.GL, self.glfw = GL, self.window.glfw
        self.program = _program(GL, _FRAGMENT)
        self.buffer_program = _program(GL, _FRAGMENT_BUFFER) if self.window.shares_compute else None
        self.vertex_array = GL.glGenVertexArrays(1)
        self.texture = GL.glGenTextures(1)
        GL.glBindTexture(GL.GL_TEXTURE_2D, self.texture)
        for parameter in (GL.GL_TEXTURE_MIN_FILTER, GL.GL_TEXTURE_MAG_FILTER):
            GL.glTexParameteri(GL.GL_TEXTURE_2D, parameter, GL.GL_NEAREST)
        self.image = None  # the numpy image in the texture, or the tensor drawn from its buffer
        self.max_block_bytes = int(GL.glGetIntegerv(GL.GL_MAX_SHADER_STORAGE_BLOCK_SIZE))
        self.frame_times: list[float] = []
        self.last_frame = time.perf_counter()
        self.open = True
        self.recording, self.frame, self.overlay = False, None, False
        self.video = None  # the video.VideoFile each frame is appended to, while tf.window.record runs
        self.display_times: list[float] = []
        self.display_start = self.last_frame
        self.gui = imgui.open_gui(self.window.handle)

    def draw(self) -> None:
        GL = self.GL
        self.window.make_current()
        width, height = self.glfw.get_framebuffer_size(self.window.handle)
        GL.glViewport(0, 0, width, height)
        GL.glClearColor(0.0, 0.0, 0.0, 1.0)
        GL.glClear(GL.GL_COLOR_BUFFER_BIT)
        if isinstance(self.image, TensorMemory):  # a tensor of the compute context: read in place
            program = self.buffer_program
            GL.glUseProgram(program)
            GL.glMemoryBarrier(GL.GL_SHADER_STORAGE_BARRIER_BIT)  # the kernels' writes are visible
            GL.glBindBufferRange(GL.GL_SHADER_STORAGE_BUFFER, 0, self.image.storage.id, 0, self.image.storage.nbytes)
            GL.glUniform2i(GL.glGetUniformLocation(program, "size"), self.image.shape[1], self.image.shape[0])
        elif self.image is not None:
            program = self.program
            GL.glUseProgram(program)
            GL.glActiveTexture(GL.GL_TEXTURE0)
            GL.glBindTexture(GL.GL_TEXTURE_2D, self.texture)
        if self.image is not None:
            GL.glUniform2f(GL.glGetUniformLocation(program, "viewport"), float(width), float(height))
            GL.glBindVertexArray(self.vertex_array)
            GL.glDrawArrays(GL.GL_TRIANGLES, 0, 3)

    def show(self, image) -> None:
        """Take ``image`` for the next frames: a tensor of the window's own context is drawn from
        its buffer (kept alive until the next image); anything else is uploaded."""
        array = _as_image(image, download=False)
        if isinstance(array, TensorMemory) and (not self.window.shares_compute or getattr(
                array.backend, "name", "") != "opengl" or array.storage.nbytes > self.max_block_bytes):
            array = _as_image(image)
        if isinstance(array, TensorMemory):
            self.image = array
        else:
            self.upload(array)

    def upload(self, image: np.ndarray) -> None:
        GL = self.GL
        self.window.make_current()
        GL.glBindTexture(GL.GL_TEXTURE_2D, self.texture)
        GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 1)
        GL.glTexImage2D(GL.GL_TEXTURE_2D, 0, GL.GL_RGB32F, image.shape[1], image.shape[0], 0, GL.GL_RGB,
                        GL.GL_FLOAT, image)
        self.image = image

    def present(self) -> None:
        if self.gui is not None:
            if self.overlay and self.frame_times:
                self.draw_overlay()
            self.gui.draw()
        if self.recording or self.video is not None:  # before the swap, which leaves the back buffer undefined
            frame = self.read_back()
            if self.recording:
                self.frame = frame
            if self.video is not None:
                self.video.append(frame[::-1])
        self.window.swap()
        now = time.perf_counter()
        self.frame_times = (self.frame_times + [now - self.last_frame])[-60:]
        self.display_times = (self.display_times + [now - self.display_start])[-60:]
        self.last_frame = now

    def draw_overlay(self) -> None:
        frame = sum(self.frame_times) / len(self.frame_times)
        program = 1.0 - sum(self.display_times) / max(sum(self.frame_times), 1e-9)
        imgui.add_background_text(f"{1.0 / frame:.0f} frames/s, {frame * 1e3:.1f} ms: "
                                  f"{max(program, 0.0) * 100:.0f}% program", (8, 8), (1.0, 1.0, 0.6, 1.0))

    def read_back(self) -> np.ndarray:
        """The pixels drawn so far into the back buffer."""
        GL = self.GL
        width, height = self.glfw.get_framebuffer_size(self.window.handle)
        GL.glPixelStorei(GL.GL_PACK_ALIGNMENT, 1)
        data = GL.glReadPixels(0, 0, width, height, GL.GL_RGB, GL.GL_UNSIGNED_BYTE)
        return np.frombuffer(bytes(data), np.uint8).reshape(height, width, 3).copy()

    def close(self) -> None:
        self.window.make_current()
        imgui.close_gui()
        self.window.close()
        self.open = False


def _program(GL, fragment: str):
    shaders = []
    for source, kind in ((_VERTEX, GL.GL_VERTEX_SHADER), (fragment, GL.GL_FRAGMENT_SHADER)):
        shader = GL.glCreateShader(kind)
        GL.glShaderSource(shader, source)
        GL.glCompileShader(shader)
        if not GL.glGetShaderiv(shader, GL.GL_COMPILE_STATUS):
            raise TensorFrostError(f"the window's shader did not compile: {GL.glGetShaderInfoLog(shader)}")
        shaders.append(shader)
    program = GL.glCreateProgram()
    for shader in shaders:
        GL.glAttachShader(program, shader)
    GL.glLinkProgram(program)
    if not GL.glGetProgramiv(program, GL.GL_LINK_STATUS):
        raise TensorFrostError(f"the window's shaders did not link: {GL.glGetProgramInfoLog(program)}")
    return program


_display: _Display | None = None


def _shown() -> _Display:
    if _display is None or not _display.open:
        raise TensorFrostError("no window is open: call tf.show_window(width, height, title) first")
    return _display


def show(width: int, height: int, title: str = "TensorFrost") -> None:
    """Open the window (or resize and retitle the one that is open).

    >>> tf.show_window(64, 48, "example")
    >>> tf.get_window_size()
    (64, 48)
    >>> tf.hide_window()
    """
    global _display
    for name, value in (("width", width), ("height", height)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 < value <= 16384:
            raise ArgumentError(f"tf.show_window: {name} must be a whole number of pixels in 1..16384, got {value!r}")
    if _display is not None and _display.open:
        _display.glfw.set_window_size(_display.window.handle, int(width), int(height))
        _display.glfw.set_window_title(_display.window.handle, str(title))
        return
    _display = _Display(int(width), int(height), str(title))


def hide() -> None:
    """Close the window (``show`` opens a new one).

    >>> tf.show_window(64, 48)
    >>> tf.hide_window()
    >>> tf.window_should_close()          # no window is open now
    True
    """
    global _display
    if _display is not None and _display.open:
        _display.close()
    _display = None


def should_close() -> bool:
    """True once the user asked to close the window (its close button), or when none is open;
    the window is then closed.

    >>> tf.show_window(64, 48)
    >>> tf.window_should_close()
    False
    >>> tf.hide_window()
    """
    if _display is None or not _display.open:
        return True
    _display.glfw.poll_events()
    if _display.glfw.window_should_close(_display.window.handle):
        hide()
        return True
    return False


def get_size() -> tuple[int, int]:
    """The window's size in screen coordinates: (width, height).

    >>> tf.show_window(64, 48)
    >>> tf.get_window_size()
    (64, 48)
    >>> tf.hide_window()
    """
    display = _shown()
    return tuple(display.glfw.get_window_size(display.window.handle))


def get_mouse_position() -> tuple[float, float]:
    """The cursor's position in the window, in pixels from its top-left corner: (x, y).

    >>> tf.show_window(64, 48)
    >>> x, y = tf.get_mouse_position()
    >>> type(x).__name__, type(y).__name__
    ('float', 'float')
    >>> tf.hide_window()
    """
    display = _shown()
    return tuple(display.glfw.get_cursor_pos(display.window.handle))


def is_mouse_button_pressed(button: int) -> bool:
    """True while ``button`` (tf.MOUSE_BUTTON_0, 1 or 2) is held down, outside ImGui's widgets.

    >>> tf.show_window(64, 48)
    >>> tf.is_mouse_button_pressed(tf.MOUSE_BUTTON_0)
    False
    >>> tf.hide_window()
    """
    display = _shown()
    if display.gui is not None and display.gui.wants_mouse():
        return False  # the click is on a widget
    return display.glfw.get_mouse_button(display.window.handle, int(button)) == display.glfw.PRESS


def is_key_pressed(key: int) -> bool:
    """True while ``key`` (tf.KEY_A, tf.KEY_SPACE, ...) is held down.

    >>> tf.show_window(64, 48)
    >>> tf.is_key_pressed(tf.KEY_SPACE)
    False
    >>> tf.hide_window()
    """
    display = _shown()
    return display.glfw.get_key(display.window.handle, int(key)) == display.glfw.PRESS


def render_frame(image: TensorMemory | np.ndarray | None = None) -> None:
    """Show ``image`` (a [height, width, 3] float32 tensor of any backend, or numpy array),
    stretched to the window; with no image, the last one again. Also polls input events.

    >>> tf.show_window(64, 48)
    >>> tf.render_frame(np.full((2, 2, 3), 0.5, np.float32))   # stretched to 64 x 48
    >>> tf.window.read_frame()[0, 0]
    array([128, 128, 128], dtype=uint8)
    >>> tf.hide_window()
    """
    display = _shown()
    display.display_start = time.perf_counter()
    if image is not None:
        display.show(image)
    display.draw()
    display.present()


def read_frame() -> np.ndarray:
    """The frame last shown, ImGui widgets included, as uint8 RGB [height, width, 3], row 0
    at the bottom (as drawn). The first call starts recording (each frame is then read back
    before it is shown, a small cost) and returns the frame last shown drawn again, its image
    and the widgets of that frame (those of a frame already begun, after the last
    ``render_frame``, are not drawn yet and so not in it). ::

        tf.render_frame(image)
        pixels = tf.window.read_frame()   # pixels[0] is the window's bottom row

    >>> tf.show_window(64, 48)
    >>> tf.render_frame(np.ones((48, 64, 3), np.float32))
    >>> frame = tf.window.read_frame()
    >>> frame.shape, frame.dtype, int(frame.min())
    ((48, 64, 3), dtype('uint8'), 255)
    >>> tf.hide_window()
    """
    display = _shown()
    if not display.recording:
        display.recording = True
        display.draw()
        if display.gui is not None:
            display.gui.redraw()
        display.frame = display.read_back()
    return display.frame


def show_fps(show: bool = True) -> None:
    """Draw the frame rate and the share of each frame spent outside ``render_frame`` (in
    the program) in the window's top-left corner, over the image (needs imgui-bundle).

    >>> tf.show_window(320, 200)
    >>> tf.window.show_fps()
    >>> tf.render_frame(np.zeros((200, 320, 3), np.float32))
    >>> tf.hide_window()
    """
    _shown().overlay = bool(show)


def fps() -> float:
    """Frames per second, over the last 60 frames (0 before the second frame).

    >>> tf.show_window(64, 48)
    >>> for _ in range(3):
    ...     tf.render_frame(np.zeros((48, 64, 3), np.float32))
    >>> tf.window.fps() > 0
    True
    >>> tf.hide_window()
    """
    display = _shown()
    return len(display.frame_times) / sum(display.frame_times) if display.frame_times else 0.0


class Recording:
    """A video of the window being written (``record``): a context manager. Each frame shown
    by ``render_frame`` inside its ``with`` block, ImGui included, is appended; the file
    appears when the block ends, and not at all when it ends with an error.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "out.mp4")
    >>> tf.show_window(64, 48)
    >>> with tf.window.record(path) as recording:
    ...     tf.render_frame(np.zeros((48, 64, 3), np.float32))
    >>> type(recording).__name__, os.path.getsize(path) > 0
    ('Recording', True)
    >>> tf.hide_window()
    """

    def __init__(self, display: _Display, file: video.VideoFile):
        self.display, self.file = display, file

    @property
    def frames(self) -> int:
        """The number of frames recorded so far."""
        return self.file.frames

    @property
    def path(self) -> str:
        """The video's absolute path."""
        return self.file.path

    def __enter__(self) -> Recording:
        if self.display.video is not None:
            raise TensorFrostError(f"tf.window.record: {self.display.video.path} is being recorded already; end "
                                   f"its with block first")
        self.display.video = self.file
        return self

    def __exit__(self, kind, error, traceback) -> None:
        if self.display.video is self.file:
            self.display.video = None
        if kind is None:
            self.file.finish()
        else:
            self.file.discard()


def record(path: str | os.PathLike, fps: float = 30) -> Recording:
    """Record the window's frames into an H.264 video at ``path`` (.mp4, .mkv or .mov),
    played at ``fps`` frames per second: one video frame per ``render_frame`` in the ``with``
    block, ImGui panels included. Needs imageio-ffmpeg (``pip install "tensorfrost[video]"``).
    The video keeps its first frame's size (later frames of a resized window are cropped or
    padded with black). Nothing is written when the block raises or renders no frame, and a
    video never appears half-written (ffmpeg writes beside it; a rename ends the block). ::

        tf.show_window(512, 512, "wave")
        with tf.window.record("wave.mp4", fps=30):
            for _ in range(120):
                u, v, image = step(u, v, poke)
                tf.render_frame(image)

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "out.mp4")
    >>> tf.show_window(64, 48)
    >>> with tf.window.record(path, fps=30):
    ...     for k in range(3):
    ...         tf.render_frame(np.full((48, 64, 3), k / 2, np.float32))
    >>> os.path.getsize(path) > 0
    True
    >>> tf.hide_window()
    """
    display = _shown()
    return Recording(display, video.VideoFile(path, fps))


def _as_image(image, download: bool = True):
    """``image`` checked as a [height, width, 3] float32 image: a numpy array, or the tensor
    itself when not ``download``."""
    if isinstance(image, TensorMemory):
        array = image.numpy if download else image
    elif isinstance(image, np.ndarray):
        array = image
    else:
        raise ArgumentError(f"tf.render_frame: image must be a [height, width, 3] float32 tensor or numpy array, "
                            f"got a {type(image).__name__}")
    if array.ndim != 3 or array.shape[2] != 3 or array.shape[0] < 1 or array.shape[1] < 1:
        raise ArgumentError(f"tf.render_frame: image must have shape [height, width, 3], got {list(array.shape)}")
    dtype = array.dtype.numpy if isinstance(array, TensorMemory) else array.dtype
    if dtype != np.float32:
        raise ArgumentError(f"tf.render_frame: image must be float32, got {dtype}")
    return array if isinstance(array, TensorMemory) else np.ascontiguousarray(array)


def save_frame(path: str) -> None:
    """Write the frame last shown (see ``read_frame``), ImGui panels included, to ``path`` as
    a PNG, upright; the file gets the mode ``open`` would give it (0666 less the umask). One
    call at the end of a program is enough::

        tf.imgui_begin("controls")
        tf.imgui_text("done")
        tf.imgui_end()
        tf.render_frame(image)
        tf.window.save_frame("last.png")   # the image and the panel

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "frame.png")
    >>> tf.show_window(64, 48)
    >>> tf.render_frame(np.zeros((48, 64, 3), np.float32))
    >>> tf.window.save_frame(path)
    >>> os.path.getsize(path) > 0
    True
    >>> tf.hide_window()
    """
    save_png(path, read_frame()[::-1])


def save_png(path: str, rgb: np.ndarray) -> None:
    """Write an 8-bit RGB image ([height, width, 3] uint8, row 0 at the top) as a PNG. The
    file appears whole or not at all (written beside it, then renamed).

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "red.png")
    >>> tf.window.save_png(path, np.tile(np.array([255, 0, 0], np.uint8), (2, 3, 1)))
    >>> os.path.getsize(path) > 0
    True
    """
    rgb = np.asarray(rgb)
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
        raise ArgumentError(f"save_png: rgb must be a [height, width, 3] uint8 array, got {rgb.dtype} "
                            f"{list(rgb.shape)}")
    height, width, _ = rgb.shape
    raw = b"".join(b"\x00" + np.ascontiguousarray(rgb[y]).tobytes() for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    data = b"".join([b"\x89PNG\r\n\x1a\n", chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)),
                     chunk(b"IDAT", zlib.compress(raw, 6)), chunk(b"IEND", b"")])
    directory = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".png")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            os.fchmod(f.fileno(), new_file_mode(path))  # (as open() would make it: mkstemp's is 0600)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
