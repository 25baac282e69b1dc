"""Every other format (PLY, GLB/glTF, OFF, ...) through trimesh, imported only then (its
import alone costs ~0.6 s)."""

from __future__ import annotations

from robrayc.meshes.model import MeshError, RawMesh


def read_trimesh(path: str, declared_up: str | None) -> RawMesh:
    import logging

    import numpy as np

    logging.getLogger("trimesh").setLevel(logging.ERROR)
    import trimesh

    tm = trimesh.load(path, force="mesh", process=False)
    if not hasattr(tm, "faces"):
        raise MeshError("no triangles")
    faces = np.asarray(tm.faces, dtype=np.int64).reshape(-1)
    pos = np.asarray(tm.vertices, dtype=np.float64)
    nrm = np.asarray(tm.vertex_normals, dtype=np.float64) if len(faces) else None
    return RawMesh(pos, faces, nrm, faces if nrm is not None else None, declared_up, 1.0)
