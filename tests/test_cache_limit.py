"""The compile cache's size limit (issue 28, item 6): least recently used entries go when the
files written pass ``TENSORFROST_CACHE_SIZE``; an entry in use (verified, about to be loaded)
never goes; only our entries are removed (never a link, another user's file, a directory, or a
file named otherwise); the directory is walked only when the limit may have been passed; and
``tf.clear_cache()`` empties it. Ages are set with ``os.utime``: a test cannot wait minutes.
Probes: a lock file planted as a link or holding a wrong count, and clock skew."""

import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import tensorfrost as tf
from tensorfrost.backend_cpu import compiler, disk_cache

HOUR = 3600.0


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TENSORFROST_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TENSORFROST_DISABLE", "program_cache")  # one library per program: sizes to reason about
    return tmp_path / "cache"


def _program(constant: float):
    def shifted():
        return tf.input([-1], tf.float32) * constant + 0.5
    return tf.compile(shifted)


def _entries(directory) -> dict:
    return {p.name: p.stat().st_size for p in directory.iterdir() if disk_cache.ENTRY.fullmatch(p.name)}


def _age(directory, seconds: float, names=None) -> None:
    """Make entries look last used ``seconds`` ago."""
    when = time.time() - seconds
    for path in directory.iterdir():
        if disk_cache.ENTRY.fullmatch(path.name) and (names is None or path.name in names):
            os.utime(path, (when, when), follow_symlinks=False)


def _libraries(directory, name: str = "shifted") -> set:
    return {n for n in _entries(directory) if n.startswith(name) and n.endswith(".so")}


def _shift(directory, seconds: float) -> None:
    """Make every entry look used ``seconds`` earlier than it was (their order stays)."""
    for path in directory.iterdir():
        if disk_cache.ENTRY.fullmatch(path.name):
            when = path.lstat().st_mtime - seconds
            os.utime(path, (when, when), follow_symlinks=False)


def test_twelve_programs_stay_within_the_limit_and_the_recently_used_one_stays(cache, monkeypatch):
    """12 programs that differ in one constant used to leave 12 libraries for good."""
    _program(100.0)  # the library of one program, to size the limit by
    (first,) = _libraries(cache)
    entry = sum(size for name, size in _entries(cache).items() if name.startswith(first[:-3]))
    limit = 4 * entry
    monkeypatch.setenv(disk_cache.SIZE_VARIABLE, str(limit))
    used = None
    for k in range(12):
        before = _libraries(cache)
        prog = _program(float(k))
        np.testing.assert_allclose(prog(np.ones(3, np.float32)).numpy, np.full(3, k + 0.5))
        if k == 2:
            (used,) = _libraries(cache) - before
        if k > 2:
            _program(2.0)  # a hit on program 2 marks it used now: least recently used, not first in first out
        _shift(cache, HOUR)  # nothing is in use any more
    total = sum(_entries(cache).values())
    assert total <= limit, (total, limit, sorted(_entries(cache)))
    assert used in _libraries(cache), "the entry used on every step was evicted"
    assert len(_libraries(cache)) < 12 and first not in _libraries(cache)
    before = compiler.CompileStats.compiles
    np.testing.assert_allclose(_program(0.0)(np.ones(2, np.float32)).numpy, [0.5, 0.5])  # evicted: compiled again
    assert compiler.CompileStats.compiles == before + 1


def test_an_entry_verified_a_moment_ago_is_never_evicted(cache, monkeypatch):
    """A hit touches the entry under the lock before it is loaded; eviction spares what was
    touched within IN_USE_SECONDS, so the library is still there when dlopen opens it."""
    _program(1.0)
    (library,) = _libraries(cache)
    key = library[:-3].rpartition("-")[2]
    _age(cache, HOUR)
    assert compiler.cached_library("shifted", key) is not None  # verified: about to be loaded
    monkeypatch.setenv(disk_cache.SIZE_VARIABLE, "0")  # keep nothing that is not in use
    _program(2.0)  # a write that triggers eviction
    assert library in _libraries(cache)
    _age(cache, HOUR, {library, library + ".record"})  # no longer in use: now it goes
    _program(3.0)
    assert library not in _libraries(cache)


