"""Validation and normalisation of frame poses, shared by every loader (robray, URDF, JSON,
cs2 board): one tolerance, one unit-quaternion rule, one axis rule, one wording.

Loaders pass callbacks that report a message (and an optional hint) at their own location
(a source position, a JSON path), so each problem is located where the input said it.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from robrayc import ir
from robrayc.kinematics import qnorm, unit_quaternion

# A quaternion or revolute axis whose norm is further from 1 than this is normalised with a
# warning; closer, it is normalised silently (a written value rounded to a few digits).
UNIT_TOLERANCE = 1e-6

# report(message, hint=None) at the loader's location; every warning here is -Wunnormalized
Report = Callable[..., object]


def stable_unit_quaternion(q: ir.Quat) -> ir.Quat:
    """A unit quaternion that division by its norm leaves bit-for-bit unchanged (for values
    computed from angles, e.g. URDF rpy, so every writer and reader keeps them exactly).

    Repeated normalisation reaches such a fixed point almost always; the rare 2-cycle is broken
    by nudging the largest component one ulp at a time until |q| rounds to exactly 1.
    """
    q = tuple(c + 0.0 for c in q)  # -0.0 -> 0.0
    for _ in range(6):
        n = qnorm(q)
        if n == 0:
            return ir.IDENTITY_Q
        nq = tuple(c / n for c in q)
        if nq == q:
            return q
        q = nq
    big = max(range(4), key=lambda i: abs(q[i]))
    for k in range(1, 64):
        for direction in (math.inf, -math.inf):
            c = q[big]
            for _ in range(k):
                c = math.nextafter(c, direction)
            cand = q[:big] + (c,) + q[big + 1:]
            if qnorm(cand) == 1.0:
                return cand
    return q


def checked_quaternion(q: ir.Quat, error: Report, warning: Report) -> ir.Quat | None:
    """The unit quaternion of a written one; a zero quaternion is an error (None)."""
    unit = unit_quaternion(q)
    if unit is None:
        error("quaternion is zero", "the identity is [0, 0, 0, 1]")
        return None
    n = qnorm(q)
    if abs(n - 1) > UNIT_TOLERANCE:
        warning(f"quaternion has norm {n!r}; normalised",
                "quaternions are [x, y, z, w], scalar last")
    return unit


def checked_axis(axis: ir.Vec3, what: str, error: Report, warning: Report, *,
                 normalise: bool, exact: bool = False) -> ir.Vec3 | None:
    """A joint axis: zero is an error (None); with `normalise` (revolute joints, whose axis
    amino turns into a quaternion as given, and every URDF joint) a non-unit axis is divided
    by its length. A length within UNIT_TOLERANCE of 1 is kept as written (as amino and the
    original compiler read it), unless `exact`: formats whose readers make every axis unit
    (libsdformat, MuJoCo, Pinocchio: 0.573576 0 0.819152, 2.9e-7 short of unit, moved a
    shadow hand's links 1e-6 m off MuJoCo's) divide it too, silently. `what` names
    the joint in messages ("revolute frame 'a'")."""
    n = math.sqrt(sum(c * c for c in axis))
    if n == 0:
        error(f"axis of {what} is zero", None)
        return None
    if normalise and abs(n - 1) > UNIT_TOLERANCE:
        warning(f"axis of {what} has length {n!r}; normalised", None)
        return (axis[0] / n + 0.0, axis[1] / n + 0.0, axis[2] / n + 0.0)
    if exact and n != 1.0:
        return (axis[0] / n + 0.0, axis[1] / n + 0.0, axis[2] / n + 0.0)
    return axis
