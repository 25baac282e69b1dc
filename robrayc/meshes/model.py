"""Mesh data types shared by the readers and the conversion, and number parsing."""

from __future__ import annotations

import warnings

from robrayc.records import record


class MeshError(Exception):
    """A mesh file cannot be read or holds no triangles (message names the problem)."""


@record(frozen=True)
class MeshData:
    vertices: object  # (n, 3) float64 numpy array: axes, unit and scale3 applied
    normals: object  # (n, 3) float64 unit per-vertex normals
    faces: object  # (m, 3) int64 indices into vertices


@record(frozen=True)
class RawMesh:
    """Triangles as a file stores them: corners index positions and (optionally) normals."""

    positions: object  # (p, 3) float64
    corner_pos: object  # (3t,) int64
    normals: object | None  # (q, 3) float64
    corner_nrm: object | None  # (3t,) int64
    up: str | None  # declared up axis ("X", "Y", "Z") or None
    unit: float  # metres per file unit


def numbers(text: str | bytes | None, dtype, what: str):
    import numpy as np

    if text is None:
        return np.zeros(0, dtype=dtype)
    if isinstance(text, bytes):
        text = text.decode("ascii", "replace")
    if not text.strip():
        return np.zeros(0, dtype=dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy warns (then truncates) on a malformed number
        try:
            return np.fromstring(text, dtype=dtype, sep=" ")
        except (ValueError, DeprecationWarning):
            raise MeshError(f"malformed numbers in {what}") from None


def check_indices(idx, n: int, what: str) -> None:
    if len(idx) and (idx.min() < 0 or idx.max() >= n):
        raise MeshError(f"{what} index out of range (the file has {n} {what}s)")


def face_normals(tri):
    import numpy as np

    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    length = np.linalg.norm(n, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        n = n / length[:, None]
    n[length == 0] = 0.0  # degenerate triangle: no direction
    return n


def closed_surface(faces, verts) -> bool:
    """Whether triangles form a closed surface with consistent winding: every directed edge
    (between exactly equal vertex positions) has exactly one reverse twin. Triangles with two
    equal corners are left out (their own two edges are each other's twins; no area)."""
    import numpy as np

    v = np.asarray(verts, dtype=np.float64)
    order = np.lexsort(v.T[::-1])  # equal positions (0.0 == -0.0) become neighbours
    s = v[order]
    ids = np.empty(len(v), dtype=np.int64)
    ids[order] = np.cumsum(np.r_[False, (s[1:] != s[:-1]).any(axis=1)])
    f = ids[np.asarray(faces)]
    f = f[(f[:, 0] != f[:, 1]) & (f[:, 1] != f[:, 2]) & (f[:, 0] != f[:, 2])]
    if len(f) == 0:
        return False
    n = int(f.max()) + 1
    tail, head = f.ravel(), f[:, [1, 2, 0]].ravel()
    keys = np.sort(tail * n + head)
    if (keys[1:] == keys[:-1]).any():  # a directed edge used twice
        return False
    twins = head * n + tail
    at = np.minimum(np.searchsorted(keys, twins), len(keys) - 1)
    return bool((keys[at] == twins).all())
