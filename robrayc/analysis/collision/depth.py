"""Penetration depth of a colliding pair with a mesh (FCL gives triangle soups none).

- Two convex meshes (closed, each its own convex hull): the smallest overlap along the face
  normals of both and the cross products of their edge directions, which hold the face
  normals of their Minkowski difference: exact ("convex-exact"). A sphere against a convex
  mesh: its radius less the centre's signed distance to the surface: exact too. (FCL's EPA
  on convex polytopes aborts the process on near contacts: not used.)
- A closed mesh that is not convex (or a frustum): the deepest vertex of a mesh inside the
  other solid, its depth being its distance to the other's surface. Every translation that
  separates the two moves that vertex out of the other solid, so the true depth is at least
  this: a bound ("deepest-vertex-bound"), 0 when no vertex is inside (edges crossing).
- An open mesh has no inside, so no depth: 0 ("open-mesh").

A closed mesh: every directed edge has one reverse twin (`robrayc.meshes.model.closed_surface`).
"""

from __future__ import annotations

import numpy as np

from robrayc.analysis.collision.closed_form import solid_distance
from robrayc.analysis.collision.solids import MESH, SPHERE, Solids
from robrayc.meshes.model import closed_surface

EXACT, CONVEX, DEEPEST_VERTEX, OPEN_MESH = ("exact", "convex-exact", "deepest-vertex-bound",
                                            "open-mesh")
# At most this many edge-direction pairs for the exact convex depth (else the bound).
_MAX_EDGE_PAIRS = 250_000
# Points x triangles per block of the winding-number test (memory, not results).
_BLOCK = 2_000_000


class MeshDepth:
    """Depths of colliding pairs with meshes; per-mesh facts (closed, convex) found once."""

    def __init__(self, solids: Solids) -> None:
        self.s = solids
        self._closed: dict[int, bool] = {}
        self._convex: dict[int, bool] = {}

    def depth(self, a: int, b: int, Ta: np.ndarray, Tb: np.ndarray) -> tuple[float, str]:
        """(signed distance <= 0, method) of a colliding pair, one of them a mesh."""
        meshes = [k for k in (a, b) if self.s.kind[k] == MESH]
        if not all(self.closed(k) for k in meshes):
            return 0.0, OPEN_MESH
        exact = self._convex_depth(a, b, Ta, Tb)
        if exact is not None:
            return -max(exact, 0.0), CONVEX
        deepest = max(self._deepest(a, b, Ta, Tb), self._deepest(b, a, Tb, Ta))
        return -deepest, DEEPEST_VERTEX

    def closed(self, k: int) -> bool:
        if k not in self._closed:
            item = self.s.items[k]
            self._closed[k] = closed_surface(item.faces, item.vertices)
        return self._closed[k]

    def convex(self, k: int) -> bool:
        """Whether the closed mesh k is convex: every vertex on or behind every face's plane
        (to 1e-9 of its size)."""
        if k not in self._convex:
            self._convex[k] = _is_convex(self.s.items[k].vertices, self.s.items[k].faces)
        return self._convex[k]

    def _convex_depth(self, a: int, b: int, Ta: np.ndarray, Tb: np.ndarray) -> float | None:
        """The exact depth of two convex meshes or a sphere and a convex mesh; else None."""
        s = self.s
        if s.kind[a] == MESH and s.kind[b] != MESH:
            a, b, Ta, Tb = b, a, Tb, Ta
        if s.kind[b] != MESH or not self.convex(b):
            return None
        tri = s.items[b].vertices[s.items[b].faces]
        if s.kind[a] == SPHERE:
            c = (Ta[:3, 3] - Tb[:3, 3]) @ Tb[:3, :3]
            gap = float(_surface_distance(c[None], tri)[0])
            inside = abs(float(_winding(c[None], tri)[0])) > 0.5
            return s.par[a, 0] + (gap if inside else -gap)
        if s.kind[a] != MESH or not self.convex(a):
            return None
        va = s.items[a].vertices @ Ta[:3, :3].T + Ta[:3, 3]
        vb = s.items[b].vertices @ Tb[:3, :3].T + Tb[:3, 3]
        fa, fb = s.items[a].faces, s.items[b].faces
        ea, eb = _directions(va, fa), _directions(vb, fb)
        if len(ea) * len(eb) > _MAX_EDGE_PAIRS:
            return None
        axes = np.concatenate([_normals(va[fa]), _normals(vb[fb]),
                               np.cross(ea[:, None], eb[None]).reshape(-1, 3)])
        length = np.linalg.norm(axes, axis=1)
        axes = axes[length > 1e-12] / length[length > 1e-12, None]
        best = np.inf
        step = max(1, _BLOCK // max(len(va) + len(vb), 1))
        for start in range(0, len(axes), step):
            n = axes[start:start + step].T
            pa, pb = va @ n, vb @ n
            over = np.minimum(pa.max(axis=0) - pb.min(axis=0), pb.max(axis=0) - pa.min(axis=0))
            best = min(best, float(over.min()))
        return best

    def _deepest(self, m: int, other: int, Tm: np.ndarray, To: np.ndarray) -> float:
        """How deep the deepest vertex of mesh m lies inside solid `other` (0: none inside)."""
        s = self.s
        if s.kind[m] != MESH:
            return 0.0
        v = s.items[m].vertices @ Tm[:3, :3].T + Tm[:3, 3]
        if s.kind[other] != MESH:
            k = np.full(len(v), other)
            d = solid_distance(s, k, np.repeat(To[None, :3, :3], len(v), 0),
                               np.repeat(To[None, :3, 3], len(v), 0), v)
            return float(max(-d.min(), 0.0))
        local = (v - To[:3, 3]) @ To[:3, :3]  # into the other mesh's frame
        tri = s.items[other].vertices[s.items[other].faces]
        lo, hi = tri.min(axis=(0, 1)), tri.max(axis=(0, 1))
        local = local[((local >= lo) & (local <= hi)).all(axis=1)]
        inside = local[np.abs(_winding(local, tri)) > 0.5]
        if not len(inside):
            return 0.0
        return float(_surface_distance(inside, tri).max())


def _normals(tri: np.ndarray) -> np.ndarray:
    return np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])


