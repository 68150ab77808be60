"""RenderDoc captures from Python: ``tf.renderdoc_start_capture()`` / ``tf.renderdoc_end_capture()``.

When the process was started from RenderDoc, its library is already loaded; we find it
without loading it (``RTLD_NOLOAD``), ask it for the in-application API and start or end a
frame capture of every GL context. Without RenderDoc both functions do nothing.
"""

from __future__ import annotations

import ctypes
import os
import sys

_API_VERSION_1_0_0 = 10000
_START_FRAME_CAPTURE = 19  # positions in the RENDERDOC_API_1_0_0 table of function pointers
_END_FRAME_CAPTURE = 21
_api = None  # the function pointer table, once found
_looked = False


def _loaded_library():
    if sys.platform == "win32":
        handle = ctypes.windll.kernel32.GetModuleHandleW("renderdoc.dll")
        return ctypes.WinDLL("renderdoc.dll", handle=handle) if handle else None
    try:
        return ctypes.CDLL("librenderdoc.so", mode=os.RTLD_NOLOAD | os.RTLD_NOW)
    except OSError:
        return None


def api():
    """RenderDoc's function table (a ctypes array of pointers), or None without RenderDoc."""
    global _api, _looked
    if not _looked:
        _looked = True
        library = _loaded_library()
        if library is not None:
            get_api = library.RENDERDOC_GetAPI
            get_api.restype = ctypes.c_int
            get_api.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_void_p)]
            table = ctypes.c_void_p()
            if get_api(_API_VERSION_1_0_0, ctypes.byref(table)) == 1 and table.value:
                _api = ctypes.cast(table, ctypes.POINTER(ctypes.c_void_p * (_END_FRAME_CAPTURE + 1))).contents
    return _api


def _call(index: int) -> None:
    table = api()
    if table is not None:
        ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)(table[index])(None, None)


def renderdoc_start_capture() -> None:
    """Start a RenderDoc frame capture (only when the process runs under RenderDoc)::

        tf.renderdoc_start_capture()
        out = program(x)
        tf.renderdoc_end_capture()

    >>> double = tf.compile(lambda: tf.input([-1], tf.float32) * 2.0)
    >>> tf.renderdoc_start_capture()   # (without RenderDoc: nothing)
    >>> double(np.array([1.0, 2.0], np.float32)).numpy
    array([2., 4.], dtype=float32)
    >>> tf.renderdoc_end_capture()
    """
    _call(_START_FRAME_CAPTURE)


def renderdoc_end_capture() -> None:
    """End the RenderDoc frame capture started by ``tf.renderdoc_start_capture()``.

    >>> double = tf.compile(lambda: tf.input([-1], tf.float32) * 2.0)
    >>> tf.renderdoc_start_capture()   # (without RenderDoc: nothing)
    >>> double(np.array([1.0, 2.0], np.float32)).numpy
    array([2., 4.], dtype=float32)
    >>> tf.renderdoc_end_capture()
    """
    _call(_END_FRAME_CAPTURE)
