"""How the compiled checker is built from an empty cache (a new robot's first plan): the cells'
prover is built from only the C it calls, and proves what the whole source did; the kernel's
library is built in two parts (its code compiling while the cells are proven, then its cell
tables), and answers as the one-file library of the same source does; builds started ahead
are waited for, reported, or stopped when the cache has the library."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from robrayc.analysis.collision import CollisionChecker, c_build
from robrayc.analysis.collision import cells as cl
from robrayc.analysis.collision import compiled as cm
from robrayc.kinematics import periodic_variables, sample_configs, sample_ranges
from tests.urdf_robots import load, robot_path

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc")]

SPHERES = """\
frame base { geometry { shape sphere; radius 0.2; } }
frame arm { parent base; type revolute; axis [0, 0, 1]; variable q; translation [0, 0, 0.3];
  limit_position [-3, 3]; geometry { shape sphere; radius 0.1; } }
frame hand { parent arm; type revolute; axis [0, 1, 0]; variable r; translation [0.5, 0, 0];
  limit_position [-3, 3]; geometry { shape sphere; radius 0.1; } }
"""


@pytest.fixture(scope="module")
def ur5():
    from tests.corpus import ros_package_path

    mp = pytest.MonkeyPatch()
    mp.setenv("ROS_PACKAGE_PATH", ros_package_path())
    try:
        return CollisionChecker(load([str(robot_path("ur5"))]), broadphase="dense")
    finally:
        mp.undo()


@pytest.fixture(scope="module")
def ur5_cache(tmp_path_factory) -> Path:
    """A cache folder UR5's kernel is built into once (an empty one for the first test)."""
    return tmp_path_factory.mktemp("ur5-cache")


def _cache(monkeypatch: pytest.MonkeyPatch, folder: Path) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
    return folder / "robrayc" / "checkers"


def test_trimmed_prover_proves_what_the_whole_source_did(ur5, monkeypatch) -> None:
    """The prover built with its other public functions internal (dropped by gcc) exports
    only the provers, and proves the same cells, on the sphere trees and on the triangles
    (a bounded triangle budget: the same code path, a shorter run), as the whole source
    built as before (every function exported)."""
    lo, hi = sample_ranges(ur5.scene)
    model = cm.certifying_model(ur5)
    trimmed = cl._Prover(ur5, model, lo, hi, triangles=True)
    whole_model = cl.prover_model
    monkeypatch.setattr(cl, "prover_model", lambda m: {**whole_model(m), "linkage": ""})
    whole = cl._Prover(ur5, model, lo, hi, triangles=True)
    assert hasattr(whole.lib, "rcells_check") and not hasattr(trimmed.lib, "rcells_check")
    assert hasattr(trimmed.lib, "rcells_cells") and hasattr(trimmed.lib, "rcells_tcells")
    periodic = periodic_variables(ur5.scene)
    samples = sample_configs(ur5.scene, cl.SHARE_SAMPLES, seed=0)
    pairs = [x for x in cl._near_pairs(ur5, lo, hi, samples) if len(x[1]) <= 2][:6]
    meshes = cl._meshes(ur5)
    proven = 0
    for p, var, _ in pairs:
        n = cl.CELLS[len(var)]
        grid = [cl._grid(float(lo[v]), float(hi[v]), periodic[v], n) for v in var]
        q = (lo + hi) / 2
        got = [prover.cells(p, var, grid, n, q) for prover in (trimmed, whole)]
        assert np.array_equal(*got)
        if meshes[int(ur5._pi[p])] and meshes[int(ur5._pj[p])]:
            for prover in (trimmed, whole):
                prover._bind_triangles()
                prover.tleft = 3_000_000
            after = [prover.triangle_cells(p, var, grid, n, q, bits)
                     for prover, bits in zip((trimmed, whole), got, strict=True)]
            assert np.array_equal(*after)
            assert trimmed.tleft == whole.tleft
            proven += int(np.unpackbits(after[0]).sum() > np.unpackbits(got[0]).sum())
    assert proven >= 1  # the triangles proved cells the trees did not


