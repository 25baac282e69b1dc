"""Rotation vectors (axis * angle, rad): the configuration of ball and floating joints.

Every rotation vector is a valid rotation and zero is the identity, so each component is a
scalar variable like any other joint's. Quaternions are x, y, z, w (scalar last, as amino and
Pinocchio); MuJoCo's qpos quaternion is w, x, y, z: reorder when crossing to MuJoCo.
The pure-Python functions import nothing heavy; the batched one imports numpy when called.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from robrayc.ir import Quat, Vec3


def _half_sinc(angle: float) -> float:
    """sin(angle / 2) / angle, exact near 0 (where the quotient loses digits)."""
    if abs(angle) < 1e-4:  # Taylor: 1/2 - a^2/48 + a^4/3840; the next term is < 1e-22
        a2 = angle * angle
        return 0.5 - a2 / 48.0 + a2 * a2 / 3840.0
    return math.sin(angle / 2.0) / angle


def rotvec_to_quat(r: Vec3) -> Quat:
    """The unit quaternion (x, y, z, w) of rotation vector r: exp(r), w >= 0 for |r| <= pi."""
    angle = math.sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2])
    k = _half_sinc(angle)
    return (k * r[0], k * r[1], k * r[2], math.cos(angle / 2.0))


def quat_to_rotvec(q: Quat) -> Vec3:
    """The rotation vector of quaternion q (x, y, z, w; normalised here), angle in [0, pi]:
    q and -q give the same vector."""
    x, y, z, w = q
    n = math.sqrt(x * x + y * y + z * z + w * w)
    if n == 0.0:
        raise ValueError("zero quaternion")
    if w < 0.0:
        n = -n
    x, y, z, w = x / n, y / n, z / n, w / n
    s = math.sqrt(x * x + y * y + z * z)
    if s == 0.0:
        return (0.0, 0.0, 0.0)
    factor = 2.0 * math.atan2(s, w) / s  # atan2 keeps every digit of small angles
    return (factor * x + 0.0, factor * y + 0.0, factor * z + 0.0)


def rotvec_matrices(r: np.ndarray) -> np.ndarray:
    """Batched (N, 4, 4) homogeneous rotations exp(r) of rotation vectors r (N, 3)."""
    import numpy as np

    r = np.asarray(r, dtype=float).reshape(-1, 3)
    angle = np.sqrt((r * r).sum(axis=1))
    k = 0.5 * np.sinc(angle / (2.0 * np.pi))  # sin(angle/2)/angle, exact at 0
    return quat_matrices(k * r[:, 0], k * r[:, 1], k * r[:, 2], np.cos(angle / 2.0))


def quat_matrices(x: np.ndarray, y: np.ndarray, z: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Batched (N, 4, 4) homogeneous rotations of unit quaternions given by components."""
    import numpy as np

    out = np.zeros((x.shape[0], 4, 4))
    out[:, 0, 0] = 1 - 2 * (y * y + z * z)
    out[:, 0, 1] = 2 * (x * y - z * w)
    out[:, 0, 2] = 2 * (x * z + y * w)
    out[:, 1, 0] = 2 * (x * y + z * w)
    out[:, 1, 1] = 1 - 2 * (x * x + z * z)
    out[:, 1, 2] = 2 * (y * z - x * w)
    out[:, 2, 0] = 2 * (x * z - y * w)
    out[:, 2, 1] = 2 * (y * z + x * w)
    out[:, 2, 2] = 1 - 2 * (x * x + y * y)
    out[:, 3, 3] = 1
    return out
