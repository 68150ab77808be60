"""tf.window.record under a private Xvfb display: the frames shown (ImGui included) come back
from the video, read with imageio, in number and colour; the file appears whole on success,
with the umask's mode, and not at all on an error; bad arguments and a missing imageio-ffmpeg
are named."""

import os
import stat
import sys

import imageio.v2 as imageio
import numpy as np
import pytest

import tensorfrost as tf

WIDTH, HEIGHT = 64, 48
# Left and right halves of each frame: 8-bit levels far enough apart that H.264's loss
# (a few levels at crf 18, chroma shared by 2x2 pixels) cannot mistake one for another.
COLOURS = [((200, 30, 30), (30, 200, 30)), ((30, 30, 200), (220, 220, 40)), ((120, 120, 120), (10, 10, 10)),
           ((240, 240, 240), (60, 20, 160))]
TOLERANCE = 6  # levels, on the mean of a flat half away from its edge


@pytest.fixture
def window(x_display):
    tf.show_window(WIDTH, HEIGHT, "tensorfrost video")
    yield tf.window
    tf.hide_window()


def _halves(left, right) -> np.ndarray:
    """A [2, 2, 3] image whose left column is ``left`` and right column ``right`` (levels)."""
    image = np.empty((2, 2, 3), np.float32)
    image[:, 0], image[:, 1] = np.array(left) / 255, np.array(right) / 255
    return image


def _frames(path) -> list[np.ndarray]:
    with imageio.get_reader(str(path), format="FFMPEG") as reader:
        return [np.asarray(frame) for frame in reader]


def test_recorded_frames_come_back_in_number_and_colour(window, tmp_path):
    path = tmp_path / "halves.mp4"
    previous = os.umask(0o027)
    try:
        with tf.window.record(path, fps=10) as recording:
            for left, right in COLOURS:
                tf.render_frame(_halves(left, right))
            assert recording.frames == len(COLOURS)
            assert not path.exists()  # ffmpeg writes beside it until the block ends
    finally:
        os.umask(previous)
    assert sorted(os.listdir(tmp_path)) == ["halves.mp4"]  # no temporary file left
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640  # as open() would make it under that umask
    frames = _frames(path)
    assert len(frames) == len(COLOURS)
    for frame, (left, right) in zip(frames, COLOURS):
        assert frame.shape == (HEIGHT, WIDTH, 3)
        margin = 4  # pixels kept away from the edge between the halves (chroma blurs across it)
        np.testing.assert_allclose(frame[:, :WIDTH // 2 - margin].reshape(-1, 3).mean(0), left, atol=TOLERANCE)
        np.testing.assert_allclose(frame[:, WIDTH // 2 + margin:].reshape(-1, 3).mean(0), right, atol=TOLERANCE)


def test_imgui_panels_are_in_the_video_and_odd_sizes_are_padded(window, tmp_path):
    tf.show_window(161, 121, "odd")  # odd sides: the video has even ones, the last row/column repeated
    for _ in range(20):  # the X server applies the size asynchronously
        tf.render_frame(np.zeros((2, 2, 3), np.float32))
        if tf.get_window_size() == (161, 121):
            break
    path = tmp_path / "panel.mkv"
    with tf.window.record(str(path), fps=24):
        for _ in range(3):
            tf.imgui_begin("panel")
            tf.imgui_text("in the video")
            tf.imgui_end()
            tf.render_frame(np.zeros((2, 2, 3), np.float32))
        shown = tf.window.read_frame()[::-1].astype(float)  # the last frame, ImGui included, top row first
    frames = _frames(path)
    assert len(frames) == 3 and frames[-1].shape == (122, 162, 3)
    recorded = frames[-1][:121, :161].astype(float)
    assert recorded.mean() > 10  # the panel, over a black image: 0.85 levels off the frame shown, 17 without it
    assert np.abs(recorded - shown).mean() < 3.0  # lossy, but the same picture: text edges cost the most
    np.testing.assert_array_equal(frames[-1][121], frames[-1][120])  # the padding repeats the last row


def test_an_error_or_no_frame_leaves_no_file(window, tmp_path):
    path = tmp_path / "never.mp4"
    with pytest.raises(ZeroDivisionError):
        with tf.window.record(path):
            tf.render_frame(_halves((0, 0, 0), (255, 255, 255)))
            raise ZeroDivisionError
    with pytest.raises(tf.TensorFrostError, match="no frame was rendered while recording"):
        with tf.window.record(path):
            pass
    assert os.listdir(tmp_path) == []
    with tf.window.record(path) as first:  # the window records one video at a time
        tf.render_frame(_halves((0, 0, 0), (255, 255, 255)))
        with pytest.raises(tf.TensorFrostError, match="never.mp4 is being recorded already"):
            with tf.window.record(tmp_path / "second.mp4"):
                pass
    assert first.frames == 1 and sorted(os.listdir(tmp_path)) == ["never.mp4"]


def test_bad_arguments_and_a_missing_imageio_ffmpeg_are_named(window, tmp_path, monkeypatch):
    with pytest.raises(tf.ArgumentError, match="path's directory .*missing.* does not exist"):
        tf.window.record(tmp_path / "missing" / "out.mp4")
    with pytest.raises(tf.ArgumentError, match=r"path must end in one of \.mp4, \.mkv, \.mov .*got '.*out\.gif'"):
        tf.window.record(tmp_path / "out.gif")
    with pytest.raises(tf.ArgumentError, match="fps must be a number of frames per second in .*got 0"):
        tf.window.record(tmp_path / "out.mp4", fps=0)
    with pytest.raises(tf.ArgumentError, match="path must be a file name, got a int"):
        tf.window.record(3)
    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)  # import imageio_ffmpeg now raises ImportError
    with pytest.raises(tf.TensorFrostError, match=r'needs imageio-ffmpeg .*pip install "tensorfrost\[video\]"'):
        tf.window.record(tmp_path / "out.mp4")
    monkeypatch.undo()
    tf.hide_window()
    with pytest.raises(tf.TensorFrostError, match="no window is open: call tf.show_window"):
        tf.window.record(tmp_path / "out.mp4")
    assert os.listdir(tmp_path) == []