def test_eviction_removes_only_our_own_entries(cache, tmp_path, monkeypatch):
    """Files that only look like entries are left alone: a link (to a file of the user's), a
    file of another user, a directory, a file named otherwise, and the key."""
    _program(1.0)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    fake = "shifted-" + "0" * 32
    (cache / (fake + ".so")).symlink_to(victim)
    foreign = cache / ("shifted-" + "1" * 32 + ".so")
    foreign.write_bytes(b"\x7fELF another user's")
    os.chown(foreign, 54321, 54321)  # (the tests run as root in CI; as a user this raises, failing the test)
    (cache / ("shifted-" + "2" * 32 + ".program")).mkdir()
    (cache / "notes.txt").write_text("mine")
    _age(cache, HOUR)
    old = 10 * HOUR
    for path in [cache / (fake + ".so"), foreign, cache / "notes.txt"]:
        os.utime(path, (time.time() - old, time.time() - old), follow_symlinks=False)
    monkeypatch.setenv(disk_cache.SIZE_VARIABLE, "0")
    _program(2.0)
    assert (cache / (fake + ".so")).is_symlink() and victim.read_text() == "precious"
    assert foreign.exists() and (cache / ("shifted-" + "2" * 32 + ".program")).is_dir()
    assert (cache / "notes.txt").read_text() == "mine" and (cache / ".key").exists()
    ours = {n for n in _libraries(cache) if not (cache / n).is_symlink() and (cache / n).stat().st_uid == os.getuid()}
    assert len(ours) == 1  # the new program's: the old one went


def test_the_directory_is_walked_only_when_the_limit_may_be_passed(cache, monkeypatch):
    """Each write adds its size to the total kept in the lock file; the walk happens once to
    start the count and then only when the total passes the limit."""
    walks = []
    real = disk_cache._evict
    monkeypatch.setattr(disk_cache, "_evict", lambda *args: walks.append(args) or real(*args))
    for k in range(6):
        _program(10.0 + k)
    assert len(walks) == 1  # the first write starts the count
    state = (cache / disk_cache.LOCK_NAME).read_bytes()
    counted = int(disk_cache._STATE.fullmatch(state).group(1))
    assert counted == sum(_entries(cache).values())
    monkeypatch.setenv(disk_cache.SIZE_VARIABLE, str(counted + 1))
    _age(cache, HOUR)
    _program(20.0)  # passes the limit: one walk, which evicts
    assert len(walks) == 2 and sum(_entries(cache).values()) <= (counted + 1) * 3 // 4 + 1


def test_clear_cache_removes_every_compiled_program(cache):
    _program(1.0)
    _program(2.0)
    (cache / "notes.txt").write_text("mine")
    sizes = _entries(cache)
    assert tf.clear_cache() == sum(sizes.values()) and _entries(cache) == {}
    assert (cache / "notes.txt").exists() and (cache / ".key").exists()
    before = compiler.CompileStats.compiles
    np.testing.assert_allclose(_program(1.0)(np.ones(2, np.float32)).numpy, [1.5, 1.5])
    assert compiler.CompileStats.compiles == before + 1


@pytest.mark.parametrize("text, value", [("500M", 500 * 2**20), ("2g", 2 * 2**30), ("1.5KiB", 1536),
                                         ("100000", 100000), ("unlimited", None), ("", disk_cache.DEFAULT_LIMIT)])
def test_cache_size_settings(monkeypatch, text, value):
    monkeypatch.setenv(disk_cache.SIZE_VARIABLE, text)
    assert disk_cache.size_limit() == value


def test_a_nonsense_cache_size_is_named_before_compiling(cache, monkeypatch):
    monkeypatch.setenv(disk_cache.SIZE_VARIABLE, "lots")
    before = compiler.CompileStats.compiles
    with pytest.raises(tf.CompilerSetupError, match=r"TENSORFROST_CACHE_SIZE must be a size such as 500M.*'lots'"):
        _program(1.0)
    assert compiler.CompileStats.compiles == before