def _directions(vertices: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """The distinct directions of a mesh's edges (unit, one sign)."""
    d = (vertices[faces[:, [1, 2, 0]]] - vertices[faces]).reshape(-1, 3)
    length = np.linalg.norm(d, axis=1)
    d = d[length > 0] / length[length > 0, None]
    lead = np.argmax(np.abs(d) > 1e-12, axis=1)
    d *= np.sign(d[np.arange(len(d)), lead])[:, None]
    return np.unique(np.round(d, 12), axis=0)


def _is_convex(vertices: np.ndarray, faces: np.ndarray) -> bool:
    tri = vertices[faces]
    normal = _normals(tri)
    if float(np.einsum("ij,ij->", tri[:, 0], normal)) < 0:
        normal = -normal  # wound inwards: the solid is on the other side
    length = np.linalg.norm(normal, axis=1)
    keep = length > 0
    normal, origin = normal[keep] / length[keep, None], tri[keep, 0]
    size = float(np.ptp(vertices, axis=0).max()) or 1.0
    step = max(1, _BLOCK // max(len(vertices), 1))
    for start in range(0, len(normal), step):
        n, o = normal[start:start + step], origin[start:start + step]
        if (vertices @ n.T - np.einsum("ij,ij->i", n, o)).max() > 1e-9 * size:
            return False
    return True


def _winding(points: np.ndarray, tri: np.ndarray) -> np.ndarray:
    """Generalized winding number of a closed triangle surface at each point: +-1 inside,
    0 outside (the solid angles of the triangles, Van Oosterom and Strackee)."""
    out = np.zeros(len(points))
    step = max(1, _BLOCK // max(len(tri), 1))
    for start in range(0, len(points), step):
        p = points[start:start + step]
        a, b, c = (tri[None, :, k] - p[:, None] for k in range(3))
        la, lb, lc = (np.linalg.norm(x, axis=2) for x in (a, b, c))
        det = np.einsum("pij,pij->pi", a, np.cross(b, c))
        den = (la * lb * lc + np.einsum("pij,pij->pi", a, b) * lc
               + np.einsum("pij,pij->pi", b, c) * la + np.einsum("pij,pij->pi", c, a) * lb)
        out[start:start + step] = np.arctan2(det, den).sum(axis=1) / (2 * np.pi)
    return out


def _surface_distance(points: np.ndarray, tri: np.ndarray) -> np.ndarray:
    """Each point's distance to the nearest triangle (closest points by region, Ericson)."""
    best = np.full(len(points), np.inf)
    step = max(1, _BLOCK // max(len(tri), 1))
    for start in range(0, len(points), step):
        p = points[start:start + step][:, None]
        d = np.linalg.norm(p - _closest_on_triangles(p, tri), axis=2)
        d[np.isnan(d)] = np.inf  # a triangle without area: its edges answer for it
        best[start:start + step] = d.min(axis=1)
    return best


def _closest_on_triangles(p: np.ndarray, tri: np.ndarray) -> np.ndarray:
    """(P,T,3) closest points of the triangles tri (T,3,3) to points p (P,1,3)."""
    a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
    ab, ac, ap = b - a, c - a, p - a
    d1, d2 = (ab * ap).sum(-1), (ac * ap).sum(-1)
    bp, cp = p - b, p - c
    d3, d4 = (ab * bp).sum(-1), (ac * bp).sum(-1)
    d5, d6 = (ab * cp).sum(-1), (ac * cp).sum(-1)
    va, vb, vc = d3 * d6 - d5 * d4, d5 * d2 - d1 * d6, d1 * d4 - d3 * d2
    with np.errstate(divide="ignore", invalid="ignore"):
        denom = va + vb + vc
        v, w = vb / denom, vc / denom
        out = a + ab * v[..., None] + ac * w[..., None]  # inside the face
        t_ab = d1 / (d1 - d3)
        t_ac = d2 / (d2 - d6)
        t_bc = (d4 - d3) / ((d4 - d3) + (d5 - d6))
    regions = [  # later regions win: vertices, then edges, checked as Ericson orders them
        ((va <= 0) & (d4 - d3 >= 0) & (d5 - d6 >= 0), b + (c - b) * t_bc[..., None]),
        ((vb <= 0) & (d2 >= 0) & (d6 <= 0), a + ac * t_ac[..., None]),
        ((vc <= 0) & (d1 >= 0) & (d3 <= 0), a + ab * t_ab[..., None]),
        ((d6 >= 0) & (d5 <= d6), np.broadcast_to(c, out.shape)),
        ((d3 >= 0) & (d4 <= d3), np.broadcast_to(b, out.shape)),
        ((d1 <= 0) & (d2 <= 0), np.broadcast_to(a, out.shape)),
    ]
    for mask, point in regions:
        out = np.where(mask[..., None], point, out)
    return out
