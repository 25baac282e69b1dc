"""Collision solids: one convex primitive or mesh per collision geometry, in struct-of-arrays
form for the vectorised tests, with lazy FCL objects."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from robrayc import ir
from robrayc.analysis.collision.tolerance import CONTACT_TOL  # noqa: F401 (re-exported)
from robrayc.records import record

SPHERE, BOX, CYLINDER, CONE, FRUSTUM, MESH = range(6)
KIND_NAMES = ("sphere", "box", "cylinder", "cone", "frustum", "mesh")
ROUND = (CYLINDER, CONE, FRUSTUM)


@record(frozen=True)
class Solid:
    """One convex primitive or mesh in its own centred frame.

    ``params``: sphere (r, r, r); box half extents; cylinder/cone/frustum (r_lo, r_hi, hh): the
    radius at local z = -hh and at z = +hh (a cone has r_hi = 0: apex at +z, as FCL's Cone);
    mesh: half extents of its local AABB. ``placement`` is the solid's frame in the owning scene
    frame (4x4). Mesh vertices are in the solid's frame (centred on their AABB).
    """

    kind: int
    params: tuple[float, float, float]
    placement: np.ndarray
    vertices: np.ndarray | None = None
    faces: np.ndarray | None = None


def _translate_z(z: float) -> np.ndarray:
    m = np.eye(4)
    m[2, 3] = z
    return m


_FLIP = np.diag([1.0, -1.0, -1.0, 1.0])  # rotation by pi about X: local z -> -z


def _sphere(shape: ir.Sphere, s: float, scale: float, mesh_data) -> Solid:
    r = abs(shape.radius) * s
    return Solid(SPHERE, (r, r, r), np.eye(4))


def _box(shape: ir.Box, s: float, scale: float, mesh_data) -> Solid:
    hx, hy, hz = (abs(d) * s / 2 for d in shape.dimension)
    return Solid(BOX, (hx, hy, hz), np.eye(4))


def _cylinder(shape: ir.Cylinder, s: float, scale: float, mesh_data) -> Solid:
    h, r = shape.height * s, abs(shape.radius) * s
    return Solid(CYLINDER, (r, r, abs(h) / 2), _translate_z(h / 2))


def _cone(shape: ir.Cone, s: float, scale: float, mesh_data) -> Solid:
    h = shape.height * s
    r0, r1 = abs(shape.start_radius) * s, abs(shape.end_radius) * s  # at z=0 and z=h
    place = _translate_z(h / 2)
    if h < 0:  # the solid's +z must point from the start (z=0) towards the end (z=h)
        place = place @ _FLIP
    if r0 == r1:
        return Solid(CYLINDER, (r0, r0, abs(h) / 2), place)
    if r1 == 0.0 or r0 == 0.0:
        if r0 == 0.0:  # apex at the start: turn it to +z, as FCL's Cone has it
            place, r0, r1 = place @ _FLIP, r1, r0
        return Solid(CONE, (r0, 0.0, abs(h) / 2), place)
    return Solid(FRUSTUM, (r0, r1, abs(h) / 2), place)


def _mesh(shape: ir.Mesh, s: float, scale: float, mesh_data) -> Solid:
    if mesh_data is None:
        raise ValueError("a mesh solid needs its triangles (mesh_data)")
    v = np.asarray(mesh_data.vertices, dtype=float) * scale
    lo, hi = v.min(axis=0), v.max(axis=0)
    centre = (lo + hi) / 2
    place = np.eye(4)
    place[:3, 3] = centre
    half = tuple(float(x) for x in (hi - lo) / 2)
    return Solid(MESH, half, place, v - centre, np.asarray(mesh_data.faces, dtype=np.int64))


def _grid(shape: ir.Grid, s: float, scale: float, mesh_data) -> None:
    return None  # grid: drawn only


_SOLIDS: dict[type, Callable[..., Solid | None]] = {
    ir.Sphere: _sphere, ir.Box: _box, ir.Cylinder: _cylinder, ir.Cone: _cone,
    ir.Mesh: _mesh, ir.Grid: _grid,
}


def solid_from_shape(shape: ir.Shape, scale: float = 1.0, *, mesh_data=None) -> Solid | None:
    """The solid of one IR shape with amino's placement; None for a grid.

    ``mesh_data``: a :class:`robrayc.meshes.MeshData` (or anything with ``vertices`` and
    ``faces``) for a Mesh shape; its vertices are multiplied by ``scale``."""
    return ir.handler(_SOLIDS, shape)(shape, abs(scale), scale, mesh_data)


def _inscribed_round(r_lo: float, r_hi: float, hh: float) -> tuple[float, float]:
    """(half-length, radius) of a capsule along z, centred on the origin, that fits inside a
    cone/frustum: the accept test's inner solid (any fitting one will do; a few are tried)."""
    slant = math.hypot(r_hi - r_lo, 2 * hh)

    def side(z: float) -> float:  # distance from (0, z) to the slant line in the meridian plane
        return abs((r_hi - r_lo) * (z + hh) + 2 * hh * r_lo) / slant if slant > 0 else 0.0

    best = (0.0, 0.0)
    for k in range(9):
        s = hh * k / 8
        r = min(hh - s, side(-s), side(s))
        if r > 0 and r + s > best[0] + best[1]:
            best = (s, r)
    return best


class Solids:
    """Struct-of-arrays view of solids: what the vectorised tests read, plus lazy FCL objects."""

    def __init__(self, solids: Sequence[Solid]) -> None:
        self.items = list(solids)
        n = len(self.items)
        self.kind = np.array([s.kind for s in self.items], dtype=np.int64).reshape(n)
        self.par = np.array([s.params for s in self.items], dtype=float).reshape(n, 3)
        self.placement = np.array([s.placement for s in self.items], dtype=float).reshape(n, 4, 4)
        half = self.par.copy()
        brad = np.zeros(n)
        seg = np.zeros((n, 3))
        irad = np.full(n, -np.inf)  # inscribed capsule radius; -inf: none (meshes)
        for i, s in enumerate(self.items):
            a, b, c = s.params
            if s.kind == SPHERE:
                brad[i], irad[i] = a, a
            elif s.kind == BOX:
                brad[i] = math.sqrt(a * a + b * b + c * c)
                ax = int(np.argmax(s.params))
                others = [s.params[k] for k in range(3) if k != ax]
                irad[i] = min(others)
                seg[i, ax] = max(s.params[ax] - irad[i], 0.0)
            elif s.kind in ROUND:
                rmax = max(a, b)
                half[i] = (rmax, rmax, c)
                brad[i] = math.hypot(rmax, c)
                if s.kind == CYLINDER:
                    irad[i] = min(a, c)
                    seg[i, 2] = max(c - irad[i], 0.0)
                else:
                    seg[i, 2], irad[i] = _inscribed_round(a, b, c)
            else:  # mesh
                v = s.vertices
                brad[i] = float(np.sqrt((v * v).sum(axis=1).max())) if len(v) else 0.0
        self.half, self.brad, self.seg, self.irad = half, brad, seg, irad
        self._fcl: list = [None] * n
        self._hull: list = [None] * n

    def __len__(self) -> int:
        return len(self.items)

    # FCL objects are built on first use: a checker that never needs them never imports fcl.
    def fcl_object(self, i: int, inner: bool = False):
        """The solid as an FCL CollisionObject. A frustum, which FCL lacks, is a 128-gon hull:
        circumscribed, or inscribed with ``inner`` (used only to bracket distances)."""
        if inner:
            obj = self._hull[i]
            if obj is None:
                import fcl

                obj = self._hull[i] = fcl.CollisionObject(_frustum_hull(*self.items[i].params,
                                                                       grow=False))
            return obj
        obj = self._fcl[i]
        if obj is None:
            import fcl

            s = self.items[i]
            a, b, c = s.params
            if s.kind == SPHERE:
                geom = fcl.Sphere(a)
            elif s.kind == BOX:
                geom = fcl.Box(2 * a, 2 * b, 2 * c)
            elif s.kind == CYLINDER:
                geom = fcl.Cylinder(a, 2 * c)
            elif s.kind == CONE:
                geom = fcl.Cone(a, 2 * c)
            elif s.kind == FRUSTUM:  # only for distances (never for the collision test)
                geom = _frustum_hull(a, b, c, grow=True)
            else:
                geom = fcl.BVHModel()
                geom.beginModel(len(s.vertices), len(s.faces))
                geom.addSubModel(s.vertices, s.faces)
                geom.endModel()
            obj = self._fcl[i] = fcl.CollisionObject(geom)
        return obj


def _frustum_hull(r_lo: float, r_hi: float, hh: float, *, grow: bool, sides: int = 128):
    """An FCL Convex of regular polygons on both rims of a frustum: circumscribed (``grow``)
    or inscribed."""
    import fcl

    ang = np.arange(sides) * (2 * math.pi / sides)
    ring = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    if grow:
        ring /= math.cos(math.pi / sides)
    verts = np.concatenate([
        np.column_stack([ring * r_lo, np.full(sides, -hh)]),
        np.column_stack([ring * r_hi, np.full(sides, hh)]),
    ])
    faces = [[sides, *range(sides - 1, -1, -1)], [sides, *range(sides, 2 * sides)]]
    for k in range(sides):
        k1 = (k + 1) % sides
        faces.append([4, k, k1, sides + k1, sides + k])
    flat = np.array([x for f in faces for x in f], dtype=np.int64)
    return fcl.Convex(verts, len(faces), flat)



def outer_capsules(solids: Solids) -> tuple[np.ndarray, np.ndarray]:
    """Per solid, a capsule that contains it, in the solid's frame: the half-segment (O,3), from
    the centre, and the radius (O,). Boxes along their longest side, round solids along z."""
    n = len(solids.kind)
    axes, rad = np.zeros((n, 3)), solids.brad.copy()  # spheres and meshes: the bounding ball
    for i, kind in enumerate(solids.kind.tolist()):
        a, b, c = solids.par[i]
        if kind == BOX:
            ax = int(np.argmax(solids.par[i]))
            axes[i, ax] = solids.par[i, ax]
            rad[i] = math.hypot(*(solids.par[i, k] for k in range(3) if k != ax))
        elif kind in ROUND:
            axes[i, 2], rad[i] = c, max(a, b)
    return axes, rad
