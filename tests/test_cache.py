"""The on-disk cache of compiled programs: a second process compiles nothing, a corrupted
entry is rebuilt rather than loaded, and processes compiling at once never clash. It is
trusted only as far as it deserves: a library planted in it is never loaded, a source file
found in it is never compiled, a directory others can write is not used, and a warm cache
needs no compiler. The compiler driver turns every bad setup into a clear CompilerSetupError."""

import hashlib
import os
import shutil
import stat
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import tensorfrost as tf
from tensorfrost.backend_cpu import compiler

SCRIPT = textwrap.dedent("""
    import os
    if os.environ.get("TF_NO_SPAWN"):  # a cache hit must start no process
        import subprocess
        def forbidden(*args, **kwargs):
            raise AssertionError("a process was started: " + repr(args))
        subprocess.Popen._execute_child = forbidden
        os.system = os.posix_spawn = os.posix_spawnp = os.fork = forbidden
    import numpy as np
    import tensorfrost as tf
    from tensorfrost.backend_cpu.compiler import CompileStats

    def wave():
        u = tf.input([-1, -1], tf.float32)
        i, j = u.indices
        return u[i - 1, j] + u[i + 1, j] - u * {coefficient}

    prog = tf.compile(wave)
    if os.environ.get("TF_SOURCE_OUT"):
        with open(os.environ["TF_SOURCE_OUT"], "w") as f:
            f.write(prog.compiled_code())
    out = prog(np.ones((8, 8), np.float32)).numpy
    assert np.allclose(out, 2.0 - {coefficient}), out
    print("compiles", CompileStats.compiles, "hits", CompileStats.cache_hits)
""")


def _run(cache_dir, coefficient=3.0, background=False, **env):
    env = dict(os.environ, TENSORFROST_CACHE_DIR=str(cache_dir), **env)
    args = [sys.executable, "-c", SCRIPT.format(coefficient=coefficient)]
    if background:
        return subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    result = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def _library(cache_dir):
    (library,) = [p for p in cache_dir.iterdir() if p.suffix == ".so" and p.name.startswith("wave")]
    return library


@pytest.fixture
def cache_dir(tmp_path):
    return tmp_path / "cache"


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    """A cache of this test, for the process itself."""
    monkeypatch.setenv("TENSORFROST_CACHE_DIR", str(tmp_path / "private"))
    return tmp_path / "private"


def test_second_process_compiles_nothing(cache_dir):
    first = _run(cache_dir)
    assert first[0] == "compiles" and int(first[1]) >= 1  # the program (and the buffer pool)
    second = _run(cache_dir)
    assert second[:2] == ["compiles", "0"] and int(second[3]) == int(first[1])


