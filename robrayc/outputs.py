"""Atomic output: every file of a run is written to a temporary beside its target, then all
are renamed into place together. A failed or interrupted run leaves existing outputs untouched
and no temporary files behind.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

from robrayc.diagnostics import DiagnosticSink, SourcePos


def check_target(path: Path, sink: DiagnosticSink) -> bool:
    """Report (before any work is done) an output path that cannot be written."""
    where = SourcePos(str(path))
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


def write_files(files: list[tuple[Path, bytes]], sink: DiagnosticSink,
                if_changed: bool = False) -> bool:
    """Write all files or none. `if_changed` leaves a file with identical content untouched."""
    pending: list[tuple[str, Path]] = []
    try:
        for path, data in files:
            if if_changed and _same_content(path, data):
                continue
            if not check_target(path, sink):
                raise OSError
            parent = path.parent if str(path.parent) else Path(".")
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=parent)
            pending.append((tmp, path))
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            _copy_mode(path, tmp)
        for tmp, path in pending:
            os.replace(tmp, path)
        pending = []
        return True
    except OSError as exc:
        if exc.args:
            target = pending[-1][1] if pending else Path("?")
            sink.error(f"cannot write '{target}': {exc.strerror or exc}", SourcePos(str(target)))
        return False
    finally:
        for tmp, _ in pending:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _same_content(path: Path, data: bytes) -> bool:
    try:
        return path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data
    except OSError:
        return False


def _copy_mode(target: Path, tmp: str) -> None:
    """New files get the usual 0666 & ~umask (mkstemp makes them 0600)."""
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    os.chmod(tmp, mode)


def write_directory(path: Path, files: dict[str, bytes], sink: DiagnosticSink) -> bool:
    """Replace a whole output directory: build it beside the target, then swap it in."""
    parent = path.parent if str(path.parent) else Path(".")
    if path.exists() and not path.is_dir():
        sink.error(f"cannot write directory '{path}': a file is in the way", SourcePos(str(path)))
        return False
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=parent))
    except OSError as exc:
        sink.error(f"cannot write '{path}': {exc.strerror or exc}", SourcePos(str(path)))
        return False
    old = None
    try:
        for name, data in files.items():
            (tmp / name).write_bytes(data)
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
