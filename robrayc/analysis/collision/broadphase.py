"""The broad phase: world bounding spheres on a hashed grid (named "kd" for the kd-tree it
replaced); and PoseChecker, the scene-free core over given poses. numpy only."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from robrayc.analysis.collision.narrow import PairTester
from robrayc.analysis.collision.solids import CONTACT_TOL, Solid, Solids

# Neighbour columns of a grid cell (x, y offsets): the three cells z-1, z, z+1 of a column
# have consecutive keys, so one range each.
_COLUMNS = np.array([(x, y) for x in (-1, 0, 1) for y in (-1, 0, 1)], dtype=np.int64)


def radius_pairs(a: np.ndarray, b: np.ndarray | None, r: float,
                 reach: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """All (i, j) with |a[i] - b[j]| <= r (b None: pairs i < j within a): points hashed on a
    grid of cells at least r wide and sorted by cell, each point of `a` matched against the
    cells around its own (numpy only; what a kd-tree's radius query gives). With `reach`
    (b None only), pairs within reach[i] + reach[j] (<= r). A point that is not finite pairs
    with all."""
    same = b is None
    a = np.asarray(a, float).reshape(-1, 3)
    b = a if same else np.asarray(b, float).reshape(-1, 3)
    empty = (np.empty(0, np.int64), np.empty(0, np.int64))
    if not len(a) or not len(b):
        return empty
    fa, fb = np.isfinite(a).all(axis=1), np.isfinite(b).all(axis=1)
    out_i, out_j = [], []
    for k in np.flatnonzero(~fa):  # unknown places: conservatively near everything
        others = np.arange(len(b))
        others = others[others != k] if same else others
        out_i.append(np.full(len(others), k))
        out_j.append(others)
    for k in ([] if same else np.flatnonzero(~fb)):
        out_i.append(np.flatnonzero(fa))
        out_j.append(np.full(int(fa.sum()), k))
    ia, ib = np.flatnonzero(fa), np.flatnonzero(fb)
    if len(ia) and len(ib):
        i, j = _grid_radius_pairs(a[ia], None if same else b[ib], r,
                                  None if reach is None else reach[ia])
        out_i.append(ia[i])
        out_j.append(ib[j])
    if not out_i:
        return empty
    i, j = np.concatenate(out_i).astype(np.int64), np.concatenate(out_j).astype(np.int64)
    if same:
        i, j = np.minimum(i, j), np.maximum(i, j)
        if not fa.all():  # a pair of two points not finite was listed twice
            keys = np.unique(i * len(a) + j)
            i, j = np.divmod(keys, len(a))
    return i, j


def _grid_radius_pairs(a: np.ndarray, b: np.ndarray | None, r: float,
                       reach: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    both = a if b is None else np.concatenate([a, b])
    lo = both.min(axis=0)
    spread = float((both.max(axis=0) - lo).max())
    # at least r wide (a neighbour is in an adjacent cell), at most 2^20 cells a side (keys fit)
    cell = max(float(r), spread / 2.0 ** 20, 1e-300)
    side = int(np.floor(spread / cell)) + 3

    def sorted_keys(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        k = np.floor((p - lo) / cell).astype(np.int64) + 1
        keys = (k[:, 0] * side + k[:, 1]) * side + k[:, 2]
        order = np.argsort(keys)
        return keys[order], order

    ka, oa = sorted_keys(a)
    kb, ob = (ka, oa) if b is None else sorted_keys(b)
    delta = (_COLUMNS[:, 0] * side + _COLUMNS[:, 1]) * side
    src = np.arange(len(ka))
    firsts, counts = [], []
    if b is None:  # each pair once: later points of the own cell and of the cell above it,
        end = np.searchsorted(kb, ka + 1, side="right")  # then the columns after its own
        firsts.append(src + 1)
        counts.append(end - src - 1)
        delta = delta[delta > 0]
    for step in delta.tolist():
        first = np.searchsorted(kb, ka + (step - 1), side="left")
        firsts.append(first)
        counts.append(np.searchsorted(kb, ka + (step + 1), side="right") - first)
    first, count = np.concatenate(firsts), np.concatenate(counts)
    i = np.repeat(np.tile(src, len(firsts)), count)
    j = np.repeat(first - np.cumsum(count) + count, count) + np.arange(int(count.sum()))
    pa, pb = a[oa], (a if b is None else b)[ob]
    gap = np.zeros(len(i))
    for c in range(3):  # one axis at a time: gathers of contiguous columns
        axis_a, axis_b = np.ascontiguousarray(pa[:, c]), np.ascontiguousarray(pb[:, c])
        gap += (axis_a[i] - axis_b[j]) ** 2
    if reach is None:
        keep = gap <= r * r
    else:
        own = reach[oa]
        keep = gap <= (own[i] + own[j]) ** 2
    return oa[i[keep]], ob[j[keep]]


def sphere_pairs(c: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(i, j), i < j, whose bounding spheres (centres c, radii r) meet (within CONTACT_TOL, or
    a little more), by :func:`radius_pairs` (a numpy grid): the default broad phase. Spheres
    over 4x the median radius are tested against all, so that one huge solid does not make
    every pair a candidate."""
    n = len(c)
    if n < 2:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    med = float(np.partition(r, n // 2)[n // 2])
    big = r > 4 * med if med > 0 else np.zeros(n, dtype=bool)
    small = np.flatnonzero(~big)
    i_out, j_out = [], []
    if len(small) > 1:
        grown = r[small] + CONTACT_TOL  # a pair's reach: a little over r_a + r_b + CONTACT_TOL
        p, q = radius_pairs(c[small], None, 2 * float(grown.max()), grown)
        i_out.append(small[p])
        j_out.append(small[q])
    for g in np.flatnonzero(big):
        d = c - c[g]
        others = np.flatnonzero(~((d * d).sum(axis=1) > (r + r[g] + CONTACT_TOL) ** 2))
        others = others[(others != g) & (~big[others] | (others > g))]
        i_out.append(np.minimum(others, g))
        j_out.append(np.maximum(others, g))
    if not i_out:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    return np.concatenate(i_out).astype(np.int64), np.concatenate(j_out).astype(np.int64)


# The one broad phase (the name is kept from the kd-tree it replaced). A uniform grid and
# sweep and prune over world AABBs were removed: where a broad phase runs (past some 400
# solids: the checker's dense mode below) they took 2.5x and 4-40x its time, and gave twice
# the candidates (docs/performance.md, "Broad phase").
BROADPHASES = ("kd",)


def candidates(solids: Solids, W: np.ndarray, broadphase: str = "kd"
               ) -> tuple[np.ndarray, np.ndarray]:
    """Candidate solid pairs (i < j) at world poses W (O,4,4): bounding spheres that meet."""
    if broadphase not in BROADPHASES:
        raise ValueError(f"unknown broad phase {broadphase!r}")
    return sphere_pairs(W[:, :3, 3], solids.brad)


class PoseChecker:
    """Collision of free-standing solids at given world poses (no scene, no kinematics): the
    core that :class:`CollisionChecker` drives, usable on its own (and by the benchmarks)."""

    def __init__(self, solids: Sequence[Solid], broadphase: str = "kd") -> None:
        if broadphase not in BROADPHASES:
            raise ValueError(f"unknown broad phase {broadphase!r}")
        self.solids = Solids(solids)
        self.tester = PairTester(self.solids)
        self.broadphase = broadphase

    def colliding(self, poses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Intersecting solid pairs (i, j), i < j, sorted, at ``poses`` (O,4,4): each solid's
        owning frame in the world (the solid's placement is applied here)."""
        W = np.asarray(poses, dtype=float) @ self.solids.placement
        i, j = candidates(self.solids, W, self.broadphase)
        hit = self.tester.test(i, j, W[i], W[j])
        i, j = i[hit], j[hit]
        order = np.lexsort((j, i))
        return i[order], j[order]
