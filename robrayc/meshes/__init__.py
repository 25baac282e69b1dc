"""Mesh files -> indexed triangles with per-vertex normals, cached per file per run.

Shared by every backend and analysis that needs triangles (C embedding, collision, projection)
and by the URDF front end (bounding boxes for ``--missing-mesh=bbox``).

Readers: binary/ASCII STL, COLLADA and Wavefront OBJ are read here with lxml and numpy (the
formats of every public robot package we know; trimesh's import alone costs ~0.6 s, more than a
whole robot compile should); every other format (PLY, GLB/glTF, OFF, ...) goes through trimesh.
tests/test_meshes.py checks the own readers against trimesh on every corpus mesh.

Conventions, as the original compiler (amino's mesh.lisp ``mesh-deindex-normals``):
- one output vertex per distinct (position, normal) pair, in order of first use;
- normals from the file where it has them, else flat per-face normals; unit length, rounded
  to 6 decimals (shading needs no more; it keeps the embedded C small);
- COLLADA ``<up_axis>`` and ``<unit meter>`` are honoured (result is Z-up, metres), glTF is
  Y-up by specification; files that declare nothing are rotated so that the ``-U`` axis becomes
  +Z and the ``-F`` axis +Y (defaults Z and Y: unchanged);
- a URDF per-axis ``scale`` (``Mesh.scale3``) is applied to the vertices (normals by the inverse
  transpose), the geometry's scalar ``scale`` is left to amino;
- the conventions (-U, -F, --collada-up-axis) come from the Mesh node, fixed at load time.

Modules: ``model`` (types), ``axes`` (conventions), one reader per format (``stl``, ``obj``,
``dae``, ``fallback`` for trimesh), ``conversion`` (axes, unit, scale, indexing) and ``cache``
(reading by suffix, the triangles of a Mesh node). The C text of meshes lives with the C
backends' helpers (robrayc/ctext.py). Public names are importable from here; each loads its
module on first use, so a compile that reads no mesh imports none of them.
"""

from __future__ import annotations

import importlib

_PUBLIC = {
    "AXES": "axes", "axis_rotation": "axes", "check_axes": "axes",
    "MeshData": "model", "MeshError": "model", "RawMesh": "model",
    "convert": "conversion", "read_raw": "cache", "mesh_data": "cache", "load_mesh": "cache",
    "mesh_error_message": "cache", "bounds": "cache", "placement": "cache",
    "load_placement": "cache",
    "file_rotation": "conversion",
}
__all__ = sorted(_PUBLIC)


def __getattr__(name: str):
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'robrayc.meshes' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"robrayc.meshes.{module}"), name)
    globals()[name] = value
    return value
