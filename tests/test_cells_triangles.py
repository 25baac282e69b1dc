"""Certified cells proven on the meshes' triangles (cells.py's last pass, triangles.c's
checker_tcells): at every configuration of a cell it proves, the pair is more than DECIDE_GAP
apart by python-fcl's distance (the kernel answers FREE from the cell's bit alone), checked at
random configurations in the cells, at their corners, at the least distance a search inside
each finds, and a hair from the border of the proven cells; UR5's base and upper arm, 6-17 mm
apart at most angles, get most of their cells (the checker's own sphere trees: 2 %)."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from robrayc.analysis.collision import CollisionChecker
from robrayc.analysis.collision import cells as cl
from robrayc.analysis.collision.compiled import certifying_model
from robrayc.kinematics import periodic_variables, sample_ranges
from tests.backends.test_c_checker import robot_in_field
from tests.test_cells import fcl_distances
from tests.test_collision_motions import next_to_free_edge

pytestmark = [pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc"),
              pytest.mark.slow]

# UR5's base and upper arm (two variables), its forearm and second wrist link
PAIRS = [("world_joint", "shoulder_lift_joint"), ("elbow_joint", "wrist_2_joint")]


def _pair(checker, names: tuple[str, str]) -> int:
    want = set(names)
    for p, (a, b) in enumerate(zip(checker._pi.tolist(), checker._pj.tolist(), strict=True)):
        if {checker.frame_names[checker.owner[a]], checker.frame_names[checker.owner[b]]} == want:
            return p
    raise AssertionError(names)


@pytest.fixture(scope="module")
def proofs(request):
    """UR5, and per pair of PAIRS: its table (sphere trees, then triangles) and which of its
    cells only the triangles proved."""
    mp = pytest.MonkeyPatch()
    request.addfinalizer(mp.undo)
    checker = CollisionChecker(robot_in_field("ur5", 1, mp), broadphase="dense")
    lo, hi = sample_ranges(checker.scene)
    prover = cl._Prover(checker, certifying_model(checker), lo, hi, triangles=True)
    periodic = periodic_variables(checker.scene)
    out = []
    for names in PAIRS:
        p = _pair(checker, names)
        var = cl.path_variables(checker, int(checker._pi[p]), int(checker._pj[p]))
        n = cl.CELLS[len(var)]
        grid = [cl._grid(float(lo[v]), float(hi[v]), periodic[v], n) for v in var]
        spheres = prover.cells(p, var, grid, n, (lo + hi) / 2)
        both = prover.triangle_cells(p, var, grid, n, (lo + hi) / 2, spheres)
        bits = np.unpackbits(both, bitorder="little")[:n ** len(var)]
        table = cl.CellTable(p, tuple(var), n, tuple(g[2] for g in grid),
                             tuple(g[0] for g in grid), tuple(g[1] for g in grid), bits)
        only = bits.astype(bool) & ~np.unpackbits(spheres, bitorder="little")[
            :n ** len(var)].astype(bool)
        out.append((table, only))
    return checker, prover.gap, out


def test_base_and_upper_arm_proven_on_their_triangles(proofs) -> None:
    """Failed before the triangle pass: the checker's own trees prove 8.5 % of the 512 x 512
    cells (2 % of 256 x 256; the finer trees 80 %); its triangles 96 % (the pair is apart in
    96.5 % of random samples)."""
    _, _, out = proofs
    (base, only), (forearm, only2) = out
    assert base.bits.mean() > 0.93 and only.mean() > 0.85
    assert forearm.bits.mean() > 0.93 and only2.mean() > 0.5


def _in_cells(table: cl.CellTable, cells: np.ndarray, q: np.ndarray, u: np.ndarray
              ) -> np.ndarray:
    """q with the table's variables at fractions u (len(cells), variables) of those cells."""
    q = np.repeat(q[None], len(cells), axis=0)
    index = np.unravel_index(cells, (table.n,) * len(table.var))
    for d, v in enumerate(table.var):
        q[:, v] = table.start[d] + (index[d] + u[:, d]) * table.step[d]
    return q


def _bordering(table: cl.CellTable, cells: np.ndarray) -> np.ndarray:
    """Those of the cells next to an unproven one (where the pair comes closest)."""
    shape = (table.n,) * len(table.var)
    proven = table.bits.reshape(shape).astype(bool)
    edge = np.zeros(shape, dtype=bool)
    for axis in range(len(shape)):
        for shift in (1, -1):
            edge |= ~np.roll(proven, shift, axis=axis)
    return cells[edge.ravel()[cells]]


