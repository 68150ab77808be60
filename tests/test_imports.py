"""The package's imports point one way: front ends -> tracing -> core IR -> passes -> code
emission -> backends (docs/architecture.md). The graph of module-level imports has no
cycle, and every module imports on its own, first, in a fresh interpreter."""

import ast
import os
import pathlib
import subprocess
import sys

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "tensorfrost"


def _module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[:len(base) - (level - 1)] if level > 1 else base
    return ".".join(base + ([name] if name else []))


def _imports(module: str) -> set[str]:
    """Modules of the package that ``module`` imports when it is imported (top-level
    statements only: imports inside functions run later). ``from package import module``
    is an import of that module; ``from package import name`` one of the package."""
    path = MODULES[module]
    is_package = path.name == "__init__.py"
    found = set()
    for statement in ast.parse(path.read_text()).body:
        for node in ast.walk(statement) if isinstance(statement, (ast.Try, ast.If)) else [statement]:
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name in MODULES}
            elif isinstance(node, ast.ImportFrom):
                target = _resolve(module, is_package, node.level, node.module) if node.level else node.module
                if target in MODULES:
                    submodules = {f"{target}.{a.name}" for a in node.names} & MODULES.keys()
                    found |= submodules if len(submodules) == len(node.names) else submodules | {target}
    found.discard(module)
    return found


def _cycle(graph: dict) -> list[str] | None:
    state: dict = {}
    stack: list[str] = []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_module_imports_have_no_cycle():
    cycle = _cycle({module: _imports(module) for module in MODULES})
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_every_module_imports_first_in_a_fresh_interpreter():
    """Importing ``tensorfrost.a.b`` runs ``tensorfrost/__init__.py`` first, so a module the
    package's own import loads imports first exactly as ``import tensorfrost`` does: that
    import is tried once, and every module it does not load is then tried on its own, with
    the package's modules cleared before each."""
    script = ("import importlib, sys\nfailed = []\n"
              "def fresh(name):\n"
              "    for loaded in [m for m in sys.modules if m == 'tensorfrost' or m.startswith('tensorfrost.')]:\n"
              "        del sys.modules[loaded]\n"
              "    try:\n        importlib.import_module(name)\n"
              "    except Exception as error:\n        failed.append(f'{name}: {type(error).__name__}: {error}')\n"
              "fresh('tensorfrost')\nby_the_package = set(sys.modules)\n"
              "for name in sys.argv[1:]:\n"
              "    if name not in by_the_package:\n        fresh(name)\n"
              "print('\\n'.join(failed))\n")
    env = {**os.environ, "PYOPENGL_PLATFORM": "egl"}  # (headless: PyOpenGL picks its platform on import)
    result = subprocess.run([sys.executable, "-c", script, *MODULES], capture_output=True, text=True, timeout=300,
                            env=env)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "", result.stdout


def test_the_import_leaves_slow_optional_modules_until_used():
    """ml_dtypes takes about a second to import (its bfloat16 registers numpy casts), and
    OpenGL, wgpu and imageio are for some programs only: ``import tensorfrost`` and a cpu
    program load none of them; the first bfloat16 use loads ml_dtypes and gives its dtype."""
    script = ("import sys\nimport numpy as np, tensorfrost as tf\n"
              "tf.initialize(tf.cpu)\n"
              "assert tf.compile(lambda: tf.input([-1], tf.float32) * 2.0)(np.ones(2, np.float32)).numpy[0] == 2\n"
              "print(sorted(m for m in ('ml_dtypes', 'OpenGL', 'wgpu', 'imageio', 'glfw') if m in sys.modules))\n"
              "x = tf.tensor(np.arange(3, dtype=np.float32)).astype(tf.bfloat16)\n"
              "import ml_dtypes\n"
              "print(x.dtype is tf.bfloat16, x.numpy.dtype == ml_dtypes.bfloat16,"
              " x.numpy.astype(np.float32).tolist())\n"
              "print(tf.tensor(np.ones(2, ml_dtypes.bfloat16)).dtype is tf.bfloat16)\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split("\n")[:3] == ["[]", "True True [0.0, 1.0, 2.0]", "True"], result.stdout
