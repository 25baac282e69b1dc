"""Certified sphere covers of collision solids: every point of a primitive, and every triangle
of a mesh, lies inside the union of its spheres.

Why they are certain, solid by solid (``size`` is the target cell edge, the one knob):
- sphere: itself;
- box: the box tiled by equal cells, each cell inside its circumscribed sphere;
- cylinder, cone, frustum: slabs along the axis; in each slab the disc of the slab's largest
  radius is covered by square cells (cells missing the disc are dropped), each cell (times the
  slab) inside its circumscribed sphere;
- mesh (a triangle soup, as the exact checker sees it: only surfaces collide): triangles longer
  than ``size`` are split into equal sub-triangles; sub-triangles are grouped by the cell their
  centroid falls in; a group's sphere has the centre of its vertices' bounding box and reaches
  the farthest vertex, so it holds every vertex of the group and, being convex, every
  sub-triangle (so every point of every triangle, not just the vertices).

Overshoot (how far a sphere reaches outside its solid) is measured, not bounded: the largest
closed-form signed distance of points spread over the spheres' surfaces (meshes: distance to
points spread densely over the surface, so it also counts the inside of a closed mesh).
"""

from __future__ import annotations

import math

import numpy as np

from robrayc import ir
from robrayc.analysis.collision.broadphase import radius_pairs
from robrayc.analysis.collision.closed_form import box_distance, round_distance
from robrayc.analysis.collision.solids import BOX, CONE, CYLINDER, FRUSTUM, MESH, SPHERE, Solid
from robrayc.records import record

# Points per sphere surface at which the overshoot is measured.
_PROBES = 48


@record(frozen=True)
class SphereCover:
    """Spheres (centres (k,3), radii (k,)) in the solid's own frame, and the overshoot; and
    per sphere, a box holding the same piece of the solid (a cell, or a mesh patch's oriented
    box: far thinner than its sphere across a flat patch): centres (k,3), axes (k,3,3: the
    unit axes as rows), half extents (k,3)."""

    centres: np.ndarray
    radii: np.ndarray
    overshoot: float
    box_centres: np.ndarray | None = None
    box_axes: np.ndarray | None = None
    box_half: np.ndarray | None = None

    def placed(self, placement: np.ndarray) -> SphereCover:
        """The same cover moved by a 4x4 rigid placement."""
        rot, move = placement[:3, :3], placement[:3, 3]
        boxes = (None, None) if self.box_centres is None else (
            self.box_centres @ rot.T + move, self.box_axes @ rot.T)
        return SphereCover(self.centres @ rot.T + move, self.radii, self.overshoot, boxes[0],
                           boxes[1], self.box_half)

    def __len__(self) -> int:
        return len(self.radii)


def _fibonacci(n: int) -> np.ndarray:
    """n unit vectors spread evenly over the sphere."""
    k = np.arange(n) + 0.5
    z = 1 - 2 * k / n
    phi = k * math.pi * (3 - math.sqrt(5))
    r = np.sqrt(1 - z * z)
    return np.stack([r * np.cos(phi), r * np.sin(phi), z], axis=1)


_DIRS = _fibonacci(_PROBES)


def _probe_points(centres: np.ndarray, radii: np.ndarray) -> np.ndarray:
    return (centres[:, None, :] + radii[:, None, None] * _DIRS[None]).reshape(-1, 3)


def _cells(lo: np.ndarray, hi: np.ndarray, size: float) -> tuple[np.ndarray, np.ndarray]:
    """Equal cells tiling the box [lo, hi], each edge at most ``size``: (centres, half)."""
    n = np.maximum(1, np.ceil((hi - lo) / size - 1e-9)).astype(int)
    half = (hi - lo) / (2 * n)
    axes = [lo[k] + half[k] * (2 * np.arange(n[k]) + 1) for k in range(3)]
    grid = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)
    return grid, half


