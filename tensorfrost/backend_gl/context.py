"""The OpenGL context of the process: headless EGL, or a hidden GLFW window where there is a
display; a GLFW window for the GUI.

``ensure_context()`` creates one OpenGL 4.3+ core context the first time it is called and
makes it current. It tries, in order, every EGL device (GPUs before software renderers),
Mesa's surfaceless platform (llvmpipe on machines with no GPU) and the default display;
the first that gives a 4.3 context wins. When none does, the error says why for each.

Where a display is (``DISPLAY``/``WAYLAND_DISPLAY`` set, glfw installed), the compute
context is a hidden GLFW window instead, tried first: the window ``open_window`` shows is
then that context, and draws tensors' buffers without reading them back
(``TENSORFROST_GL_HEADLESS=1`` keeps the headless context). A window opened when the
compute context is headless has a context of its own, and ``ensure_current()`` switches
back to the compute context.

PyOpenGL resolves GL functions through the platform chosen when ``OpenGL`` is first
imported, so this module sets ``PYOPENGL_PLATFORM=egl`` before importing it, and GLFW
windows are created with GLFW's EGL back end for the same reason.
"""

from __future__ import annotations

import ctypes
import os
import threading

from ..ir.errors import TensorFrostError

os.environ.setdefault("PYOPENGL_PLATFORM", "egl")

_PLATFORM_DEVICE = 0x313F  # EGL_PLATFORM_DEVICE_EXT
_PLATFORM_SURFACELESS = 0x31DD  # EGL_PLATFORM_SURFACELESS_MESA
_VERSIONS = ((4, 6), (4, 5), (4, 3))


class GlContextError(TensorFrostError):
    """No OpenGL 4.3 context could be created (the message says why)."""


class Limits:
    """What the driver allows, read once from the context."""

    def __init__(self, gl):
        def integer(name, index=None):
            value = gl.glGetIntegeri_v(name, index) if index is not None else gl.glGetIntegerv(name)
            return int(value[0] if hasattr(value, "__len__") else value)

        self.version = gl.glGetString(gl.GL_VERSION).decode(errors="replace")
        self.renderer = gl.glGetString(gl.GL_RENDERER).decode(errors="replace")
        self.max_groups = [integer(gl.GL_MAX_COMPUTE_WORK_GROUP_COUNT, k) for k in range(3)]
        self.max_block_bytes = integer(gl.GL_MAX_SHADER_STORAGE_BLOCK_SIZE)
        self.offset_alignment = integer(gl.GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT)
        self.max_blocks = integer(gl.GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS)
        count = integer(gl.GL_NUM_EXTENSIONS)
        self.extensions = {gl.glGetStringi(gl.GL_EXTENSIONS, k).decode() for k in range(count)}

    def __repr__(self) -> str:
        return f"<GL {self.version} on {self.renderer}>"


class _EglContext:
    """A surfaceless EGL context on one display."""

    def __init__(self, egl, display, context, where: str):
        self.egl, self.display, self.context, self.where = egl, display, context, where

    def make_current(self) -> None:
        if not self.egl.eglMakeCurrent(self.display, self.egl.EGL_NO_SURFACE, self.egl.EGL_NO_SURFACE,
                                       self.context):
            raise GlContextError(f"eglMakeCurrent failed for the OpenGL context on {self.where}")


class _HiddenWindowContext:
    """The compute context as a hidden GLFW window, made when a display is available: the
    window ``open_window`` shows later is this context, so it draws tensors' buffers as they
    are, without reading them back."""

    where = "a hidden GLFW window"

    def __init__(self, glfw, handle):
        self.glfw, self.handle = glfw, handle

    def make_current(self) -> None:
        self.glfw.make_context_current(self.handle)


def opengl():
    """PyOpenGL's package with its GL module loaded (``opengl().GL``; the unwrapped entry
    points under ``opengl().raw.GL.VERSION``), imported on first use: the gl extra is
    optional, and PYOPENGL_PLATFORM must be set before (above)."""
    import OpenGL.GL
    return OpenGL


def _glfw_module():
    """The glfw package, or None where it is not installed (the gui extra is optional)."""
    try:
        import glfw
    except ImportError:
        return None
    return glfw


def _glfw():
    """The glfw module, initialised, or None (not installed, or no display)."""
    glfw = _glfw_module()
    if glfw is None:
        return None
    glfw.ERROR_REPORTING = "ignore"  # failures are reported by what the caller does next
    return glfw if glfw.init() else None


