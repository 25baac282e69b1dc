"""Mesh files -> triangle arrays (trimesh), cached per file per run.

Shared by the backends and analyses that need triangles (C embedding, collision, projection).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from robrayc.diagnostics import CompileError, DiagnosticSink, SourcePos
from robrayc.ir import Mesh


@dataclass(frozen=True)
class MeshData:
    vertices: object  # (n, 3) float64 numpy array, scale3 applied
    normals: object  # (n, 3) per-vertex normals
    faces: object  # (m, 3) int


@lru_cache(maxsize=None)
def _load(path: str):
    import trimesh

    return trimesh.load(path, force="mesh", process=False)


def load_mesh(mesh: Mesh, sink: DiagnosticSink, pos: SourcePos) -> MeshData:
    """Triangles of a mesh file with its per-axis scale applied; errors name the file."""
    import numpy as np

    try:
        tm = _load(mesh.path)
    except Exception as exc:  # trimesh raises many types for unreadable files
        sink.error(f"cannot read mesh '{mesh.source or mesh.path}': {exc}", pos)
        raise CompileError(sink.items) from None
    if len(tm.faces) == 0:
        sink.error(f"mesh '{mesh.source or mesh.path}' has no triangles", pos)
        raise CompileError(sink.items)
    vertices = np.asarray(tm.vertices, dtype=float) * np.asarray(mesh.scale3, dtype=float)
    faces = np.asarray(tm.faces, dtype=np.int64)
    normals = np.asarray(tm.vertex_normals, dtype=float)
    if any(s < 0 for s in mesh.scale3):
        normals = normals * np.sign(mesh.scale3)
    return MeshData(vertices, normals, faces)
