"""Reading mesh files (by suffix, each file once per run) and the triangles of a Mesh node
(cached per file, scale and conventions), with located errors."""

from __future__ import annotations

import os

from robrayc.diagnostics import CompileError, DiagnosticSink, SourcePos
from robrayc.ir import Mesh
from robrayc.meshes import dae, fallback, obj, stl
from robrayc.meshes.conversion import convert, file_rotation
from robrayc.meshes.model import MeshData, MeshError, RawMesh

_RAW: dict[str, RawMesh] = {}
_DONE: dict[tuple, MeshData] = {}


def read_raw(path: str) -> RawMesh:
    """The file's triangles as stored (cached by real path for this process)."""
    real = os.path.realpath(path)
    hit = _RAW.get(real)
    if hit is not None:
        return hit
    suffix = os.path.splitext(path)[1].lower()
    try:
        if suffix in (".stl", ".dae", ".obj"):
            with open(path, "rb") as fh:
                data = fh.read()
        if suffix == ".stl":
            raw = stl.read_stl(data)
        elif suffix == ".obj":
            raw = obj.read_obj(data)
        elif suffix == ".dae":
            try:
                raw = dae.read_dae(data)
            except dae.Unsupported:
                raw = fallback.read_trimesh(path, dae.declared_up(data))
        else:
            raw = fallback.read_trimesh(path, "Y" if suffix in (".glb", ".gltf") else None)
    except MeshError:
        raise
    except OSError as exc:
        raise MeshError(exc.strerror or str(exc)) from None
    except Exception as exc:  # trimesh and lxml raise many types for unreadable files
        raise MeshError(f"{type(exc).__name__}: {exc}") from None
    _RAW[real] = raw
    return raw


def mesh_data(mesh: Mesh) -> MeshData:
    """Triangles of a mesh shape in its frame, with the conventions its node holds (cached per
    file, scale and conventions); raises MeshError or ValueError."""
    key = (os.path.realpath(mesh.path), tuple(mesh.scale3), mesh.up, mesh.forward,
           mesh.collada_up)
    hit = _DONE.get(key)
    if hit is None:
        hit = _DONE[key] = convert(read_raw(mesh.path), mesh.scale3, mesh.up, mesh.forward,
                                   mesh.collada_up)
    return hit


def load_mesh(mesh: Mesh, sink: DiagnosticSink, pos: SourcePos) -> MeshData:
    """mesh_data, with errors naming the file and the scene position that asked for it
    (then CompileError)."""
    try:
        return mesh_data(mesh)
    except (MeshError, ValueError) as exc:
        sink.error(mesh_error_message(mesh, exc), pos)
        raise CompileError(sink.items) from None


# files that can declare axes or units (the others take -U/-F as they are, unread)
_DECLARING = (".dae", ".glb", ".gltf")


def placement(mesh: Mesh, *, declared: bool = True):
    """(rotation R, per-axis scale s), numpy: the mesh in its frame is R @ (s * p) for each
    point p as the file stores it. For formats that reference a mesh file instead of holding
    its triangles. declared=False leaves what a file declares (a COLLADA <up_axis> and
    <unit>) to the reader, as URDF readers that follow the COLLADA spec apply it. Reads only
    files that can declare axes or units; raises MeshError or ValueError."""
    import numpy as np

    rot, unit = None, 1.0
    if os.path.splitext(mesh.path)[1].lower() in _DECLARING:
        raw = read_raw(mesh.path)
        if raw.up is not None:
            rot = file_rotation(raw.up, mesh.up, mesh.forward, mesh.collada_up) if declared \
                else np.eye(3)
        unit = raw.unit if declared else 1.0
    if rot is None:
        rot = file_rotation(None, mesh.up, mesh.forward)
    # S R = R (R^T S R), and R^T S R is diagonal: R permutes axes (with signs)
    scale = unit * np.diag(rot.T @ np.diag(np.asarray(mesh.scale3, dtype=float)) @ rot)
    return rot, scale


def load_placement(mesh: Mesh, sink: DiagnosticSink, pos: SourcePos, *, declared: bool = True):
    """placement, with errors naming the file and the scene position (then CompileError)."""
    try:
        return placement(mesh, declared=declared)
    except (MeshError, ValueError) as exc:
        sink.error(mesh_error_message(mesh, exc), pos)
        raise CompileError(sink.items) from None


def mesh_error_message(mesh: Mesh, exc: Exception) -> str:
    name = mesh.source or mesh.path
    where = f" ('{mesh.path}')" if mesh.source and mesh.source != mesh.path else ""
    return f"cannot read mesh '{name}'{where}: {exc}"


def bounds(data: MeshData):
    """(min corner, max corner) of the vertices, numpy arrays."""
    return data.vertices.min(axis=0), data.vertices.max(axis=0)