def _create_window(glfw, width: int, height: int, title: str, visible: bool):
    glfw.default_window_hints()
    glfw.window_hint(glfw.VISIBLE, glfw.TRUE if visible else glfw.FALSE)
    glfw.window_hint(glfw.CONTEXT_CREATION_API, glfw.EGL_CONTEXT_API)  # as PyOpenGL's platform
    glfw.window_hint(glfw.CONTEXT_VERSION_MAJOR, 4)
    glfw.window_hint(glfw.CONTEXT_VERSION_MINOR, 3)
    glfw.window_hint(glfw.OPENGL_PROFILE, glfw.OPENGL_CORE_PROFILE)
    return glfw.create_window(int(width), int(height), str(title), None, None)


def _hidden_window_context():
    """The compute context as a hidden window where a display is (``TENSORFROST_GL_HEADLESS=1``
    opts out), else None."""
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return None
    if os.environ.get("TENSORFROST_GL_HEADLESS", "") not in ("", "0"):
        return None
    glfw = _glfw()
    handle = _create_window(glfw, 640, 480, "TensorFrost", visible=False) if glfw is not None else None
    if not handle:
        return None
    context = _HiddenWindowContext(glfw, handle)
    context.make_current()
    return context


_lock = threading.Lock()
_compute = None  # the process's compute context, once created
_limits: Limits | None = None
_failure: str | None = None  # why no context could be made (so later calls fail fast)
_current = None  # the context this module last made current
_owner_thread: int | None = None


def _egl_function(egl, name: str, restype, *argtypes):
    address = egl.eglGetProcAddress(name.encode())
    if not address:
        return None
    return ctypes.CFUNCTYPE(restype, *argtypes)(address)


def _displays(egl):
    """(description, EGLDisplay) candidates, GPUs first."""
    get_platform_display = _egl_function(egl, "eglGetPlatformDisplayEXT", egl.EGLDisplay, ctypes.c_uint,
                                         ctypes.c_void_p, ctypes.c_void_p)
    query_devices = _egl_function(egl, "eglQueryDevicesEXT", ctypes.c_uint, ctypes.c_int,
                                  ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_int))
    query_device_string = _egl_function(egl, "eglQueryDeviceStringEXT", ctypes.c_char_p, ctypes.c_void_p,
                                        ctypes.c_int)
    found = []
    if get_platform_display is not None and query_devices is not None:
        devices = (ctypes.c_void_p * 16)()
        count = ctypes.c_int(0)
        if query_devices(16, devices, ctypes.byref(count)):
            ranked = []
            for k in range(count.value):
                extensions = b""
                if query_device_string is not None:
                    extensions = query_device_string(devices[k], egl.EGL_EXTENSIONS) or b""
                software = b"EGL_MESA_device_software" in extensions
                ranked.append((software, k))
            for software, k in sorted(ranked):
                kind = "software device" if software else "device"
                found.append((f"EGL {kind} {k}", lambda k=k: get_platform_display(_PLATFORM_DEVICE,
                                                                                  devices[k], None)))
    if get_platform_display is not None:
        found.append(("EGL surfaceless platform", lambda: get_platform_display(_PLATFORM_SURFACELESS, None, None)))
    found.append(("EGL default display", lambda: egl.eglGetDisplay(egl.EGL_DEFAULT_DISPLAY)))
    return found


def _try_display(egl, where: str, make_display):
    display = make_display()
    if not display:
        raise GlContextError("no display")
    major, minor = egl.EGLint(), egl.EGLint()
    if not egl.eglInitialize(display, ctypes.byref(major), ctypes.byref(minor)):
        raise GlContextError("eglInitialize failed")
    try:
        if not egl.eglBindAPI(egl.EGL_OPENGL_API):
            raise GlContextError("the display has no desktop OpenGL")
        for gl_major, gl_minor in _VERSIONS:
            attributes = (egl.EGLint * 7)(egl.EGL_CONTEXT_MAJOR_VERSION, gl_major,
                                          egl.EGL_CONTEXT_MINOR_VERSION, gl_minor,
                                          egl.EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                          egl.EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, egl.EGL_NONE)
            try:  # PyOpenGL raises EGL_BAD_MATCH for a version the driver lacks
                context = egl.eglCreateContext(display, None, egl.EGL_NO_CONTEXT, attributes)
            except Exception:
                context = None
            if context:
                made = _EglContext(egl, display, context, where)
                made.make_current()
                return made
        raise GlContextError("no OpenGL 4.3 core context (tried 4.6, 4.5, 4.3)")
    except BaseException:
        egl.eglTerminate(display)
        raise


