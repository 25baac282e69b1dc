"""Run-time obstacles: shapes given to a built checker (``CollisionChecker.set_obstacles``,
``attach``) without rebuilding it, and what each is as the checker's solids.

A shape's pose is its centre and rotation (3x3, None: identity; its columns are the shape's
axes in the world, or in the frame it is attached to). Cylinders and capsules lie along their
local z: a cylinder from -half_length to +half_length, a capsule the points within radius of
the segment between those two ends. A point cloud is a sphere of ``radius`` at each point.
"""

from __future__ import annotations

import math
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
    """A sphere of ``radius`` at each row of ``points`` ((n, 3))."""

    points: np.ndarray = field(compare=False)
    radius: float = 0.0


Shape = Box | Sphere | Cylinder | Capsule | PointCloud
SHAPES = (Box, Sphere, Cylinder, Capsule, PointCloud)

# the C kernel's obstacle kinds (robrayc/c/obstacles.c, NAME.h's NAME_SPHERE ...)
C_SPHERE, C_BOX, C_CYLINDER, C_CAPSULE = range(4)


def _vector(value, what: str, n: int = 3) -> np.ndarray:
    try:
        v = np.array(value, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be {n} numbers, got {value!r}") from None
    if v.shape != (n,) or not np.isfinite(v).all():
        raise ValueError(f"{what} must be {n} finite numbers, got {value!r}")
    return v


def _length(value, what: str) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a number, got {value!r}") from None
    if not (math.isfinite(x) and x >= 0.0):
        raise ValueError(f"{what} must be a finite number >= 0, got {value!r}")
    return x


def rotation_matrix(rotation) -> np.ndarray:
    """The 3x3 rotation of a shape (None: identity): the nearest rotation to what is given,
    which must be within ROTATION_TOL of one."""
    if rotation is None:
        return np.eye(3)
    try:
        r = np.array(rotation, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"rotation must be a 3x3 matrix, got {rotation!r}") from None
    if r.shape != (3, 3) or not np.isfinite(r).all():
        raise ValueError(f"rotation must be a 3x3 matrix of finite numbers, got {rotation!r}")
    if np.abs(r.T @ r - np.eye(3)).max() > ROTATION_TOL or np.linalg.det(r) <= 0:
        raise ValueError("rotation must be a rotation matrix (orthonormal, determinant +1)")
    u, _, vt = np.linalg.svd(r)
    return u @ vt


def pose(centre, rotation=None) -> np.ndarray:
    """4x4 pose of a shape."""
    m = np.eye(4)
    m[:3, :3] = rotation_matrix(rotation)
    m[:3, 3] = _vector(centre, "centre")
    return m


def primitives(shape) -> list[tuple[int, tuple[float, float, float], np.ndarray]]:
    """A shape (not a point cloud) as exact solids: (kind, params, 4x4 pose) each, in the
    solids' conventions (solids.py). A capsule is its cylinder and its two end spheres (their
    union is the capsule)."""
    if isinstance(shape, Box):
        h = _vector(shape.half_extents, "half_extents")
        if (h < 0).any():
            raise ValueError(f"half_extents must be >= 0, got {shape.half_extents!r}")
        return [(BOX, tuple(h.tolist()), pose(shape.centre, shape.rotation))]
    if isinstance(shape, Sphere):
        r = _length(shape.radius, "radius")
        return [(SPHERE, (r, r, r), pose(shape.centre))]
    if isinstance(shape, (Cylinder, Capsule)):
        r = _length(shape.radius, "radius")
        h = _length(shape.half_length, "half_length")
        m = pose(shape.centre, shape.rotation)
        out = [(CYLINDER, (r, r, h), m)] if h > 0 or isinstance(shape, Cylinder) else []
        if isinstance(shape, Capsule):
            for sign in (1.0, -1.0):
                end = m.copy()
                end[:3, 3] = m[:3, 3] + sign * h * m[:3, 2]
                out.append((SPHERE, (r, r, r), end))
        return out
    raise TypeError(f"not an obstacle shape: {type(shape).__name__} (use Box, Sphere, "
                    "Cylinder, Capsule or PointCloud)")


def cloud_points(cloud: PointCloud) -> np.ndarray:
    """(n, 3) finite points of a cloud (validated)."""
    try:
        p = np.array(cloud.points, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("PointCloud points must be an (n, 3) array of numbers") from None
    if p.size == 0:
        return np.zeros((0, 3))
    if p.ndim != 2 or p.shape[1] != 3 or not np.isfinite(p).all():
        raise ValueError(f"PointCloud points must be an (n, 3) array of finite numbers, got "
                         f"shape {p.shape}")
    _length(cloud.radius, "PointCloud radius")
    return p


def c_record(shape) -> tuple[int, list[float], list[float]]:
    """A shape (not a point cloud) as the C kernel's obstacle: kind, pose (rotation
    row-major, translation), size (sphere: radius; box: half extents; cylinder, capsule:
    radius, half length)."""
    if isinstance(shape, Box):
        (_, h, m), = primitives(shape)
        kind, size = C_BOX, list(h)
    elif isinstance(shape, Sphere):
        (_, (r, _, _), m), = primitives(shape)
        kind, size = C_SPHERE, [r, 0.0, 0.0]
    else:
        primitives(shape)  # validates
        m = pose(shape.centre, shape.rotation)
        kind = C_CYLINDER if isinstance(shape, Cylinder) else C_CAPSULE
        size = [float(shape.radius), float(shape.half_length), 0.0]
    return kind, [*m[:3, :3].ravel().tolist(), *m[:3, 3].tolist()], size


def validate(shapes) -> list:
    """The shapes as a list, each checked (ValueError, TypeError for what is not one)."""
    if isinstance(shapes, SHAPES):
        raise TypeError("give a list of shapes (set_obstacles([shape]))")
    out = list(shapes)
    for s in out:
        if isinstance(s, PointCloud):
            cloud_points(s)
        else:
            primitives(s)
    return out
