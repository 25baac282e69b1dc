"""Collision checking of a scene's collision geometry: exact shapes, vectorised, batched.

Build a :class:`CollisionChecker` once from a Scene, then ask which frame pairs collide at one
configuration (:meth:`~CollisionChecker.colliding_pairs`) or at many (an ``(N, dof)`` array:
:meth:`~CollisionChecker.colliding_pairs_batch`, :meth:`~CollisionChecker.collision_matrix`), or
for signed distances (:meth:`~CollisionChecker.distance`, :meth:`~CollisionChecker.closest`).

What is checked (amino's rules, ``amino_fcl.cpp``, except where noted):
- one solid per geometry with ``collision`` non-zero; grids are ignored;
- several solids on one frame are never checked against each other; a frame pair collides when
  any of their solids do (its distance is the minimum);
- pairs named by ``allow_collision`` are skipped; parent/child pairs are NOT (as amino);
- placement: box and sphere centred on the frame origin; cylinder and cone from the origin along
  +Z for ``height`` (a negative height extends along -Z); ``scale`` multiplies every dimension
  (amino shifts a scaled cylinder by the UNSCALED height/2, a bug not copied);
- cones are checked exactly (amino skips them): a cone with one zero radius is FCL's Cone; a
  frustum (two different non-zero radii), which FCL lacks, goes to an exact GJK on its support
  function (the convex hull of its two rim circles), never a polygonal stand-in;
- meshes are FCL BVH triangle soups (OBBRSS): only surfaces collide, so a solid wholly inside a
  closed mesh does not collide (as amino).

How one check runs:
1. Kinematics. Frames fall into rigid groups (a joint frame with the fixed frames under it, or
   the world). Only group transforms are computed per configuration, vectorised over
   configurations. Solid pairs within one group never move relative to each other: they are
   checked once, when the checker is built.
2. Broad phase. Up to ``DENSE_MAX_PAIRS`` moving solid pairs (robots): every pair's bounding
   spheres at once, vectorised over pairs and configurations. More (big scenes): per
   configuration, bounding spheres through scipy's kd-tree (:func:`sphere_pairs`, the fastest
   measured); :func:`grid_pairs` (uniform grid) and :func:`sweep_pairs` (sweep and prune) over
   world AABBs are numpy alternatives, and ``benchmarks/collision.py`` measures all three
   against FCL's dynamic AABB tree.
3. Narrow phase, vectorised over candidate pairs. Closed-form exact tests where they exist:
   sphere-sphere, sphere-box, sphere against a cylinder/cone/frustum (a 2-D distance in the
   meridian plane), box-box (the 15-axis separating-axis theorem). When many other pairs are
   left (at least ``_VECTOR_MIN``), certificates decide most of them: a separating axis (the
   oriented boxes' 15 axes, the line between the solids' core segments, the line between
   centres, the line after one alternating projection, each checked with exact support
   functions) proves a pair apart; a point deeper than CONTACT_TOL in both (closed-form signed
   distances) or overlapping inscribed capsules prove it colliding. The pairs left go one by
   one to FCL (cylinders, cones, meshes) or to the exact GJK (frusta): the only Python loop
   over pairs, and only over the undecided ones.

Contact: solids collide when they overlap by more than CONTACT_TOL (1e-9, scene units), so
touching is not colliding. That keeps designed contacts (links meeting end to end, a finger
base resting on a palm, a box on a table) from flickering with rounding, and agrees with FCL's
GJK-based tests; FCL's own sphere/box routines (and so amino) count exact contact as colliding.
For frusta the GJK treats an overlap below about 1e-7 of the solids' size as touching.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from robrayc import ir
from robrayc.analysis.fk import _axis_rotations, fixed_matrix
from robrayc.diagnostics import DiagnosticSink

SPHERE, BOX, CYLINDER, CONE, FRUSTUM, MESH = range(6)
KIND_NAMES = ("sphere", "box", "cylinder", "cone", "frustum", "mesh")
ROUND = (CYLINDER, CONE, FRUSTUM)

# Moving solid pairs up to which the dense (all pairs, bounding spheres) broad phase is used.
DENSE_MAX_PAIRS = 20000
# Configurations per vectorised block (bounds the memory of (N, pairs, 3) temporaries).
BLOCK = 2048

_EPS_SAT = 1e-12  # added to |R| in the SAT: keeps near-parallel edge axes from false separation
# Solids collide when they overlap by more than this (scene units): touching is not colliding,
# so designed contacts (links meeting end to end, a finger base on a palm, a box on a table) do
# not flicker with rounding. FCL's GJK-based tests agree (they report no contact for touching).
CONTACT_TOL = 1e-9
# Points sampled along an inscribed capsule's axis for the accept test against boxes and round
# solids.
_AXIS_SAMPLES = np.linspace(-1.0, 1.0, 5)
# Below this many undecided candidates the vectorised certificates cost more (numpy's per-call
# overhead) than calling FCL (about 11 us a pair) or the GJK for each: measured on random
# primitives and on the 7dof demo.
_VECTOR_MIN = 64
_AXIS_MIN = 16  # the same for the axis-ball test in front of the (slower) GJK

Config = Mapping[str, float] | Sequence[float] | np.ndarray | None


# --- solids ---------------------------------------------------------------------------------


@dataclass(frozen=True)
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


def solid_from_shape(shape: ir.Shape, scale: float = 1.0, *, mesh_data=None) -> Solid | None:
    """The solid of one IR shape with amino's placement; None for a grid.

    ``mesh_data``: a :class:`robrayc.meshes.MeshData` (or anything with ``vertices`` and
    ``faces``) for a Mesh shape; its vertices are multiplied by ``scale``."""
    s = abs(scale)
    if isinstance(shape, ir.Sphere):
        r = abs(shape.radius) * s
        return Solid(SPHERE, (r, r, r), np.eye(4))
    if isinstance(shape, ir.Box):
        hx, hy, hz = (abs(d) * s / 2 for d in shape.dimension)
        return Solid(BOX, (hx, hy, hz), np.eye(4))
    if isinstance(shape, ir.Cylinder):
        h, r = shape.height * s, abs(shape.radius) * s
        return Solid(CYLINDER, (r, r, abs(h) / 2), _translate_z(h / 2))
    if isinstance(shape, ir.Cone):
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
    if isinstance(shape, ir.Mesh):
        if mesh_data is None:
            raise ValueError("a mesh solid needs its triangles (mesh_data)")
        v = np.asarray(mesh_data.vertices, dtype=float) * scale
        lo, hi = v.min(axis=0), v.max(axis=0)
        centre = (lo + hi) / 2
        place = np.eye(4)
        place[:3, 3] = centre
        half = tuple(float(x) for x in (hi - lo) / 2)
        return Solid(MESH, half, place, v - centre, np.asarray(mesh_data.faces, dtype=np.int64))
    return None  # grid: drawn only


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


# --- closed-form and separating-axis tests (vectorised over K candidate pairs) --------------


def _local(R: np.ndarray, t: np.ndarray, p: np.ndarray) -> np.ndarray:
    """World points p (..., K, 3) in frames (R, t) (K each): R^T (p - t)."""
    return np.einsum("kji,...kj->...ki", R, p - t)


def box_distance(p: np.ndarray, half: np.ndarray) -> np.ndarray:
    """Signed distance from local points p (..., 3) to centred boxes (half extents (..., 3))."""
    q = np.abs(p) - half
    outside = np.sqrt((np.maximum(q, 0.0) ** 2).sum(axis=-1))
    return outside + np.minimum(q.max(axis=-1), 0.0)


def _closest_2d(px, pz, ax, az, bx, bz):
    """Closest points (and squared distances) of 2-D points to segments, broadcasting."""
    ex, ez = bx - ax, bz - az
    ll = ex * ex + ez * ez
    # A zero-length edge has ex = ez = 0, so t = 0 / 1 = 0: no division warnings to silence.
    t = np.clip(((px - ax) * ex + (pz - az) * ez) / np.where(ll > 0, ll, 1.0), 0.0, 1.0)
    qx, qz = ax + t * ex, az + t * ez
    return qx, qz, (px - qx) ** 2 + (pz - qz) ** 2


def _meridian(p: np.ndarray, par: np.ndarray):
    """rho, z, inside, and the closest point (qx, qz, squared distance) on the outer edges
    (bottom cap, side, top cap) of the half meridian section, for local points p (..., 3) and
    round solids par (..., 3): plain ufuncs only (this runs on every candidate batch)."""
    rho = np.hypot(p[..., 0], p[..., 1])
    z = p[..., 2]
    r_lo, r_hi, hh = par[..., 0], par[..., 1], par[..., 2]
    qx, qz, d2 = _closest_2d(rho, z, 0.0, -hh, r_lo, -hh)
    for ax, az, bx, bz in ((r_lo, -hh, r_hi, hh), (r_hi, hh, 0.0, hh)):
        x2, z2, e2 = _closest_2d(rho, z, ax, az, bx, bz)
        better = e2 < d2
        qx, qz, d2 = np.where(better, x2, qx), np.where(better, z2, qz), np.minimum(e2, d2)
    slant = (r_hi - r_lo) * (z + hh) - 2 * hh * (rho - r_lo)
    inside = (np.abs(z) <= hh) & (slant >= 0) & (rho <= np.maximum(r_lo, r_hi))
    return rho, z, inside, qx, qz, d2


def round_distance(p: np.ndarray, par: np.ndarray) -> np.ndarray:
    """Signed distance from local points p (..., 3) to cylinders/cones/frusta (par (..., 3):
    r_lo, r_hi, hh): exact, in the meridian plane through each point (negative inside)."""
    _, _, inside, _, _, d2 = _meridian(p, par)
    d = np.sqrt(d2)
    return np.where(inside, -d, d)


_I1, _I2 = np.array([1, 2, 0]), np.array([2, 0, 1])


def sat_separated(Ra, ta, ha, Rb, tb, hb) -> np.ndarray:
    """Oriented boxes (K rotations, centres, half extents) that overlap by at most CONTACT_TOL
    along one of the 15 axes of the separating-axis theorem (apart or touching): exact for two
    boxes, conservative for bounding boxes."""
    R = np.einsum("kji,kjl->kil", Ra, Rb)  # Rb in A's frame
    T = np.einsum("kji,kj->ki", Ra, tb - ta)
    A = np.abs(R) + _EPS_SAT
    tol = CONTACT_TOL
    sep = (np.abs(T) >= ha + np.einsum("kij,kj->ki", A, hb) - tol).any(axis=1)
    TB = np.einsum("kij,ki->kj", R, T)
    sep |= (np.abs(TB) >= np.einsum("ki,kij->kj", ha, A) + hb - tol).any(axis=1)
    # The nine axes A_i x B_j at once, as (K, i, j) arrays.
    ra = ha[:, _I1, None] * A[:, _I2, :] + ha[:, _I2, None] * A[:, _I1, :]
    rb = hb[:, None, _I1] * A[:, :, _I2] + hb[:, None, _I2] * A[:, :, _I1]
    lhs = np.abs(T[:, _I2, None] * R[:, _I1, :] - T[:, _I1, None] * R[:, _I2, :])
    # The axis has length sin(angle) <= 1: scaling the tolerance by it keeps the test exact
    # for near-parallel edges.
    length = np.sqrt(np.maximum(1.0 - R * R, 0.0))
    sep |= ((lhs >= ra + rb - tol * length) & (length > 1e-9)).any(axis=(1, 2))
    return sep


def segment_closest(p1, q1, p2, q2) -> tuple[np.ndarray, np.ndarray]:
    """Closest points of segments p1q1 and p2q2 (K,3 each), Ericson 5.1.9, vectorised (a
    segment may be a point)."""
    d1, d2, r = q1 - p1, q2 - p2, p1 - p2
    a = (d1 * d1).sum(1)
    e = (d2 * d2).sum(1)
    f = (d2 * r).sum(1)
    c = (d1 * r).sum(1)
    b = (d1 * d2).sum(1)
    denom = a * e - b * b
    with np.errstate(divide="ignore", invalid="ignore"):
        s_free = np.where(denom > 0, np.clip((b * f - c * e) / denom, 0, 1), 0.0)
        s_lo = np.where(a > 0, np.clip(-c / a, 0, 1), 0.0)
        s_hi = np.where(a > 0, np.clip((b - c) / a, 0, 1), 0.0)
        s = np.where(e > 0, np.where(a > 0, s_free, 0.0), s_lo)
        t = np.where(e > 0, (b * s + f) / e, 0.0)
    s = np.where(t < 0, s_lo, np.where(t > 1, s_hi, s))
    t = np.clip(t, 0, 1)
    return p1 + d1 * s[:, None], p2 + d2 * t[:, None]


def segment_distance2(p1, q1, p2, q2) -> np.ndarray:
    """Squared distance between segments p1q1 and p2q2 (K,3 each)."""
    c1, c2 = segment_closest(p1, q1, p2, q2)
    diff = c1 - c2
    return (diff * diff).sum(1)


def solid_distance(s: Solids, k: np.ndarray, R: np.ndarray, t: np.ndarray,
                   x: np.ndarray) -> np.ndarray:
    """Signed distance from world points x (K,3) to solids k at poses (R, t), closed form;
    +inf for meshes (not known)."""
    p = _local(R, t, x)
    kind, par = s.kind[k], s.par[k]
    out = np.full(len(k), np.inf)
    m = kind == SPHERE
    out[m] = np.sqrt((p[m] ** 2).sum(axis=1)) - par[m, 0]
    m = kind == BOX
    out[m] = box_distance(p[m], par[m])
    m = (kind >= CYLINDER) & (kind <= FRUSTUM)
    out[m] = round_distance(p[m], par[m])
    return out


def project(s: Solids, k: np.ndarray, R: np.ndarray, t: np.ndarray,
            x: np.ndarray) -> np.ndarray:
    """The points of solids k (at poses R, t) nearest to world points x (K,3): closed form for
    spheres, boxes, cylinders, cones and frusta (meshes: never asked)."""
    p = _local(R, t, x)
    kind, par = s.kind[k], s.par[k]
    q = p.copy()
    m = kind == SPHERE
    if m.any():
        n = np.sqrt((p[m] ** 2).sum(axis=1))
        q[m] = p[m] * np.minimum(1.0, par[m, 0] / np.where(n > 0, n, 1.0))[:, None]
    m = kind == BOX
    if m.any():
        q[m] = np.clip(p[m], -par[m], par[m])
    m = (kind >= CYLINDER) & (kind <= FRUSTUM)
    if m.any():
        pm = p[m]
        rho, _, inside, qx, qz, _ = _meridian(pm, par[m])
        safe = np.where(rho > 0, rho, 1.0)
        ux, uy = np.where(rho > 0, pm[:, 0] / safe, 1.0), np.where(rho > 0, pm[:, 1] / safe, 0.0)
        q[m] = np.where(inside[:, None], pm, np.stack([qx * ux, qx * uy, qz], axis=1))
    return np.einsum("kij,kj->ki", R, q) + t


def support(s: Solids, k: np.ndarray, R: np.ndarray, n: np.ndarray) -> np.ndarray:
    """max over solid k (centred, rotated by R) of n . x, closed form; a mesh answers for its
    bounding box (larger: still a valid bound for separation proofs)."""
    d = np.einsum("kji,kj->ki", R, n)
    kind, par = s.kind[k], s.par[k]
    box = (np.abs(d) * s.half[k]).sum(axis=1)  # boxes and meshes
    rho = np.hypot(d[:, 0], d[:, 1])
    rnd = np.maximum(par[:, 0] * rho - par[:, 2] * d[:, 2], par[:, 1] * rho + par[:, 2] * d[:, 2])
    sph = par[:, 0] * np.sqrt((d * d).sum(axis=1))
    return np.where(kind == SPHERE, sph, np.where((kind >= CYLINDER) & (kind <= FRUSTUM),
                                                   rnd, box))


# --- exact GJK for frusta (scalar) ----------------------------------------------------------


def _support_local(kind: int, par, d) -> tuple[float, float, float]:
    dx, dy, dz = d
    a, b, c = par
    if kind == SPHERE:
        n = math.sqrt(dx * dx + dy * dy + dz * dz)
        return (a * dx / n, a * dy / n, a * dz / n) if n > 0 else (a, 0.0, 0.0)
    if kind == BOX:
        return (math.copysign(a, dx), math.copysign(b, dy), math.copysign(c, dz))
    rxy = math.hypot(dx, dy)
    ux, uy = (dx / rxy, dy / rxy) if rxy > 0 else (0.0, 0.0)
    lo = (a * ux, a * uy, -c)
    hi = (b * ux, b * uy, c)
    if lo[0] * dx + lo[1] * dy + lo[2] * dz > hi[0] * dx + hi[1] * dy + hi[2] * dz:
        return lo
    return hi


def _support_fn(kind, par, T, points=None):
    """World-space support function of a solid at pose T (4x4), or of a point set (local)."""
    R = T[:3, :3].tolist()
    t = T[:3, 3].tolist()
    par = tuple(float(x) for x in par)

    def support(d):
        ld = (R[0][0] * d[0] + R[1][0] * d[1] + R[2][0] * d[2],
              R[0][1] * d[0] + R[1][1] * d[1] + R[2][1] * d[2],
              R[0][2] * d[0] + R[1][2] * d[1] + R[2][2] * d[2])
        if points is not None:
            k = max(range(len(points)),
                    key=lambda i: points[i][0] * ld[0] + points[i][1] * ld[1]
                    + points[i][2] * ld[2])
            p = points[k]
        else:
            p = _support_local(kind, par, ld)
        return (R[0][0] * p[0] + R[0][1] * p[1] + R[0][2] * p[2] + t[0],
                R[1][0] * p[0] + R[1][1] * p[1] + R[1][2] * p[2] + t[1],
                R[2][0] * p[0] + R[2][1] * p[1] + R[2][2] * p[2] + t[2])
    return support


def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _comb(pts, idx, w):
    return tuple(sum(pts[i][k] * wi for i, wi in zip(idx, w, strict=True)) for k in range(3))


def _closest_triangle(w, i, j, k):
    """Closest point of triangle (w[i], w[j], w[k]) to the origin: (indices, weights)
    (Ericson 5.1.5 with P = 0)."""
    a, b, c = w[i], w[j], w[k]
    ab, ac = _sub(b, a), _sub(c, a)
    ap = (-a[0], -a[1], -a[2])
    d1, d2 = _dot(ab, ap), _dot(ac, ap)
    if d1 <= 0 and d2 <= 0:
        return (i,), (1.0,)
    bp = (-b[0], -b[1], -b[2])
    d3, d4 = _dot(ab, bp), _dot(ac, bp)
    if d3 >= 0 and d4 <= d3:
        return (j,), (1.0,)
    vc = d1 * d4 - d3 * d2
    if vc <= 0 and d1 >= 0 and d3 <= 0:
        v = d1 / (d1 - d3)
        return (i, j), (1 - v, v)
    cp = (-c[0], -c[1], -c[2])
    d5, d6 = _dot(ab, cp), _dot(ac, cp)
    if d6 >= 0 and d5 <= d6:
        return (k,), (1.0,)
    vb = d5 * d2 - d1 * d6
    if vb <= 0 and d2 >= 0 and d6 <= 0:
        v = d2 / (d2 - d6)
        return (i, k), (1 - v, v)
    va = d3 * d6 - d5 * d4
    if va <= 0 and (d4 - d3) >= 0 and (d5 - d6) >= 0:
        v = (d4 - d3) / ((d4 - d3) + (d5 - d6))
        return (j, k), (1 - v, v)
    den = va + vb + vc
    if den <= 0:  # degenerate (collinear) triangle: best of its edges
        return min((_closest_segment(w, i, j), _closest_segment(w, j, k),
                    _closest_segment(w, i, k)),
                   key=lambda r: _norm2(_comb(w, *r)))
    v, u = vb / den, vc / den
    return (i, j, k), (1 - v - u, v, u)


def _closest_segment(w, i, j):
    a, b = w[i], w[j]
    ab = _sub(b, a)
    ll = _dot(ab, ab)
    t = 0.0 if ll <= 0 else min(max(-_dot(a, ab) / ll, 0.0), 1.0)
    if t <= 0:
        return (i,), (1.0,)
    if t >= 1:
        return (j,), (1.0,)
    return (i, j), (1 - t, t)


def _norm2(v):
    return _dot(v, v)


def _closest_simplex(w, idx):
    """(indices, weights) of the closest point of simplex w[idx] to the origin; weights None
    when the origin is inside a tetrahedron."""
    if len(idx) == 1:
        return idx, (1.0,)
    if len(idx) == 2:
        return _closest_segment(w, *idx)
    if len(idx) == 3:
        return _closest_triangle(w, *idx)
    i, j, k, m = idx
    best = None
    outside_any = False
    for (a, b, c, d) in ((i, j, k, m), (i, j, m, k), (i, k, m, j), (j, k, m, i)):
        n = _cross(_sub(w[b], w[a]), _sub(w[c], w[a]))
        side_o = -_dot(n, w[a])
        side_d = _dot(n, _sub(w[d], w[a]))
        if side_o * side_d <= 0:  # origin on the far side of (or on) this face
            outside_any = True
            r = _closest_triangle(w, a, b, c)
            dist = _norm2(_comb(w, *r))
            if best is None or dist < best[0]:
                best = (dist, r)
    if not outside_any:
        return idx, None
    return best[1]


def _unit(v):
    n = math.sqrt(_norm2(v))
    return (v[0] / n, v[1] / n, v[2] / n) if n > 0 else None


def _touching(support_a, support_b, simplex, last_v, scale: float) -> bool:
    """With the origin (within CONTACT_TOL) on a GJK simplex: is there a direction (the last
    search direction, the simplex's normals) along which A - B reaches past the origin by at
    most CONTACT_TOL + 1e-7 x its size? Then the solids touch; none found: they overlap. (The
    relative part covers the error of a direction taken from a vector of length ~1e-9.)"""
    tol = CONTACT_TOL + 1e-7 * scale
    first = [_unit((-last_v[0], -last_v[1], -last_v[2]))] if last_v is not None else []
    if len(simplex) >= 3:
        n = _unit(_cross(_sub(simplex[1], simplex[0]), _sub(simplex[2], simplex[0])))
        dirs = [n] if n else []
    elif len(simplex) == 2:
        d = _sub(simplex[1], simplex[0])
        k = min(range(3), key=lambda i: abs(d[i]))
        axis = tuple(1.0 if i == k else 0.0 for i in range(3))
        e1 = _unit(_cross(d, axis))
        dirs = [e1, _unit(_cross(d, e1))] if e1 else []
    else:
        dirs = [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)]
    if not dirs:  # a degenerate simplex: no direction to vouch for either answer
        dirs = [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)]
    for n in first + dirs:
        if n is None:
            continue
        for u in (n, (-n[0], -n[1], -n[2])):
            w = _sub(support_a(u), support_b((-u[0], -u[1], -u[2])))
            if _dot(u, w) <= tol:
                return True
    return False


def gjk(support_a, support_b, d0, *, boolean: bool, max_iter: int = 200):
    """GJK on the Minkowski difference A - B. Returns (colliding, distance, touching):
    colliding when a simplex encloses the origin; touching (not colliding) when the solids come
    within CONTACT_TOL without that. With ``boolean`` it stops at the first separating plane
    (distance then 0.0). 'Separated' is only returned with a separating plane in hand."""
    pa, pb = support_a(d0), support_b((-d0[0], -d0[1], -d0[2]))
    W = [_sub(pa, pb)]
    idx: tuple = (0,)
    wts: tuple | None = (1.0,)
    v = W[0]
    scale = max(1e-300, math.sqrt(_norm2(v)))
    tol = CONTACT_TOL
    last_v = None
    for _ in range(max_iter):
        vv = _norm2(v)
        if vv <= tol * tol:  # the origin on the simplex: touching, or overlapping?
            touch = _touching(support_a, support_b, [W[i] for i in idx], last_v, scale)
            return (not touch), 0.0, touch
        last_v = v
        nv = (-v[0], -v[1], -v[2])
        a, b = support_a(nv), support_b(v)
        w = _sub(a, b)
        vw = _dot(v, w)
        if boolean and vw > 0:  # a separating plane
            return False, 0.0, False
        if vv - vw <= 1e-12 * vv:  # no progress: |v| is the distance
            break
        W.append(w)
        idx, wts = _closest_simplex(W, (*idx, len(W) - 1))
        if wts is None:
            return True, 0.0, False
        v = _comb(W, idx, wts)
        scale = max(scale, math.sqrt(_norm2(w)))
    else:  # out of iterations (not seen in practice): decide by the distance bound in hand
        if _norm2(v) <= (1e-9 * scale) ** 2:
            return False, 0.0, True
    if boolean:
        return False, 0.0, False
    return False, math.sqrt(_norm2(v)), False


# --- the solid-pair core --------------------------------------------------------------------


class PairTester:
    """Exact narrow phase over solids; see the module docstring for the stages."""

    def __init__(self, solids: Solids) -> None:
        self.s = solids
        self._req = None

    def _fcl_collide(self, a: int, b: int, Ta: np.ndarray, Tb: np.ndarray) -> bool:
        import fcl

        oa, ob = self.s.fcl_object(a), self.s.fcl_object(b)
        oa.setTransform(fcl.Transform(Ta[:3, :3].copy(), Ta[:3, 3].copy()))
        ob.setTransform(fcl.Transform(Tb[:3, :3].copy(), Tb[:3, 3].copy()))
        return fcl.collide(oa, ob, fcl.CollisionRequest(), fcl.CollisionResult()) > 0

    def _frustum_mesh(self, f: int, m: int, Tf: np.ndarray, Tm: np.ndarray) -> bool:
        """Exact frustum against a triangle soup: triangles in the frustum's frame, box-rejected,
        then GJK per triangle."""
        s = self.s
        rel = np.linalg.solve(Tf, Tm)
        v = s.items[m].vertices @ rel[:3, :3].T + rel[:3, 3]
        tri = v[s.items[m].faces]
        half = s.half[f]
        lo, hi = tri.min(axis=1), tri.max(axis=1)
        near = np.flatnonzero(((lo <= half) & (hi >= -half)).all(axis=1))
        ident = np.eye(4)
        sup_f = _support_fn(FRUSTUM, s.par[f], ident)
        for k in near:
            pts = [tuple(p) for p in tri[k].tolist()]
            sup_t = _support_fn(-1, (0, 0, 0), ident, points=pts)
            c = tri[k].mean(axis=0)
            d0 = tuple(c.tolist()) if float(c @ c) > 0 else (1.0, 0.0, 0.0)
            if gjk(sup_f, sup_t, d0, boolean=True)[0]:
                return True
        return False

    def exact_pair(self, a: int, b: int, Ta: np.ndarray, Tb: np.ndarray) -> bool:
        """One pair, kinds sorted (kind[a] <= kind[b]), by FCL or the exact GJK."""
        s = self.s
        ka, kb = int(s.kind[a]), int(s.kind[b])
        if FRUSTUM in (ka, kb):
            if kb == MESH:
                return self._frustum_mesh(a, b, Ta, Tb)
            sa = _support_fn(ka, s.par[a], Ta)
            sb = _support_fn(kb, s.par[b], Tb)
            d = Tb[:3, 3] - Ta[:3, 3]
            d0 = tuple(d.tolist()) if float(d @ d) > 0 else (1.0, 0.0, 0.0)
            return gjk(sa, sb, d0, boolean=True)[0]
        return self._fcl_collide(a, b, Ta, Tb)

    def test(self, oi: np.ndarray, oj: np.ndarray, Ti: np.ndarray, Tj: np.ndarray,
             keys: np.ndarray | None = None) -> np.ndarray:
        """Which candidate pairs (solid indices, world poses (K,4,4)) intersect. ``keys`` groups
        candidates (e.g. one key per configuration and frame pair): once one pair of a group is
        known to collide, its remaining scalar checks are skipped (the result for those is
        left False)."""
        s = self.s
        K = len(oi)
        out = np.zeros(K, dtype=bool)
        if K == 0:
            return out
        ki, kj = s.kind[oi], s.kind[oj]
        sw = ki > kj
        if sw.any():
            oi, oj = np.where(sw, oj, oi), np.where(sw, oi, oj)
            Ti, Tj = np.where(sw[:, None, None], Tj, Ti), np.where(sw[:, None, None], Ti, Tj)
            ki, kj = s.kind[oi], s.kind[oj]
        Ri, ti, Rj, tj = Ti[:, :3, :3], Ti[:, :3, 3], Tj[:, :3, :3], Tj[:, :3, 3]
        d = tj - ti
        todo = (d * d).sum(axis=1) <= (s.brad[oi] + s.brad[oj] + CONTACT_TOL) ** 2

        sph = ki == SPHERE
        m = todo & sph & (kj == SPHERE)
        out[m] = (d[m] * d[m]).sum(axis=1) < (s.par[oi[m], 0] + s.par[oj[m], 0]
                                               - CONTACT_TOL) ** 2
        todo &= ~m
        m = np.flatnonzero(todo & sph & (kj == BOX))
        if m.size:
            dist = box_distance(_local(Rj[m], tj[m], ti[m]), s.par[oj[m]])
            out[m] = dist < s.par[oi[m], 0] - CONTACT_TOL
            todo[m] = False
        m = np.flatnonzero(todo & sph & (kj >= CYLINDER) & (kj <= FRUSTUM))
        if m.size:
            dist = round_distance(_local(Rj[m], tj[m], ti[m]), s.par[oj[m]])
            out[m] = dist < s.par[oi[m], 0] - CONTACT_TOL
            todo[m] = False
        m = np.flatnonzero(todo)
        if m.size:  # oriented boxes: exact for two boxes, a rejection test for the rest
            sep = sat_separated(Ri[m], ti[m], s.half[oi[m]], Rj[m], tj[m], s.half[oj[m]])
            boxes = (ki[m] == BOX) & (kj[m] == BOX)
            out[m[boxes]] = ~sep[boxes]
            m = m[~sep & ~boxes]
        if len(m) >= _VECTOR_MIN:  # (for fewer, FCL or the GJK one by one is cheaper)
            m = self._core_tests(m, oi, oj, Ri, ti, Rj, tj, out)
        f = m[(ki[m] == FRUSTUM) | (kj[m] == FRUSTUM)]
        if len(f) >= _AXIS_MIN:  # before many slow scalar GJKs: balls along a capsule axis
            sure = self._axis_accept(oi[f], oj[f], Ri[f], ti[f], Rj[f], tj[f])
            sure |= self._axis_accept(oj[f], oi[f], Rj[f], tj[f], Ri[f], ti[f])
            out[f[sure]] = True
            m = np.setdiff1d(m, f[sure], assume_unique=True)
        if m.size:
            self._scalar(m, oi, oj, Ti, Tj, keys, out)
        return out

    def _scalar(self, m, oi, oj, Ti, Tj, keys, out) -> None:
        """The pairs no vectorised test decided, one by one: FCL, or the GJK for frusta."""
        import fcl

        s = self.s
        if self._req is None:
            self._req = (fcl.CollisionRequest(), fcl.CollisionResult())
        req, res = self._req
        hit_keys = set(keys[out].tolist()) if keys is not None else set()
        # b's pose in a's frame, so that a stays at the identity: one fcl.Transform a pair, from
        # contiguous arrays (which it reads twice as fast as strided slices).
        Ra, ta, Rb, tb = Ti[m, :3, :3], Ti[m, :3, 3], Tj[m, :3, :3], Tj[m, :3, 3]
        R = np.ascontiguousarray(np.einsum("kji,kjl->kil", Ra, Rb))
        t = np.ascontiguousarray(np.einsum("kji,kj->ki", Ra, tb - ta))
        slow = (s.kind[oi[m]] == FRUSTUM) | (s.kind[oj[m]] == FRUSTUM)
        Transform, collide, identity = fcl.Transform, fcl.collide, fcl.Transform()
        for n, (k, a, b) in enumerate(zip(m.tolist(), oi[m].tolist(), oj[m].tolist(),
                                          strict=True)):
            if keys is not None and keys[k] in hit_keys:
                continue
            if slow[n]:
                hit = self.exact_pair(a, b, Ti[k], Tj[k])
            else:
                oa, ob = s.fcl_object(a), s.fcl_object(b)
                oa.setTransform(identity)
                ob.setTransform(Transform(R[n], t[n]))
                hit = collide(oa, ob, req, res) > 0
            if hit:
                out[k] = True
                if keys is not None:
                    hit_keys.add(keys[k])

    def _core_tests(self, m, oi, oj, Ri, ti, Rj, tj, out) -> np.ndarray:
        """Decide what closed forms can about candidates m (writing ``out``); return the rest.
        Certificates of a collision: the inscribed capsules overlap, or a point lies in both
        solids (closed-form signed distances). Of a separation: an axis along which the
        solids' exact support functions leave a gap. Candidate points and axes come from the
        closest points of the solids' core segments (the capsules' axes), refined by one
        alternating projection between the two solids (not for meshes)."""
        s = self.s
        a, b = oi[m], oj[m]
        Ra, ta, Rb, tb = Ri[m], ti[m], Rj[m], tj[m]
        ea = np.einsum("kij,kj->ki", Ra, s.seg[a])
        eb = np.einsum("kij,kj->ki", Rb, s.seg[b])
        ca, cb = segment_closest(ta - ea, ta + ea, tb - eb, tb + eb)
        gap = cb - ca
        d2 = (gap * gap).sum(axis=1)
        reach = s.irad[a] + s.irad[b] - CONTACT_TOL
        hit = (d2 < reach * np.abs(reach)) & (s.irad[a] >= 0) & (s.irad[b] >= 0)
        x = (ca + cb) / 2
        hit |= self._inside_both(a, b, Ra, ta, Rb, tb, [x])
        apart = ~hit & self._apart(a, b, Ra, ta, Rb, tb, [gap, tb - ta])
        k = np.flatnonzero(~hit & ~apart & (s.kind[a] != MESH) & (s.kind[b] != MESH))
        if k.size:
            ak, bk, Rak, tak, Rbk, tbk = a[k], b[k], Ra[k], ta[k], Rb[k], tb[k]
            pa = project(s, ak, Rak, tak, x[k])
            pb = project(s, bk, Rbk, tbk, pa)
            # pb is in B and pa in A, each maybe deep in the other: a small step towards its own
            # solid's centre makes it deep in both (depth is concave on a convex solid).
            hit[k] = self._inside_both(ak, bk, Rak, tak, Rbk, tbk,
                                       [pb + 1e-3 * (tbk - pb), pa + 1e-3 * (tak - pa)])
            apart[k] = ~hit[k] & self._apart(ak, bk, Rak, tak, Rbk, tbk, [pb - pa])
        out[m[hit]] = True
        return m[~hit & ~apart]

    def _inside_both(self, a, b, Ra, ta, Rb, tb, points: list) -> np.ndarray:
        """(K,) whether any of the candidate points (each (K,3)) is deeper than CONTACT_TOL in
        both solids (one closed-form evaluation for all)."""
        n, K = len(points), len(a)
        x = np.concatenate(points * 2)
        idx = np.concatenate([a] * n + [b] * n)
        R = np.concatenate([Ra] * n + [Rb] * n)
        t = np.concatenate([ta] * n + [tb] * n)
        d = solid_distance(self.s, idx, R, t, x).reshape(2, n, K)
        return ((d[0] < -CONTACT_TOL) & (d[1] < -CONTACT_TOL)).any(axis=0)

    def _apart(self, a, b, Ra, ta, Rb, tb, axes: list) -> np.ndarray:
        """(K,) whether along any of the axes (each (K,3), pointing from a to b) the exact
        support functions leave the solids overlapping by at most CONTACT_TOL."""
        n, K = len(axes), len(a)
        ax = np.concatenate(axes)
        h = support(self.s, np.concatenate([a] * n + [b] * n), np.concatenate([Ra] * n + [Rb] * n),
                    np.concatenate([ax, -ax])).reshape(2, n, K)
        length = np.sqrt((ax * ax).sum(axis=1)).reshape(n, K)
        lead = (ax.reshape(n, K, 3) * (tb - ta)).sum(axis=2) - h[0] - h[1]
        return ((length > 0) & (lead >= -CONTACT_TOL * length)).any(axis=0)

    def _axis_accept(self, a, b, Ra, ta, Rb, tb) -> np.ndarray:
        """Balls of radius irad[a] at points along a's inscribed-capsule axis (inside a) that
        touch b, a box or round solid (closed-form point distance): certainly colliding."""
        s = self.s
        out = np.zeros(len(a), dtype=bool)
        kb = s.kind[b]
        has = s.irad[a] >= 0
        for sel, dist_fn in ((kb == BOX, box_distance),
                             ((kb >= CYLINDER) & (kb <= FRUSTUM), round_distance)):
            k = np.flatnonzero(has & sel)
            if not k.size:
                continue
            e = np.einsum("kij,kj->ki", Ra[k], s.seg[a[k]])
            pts = ta[k] + _AXIS_SAMPLES[:, None, None] * e  # (samples, K, 3)
            dist = dist_fn(_local(Rb[k], tb[k], pts), s.par[b[k]])
            out[k] = dist.min(axis=0) < s.irad[a[k]] - CONTACT_TOL
        return out

    def distance(self, a: int, b: int, Ta: np.ndarray, Tb: np.ndarray) -> float:
        """Signed distance of one pair (negative: penetration depth). Exact for sphere pairs
        and separated or touching frusta; FCL's (GJK, EPA for depth) otherwise; a mesh in
        contact gets 0.0 (FCL has no depth for meshes). A penetrating
        frustum (or one against a mesh) gets the mean of its inscribed and circumscribed
        128-gon hulls' distances: within 0.0003 x its radius of the truth."""
        s = self.s
        if s.kind[a] > s.kind[b]:
            a, b, Ta, Tb = b, a, Tb, Ta
        ka, kb = int(s.kind[a]), int(s.kind[b])
        if ka == SPHERE and kb in (SPHERE, BOX, *ROUND):
            p = _local(Tb[None, :3, :3], Tb[None, :3, 3], Ta[None, :3, 3])
            ra = s.par[a, 0]
            if kb == SPHERE:
                return float(np.sqrt((p * p).sum()) - ra - s.par[b, 0])
            if kb == BOX:
                return float(box_distance(p, s.par[b][None])[0] - ra)
            return float(round_distance(p, s.par[b][None])[0] - ra)
        if FRUSTUM not in (ka, kb):
            return self._fcl_distance(a, b, Ta, Tb, False)
        if kb != MESH:
            d = Tb[:3, 3] - Ta[:3, 3]
            d0 = tuple(d.tolist()) if float(d @ d) > 0 else (1.0, 0.0, 0.0)
            hit, dist, touching = gjk(_support_fn(ka, s.par[a], Ta),
                                      _support_fn(kb, s.par[b], Tb), d0, boolean=False)
            if touching:
                return 0.0
            if not hit:
                return dist
        mid = (self._fcl_distance(a, b, Ta, Tb, False)
               + self._fcl_distance(a, b, Ta, Tb, True)) / 2
        if kb == MESH:
            return mid
        # A separating-axis bound is exact where it applies (touching); the hulls' mean is not.
        return min(max(mid, self._separation_bound(a, b, Ta, Tb)), 0.0)

    def _separation_bound(self, a: int, b: int, Ta: np.ndarray, Tb: np.ndarray) -> float:
        """A lower bound on the signed distance of two convex solids: the largest gap (negative:
        overlap) their exact support functions leave along a few axes (the centres' line, the
        core segments' closest points' line after one projection round, each solid's axes)."""
        s = self.s
        ia, ib = np.array([a]), np.array([b])
        Ra, ta, Rb, tb = Ta[None, :3, :3], Ta[None, :3, 3], Tb[None, :3, :3], Tb[None, :3, 3]
        ea, eb = Ra[0] @ s.seg[a], Rb[0] @ s.seg[b]
        ca, cb = segment_closest(ta - ea, ta + ea, tb - eb, tb + eb)
        pa = project(s, ia, Ra, ta, (ca + cb) / 2)
        pb = project(s, ib, Rb, tb, pa)
        axes = np.concatenate([tb - ta, cb - ca, pb - pa, Ra[0].T, Rb[0].T])
        length = np.sqrt((axes * axes).sum(axis=1))
        axes = axes[length > 0] / length[length > 0, None]
        k = len(axes)
        lead = (axes @ (tb[0] - ta[0]) - support(s, np.repeat(ia, k), np.repeat(Ra, k, 0), axes)
                - support(s, np.repeat(ib, k), np.repeat(Rb, k, 0), -axes))
        best = np.max(lead)  # per unit axis; with both signs of the solids' own axes
        lead2 = (-axes @ (tb[0] - ta[0]) - support(s, np.repeat(ia, k), np.repeat(Ra, k, 0), -axes)
                 - support(s, np.repeat(ib, k), np.repeat(Rb, k, 0), axes))
        return float(max(best, np.max(lead2)))

    def _fcl_distance(self, a: int, b: int, Ta: np.ndarray, Tb: np.ndarray,
                      inner: bool) -> float:
        import fcl

        s = self.s
        oa = s.fcl_object(a, inner and s.kind[a] == FRUSTUM)
        ob = s.fcl_object(b, inner and s.kind[b] == FRUSTUM)
        oa.setTransform(fcl.Transform(Ta[:3, :3], Ta[:3, 3]))
        ob.setTransform(fcl.Transform(Tb[:3, :3], Tb[:3, 3]))
        req = fcl.DistanceRequest(enable_signed_distance=True)
        d = float(fcl.distance(oa, ob, req, fcl.DistanceResult()))
        if d < 0 and MESH in (s.kind[a], s.kind[b]):
            return 0.0  # FCL gives meshes no depth (it returns -1): overlapping, depth unknown
        return d