def _describe(exc: Exception) -> str:
    """A one-line reason (PyOpenGL's EGLError prints every argument of the failed call)."""
    if hasattr(exc, "baseOperation") and hasattr(exc, "err"):
        return f"{getattr(exc.baseOperation, '__name__', exc.baseOperation)} failed with EGL error {exc.err:#x}"
    return str(exc)


def _egl_problem() -> str | None:
    """Why the system's libEGL cannot be loaded, in the loader's words (PyOpenGL hides them), or None."""
    try:
        ctypes.CDLL("libEGL.so.1")
    except OSError as error:
        return str(error)
    return None


def _create():
    try:
        from OpenGL import EGL
    except Exception as exc:  # ImportError, or a missing or broken libEGL
        problem = _egl_problem()
        what = (f"the system's EGL library cannot be loaded ({problem})" if problem is not None else
                f"PyOpenGL with EGL is not available ({type(exc).__name__}: {exc})")
        raise GlContextError(f"{what}; install tensorfrost[gl] and the system's EGL (e.g. libegl1 libegl-mesa0 "
                             "libgl1-mesa-dri libopengl0)") from exc
    try:
        window = _hidden_window_context()
    except Exception:  # any failure of the window path: the headless one below
        window = None
    if window is not None:
        return window
    reasons = []
    for where, make_display in _displays(EGL):
        try:
            return _try_display(EGL, where, make_display)
        except Exception as exc:
            reasons.append(f"{where}: {_describe(exc)}")
    raise GlContextError("could not create an OpenGL 4.3 context: " + "; ".join(reasons))


def ensure_context() -> Limits:
    """Create the compute context (once), make it current, and return the driver's limits."""
    global _compute, _limits, _failure, _current, _owner_thread
    with _lock:
        if _compute is None:
            if _failure is not None:
                raise GlContextError(_failure)
            try:
                _compute = _create()
                _limits = Limits(opengl().GL)
            except GlContextError as exc:
                _failure = exc.message
                raise
            _current = _compute
            _owner_thread = threading.get_ident()
    ensure_current()
    return _limits


def ensure_current() -> None:
    """Make the compute context current on this thread if another one is."""
    global _current, _owner_thread
    if _current is _compute and _owner_thread == threading.get_ident():
        return
    _compute.make_current()
    _current, _owner_thread = _compute, threading.get_ident()


def unavailable_reason() -> str | None:
    """None if an OpenGL 4.3 context can be made, else why not (used to skip GL tests)."""
    try:
        ensure_context()
    except GlContextError as exc:
        return exc.message
    return None


class Window:
    """A GLFW window (for the GUI). When the compute context is a hidden window, this is that
    window, shown: its context is the compute context and ``shares_compute`` is True.
    Otherwise it has a context of its own: draw between ``make_current()`` and ``swap()``;
    compute calls switch back to the compute context."""

    def __init__(self, width: int, height: int, title: str):
        ensure_context()
        module = _glfw_module()
        if module is None:
            raise TensorFrostError("windows need the glfw package: pip install tensorfrost[gui]")
        glfw = _glfw()
        if glfw is None:
            _, reason = module.get_error()
            reason = reason.decode(errors="replace") if isinstance(reason, bytes) else str(reason or "")
            raise GlContextError(f"cannot open a window: no display ({reason or 'glfw.init() failed'}); on a "
                                 "machine without a screen, run under Xvfb: xvfb-run -a python your_script.py "
                                 "(apt-get install xvfb)")
        self.glfw = glfw
        self.shares_compute = isinstance(_compute, _HiddenWindowContext)
        if self.shares_compute:
            self.handle = _compute.handle
            glfw.set_window_size(self.handle, int(width), int(height))
            glfw.set_window_title(self.handle, str(title))
            glfw.set_window_should_close(self.handle, False)
            glfw.show_window(self.handle)
        else:
            self.handle = _create_window(glfw, width, height, title, visible=True)
            if not self.handle:
                raise GlContextError("glfw could not create a window with an OpenGL 4.3 context")
        self.make_current()

    def make_current(self) -> None:
        global _current, _owner_thread
        self.glfw.make_context_current(self.handle)
        _current, _owner_thread = (_compute if self.shares_compute else self), threading.get_ident()

    def swap(self) -> None:
        self.glfw.swap_buffers(self.handle)
        self.glfw.poll_events()

    def close(self) -> None:
        if self.handle and self.shares_compute:
            self.glfw.hide_window(self.handle)  # it stays the compute context
            self.glfw.poll_events()
        elif self.handle:
            self.glfw.destroy_window(self.handle)
        self.handle = None
        ensure_current()


def open_window(width: int, height: int, title: str) -> Window:
    """Open a GLFW window whose context is current until compute work switches back."""
    return Window(width, height, title)
