"""Every public name of tensorfrost carries a runnable example, and the examples are right.

The public names are ``tf.<name>`` for each name of ``tf.__all__`` and the names of the
public submodules (their ``__all__``, or for those without one the functions and classes
the submodule itself defines). Each function and class (data such as ``tf.float32``,
``tf.KEY_A`` or ``tf.cpu`` needs no example) must have a docstring with a ``>>>``
example, and its examples run as doctests (globals ``tf`` and ``np``),
with numpy printing at a fixed precision so float32 rounding does not decide the text.

The examples run on the numpy interpreter of the IR, the oracle every backend is compared
with by the differential tests, except the ones about the cpu backend itself (its memory,
its cache, its profile, the backend a tensor prints). On cpu each example program would be
one g++ run while the compile cache is cold: measured 115 s of CPU for half of the names
(about 0.3 s a program, 1.5-4 s for linalg), several minutes of the suite's ten, where the
interpreter takes about 30 s for all of them.
"""

import doctest
import types

import numpy as np
import pytest

import tensorfrost as tf

SUBMODULES = ["nn", "linalg", "random", "fft", "sort", "optimizers", "clipping", "regularizers"]

# Names that need a window (an OpenGL context with a display): their examples are written and
# run by tests/test_window.py, not here.
NEEDS_A_WINDOW = {
    "show_window", "hide_window", "window_should_close", "get_window_size", "get_mouse_position",
    "is_mouse_button_pressed", "is_key_pressed", "render_frame",
    "imgui_begin", "imgui_end", "imgui_text", "imgui_slider", "imgui_button", "imgui_checkbox", "imgui_plotlines",
}
WINDOW_MODULES = ("tensorfrost.window", "tensorfrost.imgui")

# Names whose examples show the cpu backend itself: they run there.
ABOUT_THE_CPU_BACKEND = {"tf.clear_cache", "tf.Profile", "tf.profile", "tf.TensorProgram", "tf.from_dlpack",
                         "tf.allocated_memory", "tf.random.Generator", "tf.tensor"}

FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
PRINT_OPTIONS = {"precision": 4, "suppress": True, "linewidth": 88, "threshold": 1000}


def _is_documented_kind(obj) -> bool:
    """Functions and classes need examples; modules are walked, data needs none."""
    return callable(obj) and not isinstance(obj, types.ModuleType)


def _submodule_names(module):
    names = getattr(module, "__all__", None)
    if names is not None:
        return list(names)
    return [name for name, obj in vars(module).items()
            if not name.startswith("_") and getattr(obj, "__module__", None) == module.__name__]


def public_names() -> dict:
    """``{'tf.name': object}`` for every public function and class, each object once (under
    the first name it is reached by), without the names that need a window."""
    found, seen = {}, set()
    pairs = [(name, getattr(tf, name)) for name in tf.__all__ if name not in NEEDS_A_WINDOW]
    for sub in SUBMODULES:
        module = getattr(tf, sub)
        pairs += [(f"{sub}.{name}", getattr(module, name)) for name in _submodule_names(module)]
    for name, obj in pairs:
        if not _is_documented_kind(obj) or id(obj) in seen:
            continue
        seen.add(id(obj))
        found[f"tf.{name}"] = obj
    return found


PUBLIC = public_names()


def test_the_window_exclusions_are_exactly_the_window_names():
    """The list above names every window and imgui function of tf.__all__ and nothing else,
    so a new window function is not silently skipped and no other name hides in the list."""
    window_names = {name for name in tf.__all__ if _is_documented_kind(getattr(tf, name))
                    and getattr(getattr(tf, name), "__module__", None) in WINDOW_MODULES}
    assert window_names == NEEDS_A_WINDOW


def test_the_collection_reaches_the_public_api():
    for name in ("tf.compile", "tf.sqrt", "tf.Tensor", "tf.nn.relu", "tf.linalg.solve", "tf.random.rand",
                 "tf.fft.fft", "tf.sort.sort", "tf.optimizers.adam", "tf.clipping.clip_gradients",
                 "tf.regularizers.decay"):
        assert name in PUBLIC, name
    assert "tf.float32" not in PUBLIC and "tf.KEY_A" not in PUBLIC and "tf.cpu" not in PUBLIC


def _examples(name: str, obj) -> list:
    finder = doctest.DocTestFinder(recurse=False, exclude_empty=True)
    return finder.find(obj, name, module=False, globs={"tf": tf, "np": np})


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_public_name_has_an_example(name):
    tests = _examples(name, PUBLIC[name])
    assert tests and any(test.examples for test in tests), \
        f"{name} has no docstring with a '>>>' example (see {getattr(PUBLIC[name], '__module__', '?')})"


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_public_name_examples_run(name):
    tests = [test for test in _examples(name, PUBLIC[name]) if test.examples]
    if not tests:
        pytest.fail(f"{name} has no example to run (test_public_name_has_an_example says where)")
    tf.initialize(tf.cpu if name in ABOUT_THE_CPU_BACKEND else tf.interpreter)
    report = []
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    try:
        with np.printoptions(**PRINT_OPTIONS):
            failed = sum(runner.run(test, out=report.append).failed for test in tests)
    finally:
        tf.initialize(tf.cpu)  # (an example may choose another backend)
    assert failed == 0, "".join(report)


def test_the_cpu_backend_list_names_public_names():
    assert ABOUT_THE_CPU_BACKEND <= set(PUBLIC)
