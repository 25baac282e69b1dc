"""Binary glTF 2.0 of the posed scene (``--var/--val``, ``--config``): one node per frame, named
after it, holding its transform in its parent at that configuration; the frame's drawn
geometries (visual, or collision with ``--geometry collision``) are the primitives of its
mesh, each with a material of its colour and alpha. Coordinates are robrayc's (metres, Z up),
as trimesh writes them; ``--highlight-collisions`` makes the colliding frames red and lists the
pairs in the scene's ``extras``.

Written directly (the format is a JSON header and one binary buffer): no trimesh import,
whose start-up alone would cost more than writing a robot.
"""

from __future__ import annotations

import argparse

from robrayc import __version__, ir
from robrayc.analysis.view import PictureOptions as Options  # noqa: F401  (typed options)
from robrayc.backends import EmitContext, OutputFile
from robrayc.kinematics import parent_index

NAME = "glb"
HELP = "binary glTF of the posed scene (one node per frame; picture options under pov output)"

FLOAT, UINT = 5126, 5125  # glTF component types
ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER = 34962, 34963
IDENTITY = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0]


def add_arguments(group: argparse._ArgumentGroup) -> None:
    """The picture options are added by the pov backend."""


class _Builder:
    """Accessors, buffer views and materials of one binary buffer."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.size = 0
        self.views: list[dict] = []
        self.accessors: list[dict] = []
        self.materials: list[dict] = []
        self._material_index: dict[tuple, int] = {}

    def accessor(self, array, kind: str, target: int, with_bounds: bool = False) -> int:
        data = array.tobytes()
        pad = (-len(data)) % 4
        self.views.append({"buffer": 0, "byteOffset": self.size, "byteLength": len(data),
                           "target": target})
        self.chunks.append(data + b"\0" * pad)
        self.size += len(data) + pad
        acc = {"bufferView": len(self.views) - 1, "count": int(array.shape[0]),
               "componentType": FLOAT if array.dtype.kind == "f" else UINT, "type": kind}
        if kind == "SCALAR":
            acc["count"] = int(array.size)
        if with_bounds:
            acc["min"] = [float(x) for x in array.min(axis=0)]
            acc["max"] = [float(x) for x in array.max(axis=0)]
        self.accessors.append(acc)
        return len(self.accessors) - 1

    def material(self, color: ir.Vec3, alpha: float, highlight: bool) -> int:
        key = (tuple(color), alpha, highlight)
        if key not in self._material_index:
            rgba = [float(c) for c in color] + [min(max(float(alpha), 0.0), 1.0)]
            mat = {"name": "colliding" if highlight else
                   "rgba(" + ", ".join(repr(c) for c in rgba) + ")",
                   "pbrMetallicRoughness": {"baseColorFactor": rgba, "metallicFactor": 0.0,
                                            "roughnessFactor": 0.6},
                   "doubleSided": True}
            if rgba[3] < 1:
                mat["alphaMode"] = "BLEND"
            self._material_index[key] = len(self.materials)
            self.materials.append(mat)
        return self._material_index[key]


def _primitive(b: _Builder, p, sink) -> dict | None:
    import numpy as np

    from robrayc.analysis.view import triangles

    verts, faces = triangles(p.geometry, sink)
    if len(faces) == 0:
        return None
    prim = {"attributes": {"POSITION": b.accessor(np.ascontiguousarray(verts, np.float32),
                                                  "VEC3", ARRAY_BUFFER, True)},
            "indices": b.accessor(np.ascontiguousarray(faces, np.uint32).reshape(-1),
                                  "SCALAR", ELEMENT_ARRAY_BUFFER),
            "material": b.material(p.color, p.geometry.alpha, p.highlight)}
    if isinstance(p.geometry.shape, ir.Mesh):  # files carry smooth normals; solids stay flat
        from robrayc.meshes import load_mesh

        normals = load_mesh(p.geometry.shape, sink, p.geometry.pos).normals
        prim["attributes"]["NORMAL"] = b.accessor(np.ascontiguousarray(normals, np.float32),
                                                  "VEC3", ARRAY_BUFFER)
    return prim


def _local_matrix(scene: ir.Scene, world: dict, frame: ir.Frame) -> list[float]:
    """The frame's transform in its parent, column-major (glTF), from the world transforms."""
    import numpy as np

    m = world[frame.name]
    if parent_index(scene, frame) >= 0:
        m = np.linalg.solve(world[frame.parent], m)
        m[3] = (0.0, 0.0, 0.0, 1.0)
    return [float(x) for x in np.asarray(m).T.reshape(-1)]


def emit(scene: ir.Scene, ctx: EmitContext) -> list[OutputFile]:
    from robrayc.analysis import view

    opts = view.for_scene(ctx.options, scene, ctx.sink)
    pairs = view.colliding_pairs(scene, opts, ctx.sink)
    posed = view.posed_geometries(scene, opts, view.highlighted_frames(pairs))
    world = view.frame_transforms(scene, opts.configuration)
    b = _Builder()
    by_frame: dict[str, list] = {}
    for p in posed:
        by_frame.setdefault(p.frame.name, []).append(p)
    nodes, meshes = [], []
    for f in scene.frames:
        node: dict = {"name": f.name}
        matrix = _local_matrix(scene, world, f)
        if matrix != IDENTITY:  # the validator asks for no default matrices
            node["matrix"] = matrix
        prims = [q for q in (_primitive(b, p, ctx.sink) for p in by_frame.get(f.name, ())) if q]
        if prims:
            node["mesh"] = len(meshes)
            meshes.append({"name": f.name, "primitives": prims})
        nodes.append(node)
    roots = []
    for i, f in enumerate(scene.frames):
        p = parent_index(scene, f)
        if p < 0:
            roots.append(i)
        else:
            nodes[p].setdefault("children", []).append(i)
    gltf: dict = {"asset": {"version": "2.0", "generator": f"robrayc {__version__}"},
                  "scene": 0, "scenes": [{"name": "robrayc"}]}
    if nodes:  # glTF allows no empty arrays
        gltf["nodes"] = nodes
        gltf["scenes"][0]["nodes"] = roots
    if pairs:
        gltf["scenes"][0]["extras"] = {"colliding_pairs": [list(p) for p in pairs]}
    if meshes:
        gltf.update(meshes=meshes, materials=b.materials, accessors=b.accessors,
                    bufferViews=b.views, buffers=[{"byteLength": b.size}])
    return [OutputFile(ctx.output, _glb(gltf, b"".join(b.chunks)))]


def _glb(gltf: dict, binary: bytes) -> bytes:
    """The GLB container: 12-byte header, JSON chunk (space padded), BIN chunk (zero padded)."""
    import json  # here: `--help` loads every backend
    import struct

    text = json.dumps(gltf, separators=(",", ":"), ensure_ascii=False).encode()
    text += b" " * ((-len(text)) % 4)
    out = [struct.pack("<I4s", len(text), b"JSON"), text]
    if binary:
        out += [struct.pack("<I4s", len(binary), b"BIN\0"), binary]
    body = b"".join(out)
    return struct.pack("<4sII", b"glTF", 2, 12 + len(body)) + body
