"""Certified cells (robrayc.analysis.collision.cells): node speeds bound how far the solids'
points really move; every configuration in a proven cell, at the proven cells' borders and
whole turns away, has the pair apart by FCL's distance (not robrayc's code); the compiled
checker with tables agrees with the exact checker beyond the joint limits; the certifying C
builds under strict gcc and the sanitizers and proves the same cells."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from robrayc.analysis.collision import CollisionChecker
from robrayc.analysis.collision import cells as cl
from robrayc.analysis.collision.c_build import checker_text
from robrayc.analysis.collision.compiled import c_model, certifying_model, sphere_size
from robrayc.kinematics import sample_ranges
from tests.backends.test_c_checker import STRICT, assert_same, robot_in_field
from tests.run import robrayc

needs_cc = pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc")


@pytest.fixture(scope="module")
def ur5(request):
    mp = pytest.MonkeyPatch()
    request.addfinalizer(mp.undo)
    return CollisionChecker(robot_in_field("ur5", 1, mp), broadphase="dense")


@pytest.mark.parametrize("key", ["ur5", "pr2"])
def test_node_speeds_bound_every_vertex(key: str, monkeypatch) -> None:
    """Each solid's points (mesh vertices) move by at most sum_v |dq_v| x its root node's
    speed in v, and the points of every node's sphere by its own, between random
    configurations and nearby ones (PR2: a prismatic torso, mimic joints)."""
    checker = CollisionChecker(robot_in_field(key, 1, monkeypatch), broadphase="dense")
    trees = c_model(checker, "x", sphere_size(checker, None) * 4, texts=False)["trees"]
    lo, hi = sample_ranges(checker.scene)
    speeds = cl.node_speeds(checker, trees.node_solid, trees.nodes.astype(float), lo, hi)
    root = {int(k): n for n, k in reversed(list(enumerate(trees.node_solid.tolist())))}
    rng = np.random.default_rng(7)
    q = lo + rng.random((40, len(lo))) * (hi - lo)
    step = rng.uniform(-0.2, 0.2, q.shape) * (hi - lo) / 2
    G, G2 = checker.group_poses(q), checker.group_poses(np.clip(q + step, lo, hi))
    dq = np.abs(np.clip(q + step, lo, hi) - q)
    s = checker.solids
    checked = 0
    for k, item in enumerate(s.items):
        if item.vertices is None or checker.group[k] == 0:
            continue
        v = item.vertices @ s.placement[k][:3, :3].T + s.placement[k][:3, 3]
        g = checker.group[k]
        a = v @ np.swapaxes(G[:, g, :3, :3], 1, 2) + G[:, g, None, :3, 3]
        b = v @ np.swapaxes(G2[:, g, :3, :3], 1, 2) + G2[:, g, None, :3, 3]
        moved = np.sqrt(((a - b) ** 2).sum(axis=2)).max(axis=1)
        bound = dq @ speeds[root[k]].astype(float)
        assert (moved <= bound + 1e-9).all(), (k, float((moved - bound).max()))
        # every node: points on its sphere (the farthest from any axis it holds)
        rows = np.flatnonzero(trees.node_solid == k)
        u = rng.normal(size=(len(rows), 4, 3))
        pts = (trees.nodes[rows, None, :3] + trees.nodes[rows, None, 3:]
               * u / np.linalg.norm(u, axis=2, keepdims=True)).reshape(-1, 3).astype(float)
        a = pts @ np.swapaxes(G[:, g, :3, :3], 1, 2) + G[:, g, None, :3, 3]
        b = pts @ np.swapaxes(G2[:, g, :3, :3], 1, 2) + G2[:, g, None, :3, 3]
        moved = np.sqrt(((a - b) ** 2).sum(axis=2)).reshape(len(q), len(rows), 4).max(axis=2)
        bound = dq @ speeds[rows].astype(float).T  # (configurations, nodes)
        assert (moved <= bound * (1 + 1e-9) + 1e-9).all(), (k, float((moved - bound).max()))
        checked += 1
    assert checked >= 5


def fcl_distances(checker, p: int, q: np.ndarray) -> np.ndarray:
    """FCL's distance of solid pair p's two solids at each configuration (0 or less where
    they touch or collide)."""
    import fcl

    s = checker.solids
    a, b = int(checker._pi[p]), int(checker._pj[p])
    G = checker.group_poses(q)
    out = np.empty(len(q))
    for n in range(len(q)):
        objs = []
        for k in (a, b):
            T = G[n, checker.group[k]] @ s.placement[k]
            obj = s.fcl_object(k)
            obj.setTransform(fcl.Transform(T[:3, :3], T[:3, 3]))
            objs.append(obj)
        out[n] = fcl.distance(objs[0], objs[1], fcl.DistanceRequest(), fcl.DistanceResult())
    return out


def _fcl_apart(checker, p: int, q: np.ndarray) -> np.ndarray:
    """FCL's verdict per configuration: are solid pair p's two solids apart."""
    return fcl_distances(checker, p, q) > 0.0


def _border_samples(table: cl.CellTable, lo, hi, rng, n: int) -> np.ndarray:
    """n configurations in proven cells next to unproven ones (where an unsound proof would
    show first; any proven cells of a table proven everywhere), the table's wrapped variables
    shifted by whole turns."""
    shape = (table.n,) * len(table.var)
    proven = table.bits.reshape(shape).astype(bool)
    border = proven.copy()
    edge = np.zeros(shape, dtype=bool)
    for axis in range(len(shape)):
        for shift in (1, -1):
            edge |= ~np.roll(proven, shift, axis=axis)
    border &= edge
    cells = np.flatnonzero(border if border.any() else proven)  # (or proven everywhere)
    assert len(cells)
    pick = rng.choice(cells, n)
    q = lo + rng.random((n, len(lo))) * (hi - lo)
    index = np.unravel_index(pick, shape)
    for d, v in enumerate(table.var):
        q[:, v] = table.start[d] + (index[d] + rng.random(n)) * table.step[d]
        if table.wrap[d]:
            q[:, v] += 2 * np.pi * rng.integers(-2, 3, n)
    return q


@needs_cc
def test_proven_cells_are_apart_by_fcl(ur5) -> None:
    tables = cl.prove_cells(ur5, certifying_model)
    assert len(tables) >= 4  # UR5's two-joint self pairs, at least
    lo, hi = sample_ranges(ur5.scene)
    rng = np.random.default_rng(3)
    names = {frozenset(ur5.frame_names[ur5.owner[k]] for k in (ur5._pi[t.pair], ur5._pj[t.pair]))
             : t for t in tables}
    # UR5's base and upper arm, 6-17 mm apart at most angles: most of their cells are proven
    # (80 % by sphere trees alone; 96 % with their triangles, apart in 96.5 % of samples)
    assert names[frozenset({"world_joint", "shoulder_lift_joint"})].bits.mean() > 0.93
    for t in tables:
        assert t.bits.any()
        q = _border_samples(t, lo, hi, rng, 300)
        assert t.proven(q).all()
        apart = _fcl_apart(ur5, t.pair, q)
        assert apart.all(), q[~apart][0].tolist()


@needs_cc
def test_random_scenes_proven_cells_are_apart_by_fcl() -> None:
    """Every joint kind: revolute about any axis, prismatic (not wrapped), offsets, one to
    three variables, every shape kind (frusta through FCL's circumscribed hull)."""
    from tests.test_collision import random_scene

    seen = set()
    for seed in (2, 3, 4, 6, 8):  # 46 tables among them, of every kind (the others are slower)
        rng = np.random.default_rng(seed)
        checker = CollisionChecker(random_scene(rng, frusta=True), broadphase="dense")
        lo, hi = sample_ranges(checker.scene)
        for t in cl.prove_cells(checker, certifying_model):
            seen.add((len(t.var), bool(min(t.wrap))))
            if t.bits.all():  # proven everywhere: any cell
                q = lo + rng.random((60, len(lo))) * (hi - lo)
            else:
                q = _border_samples(t, lo, hi, rng, 60)
            assert t.proven(q).all()
            apart = _fcl_apart(checker, t.pair, q)
            assert apart.all(), (seed, t.pair, q[~apart][0].tolist())
    assert {1, 2, 3} <= {n for n, _ in seen} and {True, False} <= {w for _, w in seen}, seen


@needs_cc
def test_compiled_with_cells_agrees_beyond_the_limits(ur5) -> None:
    """Angles whole turns outside UR5's +-2 pi limits take their cell by wrapping."""
    lo, hi = sample_ranges(ur5.scene)
    rng = np.random.default_rng(4)
    q = lo + rng.random((1500, len(lo))) * (hi - lo)
    q += 2 * np.pi * rng.integers(-3, 4, q.shape)
    assert_same(ur5.scene, q)


# the largest table the harness takes, in bytes: two variables' cells, or 32 x 32 x 32
BITS = max(cl.CELLS[2] ** 2, 32 ** 3) // 8

HARNESS = r"""
#include <stdio.h>
#define BITS """ + str(BITS) + r"""
int main(void)
{
    int p, dims, var[3], n[3], k;
    double lo[3], step[3], q[NQ + 1];
    static unsigned char bits[BITS];
    rcells_bind(BOXES, NODES, KIDS, LEAVES);
    while (scanf("%d %d %d %d %d %lf %lf %lf %lf %lf %lf %d %d %d", &p, &dims, &var[0],
                 &var[1], &var[2], &lo[0], &lo[1], &lo[2], &step[0], &step[1], &step[2], &n[0],
                 &n[1], &n[2]) == 14) {
        for (k = 0; k < NQ; k++) q[k] = 0.0;
        for (k = 0; k < BITS; k++) bits[k] = 0;
        rcells_cells(p, dims, var, lo, step, n, 1e-9, q, LEV, bits, 100000000L);
        for (k = 0; k < BITS; k++) printf("%d ", bits[k]);
        printf("\n");
    }
    return 0;
}
"""


@needs_cc
def test_certifying_source_strict_sanitized_and_same_cells(ur5, tmp_path: Path) -> None:
    """The certifying build's C (never shipped, but run) is clean under gcc -std=c99 -Wall
    -Wextra -Werror -pedantic with ASan and UBSan, and proves what the loaded library does."""
    from robrayc.ctext import c_float
    from robrayc.templating import render

    lo, hi = sample_ranges(ur5.scene)
    tables = cl.prove_cells(ur5, certifying_model)
    everything = set(range(len(ur5.solids)))
    model = certifying_model(ur5, cl.FINER, everything)
    prover = cl._Prover(ur5, model, lo, hi)
    model = cl.prover_model(model)
    source = checker_text(model, None, render("c_checker.h.j2", model))
    t = prover.trees
    arrays = "".join(
        f"static const {kind} {name}[] = {{ {', '.join(map(fmt, a.ravel().tolist()))} }};\n"
        for kind, name, fmt, a in (("float", "LEV", c_float, prover.speeds),
                                   ("float", "BOXES", c_float, t.boxes),
                                   ("float", "NODES", c_float, t.nodes),
                                   ("int", "KIDS", str, t.kids),
                                   ("float", "LEAVES", c_float, t.leaves)))
    (tmp_path / "cells.c").write_text(source + arrays + HARNESS)
    exe = tmp_path / "cells"
    run = subprocess.run(["gcc", *STRICT, "-O1", "-g", "-fsanitize=address,undefined",
                          "-fno-sanitize-recover=all", "-o", str(exe), str(tmp_path / "cells.c"),
                          "-lm"], capture_output=True, text=True)
    assert run.returncode == 0 and not run.stderr, run.stderr
    lines, expected = [], []
    some = [t for t in tables if len(t.var) <= 2][:2] + [t for t in tables if len(t.var) == 3][:1]
    assert len(some) == 3  # two variables, and three (UR5's forearm and wrist 3)
    for t in some:  # the table's own cells, or 32 x 32 x 32, from its start
        n, pad = t.n if len(t.var) < 3 else 32, 3 - len(t.var)
        step = [x * t.n / n for x in t.step]
        fields = [t.pair, len(t.var), *t.var, *[0] * pad, *t.start, *[0.0] * pad, *step,
                  *[0.0] * pad, *[n] * len(t.var), *[1] * pad]
        lines.append(" ".join(map(repr, fields)))
        grid = [(t.start[d], step[d], t.wrap[d]) for d in range(len(t.var))]
        packed = prover.cells(t.pair, list(t.var), grid, n, np.zeros(len(lo)))
        expected.append(np.pad(packed, (0, BITS - len(packed))).tolist())
    run = subprocess.run([str(exe)], input="\n".join(lines) + "\n", capture_output=True,
                         text=True)
    assert run.returncode == 0 and not run.stderr, run.stderr
    got = [[int(x) for x in line.split()] for line in run.stdout.splitlines()]
    assert got == expected
    assert any(any(row) for row in got)


@needs_cc
def test_cli_cells_and_no_cells(tmp_path: Path) -> None:
    """`--format c-checker` writes UR5's tables; `--no-cells` none; both build strictly."""
    import re

    from tests.corpus import ros_package_path
    from tests.urdf_robots import robot_path

    texts = {}
    for flag in ([], ["--no-cells"]):
        out = tmp_path / f"ur5{len(flag)}.c"
        run = robrayc(robot_path("ur5"), "--format", "c-checker", "-n", "ur5", "-o", out, *flag,
                      env={"ROS_PACKAGE_PATH": ros_package_path()}, process=True)
        assert run.status == 0, run.err
        build = subprocess.run(["gcc", *STRICT, "-O1", "-c", str(out), "-o",
                                str(out.with_suffix(".o"))], capture_output=True, text=True)
        assert build.returncode == 0 and not build.stderr, build.stderr
        texts[len(flag)] = re.search(r"CELLTAB\[\w+\] = \{ ([^}]*) \}", out.read_text()).group(1)
    assert {x.strip() for x in texts[1].split(",")} == {"-1"}
    assert len({x.strip() for x in texts[0].split(",")} - {"-1"}) >= 2


@needs_cc
def test_cells_are_cached_by_content(ur5, tmp_path: Path, monkeypatch) -> None:
    """A second generation reads the proven cells from the user cache (same C); a damaged
    cache file is proven again."""
    from robrayc.analysis.collision.compiled import c_source

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first, _ = c_source(ur5, "arm")
    stored = list((tmp_path / "robrayc" / "checkers").glob("cells-*.json"))
    assert len(stored) == 1
    monkeypatch.setattr(cl, "prove_cells", lambda *a: pytest.fail("proven again"))
    assert c_source(ur5, "arm")[0] == first
    stored[0].write_text("{ damaged")
    monkeypatch.undo()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert c_source(ur5, "arm")[0] == first


@needs_cc
def test_unusable_cache_leaves_the_tables_out(ur5, tmp_path: Path, monkeypatch) -> None:
    """A cache folder that cannot be made (a file in its way) is as good as no compiler: the
    C is generated without tables, and `backend="auto"` falls back to the exact checker."""
    from robrayc.analysis.collision.compiled import c_source

    (tmp_path / "file").write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))
    source, _ = c_source(ur5, "arm")
    assert "static const int CELLTAB" in source and "#define NCELLBYTES_DECL 1\n" in source
    auto = CollisionChecker(ur5.scene, backend="auto")
    assert auto.backend == "exact" and "cache folder" in auto.note
