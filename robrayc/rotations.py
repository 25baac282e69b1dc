"""Rotations: unit quaternions (x, y, z, w, scalar last as amino and Pinocchio), roll-pitch-
yaw angles, rotation matrices, and rotation vectors (axis * angle, rad), the configuration of
ball and floating joints. kinematics.py re-exports every function here (its users import
them from there).

Every rotation vector is a valid rotation and zero is the identity, so each component is a
scalar variable like any other joint's. MuJoCo's qpos quaternion is w, x, y, z: reorder when
crossing to MuJoCo. The pure-Python functions import nothing heavy; the batched ones import
numpy when called.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from robrayc.ir import Quat, Vec3

if TYPE_CHECKING:
    import numpy as np


def qmul(a: Quat, b: Quat) -> Quat:
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    )


def qconj(q: Quat) -> Quat:
    return (-q[0], -q[1], -q[2], q[3])


def qrotate(q: Quat, v: Vec3) -> Vec3:
    """Rotate v by unit quaternion q."""
    x, y, z, w = q
    # t = 2 * cross(q.xyz, v); v' = v + w t + cross(q.xyz, t)
    tx = 2.0 * (y * v[2] - z * v[1])
    ty = 2.0 * (z * v[0] - x * v[2])
    tz = 2.0 * (x * v[1] - y * v[0])
    return (
        v[0] + w * tx + (y * tz - z * ty),
        v[1] + w * ty + (z * tx - x * tz),
        v[2] + w * tz + (x * ty - y * tx),
    )


_EPSILON = 2.0 ** -52  # sys.float_info.epsilon


def qnorm(q: Quat) -> float:
    return math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])


def unit_quaternion(q: Quat) -> Quat | None:
    """The rotation a written quaternion means: kept as written when unit to rounding (so
    writers can spell any unit quaternion exactly), else divided by its norm; None if zero."""
    n = qnorm(q)
    if n == 0:
        return None
    if abs(n - 1.0) <= 4 * _EPSILON:
        return q
    return (q[0] / n, q[1] / n, q[2] / n, q[3] / n)


def qnormalize(q: Quat) -> Quat:
    n = qnorm(q)
    return (q[0] / n, q[1] / n, q[2] / n, q[3] / n)


def rpy_to_quat(roll: float, pitch: float, yaw: float) -> Quat:
    """R = Rz(yaw) Ry(pitch) Rx(roll), as URDF and amino."""
    cr, sr = math.cos(roll / 2), math.sin(roll / 2)
    cp, sp = math.cos(pitch / 2), math.sin(pitch / 2)
    cy, sy = math.cos(yaw / 2), math.sin(yaw / 2)
    return (
        sr * cp * cy - cr * sp * sy,
        cr * sp * cy + sr * cp * sy,
        cr * cp * sy - sr * sp * cy,
        cr * cp * cy + sr * sp * sy,
    )


def quat_to_rpy(q: Quat) -> Vec3:
    """(roll, pitch, yaw) with rpy_to_quat(...) the rotation q to within rounding (~1e-15
    rad), gimbal lock included: pitch by atan2 (asin loses half the digits near +-pi/2), yaw
    from the first column, then roll from what is left once yaw and pitch are undone, so
    that roll makes up for a yaw that is ill-defined near the lock."""
    x, y, z, w = q
    r00, r10 = 1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + w * z)
    pitch = math.atan2(2.0 * (w * y - z * x), math.hypot(r00, r10))
    yaw = math.atan2(r10, r00) if (r00 or r10) else 0.0
    # q_x = (q_z q_y)^-1 q: a rotation about x up to rounding
    sy, cy = math.sin(yaw / 2), math.cos(yaw / 2)
    sp, cp = math.sin(pitch / 2), math.cos(pitch / 2)
    zy = (-sy * sp, cy * sp, sy * cp, cy * cp)  # q_z(yaw) q_y(pitch)
    qx = qmul(qconj(zy), q)
    roll = 2.0 * math.atan2(qx[0], qx[3])
    if roll > math.pi:
        roll -= 2.0 * math.pi
    elif roll < -math.pi:
        roll += 2.0 * math.pi
    return (roll + 0.0, pitch + 0.0, yaw + 0.0)


def axis_angle_quat(axis: Vec3, angle: float) -> Quat:
    """amino's aa_tf_axang2quat2: the axis is used as given (unit expected)."""
    s = math.sin(angle / 2)
    return (s * axis[0], s * axis[1], s * axis[2], math.cos(angle / 2))


def quat_to_matrix(q: Quat) -> tuple[Vec3, Vec3, Vec3]:
    """Row-major 3x3 rotation matrix."""
    x, y, z, w = q
    return (
        (1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)),
        (2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)),
        (2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)),
    )


def matrix_to_quat(m) -> Quat:
    """Unit quaternion (x,y,z,w, w >= 0) from a row-major rotation matrix."""
    tr = m[0][0] + m[1][1] + m[2][2]
    if tr > 0:
        s = math.sqrt(tr + 1.0) * 2
        q = ((m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s, 0.25 * s)
    elif m[0][0] > m[1][1] and m[0][0] > m[2][2]:
        s = math.sqrt(1.0 + m[0][0] - m[1][1] - m[2][2]) * 2
        q = (0.25 * s, (m[0][1] + m[1][0]) / s, (m[0][2] + m[2][0]) / s, (m[2][1] - m[1][2]) / s)
    elif m[1][1] > m[2][2]:
        s = math.sqrt(1.0 + m[1][1] - m[0][0] - m[2][2]) * 2
        q = ((m[0][1] + m[1][0]) / s, 0.25 * s, (m[1][2] + m[2][1]) / s, (m[0][2] - m[2][0]) / s)
    else:
        s = math.sqrt(1.0 + m[2][2] - m[0][0] - m[1][1]) * 2
        q = ((m[0][2] + m[2][0]) / s, (m[1][2] + m[2][1]) / s, 0.25 * s, (m[1][0] - m[0][1]) / s)
    if q[3] < 0:
        q = (-q[0], -q[1], -q[2], -q[3])
    return qnormalize(q)


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
