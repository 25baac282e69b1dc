"""Certified cells: the compiled checker's tables of joint values at which a solid pair is
proven apart, so that it needs no test there.

The relative pose of two solids depends only on the joint variables on the kinematic path
between them. For pairs with one to three such variables (a link and the link two joints
away: UR5's base and upper arm, 6-17 mm apart at most angles), the variables' ranges are cut
into cells (a revolute joint's full turn wraps, so any angle has its cell). A cell is proven
when the pair's sphere trees, each node grown by how far its points can move within the cell,
are apart: node n's points move by at most sum_v h_v L_nv when each variable v moves by h_v
(L_nv: their largest distance from a revolute axis, through the joints below, or |axis| for a
prismatic one; as acm_proof's rates). The trees contain their solids (margin included), so a
proven cell is one where the exact checker finds the pair apart too. Cells are proven
quadtree fashion (a block of cells proven at once is not split) in C: the checker's source
built with its `_cells` function and its trees bound from arrays, first with the checker's
own trees, then, for pairs they leave short, with finer ones.
"""

from __future__ import annotations

import ctypes
import math
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from robrayc.analysis.collision import c_build, witnesses
from robrayc.analysis.collision.c_build import CompilerMissing, cache_dir, checker_text, load
from robrayc.analysis.collision.solids import BOX, SPHERE
from robrayc.analysis.collision.tolerance import CONTACT_TOL
from robrayc.kinematics import (
    RangeError,
    lever_arms,
    periodic_variables,
    sample_ranges,
)
from robrayc.records import record

# Cells per variable, by the number of variables: one 4,096, two 512 x 512 (a UR5 shoulder
# cell is 0.012 rad: its upper arm's points near the axes move about 1 mm within it; a cell
# left unproven is next to contact, where a lane's exact proof costs most: UR5's NAME_check8
# -6.6 % against 256 x 256 for 0.2 s more of proofs; 1,024 x 1,024 ran past the budgets),
# three 32 x 32 x 32 (Panda's fifth link, each finger box: 95 % proven; 64 x 64 x 64 proves
# 98 %, but took Panda's proofs from 0.8 to 2.1 s to spare 3 % of NAME_check8's work).
CELLS = {1: 4096, 2: 512, 3: 32}
# Pairs whose bounding spheres overlap in fewer random configurations than MIN_SHARE, or whose
# trees are apart in fewer than MIN_APART of the first APART_SAMPLES of them, are left to
# their trees; the others get tables, the most often near and apart first, up to MAX_CELLS
# cells in all.
SHARE_SAMPLES = 256
APART_SAMPLES = 32
MIN_SHARE = 0.05
MIN_APART = 0.25
MAX_CELLS = 16 * CELLS[2] ** 2
# A pair gets finer trees when its own trees prove fewer of its cells than this short of the
# share of samples at which it is apart.
SLACK = 0.05
# Node pairs a table may visit (about 10 ns each; UR5's tables among the benchmark's 20 boxes
# take 79 million in all), and all tables together; past them, the cells left stay unproven
# (a bound on the time, which does not depend on the machine).
VISITS = 100_000_000
TOTAL_VISITS = 400_000_000
# The proving trees' leaves, relative to the checker's default (0.25: UR5's base and upper arm
# were proven apart in 80 % of their 256 x 256 cells, 2 % at the default leaf size).
FINER = 0.25
# Each cell is proven over this much more of each variable (absorbs the rounding of the
# cell index computed at run time, ~1e-15 rad).
PAD = 1e-9
# Speeds are rounded up by this factor (they reach the C code as float32).
SPEED_ROUNDING = 1.0 + 1e-6
# Cells of two meshes that the sphere trees leave unproven are proven on the meshes' triangle
# trees (triangles.c): apart by more than TRIANGLE_GAP x DECIDE_GAP (the band about contact
# where the kernel leaves answers to the exact checker; twice it, for the rounding of the
# kinematics and of the triangle tests), in boxes split at most TRIANGLE_DEPTH times within
# a cell, visiting at most TRIANGLE_CELL node pairs a cell, TRIANGLE_VISITS a table and
# TRIANGLE_TOTAL in all (a bound on the time that does not depend on the machine; the same
# UR5's take 349 million of it).
TRIANGLE_GAP = 2.0
TRIANGLE_DEPTH = 24
TRIANGLE_CELL = 20_000
TRIANGLE_VISITS = 300_000_000
TRIANGLE_TOTAL = 600_000_000
# Leaf pairs (two ints each) a triangle proof keeps open across the boxes being split.
TRIANGLE_WORK = 1 << 20


