"""Checks simulators make of an inertia tensor, for the physics formats (MJCF, SDF).

MuJoCo and libsdformat refuse a tensor whose principal moments are negative or break the
triangle inequality (A + B >= C); corpus robots have such tensors (Fetch's gripper fingers,
PR2's sensor mounts). The backends then write the tensor MuJoCo's `balanceinertia` makes of
it, all three moments set to their mean, and say so."""

from __future__ import annotations

from robrayc import ir

# relative slack, tighter than libsdformat's (10 machine epsilons of the largest moment)
TOLERANCE = 1e-15


def principal_moments(inertial: ir.Inertial) -> tuple[float, float, float]:
    import numpy as np

    a, b, c = np.linalg.eigvalsh(np.asarray(inertial.inertia, dtype=np.float64).reshape(3, 3))
    return float(a), float(b), float(c)


def is_physical(inertial: ir.Inertial) -> bool:
    """Whether simulators accept the tensor: moments >= 0 and A + B >= C."""
    a, b, c = principal_moments(inertial)
    slack = TOLERANCE * max(abs(c), abs(a))
    return a >= -slack and a + b >= c - slack


def balanced(inertial: ir.Inertial) -> tuple[float, ...]:
    """The tensor with every principal moment replaced by their mean (MuJoCo's
    balanceinertia), column-major 9 values."""
    i = inertial.inertia
    mean = (i[0] + i[4] + i[8]) / 3
    return (mean, 0.0, 0.0, 0.0, mean, 0.0, 0.0, 0.0, mean)


def warning_text(frame: ir.Frame, fmt: str) -> str:
    moments = " ".join(f"{m:.6g}" for m in principal_moments(frame.inertial))
    return (f"inertia of frame '{frame.name}' (principal moments {moments}) is not physical "
            f"(A + B >= C); {fmt} refuses it: written with each moment the mean of the three, "
            "as MuJoCo's balanceinertia")
