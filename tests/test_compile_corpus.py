"""Every corpus scene compiles; the C compiles with gcc -Werror and records exactly the IR."""

from __future__ import annotations

from pathlib import Path

import pytest

from robrayc.frontend import LoadOptions, load_scene
from tests import record
from tests.corpus import (
    amino_corpus_files,
    corpus_id,
    public_files,
    require_corpus,
    ros_package_path,
)
from tests.run import robrayc

AMINO = amino_corpus_files()
STANDALONE = public_files("standalone")


def _compile(paths: list[Path], tmp_path: Path, name: str, extra: list[str] = ()) -> Path:
    out = tmp_path / f"{name}.c"
    run = robrayc(*paths, "-n", name, "-o", out, *extra)
    assert run.status == 0, run.err
    assert out.is_file() and (tmp_path / f"{name}.c.h").is_file()
    return out


def _options() -> LoadOptions:
    return LoadOptions(missing_mesh="drop")


@pytest.fixture(autouse=True)
def _package_path(monkeypatch):
    monkeypatch.setenv("ROS_PACKAGE_PATH", ros_package_path())


@pytest.mark.parametrize("path", AMINO, ids=corpus_id)
def test_amino_corpus_records_the_ir(path: Path, tmp_path: Path) -> None:
    require_corpus()
    c_file = _compile([path], tmp_path, "scene")
    scene = load_scene([str(path)])
    got = record.compile_and_run(c_file, "scene", tmp_path)
    assert record.normalise(got) == record.normalise(record.expected(scene))


@pytest.mark.parametrize("path", STANDALONE, ids=corpus_id)
def test_public_standalone_compiles(path: Path, tmp_path: Path) -> None:
    require_corpus()
    # Some calamity files name meshes by absolute paths on their author's machine; they are
    # relocated through ROS_PACKAGE_PATH, and the few absent from the corpus are dropped.
    c_file = _compile([path], tmp_path, "scene", ["--missing-mesh=drop", "-q"])
    scene = load_scene([str(path)], _options())
    got = record.compile_and_run(c_file, "scene", tmp_path)
    assert record.normalise(got) == record.normalise(record.expected(scene))


def test_corpus_lists_are_not_empty() -> None:
    require_corpus()
    assert len(AMINO) >= 7
    assert len(STANDALONE) >= 12


def test_root_argument_parents_top_level_frames(tmp_path: Path) -> None:
    src = tmp_path / "s.robray"
    src.write_text("frame a { } frame b { parent a; }")
    c_file = _compile([src], tmp_path, "rooted")
    got = record.compile_and_run(c_file, "rooted", tmp_path, root="world")
    assert got[0].split()[2] == record.hexname("world")
    assert got[1].split()[2] == record.hexname("a")


def test_python_dash_m_and_console_script(tmp_path: Path) -> None:
    src = tmp_path / "s.robray"
    src.write_text("frame a { geometry { shape sphere; radius 1; } }")
    out = tmp_path / "o.c"
    run = robrayc(src, "-o", out, process=True)
    assert run.status == 0, run.err
    assert "aa_rx_dl_sg__scenegraph" in out.read_text()
    version = robrayc("--version", process=True)
    assert version.status == 0 and version.out.startswith("robrayc "), version.err
