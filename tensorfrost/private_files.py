"""Files written where another user may have planted something: a directory of ours, and
writes that never follow a link.

A directory is trusted when it belongs to the user and no one else can write it (created
0700 when new). A file in it is written to a new temporary file (``O_EXCL``, 0600) and renamed
over its name, so a symbolic link found there is never followed; a name that holds what is
not a regular file of ours (a link, a directory, another user's file) is left alone and
refused. The compile cache's directory (backend_cpu/disk_cache.py) and IR dumps
(``TENSORFROST_DUMP_IR``, opt/pipeline.py) go through this module; it imports nothing of the
package, so every layer may use it.
"""

from __future__ import annotations

import os
import stat
import tempfile


class UntrustedError(Exception):
    """Why a directory or a file is not ours to write."""


def owned_directory(path: str) -> str:
    """``path`` resolved, created 0700 if new; raises ``UntrustedError`` unless it is a
    directory of this user that others cannot write."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
    except FileExistsError:
        raise UntrustedError("it exists and is not a directory") from None
    except OSError as error:
        raise UntrustedError(f"it cannot be created ({error.strerror})") from None
    directory = os.path.realpath(path)
    try:
        info = os.stat(directory)
    except OSError as error:
        raise UntrustedError(f"it cannot be read ({error.strerror})") from None
    if info.st_uid != os.geteuid():
        raise UntrustedError(f"it is owned by user id {info.st_uid}, not by you (user id {os.geteuid()})")
    if info.st_mode & 0o022:
        raise UntrustedError(f"others can write to it (mode {stat.filemode(info.st_mode)}; 'chmod 700' it to use it)")
    if not os.access(directory, os.W_OK | os.X_OK, effective_ids=os.access in os.supports_effective_ids):
        raise UntrustedError("it is read-only")
    return directory


def replace_file(directory: str, name: str, data: bytes) -> str:
    """Create or replace the file ``name`` (no path separator) of the trusted ``directory``
    with ``data``; returns its path. Raises ``UntrustedError`` when the name holds something
    that is not a regular file of ours, or the file cannot be written."""
    path = os.path.join(directory, name)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    except OSError as error:
        raise UntrustedError(f"{path} cannot be written ({error.strerror})") from None
    if info is not None:
        if stat.S_ISLNK(info.st_mode):
            raise UntrustedError(f"{path} is a symbolic link (tensorfrost never writes through one; remove it)")
        if not stat.S_ISREG(info.st_mode):
            raise UntrustedError(f"{path} exists and is not a regular file")
        if info.st_uid != os.geteuid():
            raise UntrustedError(f"{path} is owned by user id {info.st_uid}, not by you")
    temporary = None
    try:
        fd, temporary = tempfile.mkstemp(dir=directory, prefix=f".tmp-{os.getpid()}-")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(temporary, path)  # (rename replaces a link planted meanwhile, never follows it)
        temporary = None
    except OSError as error:
        raise UntrustedError(f"{path} cannot be written ({error.strerror})") from None
    finally:
        if temporary is not None:
            try:
                os.unlink(temporary)
            except OSError:
                pass
    return path


def new_file_mode(path: str) -> int:
    """The permissions a file written whole beside ``path`` and renamed over it gets (``mkstemp``
    makes it 0600): those of the file it replaces, else what ``open`` would give a new file
    (0666 less the umask)."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        pass
    umask = 0o022
    try:
        with open("/proc/self/status") as f:  # reading the umask without setting it (threads)
            for line in f:
                if line.startswith("Umask:"):
                    umask = int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o666 & ~umask
