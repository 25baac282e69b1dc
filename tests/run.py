"""Running robrayc in the tests: one helper, `robrayc(*args)`, and one scene, `SCENE` (the
`scene` fixture of tests/conftest.py writes it to a file).

`robrayc(...)` runs the command in this process (fast: the tests' default) or, with
`process=True`, as `python -m robrayc` in a new one (for exit codes as a shell sees them,
signals, a clean environment).
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

# Every kind of frame and the common shapes, a def, a class, an allowed pair; world poses a
# reader can check by hand: base at the origin, shoulder at (0, 0, 0.5), hand at (0.5, 0, 0.5),
# tip there too, turned a quarter about z.
SCENE = """\
def l 0.5;
class red { color [1, 0, 0]; }
frame base { geometry { shape box; dimension [1, 0.5, 0.25]; isa red; } }
frame shoulder {
    parent base; type revolute; axis [0, 0, 1]; translation [0, 0, l];
    limit_position [-1, 1];
    geometry { shape cylinder; radius 0.05; height l; }
}
frame hand {
    parent shoulder; type prismatic; axis [1, 0, 0]; translation [l, 0, 0];
    geometry { shape sphere; radius 0.1; }
}
frame tip { parent hand; rpy [0, 0, pi / 2]; }
allow_collision base shoulder;
"""


@dataclass
class Run:
    status: int
    out: str
    err: str


def robrayc(*args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None,
            process: bool = False, timeout: float = 600) -> Run:
    """`robrayc ARGS...`: its exit status and what it wrote on stdout and stderr."""
    argv = [str(a) for a in args]
    if process:
        done = subprocess.run([sys.executable, "-m", "robrayc", *argv], cwd=cwd,
                              env={**os.environ, **(env or {})}, capture_output=True,
                              text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        return Run(done.returncode, done.stdout, done.stderr)
    from robrayc.cli.main import main

    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    err = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            _inside(cwd), _environment(env or {}):
        status = main(argv)
    return Run(status, out.buffer.getvalue().decode("utf-8", "replace"), err.getvalue())


@contextlib.contextmanager
def _inside(folder: Path | None) -> Iterator[None]:
    before = os.getcwd()
    if folder is not None:
        os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


@contextlib.contextmanager
def _environment(changes: dict[str, str]) -> Iterator[None]:
    before = {k: os.environ.get(k) for k in changes}
    os.environ.update(changes)
    try:
        yield
    finally:
        for key, value in before.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
