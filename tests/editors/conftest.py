"""Shared helpers for the editor tests: the real editors, a real robrayc, the fixture."""

from __future__ import annotations

import os
import re
import shutil
import stat
import sys
from pathlib import Path

import pytest

from tests.run import robrayc

REPO = Path(__file__).resolve().parents[2]
EDITORS = REPO / "editors"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SAMPLE = FIXTURES / "sample.robray"


def require_program(name: str) -> str:
    """Path of an editor binary; skip when absent, except in CI where it must be installed."""
    path = shutil.which(name)
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{name} is not installed (CI installs it: see .ci/run)")
        pytest.skip(f"{name} is not installed")
    return path


def robrayc_executable(tmp_dir: Path) -> str:
    """A `robrayc` command an editor can run: the installed script next to this Python, else a
    wrapper running `python -m robrayc` with this interpreter."""
    beside = Path(sys.executable).parent / "robrayc"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    wrapper = tmp_dir / "robrayc"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m robrayc "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    return str(wrapper)


BROKEN = """frame base {
    translation [0, 0, 1];
}

frame arm {
    parent base;
    tranlsation [1, 2, 3];
}
"""


@pytest.fixture
def broken_scene(tmp_path: Path) -> tuple[Path, str]:
    """A scene with a misspelt attribute on line 7, col 5, and robrayc's real stderr for it."""
    path = tmp_path / "broken.robray"
    path.write_text(BROKEN)
    run = robrayc(path.name, cwd=tmp_path, process=True, timeout=120)
    assert run.status == 1, run.err
    assert f"{path.name}:7:5: error:" in run.err, run.err
    return path, run.err


# --- what every highlighter must say about the fixture ----------------------------------------

def find_token(token: str, occurrence: int = 0, context: str | None = None) -> tuple[int, int]:
    """(line index, char index) of the `occurrence`-th whole-token match of `token` in the
    fixture, optionally only on lines matching the regex `context`."""
    pat = re.compile(r"(?<![\w-])" + re.escape(token) + r"(?![\w-])") if token[0].isalnum() \
        else re.compile(re.escape(token))
    seen = 0
    for i, line in enumerate(SAMPLE.read_text(encoding="utf-8").split("\n")):
        if context is not None and not re.search(context, line):
            continue
        for m in pat.finditer(line):
            if seen == occurrence:
                return i, m.start()
            seen += 1
    raise AssertionError(f"{token!r} not in fixture")


