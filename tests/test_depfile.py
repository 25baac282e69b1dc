"""Dependency files (-M, -MD, -MF, -MT, -MP) and --if-changed.

The quoting is checked against the real readers: GNU make (does a rule naming a file with a
space, `$` and `#` rebuild when that file changes?) and Ninja (`ninja -t deps` shows what it
parsed), besides a round trip through our own reader.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from robrayc import depfile
from robrayc.cli.main import main
from tests.corpus import URDF_CORPUS, require_corpus, ros_package_path
from tests.run import robrayc

ROBRAYC = [sys.executable, "-m", "robrayc"]  # the command as make and ninja run it
WEIRD = "we ird $dir #1"  # a space, a dollar and a hash in one folder name


# --- quoting ------------------------------------------------------------------------------


@pytest.mark.parametrize(("path", "quoted"), [
    ("plain/file.robray", "plain/file.robray"),
    ("a b.robray", r"a\ b.robray"),
    ("a\tb", "a\\\tb"),
    ("cost$1.robray", "cost$$1.robray"),
    ("#hash.robray", r"\#hash.robray"),
    ("back\\slash", "back\\slash"),  # a backslash not before a blank stays single
    ("dir\\ x", "dir\\\\\\ x"),  # N backslashes before a blank: 2N+1
    ("tail\\", "tail\\"),
])
def test_escape(path: str, quoted: str) -> None:
    assert depfile.escape(path) == quoted


def test_newline_in_a_path_is_refused() -> None:
    with pytest.raises(depfile.DepfileError):
        depfile.escape("a\nb")


_NAME = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E, blacklist_characters=":")
                | st.sampled_from("\t\\ é$#"), min_size=1, max_size=12)


@given(st.lists(_NAME, min_size=1, max_size=3), st.lists(_NAME, max_size=6))
def test_render_parse_round_trip(targets: list[str], deps: list[str]) -> None:
    # gcc's quoting (ours) cannot express a name ending in a backslash or holding one before '#'
    if any(t.endswith("\\") or "\\#" in t for t in targets + deps):
        return
    unique = list(dict.fromkeys(deps))
    rules = depfile.parse(depfile.render(targets, deps, phony=True))
    assert rules == [(targets, unique)] + [([d], []) for d in unique]


def test_render_folds_long_lines_and_adds_phony_rules() -> None:
    deps = [f"include/part_{i:03d}.robray" for i in range(20)]
    text = depfile.render(["out.c"], ["main.robray", *deps], phony_exclude=["main.robray"],
                          phony=True)
    assert all(len(line) <= 80 for line in text.splitlines())
    rules = depfile.parse(text)
    assert rules[0] == (["out.c"], ["main.robray", *deps])
    assert [r for r in rules[1:]] == [([d], []) for d in deps]  # no phony rule for the input


# --- the command line -----------------------------------------------------------------------


@pytest.fixture
def nested(tmp_path: Path) -> Path:
    """main.robray -> WEIRD/mid.robray -> WEIRD/deep/leaf.robray (+ a mesh), all relative."""
    (tmp_path / WEIRD / "deep").mkdir(parents=True)
    (tmp_path / "main.robray").write_text('include "we ird $dir #1/mid.robray"\n'
                                          "frame top { parent mid; }\n")
    (tmp_path / WEIRD / "mid.robray").write_text('include "deep/leaf.robray"\n'
                                                 "frame mid { parent leaf; }\n")
    (tmp_path / WEIRD / "deep" / "leaf.robray").write_text(
        'frame leaf { geometry { mesh "tet.obj"; } }\n')
    (tmp_path / WEIRD / "deep" / "tet.obj").write_text(
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n")
    (tmp_path / "unrelated.robray").write_text("frame x { }\n")
    return tmp_path


NESTED_DEPS = ["main.robray", f"{WEIRD}/mid.robray", f"{WEIRD}/deep/leaf.robray"]


def _deps(text: str) -> tuple[list[str], list[str]]:
    rules = depfile.parse(text)
    return rules[0]


def test_md_lists_every_file_read(nested: Path) -> None:
    r = robrayc("main.robray", "-o", "out.c", "-MD", cwd=nested, process=True)
    assert r.status == 0, r.err
    targets, deps = _deps((nested / "out.c.d").read_text())
    assert targets == ["out.c", "out.c.h"]  # every file the run wrote
    assert [Path(d) for d in deps[:3]] == [Path(d) for d in NESTED_DEPS]
    mesh = [d for d in deps if d.endswith("tet.obj")]
    assert len(mesh) == 1 and (nested / mesh[0]).resolve() == nested / WEIRD / "deep" / "tet.obj"
    assert len(deps) == 4
    text = (nested / "out.c.d").read_text()
    assert r"we\ ird\ $$dir\ \#1/mid.robray" in text  # quoted as make expects


def test_mf_mt_mp(nested: Path) -> None:
    r = robrayc("main.robray", "-o", "out.c", "-MF", "deps/scene.d", "-MT", "my target", "-MT",
                "second", "-MP", cwd=nested, process=True)
    assert r.status == 1 and "deps/scene.d" in r.err  # no such folder: checked first
    assert not (nested / "out.c").exists()
    (nested / "deps").mkdir()
    r = robrayc("main.robray", "-o", "out.c", "-MF", "deps/scene.d", "-MT", "my target", "-MT",
                "second", "-MP", cwd=nested, process=True)
    assert r.status == 0, r.err
    assert not (nested / "out.c.d").exists()  # -MF replaces the default name
    rules = depfile.parse((nested / "deps" / "scene.d").read_text())
    assert rules[0][0] == ["my target", "second"]
    phony = [r[0][0] for r in rules[1:]]
    assert [Path(p) for p in phony[:2]] == [Path(d) for d in NESTED_DEPS[1:]]
    assert phony[2].endswith("tet.obj") and len(phony) == 3  # not the input itself
    assert all(r[1] == [] for r in rules[1:])


def test_m_prints_and_writes_nothing(nested: Path) -> None:
    r = robrayc("main.robray", "-M", cwd=nested, process=True)
    assert r.status == 0, r.err
    targets, deps = _deps(r.out)
    assert targets == ["main.c"] and len(deps) == 4
    r = robrayc("main.robray", "-o", "x.c", "-M", "-MF", "x.d", cwd=nested, process=True)
    assert r.status == 0, r.err
    assert r.out == "" and not (nested / "x.c").exists()
    assert _deps((nested / "x.d").read_text())[0] == ["x.c"]


def test_md_needs_a_file_name(nested: Path) -> None:
    r = robrayc("main.robray", "-o", "-", "-MD", cwd=nested, process=True)
    assert r.status == 2 and "-MD needs -o FILE" in r.err
    r = robrayc("main.robray", "-o", "-", "-MF", "-", "--no-header", cwd=nested, process=True)
    assert r.status == 0, r.err
    rule = r.out[r.out.rindex("\nmain.c: ") + 1:]  # after the C text
    targets, deps = _deps(rule)
    assert targets == ["main.c"] and len(deps) == 4


def test_failed_compile_leaves_old_depfile(nested: Path) -> None:
    assert robrayc("main.robray", "-o", "out.c", "-MD", cwd=nested, process=True).status == 0
    before = (nested / "out.c.d").read_bytes()
    (nested / WEIRD / "deep" / "leaf.robray").write_text("frame leaf { oops }\n")
    r = robrayc("main.robray", "-o", "out.c", "-MD", cwd=nested, process=True)
    assert r.status == 1 and "leaf.robray:1:" in r.err
    assert (nested / "out.c.d").read_bytes() == before
    assert not [p for p in nested.iterdir() if p.name.endswith(".tmp")]


def test_mesh_and_urdf_dependencies(tmp_path: Path) -> None:
    """A URDF with meshes: the depfile names the URDF and every mesh file it uses."""
    from robrayc.frontend import LOADERS

    if ".urdf" not in LOADERS:
        pytest.skip("URDF import not available yet")
    require_corpus()
    urdf = (URDF_CORPUS / "ros-industrial+universal_robot" / "ur_description" / "urdf"
            / "ur5_robot.urdf")
    import xml.etree.ElementTree as ET

    wanted = set()
    for mesh in ET.parse(urdf).iter("mesh"):
        name = mesh.get("filename", "")
        pkg, _, rest = name.removeprefix("package://").partition("/")
        hits = [Path(root) / pkg / rest for root in ros_package_path().split(os.pathsep)
                if (Path(root) / pkg / rest).is_file()]
        if hits:
            wanted.add(hits[0].resolve())
    assert wanted, "the UR5 URDF names meshes"
    env = dict(os.environ, ROS_PACKAGE_PATH=ros_package_path())
    r = robrayc(str(urdf), "-M", "-MT", "ur5.c", cwd=tmp_path, env=env, process=True)
    assert r.status == 0, r.err
    targets, deps = _deps(r.out)
    assert targets == ["ur5.c"]
    assert Path(deps[0]).resolve() == urdf.resolve()
    assert {Path(d).resolve() for d in deps[1:]} == wanted


# --- the real readers ------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")
def test_make_reads_the_quoting(nested: Path) -> None:
    command = " ".join(f"'{a}'" for a in ROBRAYC)
    (nested / "Makefile").write_text(
        f"out.c: main.robray\n\t{command} main.robray -o out.c -MD -MP\n-include out.c.d\n")
    r = subprocess.run(["make"], cwd=nested, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run(["make", "-q", "out.c"], cwd=nested)
    assert r.returncode == 0  # up to date
    leaf = nested / WEIRD / "deep" / "leaf.robray"
    for dep in (leaf, nested / WEIRD / "deep" / "tet.obj"):
        _age(nested)
        os.utime(dep)
        assert subprocess.run(["make", "-q", "out.c"], cwd=nested).returncode == 1, dep
        assert subprocess.run(["make"], cwd=nested, capture_output=True).returncode == 0
    _age(nested)
    os.utime(nested / "unrelated.robray")
    assert subprocess.run(["make", "-q", "out.c"], cwd=nested).returncode == 0
    leaf.unlink()  # -MP: a vanished include is not an error for make, robrayc reports it
    (nested / WEIRD / "mid.robray").write_text("frame mid { }\n")
    r = subprocess.run(["make"], cwd=nested, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


@pytest.mark.skipif(shutil.which("ninja") is None, reason="ninja not installed")
def test_ninja_reads_the_quoting(nested: Path) -> None:
    cmd = " ".join(f"'{a}'" for a in ROBRAYC).replace("$", "$$")
    (nested / "build.ninja").write_text(
        "rule scene\n"
        f"  command = {cmd} $in -o $out -MD -MF $out.d --if-changed\n"
        "  depfile = $out.d\n  deps = gcc\n  restat = 1\n"
        "build out.c | out.c.h: scene main.robray\n")
    r = subprocess.run(["ninja"], cwd=nested, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run(["ninja", "-t", "deps", "out.c"], cwd=nested, capture_output=True,
                       text=True)
    listed = [line.strip() for line in r.stdout.splitlines()[1:] if line.strip()]
    assert [Path(p) for p in listed[:3]] == [Path(d) for d in NESTED_DEPS]
    assert listed[3].endswith("deep/tet.obj") and len(listed) == 4
    assert "no work to do" in subprocess.run(["ninja"], cwd=nested, capture_output=True,
                                             text=True).stdout
    _age(nested)
    os.utime(nested / WEIRD / "deep" / "tet.obj")
    r = subprocess.run(["ninja", "-d", "explain"], cwd=nested, capture_output=True, text=True)
    assert "tet.obj" in r.stdout + r.stderr and "no work to do" not in r.stdout


# --- --if-changed ----------------------------------------------------------------------------


def _age(tree: Path, seconds: float = 10.0) -> None:
    """Move every mtime in `tree` back, so a file touched now is strictly newer."""
    for p in tree.rglob("*"):
        if p.is_file():
            st = p.stat()
            os.utime(p, ns=(st.st_atime_ns - int(seconds * 1e9),
                            st.st_mtime_ns - int(seconds * 1e9)))


def test_if_changed_keeps_mtime(nested: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(nested)
    outs = [nested / "out.c", nested / "out.c.h", nested / "out.c.d"]
    assert main(["main.robray", "-o", "out.c", "-MD"]) == 0
    _age(nested)
    before = [p.stat().st_mtime_ns for p in outs]
    assert main(["main.robray", "-o", "out.c", "-MD", "--if-changed"]) == 0
    assert [p.stat().st_mtime_ns for p in outs] == before
    assert main(["main.robray", "-o", "out.c", "-MD"]) == 0  # without it: rewritten
    assert all(p.stat().st_mtime_ns > b for p, b in zip(outs, before, strict=True))
    _age(nested)
    before = [p.stat().st_mtime_ns for p in outs]
    (nested / "main.robray").write_text('include "we ird $dir #1/mid.robray"\n'
                                        "frame top { parent mid; translation [1, 0, 0]; }\n")
    assert main(["main.robray", "-o", "out.c", "-MD", "--if-changed"]) == 0
    after = [p.stat().st_mtime_ns for p in outs]
    assert after[0] > before[0]  # the C changed
    assert after[1:] == before[1:]  # header and depfile did not