EVICTING = textwrap.dedent("""
    import os, sys, time
    import numpy as np, tensorfrost as tf
    from tensorfrost.backend_cpu import disk_cache
    tf.initialize(tf.cpu)
    directory = disk_cache.cache_dir()
    for k in range(8):
        c = float(sys.argv[1]) * 100 + k
        prog = tf.compile(lambda: tf.input([-1], tf.float32) * c)
        assert np.allclose(prog(np.ones(4, np.float32)).numpy, c)
        for name in os.listdir(directory):  # what this process wrote is no longer in use
            if disk_cache.ENTRY.fullmatch(name) and "tf_" not in name:
                try:
                    os.utime(os.path.join(directory, name), (time.time() - 3600,) * 2)
                except FileNotFoundError:
                    pass  # evicted by the other process meanwhile
    print("ok")
""")


def test_two_processes_evicting_at_once(tmp_path):
    """Two processes compile into one small cache at once: both give right results, neither
    fails on a file the other removed, and the cache ends within its limit."""
    env = dict(os.environ, TENSORFROST_CACHE_DIR=str(tmp_path / "cache"), TENSORFROST_CACHE_SIZE="120K")
    procs = [subprocess.Popen([sys.executable, "-c", EVICTING, str(k)], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for k in (1, 2)]
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0 and out.strip() == "ok", err[-3000:]
    assert sum(_entries(tmp_path / "cache").values()) <= 120 * 1024


# -- probes (issue 28): the lock file and the clock ----------------------------------------------


def test_a_lock_file_that_is_a_link_is_never_written_through(cache, tmp_path):
    _program(1.0)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (cache / disk_cache.LOCK_NAME).unlink()
    (cache / disk_cache.LOCK_NAME).symlink_to(victim)
    np.testing.assert_allclose(_program(8.0)(np.ones(2, np.float32)).numpy, [8.5, 8.5])
    assert victim.read_text() == "precious" and (cache / disk_cache.LOCK_NAME).is_symlink()


@pytest.mark.parametrize("garbage", [b"", b"tensorfrost cache size 1 99999999999999999999999 0\n", b"\xff" * 64])
def test_a_wrong_count_in_the_lock_file_is_counted_again(cache, monkeypatch, garbage):
    _program(1.0)
    (cache / disk_cache.LOCK_NAME).write_bytes(garbage)
    monkeypatch.setenv(disk_cache.SIZE_VARIABLE, "100M")
    _program(2.0)
    state = disk_cache._STATE.fullmatch((cache / disk_cache.LOCK_NAME).read_bytes())
    on_disk = sum(p.stat().st_size for p in cache.iterdir() if disk_cache.ENTRY.fullmatch(p.name))
    assert state is not None and int(state.group(1)) == on_disk


def test_clock_skew_on_cache_times(cache, monkeypatch):
    """Times ahead of this clock (another machine's, a clock set back) say nothing of use: such
    entries go first; old ones next; entries in use stay. A temporary file of another machine
    dated far ahead is removed like an old one."""
    for constant in (1.0, 2.0, 3.0):
        _program(constant)
    libraries = sorted(cache.glob("shifted*.so"), key=lambda p: p.stat().st_mtime)
    future, past, fresh = libraries
    for path, when in ((future, time.time() + 100 * 24 * HOUR), (past, 0.0)):
        for name in (path, path.with_name(path.name + ".record")):
            os.utime(name, (when, when))
    entry = sum(p.stat().st_size for p in (fresh, fresh.with_name(fresh.name + ".record")))
    total = sum(p.stat().st_size for p in cache.iterdir() if disk_cache.ENTRY.fullmatch(p.name))
    monkeypatch.setenv(disk_cache.SIZE_VARIABLE, str(total - entry // 2))  # one entry has to go
    assert disk_cache._evict(str(cache), total - entry // 2, total - entry // 2) < total
    assert not future.exists() and past.exists() and fresh.exists()
    assert disk_cache._evict(str(cache), 0, 0) > 0 and not past.exists() and fresh.exists()  # in use: kept
    stray = cache / ".tmp-0badc0de-1-abc.so"  # another machine's, dated a year ahead
    stray.write_bytes(b"partial")
    os.utime(stray, (time.time() + 365 * 24 * HOUR,) * 2)
    disk_cache.remove_stale(str(cache))
    assert not stray.exists()
