"""The amino C backend (the default; `--format c`, robrayc/backends/amino_c.py): C that gcc
compiles with -Wall -Wextra -Werror against the real amino headers, and that the real
amino library loads as the scene (frames, parents, world poses, variables and limits, allowed
pairs), checked against poses worked out by hand. The corpus goes through the same library in
tests/test_compile_corpus.py, against the original aarxc in tests/test_conformance.py."""

from __future__ import annotations

import math
import shutil
import subprocess
from pathlib import Path

import pytest

from tests import amino_real
from tests.run import robrayc

STRICT = ["-std=gnu99", "-Wall", "-Wextra", "-Werror", "-c"]  # amino.h is GNU C


def _c(scene: Path, tmp_path: Path, *extra: str) -> Path:
    out = tmp_path / "sc.c"
    run = robrayc(scene, "-n", "sc", "-o", out, *extra)
    assert run.status == 0, run.err
    return out


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc")
def test_compiles_cleanly_against_the_amino_headers(scene: Path, tmp_path: Path) -> None:
    amino_real.require_library()
    source = _c(scene, tmp_path)
    assert source.with_name("sc.c.h").is_file()  # the header beside it, which the C includes
    include = amino_real.PREFIX / "include"
    folders = [include, *sorted(include.glob("amino-*"))]  # amino.h is in amino-1.0/
    done = subprocess.run(["gcc", *STRICT, *(f"-I{f}" for f in folders), str(source),
                           "-o", str(tmp_path / "sc.o")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.slow  # check_scene built against the real library
def test_the_real_library_loads_the_scene(scene: Path, tmp_path: Path) -> None:
    (loaded,) = amino_real.load_c(_c(scene, tmp_path), "sc", [{"shoulder": math.pi / 2}])
    got = amino_real.normalize(loaded)
    frames = got["frames"]
    assert {name: f["parent"] for name, f in frames.items()} == {
        "base": None, "shoulder": "base", "hand": "shoulder", "tip": "hand"}
    # the shoulder turned a quarter about z carries the hand from +x to +y
    assert frames["hand"]["abs_v"] == pytest.approx([0.0, 0.5, 0.5], abs=1e-12)
    assert frames["tip"]["abs_v"] == pytest.approx([0.0, 0.5, 0.5], abs=1e-12)
    # the tip turned another quarter: its x axis (amino: the first column) is the world's -x
    assert frames["tip"]["abs_R"][:3] == pytest.approx([-1, 0, 0], abs=1e-12)
    assert got["configs"]["shoulder"]["pos"] == [-1.0, 1.0]
    assert got["allowed"] == [("base", "shoulder")]
