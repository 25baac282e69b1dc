"""Seeded, bounded fuzzing of the robray front end (the CI slice of the robustness campaign).

- valid scenes drawn by the grammar-aware strategy always compile, their C passes gcc -Wall
  -Werror, a CRLF + BOM copy gives byte-identical C, and a sample loads in the real amino
  library with exactly the frames, parents, joint types and variables robrayc read;
- mutated scenes (token deletion/duplication/swap/replacement, truncation, byte flips, invalid
  UTF-8, NULs, CRLF, lone CR, BOM) either compile (and gcc accepts the C) or fail with a located
  error, never a traceback or internal error, in under 2 s;
- a small sample runs as a real process: no signal, no traceback.

Sizes: ROBRAYC_FUZZ_EXAMPLES scales the number of mutants (default 2500). Long campaigns:
benchmarks/fuzz_campaign.py.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from robrayc.ctext import c_identifier
from tests.fuzz.harness import gcc_check, run_inprocess, run_subprocess, violations
from tests.fuzz.scenes import SceneTree, mutants, scenes

MUTANTS = int(os.environ.get("ROBRAYC_FUZZ_EXAMPLES", "2500"))
FUZZ_SETTINGS = dict(derandomize=True, database=None, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                            HealthCheck.filter_too_much])


def _needs_gcc() -> None:
    from tests.amino_real import require_library

    if shutil.which("gcc") is None:
        pytest.skip("gcc not available")
    require_library()  # the amino headers the C includes


def compile_tree(tree: SceneTree, root: Path, name: str = "fuzz", extra: tuple = ()):
    """Write `tree` under root and compile it in-process; (outcome, inputs, C path)."""
    main = tree.write(root)
    out_c = root / "out" / "scene.c"
    out_c.parent.mkdir(exist_ok=True)
    argv = [str(main), "-n", name, "-o", str(out_c)]
    for d in tree.include_dirs:
        argv += ["-I", str(root / d)]
    inputs = {root / rel: data for rel, data in tree.contents().items()}
    return run_inprocess(argv + list(extra)), inputs, out_c


def _keep(out_c: Path, folder: Path) -> Path:
    """Move a generated C file and its header out of the example's folder, for gcc later."""
    folder.mkdir()
    for p in out_c.parent.iterdir():
        shutil.move(p, folder / p.name)
    return folder / out_c.name


def _fresh(base: Path) -> Path:
    return Path(tempfile.mkdtemp(dir=base))


def test_valid_scenes_compile_and_gcc_accepts_them(tmp_path):
    _needs_gcc()
    c_files: list[Path] = []
    seen = {"includes": 0, "mesh": 0, "joints": 0}

    @settings(max_examples=150, **FUZZ_SETTINGS)
    @given(tree=scenes())
    def check(tree: SceneTree):
        root = _fresh(tmp_path)
        outcome, inputs, out_c = compile_tree(tree, root)
        assert outcome.status == 0, (outcome.stderr, outcome.exception,
                                     tree.contents()["scene.robray"].decode())
        assert not violations(outcome, inputs, [out_c, out_c.with_name("scene.c.h")])
        # The same scene with CRLF line ends and a BOM is the same scene.
        variant = root / "variant"
        variant.mkdir()
        tree.write(variant)
        for f in tree.files:
            (variant / f.path).write_bytes(b"\xef\xbb\xbf" + f.render("\r\n"))
        out2 = variant / "scene.c"
        argv = [str(variant / "scene.robray"), "-n", "fuzz", "-o", str(out2), "--no-header"]
        argv += [a for d in tree.include_dirs for a in ("-I", str(variant / d))]
        o2 = run_inprocess(argv)
        assert o2.status == 0, o2.stderr
        # (mesh symbols are named after the mesh's path, which differs by the folder)
        ours = out_c.read_bytes().replace(c_identifier(str(root)).encode(), b"ROOT")
        assert _body(out2.read_bytes().replace(c_identifier(str(variant)).encode(), b"ROOT")) \
            == _body(ours)
        seen["includes"] += len(tree.files) > 1
        seen["mesh"] += tree.needs_mesh
        seen["joints"] += b"revolute" in out_c.read_bytes() or b"prismatic" in out_c.read_bytes()
        c_files.append(_keep(out_c, tmp_path / f"valid{len(c_files)}"))
        shutil.rmtree(root)

    check()
    assert all(seen.values()), seen  # the strategy reaches includes, meshes and joints
    assert gcc_check(c_files) == []


def _body(c: bytes) -> bytes:
    """The C without its first comment line and header include (they name the file)."""
    return b"\n".join(line for line in c.split(b"\n")
                      if not line.startswith((b"/* Generated", b"#include \"")))


def test_valid_scenes_load_in_real_amino(tmp_path):
    """The real library loads what robrayc read: frame names byte for byte, parents, types."""
    _needs_gcc()
    from robrayc.frontend import LoadOptions, load_scene
    from tests.amino_real import load_c

    @settings(max_examples=8, **FUZZ_SETTINGS)
    @given(tree=scenes(max_stmts=4))
    def check(tree: SceneTree):
        root = _fresh(tmp_path)
        outcome, _, out_c = compile_tree(tree, root)
        assert outcome.status == 0, outcome.stderr
        scene = load_scene([str(root / "scene.robray")],
                           LoadOptions(include_dirs=tuple(str(root / d)
                                                          for d in tree.include_dirs)))
        loaded = load_c(out_c, "fuzz")[0]
        got = {f["name"]: (f["parent"], f["type"], f["config"]) for f in loaded["frames"]}
        want = {f.name: (f.parent, f.kind, f.variable) for f in scene.frames}
        assert got == want
        assert sorted(got) == sorted(tree.frames)

    check()


def test_mutants_fail_cleanly_or_compile(tmp_path):
    _needs_gcc()
    c_files: list[Path] = []
    statuses = {0: 0, 1: 0}

    @settings(max_examples=MUTANTS, **FUZZ_SETTINGS)
    @given(case=mutants())
    def check(case):
        tree, muts = case
        root = _fresh(tmp_path)
        outcome, inputs, out_c = compile_tree(tree, root)
        problems = violations(outcome, inputs, [out_c])
        assert not problems, (problems, [str(m) for m in muts], tree.contents())
        statuses[outcome.status] += 1
        if outcome.status == 0 and len(c_files) < 300:
            c_files.append(_keep(out_c, tmp_path / f"mutant{len(c_files)}"))
        shutil.rmtree(root)

    check()
    # Both sides of the property are exercised (mutations are not all fatal, nor all harmless).
    assert statuses[0] > MUTANTS // 50 and statuses[1] > MUTANTS // 4, statuses
    assert gcc_check(c_files) == []


def test_mutants_as_processes(tmp_path):
    """A small sample through the real command: no signal, no traceback, located errors."""

    @settings(max_examples=25, **FUZZ_SETTINGS)
    @given(case=mutants(max_stmts=3), fmt=st.sampled_from(["c", "svg", "c-standalone"]))
    def check(case, fmt):
        tree, muts = case
        root = _fresh(tmp_path)
        main = tree.write(root)
        out = root / "out.txt"
        argv = [str(main), "--format", fmt, "-o", str(out)]
        argv += [a for d in tree.include_dirs for a in ("-I", str(root / d))]
        outcome = run_subprocess(argv)
        inputs = {root / rel: data for rel, data in tree.contents().items()}
        problems = violations(outcome, inputs, [], time_limit=10.0)
        assert not problems, (problems, [str(m) for m in muts])
        shutil.rmtree(root)

    check()
