"""Pure-Python rigid transforms (quaternion x,y,z,w + translation), no numpy.

Kept import-free so that compiling a scene to C stays within the start-up budget; the batched,
numpy-based kinematics live in ``robrayc.analysis.fk``. Conventions follow amino: a pose is
(q, v) mapping child coordinates to parent coordinates, p_parent = q * p_child * q^-1 + v.
"""

from __future__ import annotations

import math

from robrayc.ir import Frame, Quat, Vec3

Pose = tuple[Quat, Vec3]
IDENTITY: Pose = ((0.0, 0.0, 0.0, 1.0), (0.0, 0.0, 0.0))


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


def qnorm(q: Quat) -> float:
    return math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])


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
    x, y, z, w = q
    sinp = 2.0 * (w * y - z * x)
    pitch = math.copysign(math.pi / 2, sinp) if abs(sinp) >= 1 else math.asin(sinp)
    roll = math.atan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y))
    yaw = math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))
    return (roll, pitch, yaw)


def axis_angle_quat(axis: Vec3, angle: float) -> Quat:
    """amino's aa_tf_axang2quat2: the axis is used as given (unit expected)."""
    s = math.sin(angle / 2)
    return (s * axis[0], s * axis[1], s * axis[2], math.cos(angle / 2))


def compose(a: Pose, b: Pose) -> Pose:
    """a * b: apply b, then a."""
    qa, va = a
    qb, vb = b
    r = qrotate(qa, vb)
    return qmul(qa, qb), (va[0] + r[0], va[1] + r[1], va[2] + r[2])


def inverse(p: Pose) -> Pose:
    qi = qconj(p[0])
    v = qrotate(qi, p[1])
    return qi, (-v[0], -v[1], -v[2])


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


def local_pose(frame: Frame, value: float = 0.0) -> Pose:
    """The frame's pose in its parent at configuration `value` (amino's tf_rel)."""
    q, v = frame.quaternion, frame.translation
    if frame.kind == "revolute" and frame.axis is not None:
        return qmul(q, axis_angle_quat(frame.axis, value + frame.offset)), v
    if frame.kind == "prismatic" and frame.axis is not None:
        d = value + frame.offset
        r = qrotate(q, (frame.axis[0] * d, frame.axis[1] * d, frame.axis[2] * d))
        return q, (v[0] + r[0], v[1] + r[1], v[2] + r[2])
    return q, v


def absolute_poses(scene, config: dict[str, float] | None = None) -> dict[str, Pose]:
    """Every frame's pose in the root at `config` (variables not given are 0)."""
    config = config or {}
    out: dict[str, Pose] = {}
    for f in scene.frames:  # parents first
        rel = local_pose(f, config.get(f.variable or f.name, 0.0) if f.is_joint else 0.0)
        out[f.name] = compose(out[f.parent], rel) if f.parent is not None else rel
    return out