def path_variables(checker, a: int, b: int) -> list[int] | None:
    """The variables the relative pose of solids a and b depends on (sorted), or None when a
    joint on the path is a revolute one with a scaled axis (its angle is not the turn)."""
    fk = checker.fk
    ca, cb = fk.chain(int(checker.group[a])), fk.chain(int(checker.group[b]))
    path = set(ca) ^ set(cb)
    out = set()
    for g in path:
        _, _, kind, axis, var, _ = fk.motions[g - 1]
        if kind == "revolute" and abs(float(np.linalg.norm(axis)) - 1.0) > 1e-9:
            return None
        out.add(var)
    return sorted(out)


def node_speeds(checker, node_solid: np.ndarray, spheres: np.ndarray, lo: np.ndarray,
                hi: np.ndarray) -> np.ndarray:
    """(nodes, variables) float32: how fast the points of each sphere-tree node (its sphere in
    its solid's group frame) move, per unit of each variable, relative to the world."""
    fk = checker.fk
    out = np.zeros((len(spheres), fk.n_variables))
    group = checker.group[node_solid] if len(node_solid) else np.zeros(0, np.int64)
    for g in np.unique(group).tolist():
        if g == 0:
            continue
        rows = np.flatnonzero(group == g)
        chain = fk.chain(g)
        # a scaled axis above a pair's path does not move it: its arm is no matter there
        arms, _ = lever_arms(fk, spheres[rows, :3], spheres[rows, 3], chain, lo, hi)
        for n, h in enumerate(chain):
            out[rows, fk.motions[h - 1][4]] += arms[n]
    return (out * SPEED_ROUNDING).astype(np.float32)


def _grid(lo: float, hi: float, periodic: bool, cells: int) -> tuple[float, float, int]:
    """(start, cell step, wraps) of one variable's cells: the cells of a periodic variable
    (kinematics.periodic_variables) whose range spans a turn cover one turn, and any value
    wraps into them; any other variable's cover its range, and a value outside is in none."""
    if periodic and hi - lo >= 2 * math.pi - 1e-9:
        return lo, 2 * math.pi / cells, 1
    return lo, (hi - lo) / cells, 0


def empty_tables(n_pairs: int) -> dict:
    """The templates' cell variables when no pair has a table (and no crossing witnesses:
    robrayc.analysis.collision.witnesses, proven with the cells)."""
    return {"celltab": ", ".join(["-1"] * max(1, n_pairs)), "n_celltables_decl": 1,
            "celltables": [], "n_cellbytes_decl": 1, "cellbytes": [], "certify": False,
            **witnesses.empty_witnesses()}


def prover_model(model: dict) -> dict:
    """A checker model (c_model's) as the certifying build's: named rcells, its trees bound at
    run time, and its public functions other than the provers' internal (CHECKER_LOCAL), so
    that gcc drops them and what only they call (a third of the time to build)."""
    return {**model, "name": "rcells", "upper": "RCELLS", "guard": "RCELLS_H_",
            "certify": True, "linkage": "CHECKER_LOCAL "}


