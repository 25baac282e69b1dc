"""Run-time obstacles: shapes given to a built checker (``CollisionChecker.set_obstacles``,
``attach``) without rebuilding it, and what each is as the checker's solids.

A shape's pose is its centre and rotation (3x3, None: identity; its columns are the shape's
axes in the world, or in the frame it is attached to). Cylinders and capsules lie along their
local z: a cylinder from -half_length to +half_length, a capsule the points within radius of
the segment between those two ends. A point cloud is a sphere of ``radius`` at each point (one
radius, or one a point: a mesh given as its sphere cover).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from robrayc.analysis.collision.solids import BOX, CYLINDER, SPHERE
from robrayc.records import field, record

# How far a rotation may be from orthonormal (largest entry of R^T R - I) before it is
# refused; within it, the nearest rotation is used (by both backends alike).
ROTATION_TOL = 1e-6


@record(frozen=True)
class Box:
    """A box: half extents along its own axes."""

    centre: Sequence[float]
    half_extents: Sequence[float]
    rotation: object = None


@record(frozen=True)
class Sphere:
    centre: Sequence[float]
    radius: float


@record(frozen=True)
class Cylinder:
    """A cylinder along its local z, from -half_length to +half_length."""

    centre: Sequence[float]
    radius: float
    half_length: float
    rotation: object = None


@record(frozen=True)
class Capsule:
    """A capsule: the points within radius of the segment from -half_length to +half_length
    along its local z."""

    centre: Sequence[float]
    radius: float
    half_length: float
    rotation: object = None


@record(frozen=True)
class PointCloud:
    """A sphere of ``radius`` (a number, or an (n,) array: one a point) at each row of
    ``points`` ((n, 3))."""

    points: np.ndarray = field(compare=False)
    radius: float | np.ndarray = field(default=0.0, compare=False)


Shape = Box | Sphere | Cylinder | Capsule | PointCloud
SHAPES = (Box, Sphere, Cylinder, Capsule, PointCloud)

# the C kernel's obstacle kinds (robrayc/c/obstacles.c, NAME.h's NAME_SPHERE ...)
C_SPHERE, C_BOX, C_CYLINDER, C_CAPSULE = range(4)


def _lengths(values, what: str, index: np.ndarray) -> None:
    bad = ~(np.isfinite(values) & (values >= 0.0))
    if bad.any():
        k = int(np.argwhere(bad)[0][0])
        raise ValueError(f"obstacle {int(index[k])}: {what} must be finite numbers >= 0, got "
                         f"{values[k].tolist()}")


def _array(rows: list, shape: tuple, what: str, index: np.ndarray) -> np.ndarray:
    """rows as one float array of (len(rows), *shape), finite, else ValueError naming the
    obstacle."""
    try:
        out = np.array(rows, dtype=float).reshape(len(rows), *shape)
    except (TypeError, ValueError):
        for k, row in enumerate(rows):  # which one
            try:
                np.array(row, dtype=float).reshape(shape)
            except (TypeError, ValueError):
                raise ValueError(f"obstacle {int(index[k])}: {what} must be "
                                 f"{' x '.join(map(str, shape))} numbers, got {row!r}") from None
        raise
    bad = ~np.isfinite(out.reshape(len(rows), int(np.prod(shape)))).all(axis=1)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"obstacle {int(index[k])}: {what} must be finite, got {rows[k]!r}")
    return out


def _rotations(rows: list, index: np.ndarray) -> np.ndarray:
    """(n, 3, 3): each shape's rotation (None: identity), the nearest rotation to what is
    given, which must be within ROTATION_TOL of one."""
    eye = np.eye(3)
    r = _array([eye if x is None else x for x in rows], (3, 3), "rotation", index)
    off = np.abs(np.einsum("nji,njk->nik", r, r) - eye).max(axis=(1, 2), initial=0.0)
    bad = (off > ROTATION_TOL) | (np.linalg.det(r) <= 0) if len(r) else off > 0
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"obstacle {int(index[k])}: rotation must be a rotation matrix "
                         "(orthonormal, determinant +1)")
    fix = off > 1e-15
    if fix.any():
        u, _, vt = np.linalg.svd(r[fix])
        r[fix] = u @ vt
    return r


@record(frozen=True)
class Packed:
    """Validated shapes as arrays: the C kernel's kind (C_SPHERE ..), rotation (n, 3, 3),
    centre (n, 3) and size (n, 3: a sphere's radius; a box's half extents; a cylinder's or
    capsule's radius and half length) of each shape but point clouds, their places in the list
    given (index), and the point clouds as (points (m, 3), radii (m,), place)."""

    kind: np.ndarray
    rotation: np.ndarray
    centre: np.ndarray
    size: np.ndarray
    index: np.ndarray
    clouds: list

    def __len__(self) -> int:
        return len(self.kind) + len(self.clouds)


_KIND = {Sphere: C_SPHERE, Box: C_BOX, Cylinder: C_CYLINDER, Capsule: C_CAPSULE}


def _size(s):
    if isinstance(s, Box):
        return s.half_extents
    if isinstance(s, Sphere):
        return (s.radius, 0.0, 0.0)
    return (s.radius, s.half_length, 0.0)


def pack(shapes) -> Packed:
    """The shapes validated, as arrays (ValueError or TypeError for what is not one)."""
    if isinstance(shapes, SHAPES) or isinstance(shapes, (str, bytes)):
        raise TypeError("give a list of shapes (set_obstacles([shape]))")
    shapes = list(shapes)
    solid, clouds = [], []
    for k, s in enumerate(shapes):
        if isinstance(s, PointCloud):
            clouds.append((*cloud_points(s, k), k))
        elif type(s) in _KIND:
            solid.append(k)
        else:
            raise TypeError(f"obstacle {k}: not an obstacle shape: {type(s).__name__} (use Box, "
                            "Sphere, Cylinder, Capsule or PointCloud)")
    index = np.array(solid, dtype=np.int64)
    items = [shapes[k] for k in solid]
    centre = _array([s.centre for s in items], (3,), "centre", index)
    size = _array([_size(s) for s in items], (3,), "size", index)
    _lengths(size, "sizes", index)
    rotation = _rotations([getattr(s, "rotation", None) for s in items], index)
    kind = np.array([_KIND[type(s)] for s in items], dtype=np.int32)
    return Packed(kind, rotation, centre, size, index, clouds)


def primitives(kind: int, rotation: np.ndarray, centre: np.ndarray, size: np.ndarray
               ) -> list[tuple[int, tuple[float, float, float], np.ndarray]]:
    """One packed shape as exact solids: (kind, params, 4x4 pose) each, in the solids'
    conventions (solids.py). A capsule is its cylinder and its two end spheres (their union
    is the capsule)."""
    m = np.eye(4)
    m[:3, :3], m[:3, 3] = rotation, centre
    r, h = float(size[0]), float(size[1])
    if kind == C_BOX:
        return [(BOX, tuple(float(x) for x in size), m)]
    if kind == C_SPHERE:
        return [(SPHERE, (r, r, r), m)]
    out = [(CYLINDER, (r, r, h), m)] if h > 0 or kind == C_CYLINDER else []
    if kind == C_CAPSULE:
        for sign in (1.0, -1.0):
            end = m.copy()
            end[:3, 3] = centre + sign * h * rotation[:, 2]
            out.append((SPHERE, (r, r, r), end))
    return out


def cloud_points(cloud: PointCloud, k: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(n, 3) finite points of a cloud and their (n,) radii (validated)."""
    try:
        p = np.array(cloud.points, dtype=float)
        r = np.array(cloud.radius, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"obstacle {k}: PointCloud points must be an (n, 3) array of "
                         "numbers and radius a number or an (n,) array") from None
    if p.size == 0:
        p = np.zeros((0, 3))
    if p.ndim != 2 or p.shape[1] != 3 or not np.isfinite(p).all():
        raise ValueError(f"obstacle {k}: PointCloud points must be an (n, 3) array of finite "
                         f"numbers, got shape {p.shape}")
    if r.ndim == 0:
        r = np.full(len(p), float(r))
    if r.shape != (len(p),):
        raise ValueError(f"obstacle {k}: PointCloud radius must be a number or one a point "
                         f"({len(p)}), got shape {r.shape}")
    _lengths(r, "PointCloud radii", np.full(len(r), k))
    return p, r