@pytest.mark.parametrize("total", [100_000_000, 20_000_000])
def test_triangle_tables_on_two_threads_are_those_of_one(ur5, total: int, monkeypatch) -> None:
    """The triangle proofs of UR5's mesh tables on two threads at once give the tables, and
    leave the budget, of the same proofs one after another: with a budget to spare, and
    with one that runs short (tables run again with what the ones before them left, and
    the last ones get none)."""
    monkeypatch.setattr(cl, "TRIANGLE_VISITS", 8_000_000)
    monkeypatch.setattr(cl, "TRIANGLE_TOTAL", total)
    lo, hi = sample_ranges(ur5.scene)
    periodic = periodic_variables(ur5.scene)
    samples = sample_configs(ur5.scene, cl.SHARE_SAMPLES, seed=0)
    meshes = cl._meshes(ur5)
    jobs = []
    for p, var, _ in cl._near_pairs(ur5, lo, hi, samples):
        if len(var) <= 2 and meshes[int(ur5._pi[p])] and meshes[int(ur5._pj[p])]:
            n = cl.CELLS[len(var)]
            grid = [cl._grid(float(lo[v]), float(hi[v]), periodic[v], n) for v in var]
            jobs.append((p, var, grid, n, np.zeros(-(-n ** len(var) // 8), np.uint8)))
    assert len(jobs) >= 4
    model = cm.certifying_model(ur5)
    one, two = (cl._Prover(ur5, model, lo, hi, triangles=True) for _ in range(2))
    runs = []
    run = cl._Prover._triangle_run
    monkeypatch.setattr(cl._Prover, "_triangle_run",
                        lambda self, *a: runs.append(self) or run(self, *a))
    q = (lo + hi) / 2
    alone = [one.triangle_cells(*job[:4], q, job[4]) if k % 2 else one.triangle_tables([job], q)[0]
             for k, job in enumerate(jobs)]
    both = two.triangle_tables(jobs, q, threads=2)
    assert all(np.array_equal(a, b) for a, b in zip(alone, both, strict=True))
    assert one.tleft == two.tleft and any(np.unpackbits(t).any() for t in both)
    again = runs.count(two) - len(jobs)  # the runs done again with a budget run short
    assert (again == 0) == (total == 100_000_000) and runs.count(one) == len(jobs)
    if total == 20_000_000:
        assert one.tleft <= 0 and not both[-1].any()


def test_two_part_kernel_answers_as_the_one_file_library(ur5, ur5_cache: Path,
                                                         monkeypatch) -> None:
    """From an empty cache, the kernel's code compiles while its cells are proven (the
    extension too); the library (code and cell tables, two files) answers every
    configuration and motion as the one-file library of the same checker, with the same
    tables, does. Nothing is left running or in the cache's temporary folders."""
    folder = _cache(monkeypatch, ur5_cache)
    c_build.extension.cache_clear()
    kernel = cm.Kernel(ur5)
    assert not c_build._started
    assert not [p for p in folder.iterdir() if p.is_dir()]
    assert kernel.lib.rc_solid_states and not hasattr(kernel.lib, "CELLBITS")  # hidden
    source, _ = cm.c_source(ur5, "rc", triangles=True)  # the cells from the cache now
    assert "static const unsigned char CELLBITS" in source and "NCELLBYTES_DECL 1\n" not in source
    monkeypatch.setattr(cm, "kernel_library", lambda *a: c_build.build(source))
    one = cm.Kernel(ur5)
    q = sample_configs(ur5.scene, 3000, seed=5)
    states = kernel.states(q)
    assert np.array_equal(states, one.states(q))
    assert (states == cm.FREE).mean() > 0.5 and (states == cm.COLLIDES).any()
    assert np.array_equal(kernel.check_batch(q), one.check_batch(q))
    assert np.array_equal(kernel.check_motions(q[::2], q[1::2], 32.0),
                          one.check_motions(q[::2], q[1::2], 32.0))


def test_a_cached_library_stops_the_code_compile(ur5, ur5_cache: Path, monkeypatch) -> None:
    """Cells not cached but the library is (cells.json removed): the cells are proven again
    (here: the same given back), the code's compile started meanwhile is stopped, and the
    cached library is loaded."""
    import json

    folder = _cache(monkeypatch, ur5_cache)
    path = cm.kernel_library(ur5, None, True)
    stamp = path.stat().st_mtime_ns
    (stored,) = folder.glob("cells-*.json")
    tables = json.loads(stored.read_text())
    stored.unlink()
    monkeypatch.setattr(cl, "proven_cell_tables", lambda *a: tables)
    started = []

    def start(code: str) -> c_build.Compilation:
        started.append(c_build.start_object(code))
        return started[-1]

    monkeypatch.setattr(cm, "start_object", start)
    assert cm.kernel_library(ur5, None, True) == path and path.stat().st_mtime_ns == stamp
    assert len(started) == 1 and started[0].process.returncode is not None
    assert not started[0].dir.exists()


def test_empty_cell_tables_are_cached(tmp_path: Path, monkeypatch) -> None:
    """A robot whose pairs get no tables (spheres only) stores that too: the next checker
    proves nothing, and starts no compile."""
    from robrayc.frontend import load_scene

    _cache(monkeypatch, tmp_path)
    scene_file = tmp_path / "spheres.robray"
    scene_file.write_text(SPHERES)
    checker = CollisionChecker(load_scene([str(scene_file)]), broadphase="dense")
    first = cm.kernel_library(checker, None, True)
    monkeypatch.setattr(cl, "prove_cells", lambda *a: pytest.fail("proven again"))
    monkeypatch.setattr(cm, "start_object", lambda *a: pytest.fail("compiled again"))
    assert cm.kernel_library(checker, None, True) == first


def test_a_build_started_ahead_is_waited_for_or_reported(tmp_path: Path,
                                                         monkeypatch) -> None:
    """build() takes over a build start() began (one compile, the same library); a compiler
    that fails is reported by that build(), as if it had run it; one nobody waits for is
    stopped when the process ends."""
    _cache(monkeypatch, tmp_path)
    source = "int robrayc_answer(void) { return 42; }\n"
    c_build.start(source, stem="test")
    assert len(c_build._started) == 1
    lib = c_build.build(source, stem="test")
    assert not c_build._started and c_build.open_library(lib).robrayc_answer() == 42
    broken = tmp_path / "cc"
    broken.write_text("#!/bin/sh\necho broken compiler >&2\nexit 1\n")
    broken.chmod(0o755)
    monkeypatch.setenv("CC", str(broken))
    c_build.start(source, stem="other")
    with pytest.raises(c_build.CompilerMissing, match="broken compiler"):
        c_build.build(source, stem="other")
    assert not c_build._started
    monkeypatch.delenv("CC")
    c_build.start(source, stem="unwaited")  # stopped when the process ends (atexit)
    (run,) = c_build._started.values()
    c_build._stop_started()
    assert not c_build._started and run.process.returncode is not None
    assert not run.dir.exists()
