"""Atomic output: every file of a run is written to a temporary beside its target, then all
are renamed into place together. A failed or interrupted run leaves existing outputs untouched
and no temporary files behind.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
from collections.abc import Iterator
from pathlib import Path

from robrayc.diagnostics import DiagnosticSink, SourcePos


class SpecialTarget(Exception):
    """An output path that is a link into /proc or /dev/fd (e.g. /dev/stdout)."""


def resolve_target(path: Path) -> Path:
    """The file an output really replaces. A symlink is followed, so the link stays and the
    file it names is replaced (renaming onto the link would replace the link itself: once,
    /dev/stdout). A link into /proc or /dev/fd (a descriptor, a pipe) raises SpecialTarget:
    it cannot be replaced atomically; '-o -' is standard output."""
    if not path.is_symlink():
        return path
    current = path
    for _ in range(40):  # the kernel's own bound on link chains
        if not current.is_symlink():
            break
        nxt = Path(os.readlink(current))
        current = nxt if nxt.is_absolute() else current.parent / nxt
        text = os.path.normpath(str(current))
        if text.startswith(("/proc/", "/dev/fd/")) or text in ("/proc", "/dev/fd"):
            raise SpecialTarget(text)
    return Path(os.path.realpath(path))


def check_target(path: Path, sink: DiagnosticSink) -> bool:
    """Report (before any work is done) an output path that cannot be written."""
    try:
        return _check_target(path, sink)
    except (OSError, ValueError) as exc:  # a name too long, a folder we may not search, NUL
        sink.error(f"cannot write '{path}': {getattr(exc, 'strerror', None) or exc}",
                   SourcePos(str(path)))
        return False


def _check_target(path: Path, sink: DiagnosticSink) -> bool:
    where = SourcePos(str(path))
    try:
        path = resolve_target(path)
    except SpecialTarget as exc:
        sink.error(f"cannot write '{where.file}': a link to {exc} (a descriptor, not a file)",
                   where, "use '-o -' for standard output")
        return False
    except OSError as exc:
        sink.error(f"cannot write '{where.file}': {exc.strerror or exc}", where)
        return False
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        sink.error(f"cannot write '{path}': is a directory", where)
        return False
    if path.exists() and not stat.S_ISREG(path.stat().st_mode):
        sink.error(f"cannot write '{path}': not a regular file", where)
        return False
    if not parent.exists():
        probe = parent
        while not probe.exists() and probe != probe.parent:
            probe = probe.parent
        if probe.exists() and not probe.is_dir():
            sink.error(f"cannot write '{path}': '{probe}' is not a directory", where)
        else:
            sink.error(f"cannot write '{path}': directory '{parent}' does not exist", where)
        return False
    if not parent.is_dir():
        sink.error(f"cannot write '{path}': '{parent}' is not a directory", where)
        return False
    return True


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """Hold SIGINT and SIGTERM while outputs are committed: an interrupt then lands before
    anything is replaced or after everything is, never between two renames (nor between a
    temporary's creation and its cleanup being armed).

    Python-level: the handlers only note the signal meanwhile and it is raised again at the
    end. (A thread signal mask is not enough: in a process with other threads the kernel
    delivers a process signal to any thread that does not block it.)"""
    held: list[int] = []
    old = {}
    main_thread = True
    try:
        for signum in (signal.SIGINT, signal.SIGTERM):
            old[signum] = signal.signal(signum, lambda n, _frame: held.append(n))
    except ValueError:  # not the main thread, where alone handlers can be set (asking
        main_thread = False  # threading which thread this is costs every run its import)
    if not main_thread:
        yield
        return
    try:
        yield
    finally:
        for signum, handler in old.items():
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)
        if held:
            signal.raise_signal(held[0])  # now the usual handler runs (or the default kills)


def write_files(files: list[tuple[Path, bytes]], sink: DiagnosticSink,
                if_changed: bool = False) -> bool:
    """Write all files or none. `if_changed` leaves a file with identical content untouched."""
    with signals_deferred():
        return _write_files(files, sink, if_changed)


def _write_files(files: list[tuple[Path, bytes]], sink: DiagnosticSink,
                 if_changed: bool) -> bool:
    pending: list[tuple[str, Path]] = []
    current = Path("?")
    try:
        for path, data in files:
            current = path
            if if_changed and _same_content(path, data):
                continue
            if not check_target(path, sink):
                raise OSError
            path = resolve_target(path)  # checked just above: not special
            parent = path.parent if str(path.parent) else Path(".")
            fd, tmp = _new_temporary(parent, path.name)
            pending.append((tmp, path))
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            _copy_mode(path, tmp)
        _commit(pending)
        pending = []
        return True
    except OSError as exc:
        if exc.args:
            target = getattr(exc, "target", current)
            sink.error(f"cannot write '{target}': {exc.strerror or exc}", SourcePos(str(target)))
        return False
    finally:
        for tmp, _ in pending:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _commit(pending: list[tuple[str, Path]]) -> None:
    """Rename every temporary onto its target; if one rename fails, put back the files the
    earlier ones replaced (kept as hard links while renaming; a file system without hard
    links gets no roll-back) and re-raise with the failing target as `target`."""
    done: list[tuple[Path, str | None]] = []
    last = len(pending) - 1
    try:
        for i, (tmp, path) in enumerate(pending):
            # the last rename has no later one whose failure would undo it: no backup (a
            # one-output compile saves a link and an unlink)
            backup = _backup(path) if i < last else None
            try:
                os.replace(tmp, path)
            except OSError as exc:
                if backup is not None:
                    os.unlink(backup)
                exc.target = path  # type: ignore[attr-defined]
                raise
            done.append((path, backup))
    except OSError:
        for path, backup in reversed(done):
            try:
                if backup is not None:
                    os.replace(backup, path)
                else:
                    os.unlink(path)
            except OSError:
                pass
        done = []
        raise
    finally:
        for _, backup in done:
            if backup is not None:
                try:
                    os.unlink(backup)
                except OSError:
                    pass


def _new_temporary(parent: Path, name: str) -> tuple[int, str]:
    """What tempfile.mkstemp gives (a new file of mode 0600 beside the target, opened
    exclusively, its absolute name), without importing tempfile and shutil on every run."""
    for _ in range(100):
        tmp = os.path.abspath(parent / f".{name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside '{parent / name}'")


def _backup(path: Path) -> str | None:
    """A hard link to the existing `path` beside it (None: no file, or no hard links)."""
    if not path.is_file() or path.is_symlink():
        return None
    parent = path.parent if str(path.parent) else Path(".")
    for _ in range(10):
        name = str(parent / f".{path.name}.{os.urandom(6).hex()}.old")
        try:
            os.link(path, name)
            return name
        except FileExistsError:
            continue
        except OSError:
            return None
    return None


def _same_content(path: Path, data: bytes) -> bool:
    try:
        return path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data
    except OSError:
        return False


def _copy_mode(target: Path, tmp: str | Path, new_mode: int = 0o666) -> None:
    """A replaced output keeps its mode; a new one gets the usual `new_mode` & ~umask
    (mkstemp makes files 0600 and mkdtemp folders 0700)."""
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = new_mode & ~umask
    os.chmod(tmp, mode)


def write_directory(path: Path, files: dict[str, bytes], sink: DiagnosticSink) -> bool:
    """Replace a whole output directory: build it beside the target, then swap it in."""
    with signals_deferred():  # between the two renames the target does not exist
        return _write_directory(path, files, sink)


def _write_directory(path: Path, files: dict[str, bytes], sink: DiagnosticSink) -> bool:
    try:
        path = resolve_target(path)  # a symlinked output folder stays a symlink
    except SpecialTarget as exc:
        sink.error(f"cannot write directory '{path}': a link to {exc}", SourcePos(str(path)))
        return False
    parent = path.parent if str(path.parent) else Path(".")
    if path.exists() and not path.is_dir():
        sink.error(f"cannot write directory '{path}': a file is in the way", SourcePos(str(path)))
        return False
    import shutil
    import tempfile

    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=parent))
    except OSError as exc:
        sink.error(f"cannot write '{path}': {exc.strerror or exc}", SourcePos(str(path)))
        return False
    old = None
    try:
        for name, data in files.items():
            (tmp / name).write_bytes(data)
        _copy_mode(path, tmp, 0o777)
        if path.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{path.name}.old.", dir=parent))
            os.rmdir(old)
            os.replace(path, old)
        os.replace(tmp, path)
        return True
    except OSError as exc:
        if old is not None and not path.exists():
            os.replace(old, path)
            old = None
        sink.error(f"cannot write '{path}': {exc.strerror or exc}", SourcePos(str(path)))
        return False
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