# (token, occurrence, line context regex, expected vim group)
EXPECTED_GROUPS = [
    # keywords
    ("include", 0, None, "robrayInclude"),
    ("def", 0, None, "robrayDefine"),
    ("class", 0, r"^class red", "robrayKeyword"),
    ("frame", 0, r"^frame base", "robrayKeyword"),
    ("object", 0, None, "robrayKeyword"),
    ("geometry", 0, None, "robrayKeyword"),
    ("allow_collision", 0, None, "robrayKeyword"),
    # frame attributes, including the extension attributes
    ("parent", 0, None, "robrayFrameAttr"),
    ("translation", 0, None, "robrayFrameAttr"),
    ("quaternion", 0, None, "robrayFrameAttr"),
    ("rpy", 0, None, "robrayFrameAttr"),
    ("type", 0, None, "robrayFrameAttr"),
    ("axis", 0, None, "robrayFrameAttr"),
    ("offset", 0, None, "robrayFrameAttr"),
    ("variable", 0, None, "robrayFrameAttr"),
    ("limit_position", 0, None, "robrayFrameAttr"),
    ("limit_velocity", 0, None, "robrayFrameAttr"),
    ("limit_acceleration", 0, None, "robrayFrameAttr"),
    ("limit_effort", 0, None, "robrayFrameAttr"),
    ("mass", 0, None, "robrayFrameAttr"),
    ("inertia", 0, None, "robrayFrameAttr"),
    ("isa", 0, None, "robrayIsa"),
    # geometry attributes
    ("shape", 0, None, "robrayGeomAttr"),
    ("mesh", 0, None, "robrayGeomAttr"),
    ("dimension", 0, None, "robrayGeomAttr"),
    ("radius", 0, None, "robrayGeomAttr"),
    ("height", 0, r"^\s+height", "robrayGeomAttr"),
    ("start_radius", 0, None, "robrayGeomAttr"),
    ("end_radius", 0, None, "robrayGeomAttr"),
    ("delta", 0, None, "robrayGeomAttr"),
    ("thickness", 0, None, "robrayGeomAttr"),
    ("color", 0, None, "robrayGeomAttr"),
    ("alpha", 0, None, "robrayGeomAttr"),
    ("specular", 0, None, "robrayGeomAttr"),
    ("scale", 0, None, "robrayGeomAttr"),
    ("visual", 0, None, "robrayGeomAttr"),
    ("collision", 0, None, "robrayGeomAttr"),
    ("no-shadow", 0, None, "robrayGeomAttr"),
    ("no_shadow", 0, None, "robrayGeomAttr"),
    # shapes and joint types
    ("box", 0, None, "robrayShape"),
    ("sphere", 0, None, "robrayShape"),
    ("cylinder", 0, None, "robrayShape"),
    ("cone", 0, None, "robrayShape"),
    ("grid", 0, r"shape grid", "robrayShape"),
    ("fixed", 0, None, "robrayJointType"),
    ("revolute", 0, None, "robrayJointType"),
    ("prismatic", 0, None, "robrayJointType"),
    # constants and numbers in every form
    ("π", 0, None, "robrayConstant"),
    ("pi", 0, None, "robrayConstant"),
    ("deg", 0, None, "robrayConstant"),
    ("0.75", 0, None, "robrayNumber"),
    (".5", 0, None, "robrayNumber"),
    ("1.", 0, r"def one", "robrayNumber"),
    ("1e-2", 0, None, "robrayNumber"),
    ("2.5D2", 0, None, "robrayNumber"),
    ("1d-3", 0, None, "robrayNumber"),
    ("1s2", 0, None, "robrayNumber"),
    ("1e+3", 0, None, "robrayNumber"),
    # strings and the three comment styles
    ('"meshes/part.obj"', 0, None, "robrayPath"),
    ('"parts.robray"', 0, None, "robrayIncludePath"),
    ("# numbers in every form", 0, None, "robrayLineComment"),
    ("// a comment after code", 0, None, "robrayLineComment"),
    ("/* Editor fixture", 0, None, "robrayBlockComment"),
    ("Tests look tokens up", 0, None, "robrayBlockComment"),
    # names after frame / class / def / isa / parent / allow_collision
    ("base", 0, r"^frame base", "robrayFrameName"),
    ("upper-link", 0, r"frame upper-link", "robrayFrameName"),
    ('"grid floor"', 0, r"^object", "robrayFrameName"),
    ("frame-x", 0, r"^frame frame-x", "robrayFrameName"),
    ("wood", 0, r"^class wood", "robrayClassName"),
    ("red", 0, r"isa red", "robrayClassName"),
    ("table-height", 0, r"^def", "robrayDefName"),
    ("upper-link", 0, r"parent upper-link", "robrayFrameRef"),
    ("base", 0, r"^allow_collision", "robrayAllowName"),
    ("upper-link", 0, r"^allow_collision", "robrayFrameRef"),
    # hyphenated identifiers are one name, even with a keyword or constant inside
    ("table-height", 0, r"translation", "robrayName"),
    ("pi-x", 0, r"def total", "robrayName"),
    ("shelf-length", 0, r"def total", "robrayName"),
    # attribute names used as values (a def named `height`) are not attributes
    ("height", 0, r"radius height", "robrayName"),
    ("pi-x", 0, r"^def pi-x", "robrayDefName"),
]