def test_corrupted_entry_is_rebuilt(cache_dir):
    _run(cache_dir)
    library = _library(cache_dir)
    data = library.read_bytes()
    library.write_bytes(data[: len(data) // 2])  # a truncated library
    assert _run(cache_dir)[:2] == ["compiles", "1"]
    library.write_bytes(b"\x7fELF garbage" + data[12:])  # same size, wrong content
    assert _run(cache_dir)[:2] == ["compiles", "1"]
    assert _run(cache_dir)[:2] == ["compiles", "0"]
    for record in cache_dir.glob("wave*.record"):  # a torn record: rebuilt too
        record.write_bytes(record.read_bytes()[:20])
    assert _run(cache_dir)[:2] == ["compiles", "1"]


def test_concurrent_processes_never_see_half_a_file(cache_dir):
    procs = [_run(cache_dir, background=True) for _ in range(3)]
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    assert _run(cache_dir)[:2] == ["compiles", "0"]
    leftovers = [p.name for p in cache_dir.iterdir() if p.name.startswith(".tmp-")]
    assert leftovers == []


# -- what is loaded and compiled ----------------------------------------------------------------


def test_a_planted_library_with_its_checksum_is_never_loaded(cache_dir, tmp_path):
    """Whoever can put a library in the cache can write its checksum too: only a record
    signed with the user's secret key lets a library be loaded."""
    _run(cache_dir)
    library = _library(cache_dir)
    canary = tmp_path / "planted_library_ran"
    planted = tmp_path / "planted.c"
    planted.write_text('#include <stdio.h>\n__attribute__((constructor)) static void planted(void) {\n'
                       f'    FILE* f = fopen("{canary}", "w");\n    if (f) fclose(f);\n}}\n')
    subprocess.run(["g++", "-x", "c", "-shared", "-fPIC", "-o", str(library), str(planted)], check=True)
    digest = hashlib.sha256(library.read_bytes()).hexdigest()
    library.with_name(library.name + ".sha256").write_text(digest)
    assert _run(cache_dir)[:2] == ["compiles", "1"]  # rebuilt, correct results
    assert not canary.exists(), "a library planted in the cache was loaded"
    assert _run(cache_dir)[:2] == ["compiles", "0"]


def test_a_source_file_in_the_cache_is_never_compiled(cache_dir, tmp_path):
    """An edited .cpp beside a removed library: the library is rebuilt from the source
    generated in memory, so results stay right."""
    dumped = tmp_path / "source.cpp"
    _run(cache_dir, coefficient=3.25, TF_SOURCE_OUT=str(dumped))
    source = dumped.read_text()
    assert "3.25f" in source
    library = _library(cache_dir)
    library.unlink()
    library.with_suffix(".cpp").write_text(source.replace("3.25f", "5.25f"))  # where it used to be kept
    assert _run(cache_dir, coefficient=3.25)[:2] == ["compiles", "1"]


# -- the directory ------------------------------------------------------------------------------


def _fallback_warning(configured):
    with pytest.warns(UserWarning) as caught:
        directory = compiler.cache_dir()
    message = str(caught[0].message)
    assert repr(str(configured)) in message and directory in message
    info = os.stat(directory)
    assert directory != str(configured) and info.st_uid == os.geteuid() and stat.S_IMODE(info.st_mode) == 0o700
    return message


def _compiles_there(private_cache):
    def program():
        return tf.input([-1], tf.float32) * 4.0 + 0.125  # a source no other test builds
    assert tf.compile(program)(np.ones(2, np.float32)).numpy.tolist() == [4.125, 4.125]


def test_a_directory_others_can_write_is_refused(tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("TENSORFROST_CACHE_DIR", str(shared))
    assert "others can write to it" in _fallback_warning(shared)
    _compiles_there(shared)
    assert list(shared.iterdir()) == []


def test_a_directory_of_another_user_is_refused(tmp_path, monkeypatch):
    theirs = tmp_path / "theirs"
    if os.geteuid() == 0:
        theirs.mkdir()
        os.chown(theirs, 65534, 65534)
    else:
        theirs = "/usr"  # root's, and read-only to us
    monkeypatch.setenv("TENSORFROST_CACHE_DIR", str(theirs))
    assert "not by you" in _fallback_warning(theirs)


def test_a_new_cache_directory_is_private(tmp_path, monkeypatch):
    monkeypatch.setenv("TENSORFROST_CACHE_DIR", str(tmp_path / "new"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert compiler.cache_dir() == str(tmp_path / "new")
    assert stat.S_IMODE(os.stat(tmp_path / "new").st_mode) == 0o700
    assert stat.S_IMODE(os.stat(tmp_path / "new" / ".key").st_mode) == 0o600


def test_a_file_or_uncreatable_cache_path_falls_back(tmp_path, monkeypatch):
    file = tmp_path / "file"
    file.write_text("not a directory")
    monkeypatch.setenv("TENSORFROST_CACHE_DIR", str(file))
    assert "not a directory" in _fallback_warning(file)
    _compiles_there(file)
    monkeypatch.setenv("TENSORFROST_CACHE_DIR", str(file / "below"))
    assert "cannot be created" in _fallback_warning(file / "below")
    assert file.read_text() == "not a directory"


def _read_only_directory(tmp_path):
    if os.geteuid() != 0:
        path = tmp_path / "read_only"
        path.mkdir()
        path.chmod(0o500)
        return path
    for path in ("/proc/sys", "/sys"):  # root writes through permission bits: a read-only mount then
        if os.path.isdir(path) and os.stat(path).st_uid == 0 and not os.access(path, os.W_OK):
            return path
    pytest.skip("running as root, and no read-only file system (/proc/sys, /sys) to point the cache at")


def test_a_read_only_cache_directory_falls_back(tmp_path, monkeypatch):
    read_only = _read_only_directory(tmp_path)
    monkeypatch.setenv("TENSORFROST_CACHE_DIR", str(read_only))
    assert "read-only" in _fallback_warning(read_only)
    _compiles_there(read_only)


def test_a_cache_hit_needs_no_compiler_and_starts_no_process(cache_dir):
    first = _run(cache_dir)
    env = {k: v for k, v in os.environ.items() if k != "CXX"}
    env.update(PATH=os.path.join(str(cache_dir), "no_such_bin"), TF_NO_SPAWN="1")
    args = [sys.executable, "-c", SCRIPT.format(coefficient=3.0)]
    result = subprocess.run(args, env=dict(env, TENSORFROST_CACHE_DIR=str(cache_dir)), capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[:4] == ["compiles", "0", "hits", first[1]]


# -- the compiler driver ------------------------------------------------------------------------


def _source(tag: str) -> str:
    return f"int tf_cache_test_{tag}(void) {{ return 7; }}\n"


def test_cxx_that_does_not_exist_names_cxx(private_cache, monkeypatch):
    monkeypatch.setenv("CXX", "/nonexistent/g++")
    with pytest.raises(tf.CompilerSetupError, match=r"CXX='/nonexistent/g\+\+' cannot be run: No such file"):
        compiler.build_library(_source("missing"), "missing", language="c")

    def program():
        return tf.input([-1], tf.float32) * 4.0 + 0.375
    with pytest.raises(tf.CompilerSetupError) as info:
        tf.compile(program)
    assert "CXX='/nonexistent/g++'" in str(info.value) and "bug in tensorfrost" not in str(info.value)
    monkeypatch.setenv("CXX", 'g++ "-O2')
    with pytest.raises(tf.CompilerSetupError, match="CXX='g\\+\\+ \"-O2' is not a command"):
        compiler.build_library(_source("quote"), "quote", language="c")


def test_cxx_with_arguments_is_split_into_words(private_cache, monkeypatch):
    monkeypatch.setenv("CXX", "g++ -O0")
    compiles = compiler.CompileStats.compiles
    path = compiler.build_library(_source("words"), "words", language="c")
    assert open(path, "rb").read(4) == b"\x7fELF" and compiler.CompileStats.compiles == compiles + 1


def test_a_compiler_that_writes_nothing_is_an_error_and_nothing_is_cached(private_cache, monkeypatch):
    monkeypatch.setenv("CXX", shutil.which("true"))
    for _ in range(2):  # never cached: the second attempt fails the same way
        with pytest.raises(tf.CompilerSetupError, match=r"CXX='.*true' exited successfully but wrote an empty file"):
            compiler.build_library(_source("nothing"), "nothing", language="c")
    assert [p.name for p in private_cache.iterdir() if p.name != ".key"] == []


def test_a_bad_timeout_setting_is_named(private_cache, monkeypatch):
    monkeypatch.setenv(compiler.TIMEOUT_VARIABLE, "soon")
    with pytest.raises(tf.CompilerSetupError, match="TENSORFROST_COMPILE_TIMEOUT must be a positive number.*'soon'"):
        compiler.build_library(_source("timeout"), "timeout", language="c")


def test_a_400_character_program_name_compiles(private_cache):
    def program():
        return tf.input([-1], tf.float32) + 0.625
    long_name = "n" * 400
    compiled = tf.compile(program, name=long_name)
    assert compiled(np.zeros(2, np.float32)).numpy.tolist() == [0.625, 0.625]
    assert all(len(p.name) < 100 for p in private_cache.iterdir())


# -- large programs: translation units compiled in parallel ---------------------------------------


def _particles(steps):
    """A program of several kernels (a pairwise sum, an update, a reduction), in a host loop."""
    def particles():
        x = tf.input([-1], tf.float32)
        n = x.shape[0]
        pos, vel = x * 1.0, tf.zeros([n])
        i, = pos.indices
        with tf.loop(steps):
            force = tf.zeros([n])
            with tf.loop(n) as j:
                force.val = force + tf.tanh(pos[j] - pos[i])
            vel.val = vel * 0.9 + force * 0.01
            pos.val = pos + vel * 0.1
        return [pos, tf.sum(pos * pos)]
    return particles


def _particles_numpy(x, steps):
    pos, vel = x.astype(np.float64), np.zeros(len(x))
    for _ in range(steps):
        vel = vel * 0.9 + np.tanh(pos[None, :] - pos[:, None]).sum(axis=1) * 0.01
        pos = pos + vel * 0.1
    return pos, (pos * pos).sum()


@pytest.mark.parametrize("units", [1, 2, 3])
def test_a_program_split_into_units_computes_the_same(private_cache, monkeypatch, units):
    """A large program is compiled as several units at once and linked: its kernels, the
    host code calling them across units, and the globals they share (where a failed check's
    message goes) work as in one unit; only tf_main is exported."""
    from tensorfrost.backend_cpu import runtime
    monkeypatch.setattr(runtime, "unit_count", lambda characters: units)
    x = np.random.default_rng(1).normal(size=37).astype(np.float32)
    pos, energy = tf.compile(_particles(4))(x)
    want_pos, want_energy = _particles_numpy(x, 4)
    np.testing.assert_allclose(pos.numpy, want_pos, rtol=1e-5, atol=1e-5)  # float32 over 4 steps of 37 terms
    np.testing.assert_allclose(energy.numpy, want_energy, rtol=1e-5)

    def checked():
        a = tf.input([-1], tf.float32)
        b = tf.input([-1], tf.float32)
        return [tf.sum(a * b), a * 2.0 + b]
    dot = tf.compile(checked)
    with pytest.raises(tf.RuntimeCheckError, match=r"b.shape\[0\] is 4 .* which is 3"):  # written across units
        dot(np.ones(3, np.float32), np.ones(4, np.float32))
    libraries = [p for p in private_cache.iterdir() if p.suffix == ".so" and p.name.startswith("particles")]
    assert len(libraries) == 1
    nm = shutil.which("nm")
    if nm is not None:  # binutils come with g++
        exported = subprocess.run([nm, "-D", "--defined-only", str(libraries[0])], capture_output=True, text=True,
                                  check=True).stdout.split()
        assert "tf_main" in exported and not any(name.startswith("particles") for name in exported)


def test_only_large_programs_are_split_and_into_at_most_one_unit_per_core(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2}, raising=False)
    assert compiler.unit_count(compiler.UNIT_CHARACTERS - 1) == 1
    assert compiler.unit_count(2 * compiler.UNIT_CHARACTERS) == 2
    assert compiler.unit_count(100 * compiler.UNIT_CHARACTERS) == 3


def test_a_unit_that_fails_is_named_and_kept_and_a_failed_link_is_an_error(private_cache):
    good = "int tf_cache_test_unit_a(void) { return 1; }\n"
    kept = r"(?s)failed on the generated source (\S*\.failed\.c):\n.*\n\1:1:\d+: error"  # lines of the kept file
    with pytest.raises(tf.CompileError, match=kept):
        compiler.build_library([good, "int tf_cache_test_unit_b(void) { return }\n"], "units", language="c")
    assert [p.name for p in private_cache.iterdir() if p.name.endswith(".failed.c")] != []
    with pytest.raises(tf.CompileError, match="(?s)failed on linking the generated program:\n.*tf_cache_test_unit_a"):
        compiler.build_library([good, good], "units", language="c")  # defined twice
    assert [p.name for p in private_cache.iterdir() if p.name.startswith(".tmp-")] == []
    path = compiler.build_library([good, "int tf_cache_test_unit_b(void) { return 2; }\n"], "units", language="c")
    assert open(path, "rb").read(4) == b"\x7fELF"


# -- unloading ----------------------------------------------------------------------------------

UNLOADING = textwrap.dedent("""
    import gc
    import numpy as np
    import tensorfrost as tf
    from tensorfrost.backend_cpu.compiler import cache_dir

    def mapped():
        with open("/proc/self/maps") as f:
            return {line.split()[-1] for line in f if cache_dir() in line}

    def run_once(offset):  # a grid large enough for OpenMP threads, dropped after the call
        def program():
            return tf.input([-1], tf.float32) * 2.0 + offset
        out = tf.compile(program)(np.ones(1 << 16, np.float32)).numpy
        assert (out == 2.0 + offset).all()

    run_once(0.5)
    gc.collect()
    before = mapped()
    for k in range(4):
        run_once(1.5 + k)
    gc.collect()
    after = mapped()
    assert after == before, (before, after)
    run_once(7.5)  # the OpenMP threads of the closed libraries still work
    print("unloaded", len(before))
""")


def test_dropped_programs_unload_their_libraries(cache_dir):
    """A dropped program's library is closed (the mapped libraries do not grow), and the
    threads it used keep working for the next program."""
    if not os.path.exists("/proc/self/maps"):
        pytest.skip("no /proc/self/maps to count loaded libraries in")
    env = dict(os.environ, TENSORFROST_CACHE_DIR=str(cache_dir))
    result = subprocess.run([sys.executable, "-c", UNLOADING], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split()[0] == "unloaded"
