"""The documentation site builds with warnings as errors, has every topic page, and its API
reference renders every public name of tensorfrost and of its public submodules."""

import inspect
import re
import subprocess
import sys
from pathlib import Path

import mkdocs  # noqa: F401  (the `test` extra installs mkdocs and mkdocstrings[python])
import pytest

import tensorfrost as tf

ROOT = Path(__file__).resolve().parent.parent
API = ROOT / "docs" / "api"
TOPICS = ["programs", "control-flow", "autodiff", "library", "backends", "performance", "coming-from"]
SUBMODULES = ["nn", "linalg", "random", "fft", "sort", "optimizers", "clipping", "regularizers", "window", "imgui"]
DIRECTIVE = re.compile(r"^::: (tensorfrost(?:\.\w+)+)\s*$", re.M)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stdout}\n{result.stderr}"
    return out


def api_pages():
    return {page.stem: page.read_text() for page in sorted(API.glob("*.md")) if page.stem != "index"}


def rendered_paths():
    """Each ``::: tensorfrost.x.y`` directive of the API pages, by page."""
    return {name: DIRECTIVE.findall(text) for name, text in api_pages().items()}


def resolve(path):
    obj = tf
    for part in path.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def public_names():
    """(qualified name, object) for tf.__all__ and each public submodule's public names: its
    __all__, else the functions and classes it defines."""
    names = [(f"tf.{n}", getattr(tf, n)) for n in tf.__all__]
    for sub in SUBMODULES:
        module = getattr(tf, sub)
        own = getattr(module, "__all__", None) or [
            n for n, v in vars(module).items()
            if not n.startswith("_") and (inspect.isfunction(v) or inspect.isclass(v))
            and v.__module__ == module.__name__]
        names += [(f"tf.{sub}.{n}", getattr(module, n)) for n in own]
    return [(name, obj) for name, obj in names if not inspect.ismodule(obj)]


def test_site_has_every_topic_page(site):
    for topic in TOPICS:
        page = site / "guide" / topic / "index.html"
        assert page.is_file(), f"topic page {topic} was not built"
        assert "<pre" in page.read_text(), f"topic page {topic} has no code example"
    for page in ("index.html", "design/index.html", "architecture/index.html", "api/index.html"):
        assert (site / page).is_file(), page


def test_api_pages_render_their_names(site):
    for page, paths in rendered_paths().items():
        html = (site / "api" / page / "index.html").read_text()
        for path in paths:
            assert f'id="{path}"' in html, f"{path} is not rendered on api/{page}"
    programs = (site / "api" / "programs" / "index.html").read_text()
    assert 'id="tensorfrost.compile"' in programs and "Compile a tensor program" in programs
    nn = (site / "api" / "nn" / "index.html").read_text()
    assert 'id="tensorfrost.nn.Module"' in nn and 'id="tensorfrost.nn.Conv2d"' in nn


def test_every_public_name_is_in_the_api_reference():
    rendered = {id(resolve(path)) for paths in rendered_paths().values() for path in paths}
    text = "\n".join(api_pages().values())
    missing = []
    for name, obj in public_names():
        if id(obj) in rendered:
            continue
        # Constants and aliases of rendered objects (tf.KEY_A, tf.cpp_lang) are named in the text.
        is_constant = not (inspect.isfunction(obj) or inspect.isclass(obj))
        key = name.startswith("tf.KEY_") and "::: tensorfrost.window.KEYS" in text
        if is_constant and (f"`{name}`" in text or key):
            continue
        missing.append(name)
    assert not missing, f"public names missing from docs/api/*.md (add a ::: directive): {missing}"


def test_readme_points_at_the_docs():
    readme = (ROOT / "README.md").read_text()
    assert "docs/design.md" in readme and "mkdocs serve" in readme
    assert "docs/images/docs-page.png" in readme and (ROOT / "docs" / "images" / "docs-page.png").is_file()
