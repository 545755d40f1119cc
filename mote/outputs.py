"""Writing what the user asked for without losing what they already have.

A project directory is replaced only when mote wrote it (it carries the PROJECT_MARK file); a file is
written into a temporary sibling and renamed over the target, so a failure leaves the old one intact.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from mote.errors import MoteError

PROJECT_MARK = ".mote-project"
_MARK_TEXT = "Written by mote. mote replaces this directory when asked to write here again.\n"


class OutputError(MoteError):
    """An output path mote refuses to write (it would lose data, or it cannot be written)."""


def safe_file_name(name: str, fallback: str = "model", limit: int = 64) -> str:
    """`name` as a plain file name: letters, digits, '.', '-', '_' only; never hidden, '.', '..' or an
    option (no leading '.', '-' or '_')."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._-")[:limit].strip("._-")
    return cleaned or fallback


def _protected(path: Path) -> str | None:
    """Why `path` (resolved) must never be replaced, or None."""
    if path == Path(path.anchor):
        return "it is the file system root"
    try:
        if path == Path.home().resolve():
            return "it is the home directory"
    except (RuntimeError, KeyError):  # no home directory known
        pass
    try:
        cwd = Path.cwd().resolve()
    except OSError:  # the working directory was removed: it has no parents to protect
        return None
    if cwd == path or path in cwd.parents:
        return "it is the working directory or one of its parents"
    return None


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return path.lstat()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise OutputError(f"{path}: cannot inspect it ({e.strerror})") from None


def check_project_dir(out_dir: Path, what: str = "-o") -> Path:
    """The resolved directory to write a project into, after refusing anything that would lose data."""
    resolved = Path(os.path.abspath(out_dir))
    st = _lstat(resolved)
    if st is not None and stat.S_ISLNK(st.st_mode):
        resolved = resolved.resolve()
        st = _lstat(resolved)
    reason = _protected(resolved)
    if reason:
        raise OutputError(f"{what} {out_dir}: refusing to replace that directory ({reason}); give a new directory")
    if st is None:
        return resolved
    if not stat.S_ISDIR(st.st_mode):
        raise OutputError(f"{what} {out_dir}: exists and is not a directory; give a directory for the project")
    if any(resolved.iterdir()) and not (resolved / PROJECT_MARK).is_file():
        raise OutputError(f"{what} {out_dir}: a non-empty directory that mote did not write; give a new or empty "
                          f"directory (mote only replaces directories holding its {PROJECT_MARK} file)")
    return resolved


def write_project_dir(out_dir: Path, fill: Callable[[Path], None], what: str = "-o") -> None:
    """Fill a temporary sibling of `out_dir` with `fill`, mark it, then swap it into place.

    Parents of a new `out_dir` are created. An existing `out_dir` is replaced only if it is empty or
    mote wrote it (check_project_dir); the old one is removed only once the new one is in place."""
    target = check_project_dir(out_dir, what)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".new", dir=target.parent))
    except OSError as e:
        raise OutputError(f"{what} {out_dir}: cannot create it ({e.strerror})") from None
    old: Path | None = None
    try:
        os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes it private; a project is an ordinary directory
        fill(tmp)
        (tmp / PROJECT_MARK).write_text(_MARK_TEXT)
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=target.parent))
            os.rename(target, old / "project")
        os.rename(tmp, target)
    except OSError as e:
        if old is not None and not target.exists() and (old / "project").exists():
            os.rename(old / "project", target)  # put the previous project back
        shutil.rmtree(tmp, ignore_errors=True)
        raise OutputError(f"{what} {out_dir}: cannot write the project ({e.strerror or e})") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


def check_output_file(path: Path, what: str) -> Path:
    """`path` may be (over)written as a regular file: its parent is a directory, and it is either
    missing or a regular file (never a device, a FIFO or a directory)."""
    path = Path(path)
    parent = path.parent if str(path.parent) else Path(".")
    parent_st = _lstat(parent.resolve())
    if parent_st is None:
        raise OutputError(f"{what} {path}: the directory {parent} does not exist; create it first")
    if not stat.S_ISDIR(parent_st.st_mode):
        raise OutputError(f"{what} {path}: {parent} is not a directory")
    st = _lstat(path)
    if st is not None and stat.S_ISLNK(st.st_mode):
        raise OutputError(f"{what} {path}: is a symbolic link; give a regular file path")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise OutputError(f"{what} {path}: exists and is not a regular file; give a file path")
    return path


@contextlib.contextmanager
def atomic_path(path: Path, what: str) -> Iterator[Path]:
    """A temporary path beside `path` (same suffix) to write; renamed over `path` when the block ends
    without an error, removed otherwise."""
    path = check_output_file(path, what)
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix or ".tmp", dir=path.parent)
    except OSError as e:
        raise OutputError(f"{what} {path}: cannot write there ({e.strerror})") from None
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except OSError as e:
        raise OutputError(f"{what} {path}: cannot write it ({e.strerror or e})") from None
    finally:
        tmp.unlink(missing_ok=True)


def write_file_atomic(path: Path, data: bytes | str, what: str) -> None:
    with atomic_path(path, what) as tmp:
        tmp.write_bytes(data.encode() if isinstance(data, str) else data)


def check_output_root(out_dir: Path, what: str, create: bool = True) -> Path:
    """A directory mote writes files into (created with its parents unless `create` is False, for a
    check before the work); it must not be a file."""
    path = Path(out_dir)
    if (path.exists() or path.is_symlink()) and not path.is_dir():
        raise OutputError(f"{what} {out_dir}: exists and is not a directory; give a directory")
    if not create:
        return path
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OutputError(f"{what} {out_dir}: cannot create it ({e.strerror})") from None
    return path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
