"""Shared helpers for the editor tests: the real editors, a real robrayc, the fixture."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

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


def run_robrayc(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "robrayc", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


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
    proc = run_robrayc([path.name], tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert f"{path.name}:7:5: error:" in proc.stderr, proc.stderr
    return path, proc.stderr
