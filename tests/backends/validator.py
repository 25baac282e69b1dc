"""One validator for every registered backend (as sqlglot's Validator is for its dialects).

:func:`compile_to` runs the command on a scene for any name in BACKENDS, choosing the output
path from the backend's registered suffixes (a directory for DIRECTORY backends);
:func:`check_output` reads the result with the real reader of its format where one exists (gcc
and the real amino library for C, check_urdf, MuJoCo, Graphviz, trimesh, lxml, robrayc's own
readers for robray and JSON). A backend registered tomorrow is run by every test that iterates
over BACKENDS; until it gets a reader here its output must only exist and be non-empty.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from robrayc.backends import BACKENDS, load, suffixes
from tests.corpus import REPO
from tests.run import robrayc

NAME = "scene"  # -n NAME: the C symbol suffix
LOCATED_ERROR = re.compile(r"^[^\n:]+:\d+:\d+: error: ", re.M)


@dataclass(frozen=True)
class Run:
    fmt: str
    output: Path
    returncode: int
    stderr: str


def output_path(fmt: str, tmp: Path) -> Path:
    if getattr(load(fmt), "DIRECTORY", False):
        return tmp / f"{fmt}-out"
    ends = suffixes(fmt)
    suffix = ends[0] if ends else ".c" if fmt.startswith("c") else ".out"
    return tmp / f"{fmt}-out{suffix}"


def compile_to(fmt: str, scene: Path, tmp: Path, *args: str) -> Run:
    out = output_path(fmt, tmp)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    r = robrayc(scene, "--format", fmt, "-n", NAME, "-o", out, *args, env=env, timeout=300,
                process=True)
    return Run(fmt, out, r.status, r.err)


def check_run(run: Run) -> None:
    """The run either produced output its reader accepts, or stopped with a located error
    (exit 1, `file:line:col: error:`); never an internal error (exit 3) or a traceback."""
    assert "Traceback" not in run.stderr, run.stderr
    if run.returncode == 1:
        assert LOCATED_ERROR.search(run.stderr), f"{run.fmt}: unlocated error:\n{run.stderr}"
        return
    assert run.returncode == 0, f"{run.fmt}: exit {run.returncode}:\n{run.stderr}"
    check_output(run.fmt, run.output)


def check_output(fmt: str, out: Path) -> None:
    assert out.exists(), f"{fmt}: no output {out}"
    if out.is_dir():
        assert any(out.iterdir()), f"{fmt}: empty directory {out}"
    else:
        assert out.stat().st_size > 0, f"{fmt}: empty output {out}"
    reader = READERS.get(fmt)
    if reader is not None:
        reader(out)


# --- readers ------------------------------------------------------------------------------------


def _run(args: list[str], cwd: Path | None = None) -> None:
    r = subprocess.run(args, capture_output=True, text=True, cwd=cwd, stdin=subprocess.DEVNULL,
                       timeout=600)
    assert r.returncode == 0, f"{' '.join(args)}: exit {r.returncode}\n{r.stdout}{r.stderr}"


def _amino_c(out: Path) -> None:
    from tests import amino_real

    if amino_real.library_built():  # built in CI; loading it proves the C is amino's
        amino_real.load_c(out, NAME)
    else:
        _run(["gcc", "-std=gnu99", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
              f"-I{amino_real.PREFIX / 'include'}", str(out)])


def _standalone_c(out: Path) -> None:
    _run(["gcc", "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-c", str(out),
          "-o", str(out.with_suffix(".o"))])


def _scene_reader(out: Path) -> None:
    from robrayc.frontend import load_scene

    load_scene([str(out)])


def _json(out: Path) -> None:
    json.loads(out.read_text())
    _scene_reader(out)


def _xml(out: Path) -> None:
    from lxml import etree

    etree.parse(str(out), etree.XMLParser(resolve_entities=False, no_network=True))


def _html(out: Path) -> None:
    import lxml.html

    assert lxml.html.parse(str(out)).getroot() is not None


def _urdf(out: Path) -> None:
    _xml(out)
    if shutil.which("check_urdf"):
        _run(["check_urdf", str(out)])


def _mjcf(out: Path) -> None:
    import mujoco

    mujoco.MjModel.from_xml_path(str(out))


def _glb(out: Path) -> None:
    import trimesh

    trimesh.load(str(out), force="scene")


def _png(out: Path) -> None:
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"


def _pov(out: Path) -> None:
    if shutil.which("povray"):  # Debian povray, in .ci/run: parse and render it small
        _run(["povray", f"+I{out}", f"+O{out.with_suffix('.check.png')}", "+W32", "+H24", "-D",
              "-V", "-GS", "-GR"], cwd=out.parent)


def _dot(out: Path) -> None:
    if shutil.which("dot"):  # Graphviz (Debian graphviz, in .ci/run)
        _run(["dot", "-Tsvg", str(out), "-o", str(out.with_suffix(".svg"))])


READERS: dict[str, Callable[[Path], None]] = {
    "c": _amino_c, "c-standalone": _standalone_c, "robray": _scene_reader, "json": _json,
    "urdf": _urdf, "mjcf": _mjcf, "glb": _glb, "png": _png, "dot": _dot, "svg": _xml,
    "pysimiam": _xml, "cajunbot": _xml, "html": _html, "pov": _pov,
}


def every_backend() -> list[str]:
    return sorted(BACKENDS)
