"""RawMesh -> MeshData: axes, unit and per-axis scale applied; one vertex per distinct
(position, normal) pair in order of first use (as amino's mesh-deindex-normals)."""

from __future__ import annotations

from robrayc.meshes.axes import axis_rotation, declared_rotation
from robrayc.meshes.model import MeshData, MeshError, RawMesh, face_normals


def _unique_rows(a):
    """(unique rows in first-use order, inverse) comparing float values exactly."""
    import numpy as np

    a = np.ascontiguousarray(a + 0.0)  # +0.0 folds -0.0 into 0.0
    view = a.view(np.dtype((np.void, a.dtype.itemsize * a.shape[1]))).reshape(-1)
    first, inverse = _first_use(view)
    return a[first], inverse


def _first_use(keys):
    """(index of each distinct key's first occurrence, in that order; inverse into it)."""
    import numpy as np

    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return first[order], rank[inverse.reshape(-1)]


def _shading_precision(normals):
    """Unit normals rounded to 6 decimals: they only shade, and short numbers keep the C
    small and fast to write (a normal's direction moves by at most 1e-6)."""
    import numpy as np

    return np.round(normals, 6) + 0.0


def file_rotation(declared: str | None, up: str = "Z", forward: str = "Y",
                  collada_up: str = "honour"):
    """The rotation (3x3 numpy) a file's coordinates get: from its declared up axis (unless
    ignored), else from -U/-F."""
    import numpy as np

    if declared is None:
        return axis_rotation(up, forward)
    return np.eye(3) if collada_up == "ignore" else declared_rotation(declared)


def convert(raw: RawMesh, scale3=(1.0, 1.0, 1.0), up: str = "Z", forward: str = "Y",
            collada_up: str = "honour") -> MeshData:
    """Apply axes, unit and per-axis scale; index unique (position, normal) pairs."""
    import numpy as np

    if len(raw.corner_pos) == 0:
        raise MeshError("no triangles")
    rot = file_rotation(raw.up, up, forward, collada_up)
    scale = np.asarray(scale3, dtype=np.float64)
    lin = (scale[:, None] * rot) * raw.unit  # v' = S R (unit v)
    positions, pos_inv = _unique_rows(raw.positions)
    cp = pos_inv[raw.corner_pos]
    positions = positions @ lin.T
    if raw.normals is not None:
        normals, n_inv = _unique_rows(raw.normals)
        cn = n_inv[raw.corner_nrm]
        with np.errstate(divide="ignore", invalid="ignore"):
            normals = normals @ (rot / scale[:, None]).T  # inverse transpose of S R
            length = np.linalg.norm(normals, axis=1)
            normals = np.where(length[:, None] > 0, normals / length[:, None], 0.0)
        normals = _shading_precision(normals)
    else:
        normals, n_inv = _unique_rows(
            _shading_precision(face_normals(positions[cp].reshape(-1, 3, 3))))
        cn = np.repeat(n_inv, 3)
    key = cp * len(normals) + cn
    first, corner_vertex = _first_use(key)
    vertex_of = key[first]
    vertices = positions[vertex_of // len(normals)]
    vnormals = normals[vertex_of % len(normals)]
    if not np.all(np.isfinite(vertices)):
        raise MeshError("vertex coordinates are not finite")
    return MeshData(vertices, vnormals, corner_vertex.reshape(-1, 3).astype(np.int64))
