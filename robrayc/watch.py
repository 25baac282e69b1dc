"""`robrayc ... --watch`: compile, then recompile whenever an input, an include, a URDF or a mesh
the last run read changes (the original's `-R` reload, in spirit).

Files are polled (size, mtime, inode every INTERVAL seconds) rather than watched with inotify:
no extra dependency, and it works the same on network and container file systems. Stop with
Ctrl-C (exit status 130, as any interrupted command).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable

INTERVAL = 0.2  # seconds between polls: well under a human's edit-save-look cycle

Stamp = tuple[int, int, int] | None
_CHANGED: Stamp = (-1, -1, -1)  # equal to no real stamp: the next poll sees a change


def _stamps(files: list[str]) -> list[Stamp]:
    out: list[Stamp] = []
    for name in files:
        try:
            st = os.stat(name)
        except OSError:  # deleted or not there yet: its return is a change too
            out.append(None)
        else:
            out.append((st.st_mtime_ns, st.st_size, st.st_ino))
    return out


def watch(compile_once: Callable[[list[list[str]]], int], stop: tuple[int, ...]) -> int:
    """Run `compile_once(holder)` (which appends lists of the files it reads to `holder`)
    again after every change of those files; returns when a run ends with a `stop` status
    (a usage error, an interrupt)."""
    files: list[str] = []
    while True:
        # Stamps from before the compile: an edit saved while it ran triggers another run
        # (a file first read by this run and changed since it started counts as changed).
        before = dict(zip(files, _stamps(files), strict=True))
        started = time.time_ns() - 20_000_000  # file-system clocks lag by a tick
        holder: list[list[str]] = []
        status = compile_once(holder)
        if status in stop:
            return status
        files = list(dict.fromkeys(name for names in holder for name in names))
        stamps = [before[f] if f in before else
                  (_CHANGED if s is not None and s[0] >= started else s)
                  for f, s in zip(files, _stamps(files), strict=True)]
        verdict = "compiled" if status == 0 else "failed"
        sys.stderr.write(f"robrayc: {verdict} at {time.strftime('%H:%M:%S')}; watching "
                         f"{len(files)} file{'s' if len(files) != 1 else ''} for changes "
                         "(Ctrl-C to stop)\n")
        sys.stderr.flush()
        while _stamps(files) == stamps:
            time.sleep(INTERVAL)
