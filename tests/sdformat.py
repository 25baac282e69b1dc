"""Compiling a small C++ program against the real libsdformat (Debian libsdformat-dev): the
tests' way of asking libsdformat what it reads (no Python bindings are packaged)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.corpus import IN_CI


def compile_against_sdformat(source: Path, folder: Path) -> Path:
    """The program built from `source` in `folder`; skipped without libsdformat-dev or g++
    (a failure in CI, which installs them)."""
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "sdformat12"],
                           capture_output=True, text=True)
    if flags.returncode != 0 or shutil.which("g++") is None:
        if IN_CI:
            pytest.fail("libsdformat-dev (sdformat12) or g++ is missing in CI")
        pytest.skip("libsdformat-dev not installed (apt-get install libsdformat-dev)")
    exe = folder / source.stem
    subprocess.run(["g++", "-O1", "-Wall", "-Wextra", "-Werror", "-o", str(exe), str(source),
                    *flags.stdout.split()], check=True)
    return exe