# --- broad phases over world AABBs ----------------------------------------------------------


def _pairs_after(cnt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For sorted positions with cnt[k] partners right after k: all (k, k + 1 + m) pairs."""
    total = int(cnt.sum())
    a = np.repeat(np.arange(len(cnt)), cnt)
    b = np.arange(total) - np.repeat(np.cumsum(cnt) - cnt, cnt) + a + 1
    return a, b


def _overlap(lo, hi, a, b) -> np.ndarray:
    return ((lo[a] <= hi[b]) & (lo[b] <= hi[a])).all(axis=1)


def sweep_pairs(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sweep and prune along the axis of largest spread: (i, j), i < j, AABBs overlapping."""
    n = len(lo)
    if n < 2:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    ax = int(np.argmax((lo + hi).var(axis=0)))
    order = np.argsort(lo[:, ax], kind="stable")
    los = lo[order, ax]
    end = np.searchsorted(los, hi[order, ax], side="right")
    a, b = _pairs_after(np.maximum(end - np.arange(n) - 1, 0))
    a, b = order[a], order[b]
    keep = _overlap(lo, hi, a, b)
    a, b = a[keep], b[keep]
    return np.minimum(a, b), np.maximum(a, b)


def grid_pairs(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Uniform-grid broad phase: (i, j), i < j, AABBs overlapping. Linear in the number of boxes
    for evenly sized objects; boxes spanning more than 64 cells are tested against all."""
    n = len(lo)
    if n < 2:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    size = (hi - lo).max(axis=1)
    cell = float(np.quantile(size, 0.9))
    if not cell > 0:
        cell = float(size.max()) or 1.0
    base = np.floor(lo.min(axis=0) / cell)
    ilo = (np.floor(lo / cell) - base).astype(np.int64)
    ihi = (np.floor(hi / cell) - base).astype(np.int64)
    dims = ihi.max(axis=0) + 1
    if float(dims[0]) * float(dims[1]) * float(dims[2]) > 2.0 ** 62:
        return sweep_pairs(lo, hi)  # a degenerate spread: keys would overflow
    span = ihi - ilo + 1
    ncell = span.prod(axis=1)
    big = ncell > 64
    small = np.flatnonzero(~big)
    counts = ncell[small]
    owner = np.repeat(small, counts)
    k = np.arange(len(owner)) - np.repeat(np.cumsum(counts) - counts, counts)
    sp = span[owner]
    cx = ilo[owner, 0] + k % sp[:, 0]
    cy = ilo[owner, 1] + (k // sp[:, 0]) % sp[:, 1]
    cz = ilo[owner, 2] + k // (sp[:, 0] * sp[:, 1])
    key = (cx * dims[1] + cy) * dims[2] + cz
    order = np.argsort(key, kind="stable")
    key, owner, cx, cy, cz = key[order], owner[order], cx[order], cy[order], cz[order]
    m = len(key)
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    ends = np.r_[starts[1:], m]
    group_end = np.repeat(ends, ends - starts)
    pa, pb = _pairs_after(group_end - np.arange(m) - 1)
    a, b = owner[pa], owner[pb]
    # Report a pair only in its first shared cell (the max of both low corners): no duplicates.
    first = ((cx[pa] == np.maximum(ilo[a, 0], ilo[b, 0]))
             & (cy[pa] == np.maximum(ilo[a, 1], ilo[b, 1]))
             & (cz[pa] == np.maximum(ilo[a, 2], ilo[b, 2])))
    a, b = a[first], b[first]
    keep = _overlap(lo, hi, a, b)
    i_out, j_out = [np.minimum(a[keep], b[keep])], [np.maximum(a[keep], b[keep])]
    for g in np.flatnonzero(big):
        others = np.flatnonzero(((lo[g] <= hi) & (lo <= hi[g])).all(axis=1))
        others = others[(others != g) & (~big[others] | (others > g))]
        i_out.append(np.minimum(others, g))
        j_out.append(np.maximum(others, g))
    return np.concatenate(i_out), np.concatenate(j_out)


def sphere_pairs(c: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(i, j), i < j, whose bounding spheres (centres c, radii r) meet, by scipy's kd-tree
    (in C): the default broad phase. Spheres over 4x the median radius are tested against
    all, so that one huge solid does not make every pair a candidate."""
    from scipy.spatial import cKDTree

    n = len(c)
    if n < 2:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    med = float(np.partition(r, n // 2)[n // 2])
    big = r > 4 * med if med > 0 else np.zeros(n, dtype=bool)
    small = np.flatnonzero(~big)
    i_out, j_out = [], []
    if len(small) > 1:
        reach = 2 * float(r[small].max()) + CONTACT_TOL
        p = cKDTree(c[small]).query_pairs(reach, output_type="ndarray")
        a, b = small[p[:, 0]], small[p[:, 1]]
        d = c[a] - c[b]
        keep = (d * d).sum(axis=1) <= (r[a] + r[b] + CONTACT_TOL) ** 2
        i_out.append(np.minimum(a[keep], b[keep]))
        j_out.append(np.maximum(a[keep], b[keep]))
    for g in np.flatnonzero(big):
        d = c - c[g]
        others = np.flatnonzero((d * d).sum(axis=1) <= (r + r[g] + CONTACT_TOL) ** 2)
        others = others[(others != g) & (~big[others] | (others > g))]
        i_out.append(np.minimum(others, g))
        j_out.append(np.maximum(others, g))
    if not i_out:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    return np.concatenate(i_out).astype(np.int64), np.concatenate(j_out).astype(np.int64)


BROADPHASES = ("kd", "grid", "sap")


def candidates(solids: Solids, W: np.ndarray, broadphase: str = "kd"
               ) -> tuple[np.ndarray, np.ndarray]:
    """Candidate solid pairs (i < j) at world poses W (O,4,4) by the named broad phase."""
    if broadphase == "kd":
        return sphere_pairs(W[:, :3, 3], solids.brad)
    lo, hi = world_aabbs(solids, W)
    return (grid_pairs if broadphase == "grid" else sweep_pairs)(lo, hi)


def world_aabbs(solids: Solids, W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """World AABBs (lo, hi) of solids at world poses W (O,4,4)."""
    c = W[:, :3, 3]
    e = np.einsum("kij,kj->ki", np.abs(W[:, :3, :3]), solids.half)
    return c - e, c + e


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


# --- the scene checker ----------------------------------------------------------------------


@dataclass(frozen=True)
class PairDistance:
    a: str
    b: str
    distance: float  # signed: negative is penetration (as deep as the library can tell)


class CollisionChecker:
    """Collision checking for one scene; build once, query many configurations.

    ``use_allowed=False`` ignores the scene's ``allow_collision`` pairs; ``frame_pairs``
    restricts checking to those frame pairs (names, either order).
    """

    def __init__(self, scene: ir.Scene, sink: DiagnosticSink | None = None, *,
                 use_allowed: bool = True,
                 frame_pairs: Iterable[tuple[str, str]] | None = None,
                 broadphase: str = "auto") -> None:
        from robrayc.meshes import load_mesh

        self.scene = scene
        self.variables = scene.variables
        sink = sink or DiagnosticSink()
        var_index = {v: i for i, v in enumerate(self.variables)}
        n_frames = len(scene.frames)
        self.frame_names = [f.name for f in scene.frames]

        # Rigid groups: 0 is the world; each joint frame starts one (parents come first).
        group_of = [0] * n_frames
        rel: list[np.ndarray] = [np.eye(4)] * n_frames  # frame in its group's frame
        self._joints: list[tuple] = []  # (parent group, constant 4x4, kind, axis, var, offset)
        for i, f in enumerate(scene.frames):
            if f.parent is None:
                pg, prel = 0, np.eye(4)
            else:
                p = scene.index(f.parent)
                pg, prel = group_of[p], rel[p]
            local = prel @ fixed_matrix(f)
            if f.is_joint and f.axis is not None:
                self._joints.append((pg, local, f.kind, np.asarray(f.axis, dtype=float),
                                     var_index[f.variable], f.offset))
                group_of[i], rel[i] = len(self._joints), np.eye(4)
            else:
                group_of[i], rel[i] = pg, local

        solids: list[Solid] = []
        owner: list[int] = []
        for i, f in enumerate(scene.frames):
            for g in f.geometries:
                if not g.collision or isinstance(g.shape, ir.Grid):
                    continue
                data = None
                if isinstance(g.shape, ir.Mesh):
                    data = load_mesh(g.shape, sink, g.pos)
                solid = solid_from_shape(g.shape, g.scale, mesh_data=data)
                solids.append(Solid(solid.kind, solid.params, rel[i] @ solid.placement,
                                    solid.vertices, solid.faces))
                owner.append(i)
        self.solids = Solids(solids)
        self.tester = PairTester(self.solids)
        self.owner = np.array(owner, dtype=np.int64)
        self.group = np.array([group_of[i] for i in owner], dtype=np.int64)
        self._n_frames = n_frames

        allowed = {(scene.index(p.a), scene.index(p.b)) for p in scene.allowed
                   if scene.has_frame(p.a) and scene.has_frame(p.b)} if use_allowed else set()
        allowed = {(min(a, b), max(a, b)) for a, b in allowed}
        wanted = None
        if frame_pairs is not None:
            wanted = set()
            for a, b in frame_pairs:
                ia, ib = scene.index(a), scene.index(b)
                wanted.add((min(ia, ib), max(ia, ib)))
        self.collision_frames = tuple(self.frame_names[i] for i in sorted(set(owner)))
        self._allowed_keys = np.array(sorted(a * n_frames + b for a, b in allowed), np.int64)
        self._wanted_keys = (np.array(sorted(a * n_frames + b for a, b in wanted), np.int64)
                             if wanted is not None else None)

        n_obj = len(solids)
        n_pairs_max = n_obj * (n_obj - 1) // 2
        if broadphase == "auto":
            broadphase = "dense" if n_pairs_max <= 4 * DENSE_MAX_PAIRS else "kd"
        if broadphase != "dense" and broadphase not in BROADPHASES:
            raise ValueError(f"unknown broad phase {broadphase!r}")
        if broadphase == "dense":
            self._build_dense(allowed, wanted)
            if len(self._pi) > DENSE_MAX_PAIRS and frame_pairs is None:
                broadphase = "kd"
        self.mode = broadphase
        if broadphase != "dense":
            self._const_keys = self._sparse_constant()
            self.pair_keys = self._wanted_keys  # None: every pair (too many to enumerate)

    # -- set-up --

    def _build_dense(self, allowed: set, wanted: set | None) -> None:
        o = len(self.solids)
        ii, jj = np.triu_indices(o, k=1)
        fa, fb = self.owner[ii], self.owner[jj]
        lo, hi = np.minimum(fa, fb), np.maximum(fa, fb)
        keep = lo != hi
        keys = lo * self._n_frames + hi
        keep &= ~np.isin(keys, self._allowed_keys)
        if wanted is not None:
            keep &= np.isin(keys, self._wanted_keys)
        ii, jj, keys = ii[keep], jj[keep], keys[keep]
        pair_keys, pfp = np.unique(keys, return_inverse=True)
        if wanted is not None:  # frame pairs asked for but without solids still get a column
            pair_keys = np.unique(np.concatenate([pair_keys, self._wanted_keys]))
            pfp = np.searchsorted(pair_keys, keys)
        self.pair_keys = pair_keys
        const = self.group[ii] == self.group[jj]
        W0 = self._solid_poses(np.zeros((1, len(self.variables))))[0]
        ci, cj = ii[const], jj[const]
        hit = self.tester.test(ci, cj, W0[ci], W0[cj])
        self._const_hit = np.zeros(len(pair_keys), dtype=bool)
        self._const_hit[pfp[const][hit]] = True
        dyn = ~const & ~self._const_hit[pfp]  # a pair already colliding for good needs no check
        self._pi, self._pj, self._pfp = ii[dyn], jj[dyn], pfp[dyn]
        used = np.unique(np.concatenate([self._pi, self._pj]))
        self._centre_local = self.solids.placement[:, :3, 3]
        self._used = used

    def _sparse_constant(self) -> np.ndarray:
        """Frame-pair keys colliding for good: solid pairs inside one rigid group."""
        W = self._solid_poses(np.zeros((1, len(self.variables))))[0]
        i, j = self._candidates(W, same_group=True)
        hit = self.tester.test(i, j, W[i], W[j])
        return np.unique(self._keys(i[hit], j[hit]))

    @property
    def frame_pairs(self) -> list[tuple[str, str]]:
        """The frame pairs checked, in collision_matrix column order (a big scene without
        ``frame_pairs``: not enumerated, ValueError)."""
        if self.pair_keys is None:
            raise ValueError("a big scene's frame pairs are not enumerated: give frame_pairs")
        n = self._n_frames
        return [(self.frame_names[k // n], self.frame_names[k % n])
                for k in self.pair_keys.tolist()]

    # -- kinematics --

    def _configs(self, configs) -> np.ndarray:
        q = np.asarray(configs, dtype=float)
        if q.ndim == 1:
            q = q[None, :]
        if q.ndim != 2 or q.shape[1] != len(self.variables):
            raise ValueError(f"configurations must be (N, {len(self.variables)}) "
                             f"(variables {', '.join(self.variables)}), got {q.shape}")
        return q

    def config_vector(self, config: Config) -> np.ndarray:
        """A configuration vector from a NAME -> value mapping (missing: 0) or a sequence."""
        if config is None:
            return np.zeros(len(self.variables))
        if isinstance(config, Mapping):
            index = {v: i for i, v in enumerate(self.variables)}
            q = np.zeros(len(self.variables))
            for name, value in config.items():
                if name not in index:
                    raise KeyError(f"unknown configuration variable '{name}'")
                q[index[name]] = value
            return q
        return self._configs(config)[0]

    def group_poses(self, q: np.ndarray) -> np.ndarray:
        """(N, groups, 4, 4): the world pose of every rigid group (0: the world)."""
        n = q.shape[0]
        if n == 1:
            return self._group_poses_one(q[0].tolist())[None]
        G = np.empty((n, len(self._joints) + 1, 4, 4))
        G[:, 0] = np.eye(4)
        for g, (pg, const, kind, axis, var, offset) in enumerate(self._joints, start=1):
            base = np.broadcast_to(const, (n, 4, 4)) if pg == 0 else G[:, pg] @ const
            value = q[:, var] + offset
            if kind == "revolute":
                G[:, g] = base @ _axis_rotations(axis, value)
            else:
                G[:, g] = base
                G[:, g, :3, 3] += (base[:, :3, :3] @ axis) * value[:, None]
        return G

    def _group_poses_one(self, q: list[float]) -> np.ndarray:
        """group_poses for one configuration: scalar joint motions (numpy's per-call overhead
        dominates at N = 1)."""
        G = np.empty((len(self._joints) + 1, 4, 4))
        G[0] = np.eye(4)
        for g, (pg, const, kind, axis, var, offset) in enumerate(self._joints, start=1):
            base = const if pg == 0 else G[pg] @ const
            value = q[var] + offset
            ax, ay, az = axis.tolist()
            if kind == "revolute":  # the quaternion formula of fk._axis_rotations, scalar
                sn = math.sin(value / 2)
                x, y, z, w = sn * ax, sn * ay, sn * az, math.cos(value / 2)
                rot = np.array((
                    (1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w), 0.0),
                    (2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w), 0.0),
                    (2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y), 0.0),
                    (0.0, 0.0, 0.0, 1.0)))
                G[g] = base @ rot
            else:
                G[g] = base
                G[g, :3, 3] += base[:3, :3] @ axis * value
        return G

    def _solid_poses(self, q: np.ndarray) -> np.ndarray:
        """(N, solids, 4, 4) world poses of every solid."""
        return self.group_poses(q)[:, self.group] @ self.solids.placement

    # -- queries --

    def _keys(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        fa, fb = self.owner[i], self.owner[j]
        return np.minimum(fa, fb) * self._n_frames + np.maximum(fa, fb)

    def _candidates(self, W: np.ndarray, same_group: bool) -> tuple[np.ndarray, np.ndarray]:
        i, j = candidates(self.solids, W, "kd" if same_group else self.mode)
        keep = (self.owner[i] != self.owner[j])
        keep &= (self.group[i] == self.group[j]) if same_group else (
            self.group[i] != self.group[j])
        keys = self._keys(i, j)
        keep &= ~np.isin(keys, self._allowed_keys)
        if self._wanted_keys is not None:
            keep &= np.isin(keys, self._wanted_keys)
        return i[keep], j[keep]

    def _names(self, keys: Iterable[int]) -> list[tuple[str, str]]:
        n = self._n_frames
        out = []
        for k in keys:
            a, b = self.frame_names[k // n], self.frame_names[k % n]
            out.append((a, b) if a < b else (b, a))
        return sorted(out)

    def collision_matrix(self, configs) -> np.ndarray:
        """(N, len(frame_pairs)) booleans: which checked frame pairs collide at each
        configuration (dense mode: a robot-sized scene, or frame_pairs given)."""
        q = self._configs(configs)
        if self.mode != "dense":
            if self.pair_keys is None:
                raise ValueError("collision_matrix of a big scene: give frame_pairs")
            out = np.zeros((q.shape[0], len(self.pair_keys)), dtype=bool)
            for row, config in enumerate(q):
                keys = self._sparse_keys(config)
                out[row, np.searchsorted(self.pair_keys, keys)] = True
            return out
        out = np.empty((q.shape[0], len(self.pair_keys)), dtype=bool)
        for start in range(0, q.shape[0], BLOCK):
            out[start:start + BLOCK] = self._dense_block(q[start:start + BLOCK])
        return out

    def _dense_block(self, q: np.ndarray) -> np.ndarray:
        n = q.shape[0]
        n_fp = len(self.pair_keys)
        hits = np.broadcast_to(self._const_hit, (n, n_fp)).copy()
        if not len(self._pi):
            return hits
        G = self.group_poses(q)
        s = self.solids
        used = self._used
        # World centres of the solids in moving pairs: (N, used, 3).
        Gu = G[:, self.group[used]]
        cl = self._centre_local[used]
        centres = np.empty((n, s.kind.shape[0], 3))
        centres[:, used] = np.einsum("nuij,uj->nui", Gu[:, :, :3, :3], cl) + Gu[:, :, :3, 3]
        d = centres[:, self._pi] - centres[:, self._pj]
        near = (d * d).sum(axis=2) <= (s.brad[self._pi] + s.brad[self._pj]) ** 2
        cn, cp = np.nonzero(near)
        if not len(cn):
            return hits
        a, b = self._pi[cp], self._pj[cp]
        Ta = G[cn, self.group[a]] @ s.placement[a]
        Tb = G[cn, self.group[b]] @ s.placement[b]
        fp = self._pfp[cp]
        hit = self.tester.test(a, b, Ta, Tb, keys=cn * n_fp + fp)
        hits[cn[hit], fp[hit]] = True
        return hits

    def _sparse_keys(self, q: np.ndarray) -> np.ndarray:
        W = self._solid_poses(q[None])[0]
        i, j = self._candidates(W, same_group=False)
        keys = self._keys(i, j)
        fresh = ~np.isin(keys, self._const_keys)
        i, j, keys = i[fresh], j[fresh], keys[fresh]
        hit = self.tester.test(i, j, W[i], W[j], keys=keys)
        return np.union1d(keys[hit], self._const_keys)

    def _sparse_one(self, q: np.ndarray) -> list[tuple[str, str]]:
        return self._names(self._sparse_keys(q).tolist())

    def colliding_pairs(self, config: Config = None) -> list[tuple[str, str]]:
        """Sorted (a, b) frame-name pairs, a < b, whose collision geometry intersects at
        ``config`` (a NAME -> value mapping, missing variables 0, or a vector in
        ``scene.variables`` order)."""
        return self.colliding_pairs_batch(self.config_vector(config)[None])[0]

    def colliding_pairs_batch(self, configs) -> list[list[tuple[str, str]]]:
        """colliding_pairs for each row of an (N, dof) array."""
        q = self._configs(configs)
        if self.mode != "dense":
            return [self._sparse_one(row) for row in q]
        pairs = self.frame_pairs
        names = [(a, b) if a < b else (b, a) for a, b in pairs]
        out = []
        for start in range(0, q.shape[0], BLOCK):
            hits = self._dense_block(q[start:start + BLOCK])
            for row in hits:
                out.append(sorted(names[k] for k in np.flatnonzero(row).tolist()))
        return out

    def in_collision(self, configs) -> np.ndarray:
        """(N,) booleans: anything colliding at each configuration."""
        q = self._configs(configs)
        if self.mode == "dense":
            return self.collision_matrix(q).any(axis=1)
        return np.array([bool(self._sparse_one(row)) for row in q])

    def distance(self, config: Config = None,
                 pairs: Iterable[tuple[str, str]] | None = None) -> list[PairDistance]:
        """Signed distance of each frame pair (default: every pair checked; in a big scene,
        give ``pairs``), sorted by frame names; negative means penetration."""
        q = self.config_vector(config)
        W = self._solid_poses(q[None])[0]
        n = self._n_frames
        if pairs is None:
            if self.mode != "dense":
                raise ValueError("distance over every pair of a big scene: give pairs")
            keys = self.pair_keys.tolist()
        else:
            keys = []
            for a, b in pairs:
                ia, ib = self.scene.index(a), self.scene.index(b)
                keys.append(min(ia, ib) * n + max(ia, ib))
        by_frame: dict[int, list[int]] = {}
        for k, f in enumerate(self.owner.tolist()):
            by_frame.setdefault(f, []).append(k)
        out = []
        for key in dict.fromkeys(keys):
            fa, fb = divmod(key, n)
            best = math.inf
            for a in by_frame.get(fa, ()):
                for b in by_frame.get(fb, ()):
                    best = min(best, self.tester.distance(a, b, W[a], W[b]))
            na, nb = self.frame_names[fa], self.frame_names[fb]
            out.append(PairDistance(*((na, nb) if na < nb else (nb, na)), best))
        return sorted(out, key=lambda p: (p.a, p.b))

    def closest(self, config: Config = None, k: int = 1,
                pairs: Iterable[tuple[str, str]] | None = None) -> list[PairDistance]:
        """The k frame pairs of smallest signed distance (most penetrating first)."""
        return sorted(self.distance(config, pairs), key=lambda p: (p.distance, p.a, p.b))[:k]


def collision_frames_of(scene: ir.Scene) -> list[str]:
    """Frames holding at least one collision solid (as amino's collision_frames)."""
    return [f.name for f in scene.frames
            if any(g.collision and not isinstance(g.shape, ir.Grid) for g in f.geometries)]

