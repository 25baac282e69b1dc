"""Reading mesh files (by suffix, each file once per run) and the triangles of a Mesh node
(cached per file, scale and conventions), with located errors."""

from __future__ import annotations

import os

from robrayc.diagnostics import CompileError, DiagnosticSink, SourcePos
from robrayc.ir import Mesh
from robrayc.meshes import dae, fallback, obj, stl
from robrayc.meshes.conversion import convert
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


def mesh_error_message(mesh: Mesh, exc: Exception) -> str:
    name = mesh.source or mesh.path
    where = f" ('{mesh.path}')" if mesh.source and mesh.source != mesh.path else ""
    return f"cannot read mesh '{name}'{where}: {exc}"


def bounds(data: MeshData):
    """(min corner, max corner) of the vertices, numpy arrays."""
    return data.vertices.min(axis=0), data.vertices.max(axis=0)