def _closest_in_cell(checker, table: cl.CellTable, cell: int, q: np.ndarray, u: np.ndarray,
                     rounds: int = 10) -> float:
    """The least FCL distance a pattern search finds in a cell, from fraction u of it."""
    best = float(fcl_distances(checker, table.pair, _in_cells(table, np.array([cell]), q,
                                                               u[None]))[0])
    step = 0.25
    for _ in range(rounds):
        moves = np.clip(u + step * np.vstack([np.eye(len(u)), -np.eye(len(u))]), 0.0, 1.0)
        d = fcl_distances(checker, table.pair, _in_cells(table, np.full(len(moves), cell),
                                                         q, moves))
        if d.min() < best:
            best, u = float(d.min()), moves[int(np.argmin(d))]
        else:
            step /= 2
    return best


def test_cells_proven_on_triangles_are_apart_by_fcl(proofs) -> None:
    """At random configurations and the corners of 120 cells a pair's triangles proved (next
    to unproven cells, where it comes closest), and at the least distance a search finds in
    the 12 closest of them, python-fcl finds the pair more than DECIDE_GAP apart."""
    checker, gap, out = proofs
    rng = np.random.default_rng(5)
    lo, hi = sample_ranges(checker.scene)
    q0 = lo + rng.random(len(lo)) * (hi - lo)
    for table, only in out:
        cells = _bordering(table, np.flatnonzero(only))
        assert len(cells) > 100
        cells = rng.choice(cells, 120, replace=False)
        dims = len(table.var)
        corners = np.array(np.meshgrid(*[[0.0, 1.0]] * dims)).reshape(dims, -1).T
        u = np.vstack([rng.random((3 * len(cells), dims)), np.tile(corners, (len(cells), 1))])
        at = np.concatenate([np.repeat(cells, 3), np.repeat(cells, len(corners))])
        d = fcl_distances(checker, table.pair, _in_cells(table, at, q0, u))
        assert d.min() > gap, (table.pair, float(d.min()))
        for k in np.argsort(d)[:12].tolist():
            found = _closest_in_cell(checker, table, int(at[k]), q0, u[k])
            assert found > gap, (table.pair, int(at[k]), found)


class _CellAnswer:
    """next_to_free_edge's kernel: FREE in a proven cell of the table, else MAYBE."""

    def __init__(self, table: cl.CellTable) -> None:
        self.table = table

    def check_one(self, q: np.ndarray) -> int:
        return 0 if self.table.proven(np.asarray(q)[None])[0] else 2


def test_next_to_the_proven_border_apart_by_fcl(proofs) -> None:
    """Configurations a hair from where the proven cells end (bisected on the table, then
    moved by up to 1e-3): those in proven cells have the pair more than DECIDE_GAP apart."""
    checker, gap, out = proofs
    rng = np.random.default_rng(6)
    lo, hi = sample_ranges(checker.scene)
    for table, _ in out:
        q = lo + rng.random((400, len(lo))) * (hi - lo)
        near = next_to_free_edge(_CellAnswer(table), q, 15, rng)
        inside = near[table.proven(near)]
        assert len(inside) >= 30
        d = fcl_distances(checker, table.pair, inside)
        assert d.min() > gap, (table.pair, float(d.min()))


def test_no_triangles_no_change(proofs) -> None:
    """A pair with a solid that has no triangles (a box of the obstacle field) keeps the
    cells its sphere trees proved."""
    checker, _, _ = proofs
    lo, hi = sample_ranges(checker.scene)
    prover = cl._Prover(checker, certifying_model(checker), lo, hi, triangles=True)
    kinds = [item.faces is None for item in checker.solids.items]
    p = next(p for p, (a, b) in enumerate(zip(checker._pi.tolist(), checker._pj.tolist(),
                                                strict=True))
             if kinds[a] != kinds[b] and cl.path_variables(checker, a, b))
    var = cl.path_variables(checker, int(checker._pi[p]), int(checker._pj[p]))[:1]
    table = np.zeros(cl.CELLS[1] // 8, dtype=np.uint8)
    table[::3] = 0x5A
    grid = [cl._grid(float(lo[var[0]]), float(hi[var[0]]), True, cl.CELLS[1])]
    same = prover.triangle_cells(p, var, grid, cl.CELLS[1], (lo + hi) / 2, table)
    assert (same == table).all()
