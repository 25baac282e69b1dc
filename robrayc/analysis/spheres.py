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
from dataclasses import dataclass

import numpy as np

from robrayc import ir
from robrayc.analysis.collision import (
    BOX,
    CONE,
    CYLINDER,
    FRUSTUM,
    MESH,
    SPHERE,
    Solid,
    box_distance,
    round_distance,
)

# Points per sphere surface at which the overshoot is measured.
_PROBES = 48


@dataclass(frozen=True)
class SphereCover:
    """Spheres (centres (k,3), radii (k,)) in the solid's own frame, and the overshoot."""

    centres: np.ndarray
    radii: np.ndarray
    overshoot: float

    def placed(self, placement: np.ndarray) -> SphereCover:
        """The same cover with centres moved by a 4x4 rigid placement."""
        c = self.centres @ placement[:3, :3].T + placement[:3, 3]
        return SphereCover(c, self.radii, self.overshoot)

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


def _cover_box(half: np.ndarray, size: float) -> tuple[np.ndarray, np.ndarray]:
    centres, h = _cells(-half, half, size)
    return centres, np.full(len(centres), float(np.linalg.norm(h)))


def _cover_round(r_lo: float, r_hi: float, hh: float, size: float
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Cylinder/cone/frustum along z on [-hh, hh], radius r_lo at -hh and r_hi at +hh."""
    n_z = max(1, math.ceil(2 * hh / size - 1e-9))
    slab = hh / n_z  # half thickness
    centres, radii = [], []
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
    return np.concatenate(centres), np.concatenate(radii)


def _split_triangles(tri: np.ndarray, size: float) -> np.ndarray:
    """Triangles (T,3,3) split into equal sub-triangles with edges at most ``size``."""
    edges = np.stack([tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 1], tri[:, 0] - tri[:, 2]], 1)
    longest = np.sqrt((edges * edges).sum(axis=2)).max(axis=1)
    parts = np.maximum(1, np.ceil(longest / size - 1e-9)).astype(int)
    out = [tri[parts == 1]]
    for k in np.unique(parts[parts > 1]).tolist():
        t = tri[parts == k]
        a, u, v = t[:, 0], (t[:, 1] - t[:, 0]) / k, (t[:, 2] - t[:, 0]) / k
        for i in range(k):
            for j in range(k - i):
                p = a + i * u + j * v
                out.append(np.stack([p, p + u, p + v], axis=1))
                if i + j < k - 1:
                    out.append(np.stack([p + u, p + u + v, p + v], axis=1))
    return np.concatenate(out)


def _cover_mesh(vertices: np.ndarray, faces: np.ndarray, size: float
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(centres, radii, the sub-triangles' vertices) of a triangle soup's cover."""
    sub = _split_triangles(vertices[faces], size)
    cell = np.floor(sub.mean(axis=1) / size).astype(np.int64)
    _, group = np.unique(cell, axis=0, return_inverse=True)
    group = group.ravel()
    pts = sub.reshape(-1, 3)
    owner = np.repeat(group, 3)
    n = int(group.max()) + 1
    lo = np.full((n, 3), np.inf)
    hi = np.full((n, 3), -np.inf)
    np.minimum.at(lo, owner, pts)
    np.maximum.at(hi, owner, pts)
    centres = (lo + hi) / 2
    d = pts - centres[owner]
    radii = np.zeros(n)
    np.maximum.at(radii, owner, np.sqrt((d * d).sum(axis=1)))
    # the radius is rounded up by a few ulps so that the farthest vertex stays inside
    return centres, radii * (1 + 1e-12) + 1e-15, sub


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
    from scipy.spatial import cKDTree

    surface = np.concatenate([sub.reshape(-1, 3), sub.mean(axis=1)])
    dist, _ = cKDTree(surface).query(_probe_points(centres, radii))
    return float(dist.max())


def grid_solid(shape: ir.Grid, scale: float = 1.0) -> Solid:
    """A grid as the plate it draws (dimension x thickness, centred): grids never collide in
    the checkers, but sphere exports cover them too."""
    s = abs(scale)
    half = (abs(shape.dimension[0]) * s / 2, abs(shape.dimension[1]) * s / 2,
            abs(shape.thickness) * s / 2)
    return Solid(BOX, half, np.eye(4))


def cover(solid: Solid, size: float) -> SphereCover:
    """Certified spheres of one solid (in its own centred frame; see the module docstring)."""
    if not size > 0:
        raise ValueError(f"sphere cell size must be positive, got {size}")
    par = np.asarray(solid.params, dtype=float)
    if solid.kind == SPHERE:
        return SphereCover(np.zeros((1, 3)), np.array([par[0]]), 0.0)
    if solid.kind == BOX:
        c, r = _cover_box(par, size)
    elif solid.kind in (CYLINDER, CONE, FRUSTUM):
        c, r = _cover_round(par[0], par[1], par[2], size)
    elif solid.kind == MESH:
        c, r, sub = _cover_mesh(solid.vertices, solid.faces, size)
        return SphereCover(c, r, _overshoot_mesh(sub, c, r))
    else:
        raise ValueError(f"no sphere cover for solid kind {solid.kind}")
    return SphereCover(c, r, _overshoot_primitive(solid.kind, par, c, r))


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
    from scipy.spatial import cKDTree

    inside = np.zeros(len(points), dtype=bool)
    if not len(points):
        return inside
    tree = cKDTree(points)
    for hits in tree.query_ball_point(cover_.centres, cover_.radii + slack):
        inside[hits] = True
    return inside
