"""Video files of frames (``tf.window.record`` writes the window's), encoded by the ffmpeg
that imageio-ffmpeg ships (``pip install "tensorfrost[video]"``).

A video appears whole or not at all: ffmpeg writes a temporary file beside ``path``, renamed
over it once ffmpeg has finished without an error; on any error it is removed.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from fractions import Fraction

import numpy as np

from .ir.errors import ArgumentError, TensorFrostError
from .private_files import new_file_mode

# Containers that hold H.264, the codec every player reads.
SUFFIXES = (".mp4", ".mkv", ".mov")
INSTALL = 'pip install "tensorfrost[video]"'


def ffmpeg_executable(what: str) -> str:
    """The ffmpeg of imageio-ffmpeg, or an error that says how to install it."""
    try:
        import imageio_ffmpeg
    except ImportError as exc:
        raise TensorFrostError(f"{what} needs imageio-ffmpeg ({exc}): {INSTALL}") from None
    return imageio_ffmpeg.get_ffmpeg_exe()


class VideoFile:
    """An H.264 video being written to ``path`` at ``fps`` frames per second: ``append`` each
    frame (uint8 RGB [height, width, 3], row 0 at the top), then ``finish`` (the file appears)
    or ``discard`` (nothing is left)."""

    def __init__(self, path, fps, what: str = "tf.window.record"):
        if not isinstance(path, (str, os.PathLike)):
            raise ArgumentError(f"{what}: path must be a file name, got a {type(path).__name__}")
        self.path = os.path.abspath(os.fspath(path))
        directory, suffix = os.path.dirname(self.path), os.path.splitext(self.path)[1].lower()
        if suffix not in SUFFIXES:
            raise ArgumentError(f"{what}: path must end in one of {', '.join(SUFFIXES)} (an H.264 video), "
                                f"got {os.fspath(path)!r}")
        if not os.path.isdir(directory):
            raise ArgumentError(f"{what}: path's directory {directory!r} does not exist (create it first)")
        if isinstance(fps, bool) or not isinstance(fps, (int, float, np.integer, np.floating)) or not 0 < fps <= 1000:
            raise ArgumentError(f"{what}: fps must be a number of frames per second in (0, 1000], got {fps!r}")
        self.fps, self.what, self.suffix = Fraction(float(fps)).limit_denominator(1001), what, suffix
        self.executable = ffmpeg_executable(what)
        self.frames, self.size = 0, None  # size: (height, width) of the first frame, kept by all
        self.process = self.temporary = self.log = None

    def append(self, rgb: np.ndarray) -> None:
        """Add a frame; one of another size than the first is cropped or padded with black
        (at its bottom and right) to that size."""
        if self.process is None:
            self.size = rgb.shape[:2]
            self.start()
        try:
            self.process.stdin.write(_encodable(_fitted(rgb, *self.size)).tobytes())
        except OSError:
            self.process.wait()  # ffmpeg stopped: its log says why
            raise TensorFrostError(f"{self.what}: ffmpeg stopped writing {self.path}: {self.errors()}") from None
        self.frames += 1

    def start(self) -> None:
        """Start ffmpeg, writing into a new temporary file beside ``path``."""
        height, width = (v + v % 2 for v in self.size)  # yuv420p needs even sides: edge rows repeated
        fd, self.temporary = tempfile.mkstemp(dir=os.path.dirname(self.path), prefix=".tmp-", suffix=self.suffix)
        os.close(fd)
        self.log = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [self.executable, "-y", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s",
             f"{width}x{height}", "-r", str(self.fps), "-i", "-", "-an", "-vcodec", "libx264", "-pix_fmt", "yuv420p",
             "-crf", "18", self.temporary], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=self.log)

    def finish(self) -> None:
        """End the video and rename it to ``path``; an error (and no file) when ffmpeg failed
        or no frame was appended."""
        if self.process is None:
            raise TensorFrostError(f"{self.what}: no frame was rendered while recording, so {self.path} was not "
                                   f"written (call tf.render_frame inside the with block)")
        try:
            try:
                self.process.stdin.close()
            except OSError:
                pass  # ffmpeg already stopped: its status says why
            if self.process.wait() != 0:
                raise TensorFrostError(f"{self.what}: ffmpeg could not write {self.path}: {self.errors()}")
            os.chmod(self.temporary, new_file_mode(self.path))  # (as open() would make it: mkstemp's is 0600)
            os.replace(self.temporary, self.path)
            self.temporary = None
        finally:
            self.discard()

    def discard(self) -> None:
        """Stop ffmpeg and remove what it wrote."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        if self.temporary is not None:
            try:
                os.unlink(self.temporary)
            except FileNotFoundError:
                pass
            self.temporary = None
        if self.log is not None:
            self.log.close()
            self.log = None

    def errors(self) -> str:
        """What ffmpeg said (its last 2,000 characters), or its exit status."""
        self.log.seek(0)
        text = self.log.read().decode(errors="replace").strip()
        return text[-2000:] or f"exit status {self.process.returncode}"


def _fitted(rgb: np.ndarray, height: int, width: int) -> np.ndarray:
    """``rgb`` cropped or padded with black to height x width, anchored at the top left."""
    if rgb.shape[:2] == (height, width):
        return rgb
    fitted = np.zeros((height, width, 3), np.uint8)
    rows, cols = min(height, rgb.shape[0]), min(width, rgb.shape[1])
    fitted[:rows, :cols] = rgb[:rows, :cols]
    return fitted


def _encodable(rgb: np.ndarray) -> np.ndarray:
    """``rgb`` with even sides (its last row and column repeated), contiguous."""
    height, width = rgb.shape[:2]
    if height % 2 or width % 2:
        rgb = np.pad(rgb, ((0, height % 2), (0, width % 2), (0, 0)), mode="edge")
    return np.ascontiguousarray(rgb)
