"""Mesh axis conventions: the -U/-F axes of files that declare none, COLLADA's <up_axis>.

Light on purpose (no numpy at import): the command line checks -U/-F with it on every run."""

from __future__ import annotations

AXES = ("X", "Y", "Z")


def _axis_vector(text: str) -> tuple[int, float]:
    t = text.strip().upper()
    sign = -1.0 if t.startswith("-") else 1.0
    t = t.lstrip("+-")
    if t not in AXES:
        raise ValueError(f"'{text}' is not an axis (X, Y, Z, optionally signed: -Y)")
    return AXES.index(t), sign


def check_axes(up: str, forward: str) -> tuple[str, str]:
    """(up, forward) spelled canonically ("Y", "-Z"); ValueError when not two distinct axes."""
    iu, su = _axis_vector(up)
    i_f, sf = _axis_vector(forward)
    if iu == i_f:
        raise ValueError(f"mesh up axis '{up}' and forward axis '{forward}' are parallel")
    return ("-" if su < 0 else "") + AXES[iu], ("-" if sf < 0 else "") + AXES[i_f]


def axis_rotation(up: str = "Z", forward: str = "Y"):
    """Rotation (3x3, row-major numpy) taking a file's `up` axis to +Z and `forward` to +Y."""
    import numpy as np

    check_axes(up, forward)
    iu, su = _axis_vector(up)
    i_f, sf = _axis_vector(forward)
    u = np.zeros(3)
    u[iu] = su
    f = np.zeros(3)
    f[i_f] = sf
    return np.array([np.cross(f, u), f, u])  # rows: right, forward, up


def declared_rotation(up: str):
    """COLLADA's table of axes (spec 1.4, <up_axis>) expressed in a Z-up frame."""
    import numpy as np

    if up == "Y":  # right +X, up +Y, in +Z  ->  (x, -z, y)
        return np.array([[1.0, 0, 0], [0, 0, -1.0], [0, 1.0, 0]])
    if up == "X":  # right -Y, up +X, in +Z  ->  (-y, -z, x)
        return np.array([[0, -1.0, 0], [0, 0, -1.0], [1.0, 0, 0]])
    return np.eye(3)