def _cover_box(half: np.ndarray, size: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    centres, h = _cells(-half, half, size)
    return centres, np.full(len(centres), float(np.linalg.norm(h))), np.tile(h, (len(centres), 1))


def _cover_round(r_lo: float, r_hi: float, hh: float, size: float
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cylinder/cone/frustum along z on [-hh, hh], radius r_lo at -hh and r_hi at +hh."""
    n_z = max(1, math.ceil(2 * hh / size - 1e-9))
    slab = hh / n_z  # half thickness
    centres, radii, halves = [], [], []
    def radius_at(z: float) -> float:
        return r_lo + (r_hi - r_lo) * (z + hh) / (2 * hh) if hh > 0 else max(r_lo, r_hi)

    for k in range(n_z):
        z0 = -hh + 2 * slab * k
        big = max(radius_at(z0), radius_at(z0 + 2 * slab))
        n = max(1, math.ceil(2 * big / size - 1e-9))
        d = big / n  # half cell edge
        xs = -big + d * (2 * np.arange(n) + 1)
        gx, gy = np.meshgrid(xs, xs, indexing="ij")
        gx, gy = gx.ravel(), gy.ravel()
        # the cell's point nearest the axis: keep the cell if that is within the disc
        nx = np.maximum(np.abs(gx) - d, 0.0)
        ny = np.maximum(np.abs(gy) - d, 0.0)
        keep = nx * nx + ny * ny <= big * big
        zc = z0 + slab
        centres.append(np.column_stack([gx[keep], gy[keep], np.full(keep.sum(), zc)]))
        radii.append(np.full(keep.sum(), math.sqrt(2 * d * d + slab * slab)))
        halves.append(np.tile([d, d, slab], (int(keep.sum()), 1)))
    return np.concatenate(centres), np.concatenate(radii), np.concatenate(halves)


def _split_triangles(tri: np.ndarray, size: float) -> np.ndarray:
    """Triangles (T,3,3) split into equal sub-triangles with edges at most ``size``."""
    edges = np.stack([tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 1], tri[:, 0] - tri[:, 2]], 1)
    longest = np.sqrt((edges * edges).sum(axis=2)).max(axis=1)
    parts = np.maximum(1, np.ceil(longest / size - 1e-9)).astype(int)
    out = [tri[parts == 1]]
    for k in np.unique(parts[parts > 1]).tolist():
        t = tri[parts == k]
        a, u, v = t[:, 0], (t[:, 1] - t[:, 0]) / k, (t[:, 2] - t[:, 0]) / k
        # corner p = a + i u + j v of each sub-triangle (i + j < k), all triangles at once:
        # the upright one (p, p+u, p+v), then, inside, the inverted one (p+u, p+u+v, p+v)
        ij = np.array([(i, j) for i in range(k) for j in range(k - i)], dtype=float)
        p = a[None] + ij[:, :1, None] * u[None] + ij[:, 1:, None] * v[None]  # (m, T, 3)
        pu = p + u[None]
        up = np.stack([p, pu, p + v[None]], axis=2)
        inner = ij.sum(axis=1) < k - 1
        down = np.stack([pu[inner], pu[inner] + v[None], p[inner] + v[None]], axis=2)
        # in the order the corners come: each upright triangle, then its inverted one
        at = np.cumsum(1 + inner) - 1 - inner
        blocks = np.empty((len(ij) + int(inner.sum()),) + up.shape[1:])
        blocks[at] = up
        blocks[at[inner] + 1] = down
        out.append(blocks.reshape(-1, 3, 3))
    return np.concatenate(out)


def _cover_mesh(vertices: np.ndarray, faces: np.ndarray, size: float) -> tuple:
    """(centres, radii, the sub-triangles' vertices, the patches' boxes) of a triangle soup's
    cover."""
    sub = _split_triangles(vertices[faces], size)
    group = _cell_groups(np.floor(sub.mean(axis=1) / size).astype(np.int64))
    pts = sub.reshape(-1, 3)
    owner = np.repeat(group, 3)
    n = int(group.max()) + 1
    # each patch's points in a row (stable: in their order), reduced patch by patch
    order = np.argsort(owner, kind="stable")
    starts = np.searchsorted(owner[order], np.arange(n))
    lo = np.minimum.reduceat(pts[order], starts)
    hi = np.maximum.reduceat(pts[order], starts)
    centres = (lo + hi) / 2
    d = pts - centres[owner]
    radii = np.maximum.reduceat(np.sqrt((d * d).sum(axis=1))[order], starts)
    # the radius is rounded up by a few ulps so that the farthest vertex stays inside
    return centres, radii * (1 + 1e-12) + 1e-15, sub, _patch_boxes(pts, owner, order, starts)


def _cell_groups(cell: np.ndarray) -> np.ndarray:
    """Each row's group: the rank of its cell (x, y, z) among the distinct cells in
    lexicographic order (as np.unique(axis=0); one integer key a cell is far faster)."""
    cell = cell - cell.min(axis=0)
    span = cell.max(axis=0) + 1
    if float(np.prod(span.astype(float))) >= 2.0 ** 62:
        return np.unique(cell, axis=0, return_inverse=True)[1].ravel()
    key = (cell[:, 0] * span[1] + cell[:, 1]) * span[2] + cell[:, 2]
    return np.unique(key, return_inverse=True)[1].ravel()


def _patch_boxes(pts: np.ndarray, owner: np.ndarray, order: np.ndarray, starts: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Oriented boxes holding each patch's points (axes: the principal axes of its points),
    so each holds its patch's triangles: (centres, axes as rows, half extents). order and
    starts: the points patch by patch."""
    count = np.diff(np.append(starts, len(owner)))[:, None]
    mean = np.add.reduceat(pts[order], starts) / count
    d = pts - mean[owner]
    cov = np.add.reduceat((d[:, :, None] * d[:, None, :])[order], starts)
    axes = np.linalg.eigh(cov)[1].transpose(0, 2, 1)  # eigenvectors as rows
    proj = np.einsum("nij,nj->ni", axes[owner], pts)
    lo = np.minimum.reduceat(proj[order], starts)
    hi = np.maximum.reduceat(proj[order], starts)
    centres = np.einsum("nji,nj->ni", axes, (lo + hi) / 2)
    # grown by a few ulps of the coordinates so that rounding keeps every point inside
    slack = 1e-12 * (1 + np.abs(proj).max())
    return centres, axes, (hi - lo) / 2 + slack


def _overshoot_primitive(kind: int, par: np.ndarray, centres, radii) -> float:
    p = _probe_points(centres, radii)
    if kind == SPHERE:
        d = np.sqrt((p * p).sum(axis=1)) - par[0]
    elif kind == BOX:
        d = box_distance(p, par)
    else:
        d = round_distance(p, np.broadcast_to(par, p.shape))
    return max(float(d.max()), 0.0)


def _overshoot_mesh(sub: np.ndarray, centres, radii) -> float:
    surface = np.unique(np.concatenate([sub.reshape(-1, 3), sub.mean(axis=1)]), axis=0)
    # start where a point on the surface has a few others around it: few pairs a round
    area = float(np.sqrt((np.cross(sub[:, 1] - sub[:, 0], sub[:, 2] - sub[:, 0]) ** 2)
                         .sum(axis=1)).sum()) / 2
    reach = math.sqrt(4 * area / (math.pi * max(len(surface), 1))) if area > 0 else 1e-3
    return _farthest_nearest(surface, _probe_points(centres, radii), reach)


def _farthest_nearest(points: np.ndarray, queries: np.ndarray, reach: float) -> float:
    """The largest distance from a query to its nearest point (max over queries of min over
    points): by scipy's kd-tree when the `fast` extra is installed (about 9x quicker on a
    robot's meshes), else by :func:`_farthest_nearest_grid`; both exact, the same float."""
    kd_tree = _kd_tree()
    if kd_tree is None or not len(points) or not len(queries):
        return _farthest_nearest_grid(points, queries, reach)
    return float(kd_tree(points).query(queries)[0].max())


def _kd_tree() -> type | None:  # scipy's cKDTree, when installed
    try:
        from scipy.spatial import cKDTree
    except ImportError:
        return None
    return cKDTree


def _farthest_nearest_grid(points: np.ndarray, queries: np.ndarray, reach: float) -> float:
    """:func:`_farthest_nearest` in numpy only. Points are sorted on a grid once a round;
    each query's nearest point among the 27 cells around its own is exact when it is within
    a cell's width (anything outside is farther). Queries left without one are all farther
    than every exact distance found, so only they go on, to a grid of cells twice as wide."""
    todo = queries
    cell = max(reach * 2, 1e-12)
    while len(todo) and len(points):
        d2, cell = _nearest_in_block(points, todo, cell)
        far = ~(d2 <= cell * cell)
        if not far.any():
            return math.sqrt(float(d2.max()))
        todo, cell = todo[far], cell * 2
    return 0.0 if not len(todo) else math.inf


# Neighbour columns of a grid cell (x, y offsets): the cells z-1, z, z+1 of a column have
# consecutive keys, so one range each.
_COLUMNS = np.array([(x, y) for x in (-1, 0, 1) for y in (-1, 0, 1)], dtype=np.int64)
# Candidate pairs gathered at once: bounds memory (8 bytes each, a few arrays of them).
_PAIR_BLOCK = 1 << 21


def _nearest_in_block(points: np.ndarray, queries: np.ndarray, cell: float
                      ) -> tuple[np.ndarray, float]:
    """Each query's least squared distance to the points in the 27 grid cells around its own
    (inf: none there), and the cell width used (at least `cell`; wider when the spread would
    need over 2^20 cells a side)."""
    lo = np.minimum(points.min(axis=0), queries.min(axis=0))
    spread = float((np.maximum(points.max(axis=0), queries.max(axis=0)) - lo).max())
    cell = max(cell, spread / 2.0 ** 20)
    side = int(np.floor(spread / cell)) + 3

    def keys(p: np.ndarray) -> np.ndarray:
        k = np.floor((p - lo) / cell).astype(np.int64) + 1
        return (k[:, 0] * side + k[:, 1]) * side + k[:, 2]

    pkeys = keys(points)
    order = np.argsort(pkeys)
    pkeys = pkeys[order]
    axes = [np.ascontiguousarray(points[order, c]) for c in range(3)]
    qkeys = keys(queries)
    delta = (_COLUMNS[:, 0] * side + _COLUMNS[:, 1]) * side
    first = np.searchsorted(pkeys, qkeys[:, None] + (delta - 1), side="left")  # (M, 9)
    count = np.searchsorted(pkeys, qkeys[:, None] + (delta + 1), side="right") - first
    per_query = count.sum(axis=1)
    best = np.full(len(queries), np.inf)
    bounds = np.searchsorted(np.cumsum(per_query), np.arange(1, 1 + per_query.sum() // _PAIR_BLOCK)
                             * _PAIR_BLOCK)
    for s, e in zip(np.r_[0, bounds], np.r_[bounds, len(queries)], strict=True):
        n = count[s:e].ravel()
        if not n.sum():
            continue
        i = np.repeat(np.arange(s, e), per_query[s:e])
        j = np.repeat(first[s:e].ravel() - np.cumsum(n) + n, n) + np.arange(int(n.sum()))
        d2 = np.zeros(len(i))
        for c in range(3):  # one axis at a time, as the exact distances elsewhere sum them
            d2 += (queries[i, c] - axes[c][j]) ** 2
        has = np.flatnonzero(per_query[s:e]) + s
        best[has] = np.minimum.reduceat(d2, np.searchsorted(i, has))
    return best, cell


def grid_solid(shape: ir.Grid, scale: float = 1.0) -> Solid:
    """A grid as the plate it draws (dimension x thickness, centred): grids never collide in
    the checkers, but sphere exports cover them too."""
    s = abs(scale)
    half = (abs(shape.dimension[0]) * s / 2, abs(shape.dimension[1]) * s / 2,
            abs(shape.thickness) * s / 2)
    return Solid(BOX, half, np.eye(4))


def cover(solid: Solid, size: float, overshoot: bool = True) -> SphereCover:
    """Certified spheres of one solid (in its own centred frame; see the module docstring);
    without overshoot, a mesh's overshoot is not measured (NaN)."""
    if not size > 0:
        raise ValueError(f"sphere cell size must be positive, got {size}")
    par = np.asarray(solid.params, dtype=float)
    if solid.kind == SPHERE:
        return SphereCover(np.zeros((1, 3)), np.array([par[0]]), 0.0, np.zeros((1, 3)),
                           np.eye(3)[None], par[None].copy())
    if solid.kind == BOX:
        c, r, half = _cover_box(par, size)
    elif solid.kind in (CYLINDER, CONE, FRUSTUM):
        c, r, half = _cover_round(par[0], par[1], par[2], size)
    elif solid.kind == MESH:
        c, r, sub, boxes = _cover_mesh(solid.vertices, solid.faces, size)
        return SphereCover(c, r, _overshoot_mesh(sub, c, r) if overshoot else math.nan, *boxes)
    else:
        raise ValueError(f"no sphere cover for solid kind {solid.kind}")
    axes = np.broadcast_to(np.eye(3), (len(c), 3, 3)).copy()
    return SphereCover(c, r, _overshoot_primitive(solid.kind, par, c, r), c.copy(), axes, half)


def cover_all(solids: list[Solid], *, size: float | None = None, count: int | None = None
              ) -> tuple[list[SphereCover], float]:
    """Covers of every solid (placed in the solids' owning frames) with one cell size: the given
    ``size``, or the largest that keeps the total at most ``count`` spheres (bisection; at least
    one sphere per solid). Returns (covers, size used)."""
    if size is not None:
        return [cover(s, size).placed(s.placement) for s in solids], size
    if count is None:
        raise ValueError("give a cell size or a sphere count")
    reach = max((float(np.max(s.params)) for s in solids), default=1.0) * 2 or 1.0
    lo, hi = reach / 4096, reach * 2  # hi: one sphere per primitive
    best = None
    for _ in range(24):
        mid = math.sqrt(lo * hi)
        covers = [cover(s, mid) for s in solids]
        if sum(len(c) for c in covers) <= count:
            best, hi = (covers, mid), mid
        else:
            lo = mid
        if hi / lo < 1.05:
            break
    if best is None:
        best = ([cover(s, hi) for s in solids], hi)
    covers, used = best
    return [c.placed(s.placement) for c, s in zip(covers, solids, strict=True)], used


def contains(cover_: SphereCover, points: np.ndarray, slack: float = 0.0) -> np.ndarray:
    """Which points lie in the union of the spheres (within ``slack``)."""
    inside = np.zeros(len(points), dtype=bool)
    if not len(points) or not len(cover_):
        return inside
    reach = cover_.radii + slack
    band = np.floor(np.log2(np.maximum(reach, 1e-300)))  # spheres of like size searched together
    for b in np.unique(band):
        k = np.flatnonzero(band == b)
        i, j = radius_pairs(cover_.centres[k], points, float(reach[k].max()))
        d2 = ((cover_.centres[k][i] - points[j]) ** 2).sum(axis=1)
        inside[j[d2 <= reach[k][i] ** 2]] = True
    return inside


@record(frozen=True)
class SphereTree:
    """Spheres (the leaves) under a tree of spheres, each holding its children, so each holds
    what its leaves cover. Breadth first: node 0 is the root, a node's children are the
    ``count`` nodes from ``first`` (leaves: count 0)."""

    centres: np.ndarray
    radii: np.ndarray
    first: np.ndarray
    count: np.ndarray
    leaf: np.ndarray  # per node: the index of its sphere in the given spheres, -1 above

    def __len__(self) -> int:
        return len(self.radii)


def _holding(centres: np.ndarray, radii: np.ndarray, rounding) -> tuple[np.ndarray, float]:
    """A sphere holding the spheres: the centre of their bounding box (passed through
    ``rounding``), the radius reaching the farthest one, computed from the rounded centre."""
    centres = np.asarray(centres, dtype=float)
    centre = np.asarray(rounding((np.min(centres - radii[:, None], axis=0)
                                  + np.max(centres + radii[:, None], axis=0)) / 2), dtype=float)
    return centre, float(np.max(np.linalg.norm(centres - centre, axis=1) + radii))


def sphere_tree(centres: np.ndarray, radii: np.ndarray, cell: float,
                rounding=lambda c: c) -> SphereTree:
    """A tree over spheres: parents group the nodes whose centres share a cell, the cell
    doubling each level until one node is left (a lone node rises unchanged). ``rounding``
    maps a parent centre to what will be stored (e.g. to float32): radii are computed from
    it, so containment holds for the stored centres."""
    c_all, r_all = [*np.asarray(centres, float)], [*np.asarray(radii, float)]
    kids: list[list[int]] = [[] for _ in r_all]
    level = list(range(len(r_all)))
    while len(level) > 1:
        cell *= 2
        key = np.floor(np.array([c_all[k] for k in level]) / cell).astype(np.int64)
        order = np.lexsort(key.T[::-1])  # rows in order, stable: np.unique's groups
        cuts = np.flatnonzero((np.diff(key[order], axis=0) != 0).any(axis=1)) + 1
        if len(cuts) == len(level) - 1 and ((key == 0) | (key == -1)).all():
            # Nodes on both sides of an origin plane, each alone: the keys stay as they are
            # while the cell doubles, until it overflows to infinity, where all share one cell.
            # Take that last level now.
            cell = np.inf
            continue
        upper = []
        for part in np.split(order, cuts):
            members = [level[k] for k in part.tolist()]
            if len(members) == 1:
                upper.append(members[0])
                continue
            c, r = _holding(np.array([c_all[k] for k in members]),
                            np.array([r_all[k] for k in members]), rounding)
            c_all.append(c)
            r_all.append(r)
            kids.append(members)
            upper.append(len(r_all) - 1)
        level = upper
    order, first, count, at = [level[0]], [], [], 1
    for node in order:  # breadth first: children numbered in a row
        first.append(at if kids[node] else 0)
        count.append(len(kids[node]))
        order += kids[node]
        at += len(kids[node])
    n = len(radii)
    return SphereTree(np.array([c_all[k] for k in order]), np.array([r_all[k] for k in order]),
                      np.array(first, dtype=np.int64), np.array(count, dtype=np.int64),
                      np.array([k if k < n else -1 for k in order], dtype=np.int64))