class _Prover:
    """The certifying build of a checker model (c_model's): its C holds the kinematics and
    the solids; the trees are bound at run time (a C text of a fine tree costs more to write
    and compile than to prove with)."""

    def __init__(self, checker, model: dict, lo: np.ndarray, hi: np.ndarray,
                 triangles: bool = False) -> None:
        from robrayc.templating import render

        model = prover_model(model)
        # with triangles, also the triangle-tree proofs (triangles.c: tcells)
        source = checker_text(model, None, render("c_checker.h.j2", model), triangles)
        self.triangles = triangles
        self.lib = load(source)  # CompilerMissing without a compiler
        self.checker, self.lo, self.hi = checker, lo, hi
        self._triangles: tuple | None = None
        # the band about contact where the kernel leaves answers to the exact checker: the C's
        # DECIDE_GAP (checker_kernel.h), the same formula on the same model
        self.gap = CONTACT_TOL + 1e-6 * (float(model["group_reach"])
                                         + float(model["solid_reach"]))
        self._fill = self.lib.rcells_cells
        self._fill.restype = ctypes.c_long
        t = model["trees"]
        self.trees = t  # the library reads its arrays
        self.speeds = np.ascontiguousarray(node_speeds(checker, t.node_solid,
                                                       t.nodes.astype(float), lo, hi))
        self.lib.rcells_bind(*(np.ascontiguousarray(a).ctypes.data_as(ctypes.c_void_p)
                               for a in (t.boxes, t.nodes, t.kids, t.leaves)))
        self.left = TOTAL_VISITS  # node pairs all its tables may still visit

    def cells(self, p: int, var: list[int], grid: list[tuple[float, float, int]], cells: int,
              q: np.ndarray) -> np.ndarray:
        """The proven cells (bytes, bit k: cell k) of solid pair p: cells per variable var[d]
        of grid[d] (start, step), the other variables at q; at most VISITS node pairs visited
        (and what is left of the prover's whole budget)."""
        table = np.zeros(-(-cells ** len(var) // 8), dtype=np.uint8)
        q = np.array(q, dtype=np.float64)
        visits = min(VISITS, self.left)
        left = self._fill(ctypes.c_int(p), ctypes.c_int(len(var)), (ctypes.c_int * 3)(*var),
                          (ctypes.c_double * 3)(*(x[0] for x in grid)),
                          (ctypes.c_double * 3)(*(x[1] for x in grid)),
                          (ctypes.c_int * 3)(*[cells] * len(var)), ctypes.c_double(PAD),
                          q.ctypes.data_as(ctypes.c_void_p),
                          self.speeds.ctypes.data_as(ctypes.c_void_p),
                          table.ctypes.data_as(ctypes.c_void_p), ctypes.c_long(visits))
        self.left -= visits - max(left, 0)
        return table

    def triangle_cells(self, p: int, var: list[int], grid: list[tuple[float, float, int]],
                       cells: int, q: np.ndarray, table: np.ndarray) -> np.ndarray:
        """table (packed bits of solid pair p's cells, as cells gives) with the cells it
        leaves unproven proven on the pair's triangle trees (exact triangle distances, each
        node grown by how far it moves within the cell: no sphere's bulge), more than
        TRIANGLE_GAP times DECIDE_GAP apart, within TRIANGLE_VISITS node pairs a table, and
        TRIANGLE_CELL a cell; unchanged for a pair that is not two meshes, or by a prover
        built without triangles."""
        return self.triangle_tables([(p, var, grid, cells, table)], q)[0]

    def triangle_tables(self, tables: list[tuple], q: np.ndarray, threads: int = 1
                        ) -> list[np.ndarray]:
        """triangle_cells of each table (p, var, grid, cells, table) in turn, each within
        what the ones before it left of the prover's budget; on `threads` threads at once
        (the C holds no GIL), each run first with the budget it gets when the ones before it
        use none. The proofs depend on the budget only through running short of it (below
        TRIANGLE_CELL), so a run that left that much of its real budget is the real run; any
        other is run again with it: the tables are those of one thread."""
        if not self.triangles or not tables:
            return [job[-1] for job in tables]
        self._bind_triangles()
        first_budget = min(TRIANGLE_VISITS, self.tleft)
        runs: list[tuple[np.ndarray, int] | None] = [None] * len(tables)
        if threads > 1 and len(tables) > 1:
            with ThreadPoolExecutor(min(threads, len(tables))) as pool:
                runs = list(pool.map(lambda job: self._triangle_run(job, q, first_budget),
                                     tables))
        out = []
        for job, run in zip(tables, runs, strict=True):
            budget = min(TRIANGLE_VISITS, self.tleft)
            if run is None or (budget != first_budget and budget - run[1] < TRIANGLE_CELL):
                run = self._triangle_run(job, q, budget)
            self.tleft -= run[1]
            out.append(run[0])
        return out

    def _triangle_run(self, job: tuple, q: np.ndarray, budget: int) -> tuple[np.ndarray, int]:
        """One table's triangle proofs (job: p, var, grid, cells, table; the trees bound)
        within budget node pairs: the table, and the node pairs used."""
        p, var, grid, cells, table = job
        a, b = int(self.checker._pi[p]), int(self.checker._pj[p])
        trees = self._triangles[0]
        if trees.roots[a] < 0 or trees.roots[b] < 0 or budget <= 0:
            return table, 0
        table = table.copy()
        q = np.array(q, dtype=np.float64)
        work = np.empty(TRIANGLE_WORK, dtype=np.int32)
        left = self._tcells(ctypes.c_int(a), ctypes.c_int(b), ctypes.c_int(len(var)),
                            (ctypes.c_int * 3)(*var),
                            (ctypes.c_double * 3)(*(x[0] for x in grid)),
                            (ctypes.c_double * 3)(*(x[1] for x in grid)),
                            (ctypes.c_int * 3)(*[cells] * len(var)), ctypes.c_double(PAD),
                            ctypes.c_double(TRIANGLE_GAP * self.gap),
                            ctypes.c_int(TRIANGLE_DEPTH), q.ctypes.data_as(ctypes.c_void_p),
                            table.ctypes.data_as(ctypes.c_void_p), ctypes.c_long(budget),
                            ctypes.c_long(TRIANGLE_CELL), work.ctypes.data_as(ctypes.c_void_p),
                            ctypes.c_long(len(work)))
        return table, budget - max(left, 0)

    def _bind_triangles(self):
        """The checker's triangle trees and their nodes' speeds, bound to the library once."""
        from robrayc.analysis.collision.triangles import triangle_trees

        if self._triangles is None:
            t = triangle_trees(self.checker)
            speeds = node_speeds(self.checker, t.node_solid, t.nodes, self.lo, self.hi)
            self._triangles = (t, *(np.ascontiguousarray(x, kind) for x, kind in (
                (t.nodes, np.float64), (t.kids, np.int32), (t.triangles, np.float64),
                (t.roots, np.int32), (speeds, np.float32), (t.boxes, np.float64))))
            self.tleft = TRIANGLE_TOTAL
            self._tcells = self.lib.rcells_tcells
            self._tcells.restype = ctypes.c_long
        self.lib.rcells_tbind(*(x.ctypes.data_as(ctypes.c_void_p) for x in self._triangles[1:]))
        return self._triangles[0]

    def crossings(self, q: np.ndarray) -> np.ndarray:
        """Every crossing of two meshes' triangles at configurations q (witnesses.crossings;
        a prover built with triangles)."""
        self._bind_triangles()
        return witnesses.crossings(self.lib, "rcells", q)

    def apart_share(self, p: int, var: list[int], q: np.ndarray) -> float:
        """The share of configurations q at which solid pair p's trees are apart."""
        return sum(bool(self.cells(p, var[:1], [(float(row[var[0]]), 0.0, 0)], 1, row)[0])
                   for row in q) / len(q)


@record(frozen=True)
class CellTable:
    """One solid pair's proven cells: variables var[d], n cells of step[d] from start[d]
    (wrap[d]: the cells cover a full turn, for any angle), bit k of `bits` (flat, the first
    variable's index major) set when cell k is proven."""

    pair: int
    var: tuple[int, ...]
    n: int
    wrap: tuple[int, ...]
    start: tuple[float, ...]
    step: tuple[float, ...]
    bits: np.ndarray

    def cell(self, q: np.ndarray) -> np.ndarray:
        """(N,) flat cell index of each configuration in q (N, variables); -1 outside."""
        at = np.zeros(len(q), dtype=np.int64)
        inside = np.ones(len(q), dtype=bool)
        for d, v in enumerate(self.var):
            i = np.floor((q[:, v] - self.start[d]) / self.step[d]).astype(np.int64)
            if self.wrap[d]:
                i %= self.n
            inside &= (i >= 0) & (i < self.n)
            at = at * self.n + np.clip(i, 0, self.n - 1)
        return np.where(inside, at, -1)

    def proven(self, q: np.ndarray) -> np.ndarray:
        """(N,) whether each configuration lies in a proven cell."""
        at = self.cell(q)
        return (at >= 0) & self.bits[np.maximum(at, 0)].astype(bool)


# A checker's model for the certifying build (compiled.certifying_model): (checker, scale,
# solids) -> its c_model with trees of scale times the default sphere size, for solids only
# when given. Passed in: compiled.py imports this module.
Models = Callable[..., dict]


def prove_cells(checker, models: Models, model: dict | None = None,
                provers: list | None = None) -> list[CellTable]:
    """The checker's tables of proven cells (none without a C compiler); model: the
    checker's c_model, when made already (its trees are tried first); the prover built for
    them is appended to provers, when given (built with triangles when two meshes are a
    checked pair: the crossing witnesses' too)."""
    from robrayc.kinematics import sample_configs

    try:
        lo, hi = sample_ranges(checker.scene)
    except RangeError:  # limits too far apart to cut into cells: no tables
        return []
    samples = sample_configs(checker.scene, SHARE_SAMPLES, seed=0)
    pairs = _near_pairs(checker, lo, hi, samples)
    # worth a table: often near (the trees opened) and then mostly apart (a pair that mostly
    # collides gains few cells)
    apart = _apart_shares(checker, [p for p, _, _ in pairs], samples[:APART_SAMPLES])
    value = [share * x if x >= MIN_APART else 0.0
             for (_, _, share), x in zip(pairs, apart, strict=True)]
    chosen, used, apart_of = [], 0, {pairs[k][0]: x for k, x in enumerate(apart)}
    for k in np.argsort(-np.array(value), kind="stable").tolist():
        p, var, _ = pairs[k]
        n = CELLS[len(var)]
        if value[k] <= 0.0 or used + n ** len(var) > MAX_CELLS:
            break
        chosen.append((p, var, n, apart_of[p]))
        used += n ** len(var)
    if not chosen:
        return []
    periodic = periodic_variables(checker.scene)
    grids = [[_grid(float(lo[v]), float(hi[v]), periodic[v], n) for v in var]
             for _, var, n, _ in chosen]
    try:
        # with the triangles when two meshes are a checked pair: a table may need their
        # proofs, and the crossing witnesses are found on them
        coarse = _Prover(checker, model if model is not None else models(checker), lo, hi,
                         bool(_mesh_pairs(checker)))
        if provers is not None:
            provers.append(coarse)
        bits = [coarse.cells(p, var, grid, n, (lo + hi) / 2)
                for (p, var, n, _), grid in zip(chosen, grids, strict=True)]
        _refine(checker, models, coarse, chosen, grids, bits, samples)
    except CompilerMissing:
        return []
    out = []
    for (p, var, n, _), grid, packed in zip(chosen, grids, bits, strict=True):
        if packed.any():
            out.append(CellTable(p, tuple(var), n, tuple(g[2] for g in grid),
                                 tuple(g[0] for g in grid), tuple(g[1] for g in grid),
                                 np.unpackbits(packed, bitorder="little")[:n ** len(var)]))
    return out


def _meshes(checker) -> list[bool]:
    """Per solid: whether it is a mesh (has triangles)."""
    return [item.faces is not None and len(item.faces) > 0 for item in checker.solids.items]


def _mesh_pairs(checker) -> list[int]:
    """The checker's checked solid pairs of two meshes."""
    meshes = _meshes(checker)
    return [p for p, (a, b) in enumerate(zip(checker._pi.tolist(), checker._pj.tolist(),
                                             strict=True)) if meshes[a] and meshes[b]]


def crossing_witnesses(checker, models: Models, model: dict | None,
                       prover: _Prover | None) -> dict:
    """The templates' witness variables (witnesses.found_by) of prover, the cells' certifying
    build when it has triangles, else one built for them."""
    if not _mesh_pairs(checker):
        return witnesses.empty_witnesses()
    try:
        if prover is None or not prover.triangles:
            lo, hi = sample_ranges(checker.scene)
            prover = _Prover(checker, model if model is not None else models(checker), lo, hi,
                             True)
        return witnesses.found_by(checker, prover)
    except (RangeError, CompilerMissing):
        return witnesses.empty_witnesses()


def _refine(checker, models: Models, coarse: _Prover, chosen: list, grids: list,
            bits: list[np.ndarray], samples: np.ndarray) -> None:
    """bits (the checker's own trees' proven cells of each chosen (pair, variables, cells a
    variable, apart share)) with more cells proven, for the tables they leave well short of
    how often the pair is apart: on the triangles of two meshes of one or two variables (a
    cell of three moves too far for them to gain much), then on sphere trees FINER times the
    default's. Every proof holds for the solids themselves (the trees contain them; the
    triangles are them), so a cell any proves is proven."""
    lo, hi = coarse.lo, coarse.hi

    def weak(k: int) -> bool:
        p, var, n, apart = chosen[k]
        return np.unpackbits(bits[k]).sum() < (apart - SLACK) * n ** len(var)

    def fine_prover(tables: list[int]) -> _Prover:
        solids = {int(x[chosen[k][0]]) for k in tables for x in (checker._pi, checker._pj)}
        return _Prover(checker, models(checker, FINER, solids), lo, hi)

    meshes = _meshes(checker)

    def by_triangles(k: int) -> bool:  # a table that triangle_cells may prove more of
        return coarse.triangles and len(chosen[k][1]) <= 2 and all(
            meshes[int(x[chosen[k][0]])] for x in (checker._pi, checker._pj))

    weak_now = [k for k in range(len(chosen)) if weak(k)]
    with ThreadPoolExecutor(1) as pool:
        # A table the triangles cannot take needs the finer trees anyway: their build (the
        # model, then gcc) runs beside the triangle proofs (C, which holds no GIL), for every
        # weak table's solids (a superset: the proofs are the same). UR5's cells on two
        # cores: ~2 s sooner.
        early = (pool.submit(fine_prover, weak_now)
                 if any(not by_triangles(k) for k in weak_now) else None)
        # the triangle tables two at a time (on two cores: beside the checker's code compiling
        # and the finer trees' build, then beside each other)
        tri = [k for k in weak_now if by_triangles(k)]
        proven = coarse.triangle_tables([(*chosen[k][:2], grids[k], chosen[k][2], bits[k])
                                         for k in tri], (lo + hi) / 2, threads=2)
        for k, table in zip(tri, proven, strict=True):
            bits[k] = table
        left = [k for k in weak_now if weak(k)]
        if not left:
            return
        fine = early.result() if early is not None else fine_prover(left)
    fine.left = coarse.left
    for k in left:
        p, var, n, _ = chosen[k]
        # pairs too close for even the finer trees at fixed samples are left
        if fine.apart_share(p, var, samples[:APART_SAMPLES]) >= MIN_APART:
            bits[k] |= fine.cells(p, var, grids[k], n, (lo + hi) / 2)


def _apart_shares(checker, pairs: list[int], q: np.ndarray) -> list[float]:
    """Per solid pair: the share of configurations q at which FCL finds its solids apart."""
    import fcl

    s = checker.solids
    T = checker._solid_poses(q)
    request = fcl.CollisionRequest()
    out = []
    for p in pairs:
        a, b = int(checker._pi[p]), int(checker._pj[p])
        Ta, Tb = T[:, a], T[:, b]
        oa, ob = s.fcl_object(a), s.fcl_object(b)
        hits = 0
        for n in range(len(q)):
            oa.setTransform(fcl.Transform(Ta[n, :3, :3], Ta[n, :3, 3]))
            ob.setTransform(fcl.Transform(Tb[n, :3, :3], Tb[n, :3, 3]))
            hits += fcl.collide(oa, ob, request, fcl.CollisionResult()) > 0
        out.append(1.0 - hits / len(q))
    return out


def cell_tables(checker, model: dict | None, models: Models) -> dict:
    """The templates' cell variables for a checker (model: its c_model, when made), from the
    user cache when the same checker was proven before (as its compiled library is)."""
    path, cached = cached_cell_tables(checker, model, models)
    return cached if cached is not None else proven_cell_tables(checker, model, models, path)


def cached_cell_tables(checker, model: dict | None, models: Models
                       ) -> tuple[Path | None, dict | None]:
    """Where a checker's cell variables are cached (None without a model), and them when
    they are there."""
    import json

    if model is None:
        return None, None
    path = cache_dir() / f"cells-{_cache_key(checker, model, models)}.json"
    if path.is_file():
        try:
            return path, json.loads(path.read_text())
        except (OSError, ValueError):
            pass  # unreadable: proven again, and stored anew
    return path, None


def proven_cell_tables(checker, model: dict | None, models: Models, path: Path | None
                       ) -> dict:
    """The cell variables proven now, and stored at path (when there is a compiler: none
    proves no cells, which may prove some once there is one)."""
    import json
    import os
    import tempfile

    out = _cell_texts(checker, model, models)
    if path is not None and (out["celltables"] or c_build.compiler() is not None):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False) as f:
                json.dump(out, f)
            os.replace(f.name, path)
        except OSError:
            pass  # a read-only cache: proven again next time
    return out


def _cache_key(checker, model: dict, models: Models) -> str:
    """What the cells depend on: robrayc's version and the code that proves them (this
    module, the kinematics, the compiled checker (the module of models and c_build), its
    templates, its kernel and the triangle proofs (triangles.py's trees, triangles.c and the
    triangle tests of nodeboxes.c, meshes.c and convex.c): a change while the version stays is
    not served stale cells), the checker's solids (meshes included), pairs, kinematics and
    ranges, and its trees."""
    import hashlib

    from robrayc import __version__, _templates, kinematics
    from robrayc.analysis.collision import triangles

    digest = hashlib.sha256(__version__.encode())
    for module in (__name__, kinematics.__name__, models.__module__, c_build.__name__,
                   _templates.__name__, triangles.__name__, witnesses.__name__):
        digest.update(Path(sys.modules[module].__file__).read_bytes())
    for part in ("checker_kernel.c", "kinematics.c", "cells.c", "triangles.c", "convex.c",
                 "nodeboxes.c", "meshes.c"):
        digest.update(c_build.kernel_source(part).encode())  # the tests and the provers
    for part in (model["solids"], model["pairs"], model["fk_code"], model["n_config"]):
        digest.update(repr(part).encode())
    try:
        lo, hi = sample_ranges(checker.scene)
        digest.update(np.asarray(lo, float).tobytes() + np.asarray(hi, float).tobytes())
    except RangeError:
        digest.update(b"no ranges")
    t = model["trees"]
    for a in (t.nodes, t.kids, t.leaves, t.boxes, t.node_solid):
        digest.update(np.ascontiguousarray(a).tobytes())
    for item in checker.solids.items:
        for a in (item.vertices, item.faces):
            digest.update(b"-" if a is None else np.ascontiguousarray(a).tobytes())
    return digest.hexdigest()[:32]


def _cell_texts(checker, model: dict | None, models: Models) -> dict:
    """The templates' cell variables, proven now."""
    from robrayc.ctext import c_double

    provers: list[_Prover] = []
    tables = prove_cells(checker, models, model, provers)
    found = crossing_witnesses(checker, models, model, provers[0] if provers else None)
    if not tables:
        return {**empty_tables(len(checker._pi)), **found}
    celltab, texts, first = [-1] * len(checker._pi), [], 0
    for t in tables:
        celltab[t.pair] = len(texts)
        dims = [(v, t.n, t.wrap[d], t.start[d], 1.0 / t.step[d]) for d, v in
                enumerate(t.var)] + [(0, 1, 0, 0.0, 0.0)] * (3 - len(t.var))
        cols = [", ".join(c_double(x) if isinstance(x, float) else str(x) for x in col)
                for col in zip(*dims, strict=True)]
        texts.append(", ".join(f"{{ {c} }}" for c in cols) + f", {first}")
        first += len(t.bits)
    packed = np.packbits(np.concatenate([t.bits for t in tables]), bitorder="little")
    rows = [", ".join(map(str, packed[k:k + 24].tolist())) for k in range(0, len(packed), 24)]
    return {"celltab": ", ".join(map(str, celltab)), "n_celltables_decl": len(texts),
            "celltables": texts, "n_cellbytes_decl": len(packed), "cellbytes": rows,
            "certify": False, **found}


def _near_pairs(checker, lo: np.ndarray, hi: np.ndarray, samples: np.ndarray
                ) -> list[tuple[int, list[int], float]]:
    """The solid pairs a table may serve, with their variables and how often their bounding
    spheres overlap in the samples (the trees are opened then): one to three variables (with
    a range), not decided by closed forms, overlapping in at least MIN_SHARE of the samples."""
    kinds = [item.kind for item in checker.solids.items]
    pairs = []
    for p, (a, b) in enumerate(zip(checker._pi.tolist(), checker._pj.tolist(), strict=True)):
        if kinds[a] in (SPHERE, BOX) and kinds[b] in (SPHERE, BOX):
            continue
        var = path_variables(checker, a, b)
        if var and len(var) <= len(CELLS) and all(hi[v] > lo[v] for v in var):
            pairs.append((p, var))
    if not pairs:
        return []
    s = checker.solids
    centre = checker._solid_poses(samples)[..., :3, 3]  # (samples, solids, 3)
    a = np.array([checker._pi[p] for p, _ in pairs])
    b = np.array([checker._pj[p] for p, _ in pairs])
    d = centre[:, a] - centre[:, b]
    share = ((d * d).sum(axis=2) <= (s.brad[a] + s.brad[b]) ** 2).mean(axis=0)
    return [(p, var, float(x)) for (p, var), x in zip(pairs, share.tolist(), strict=True)
            if x >= MIN_SHARE]
