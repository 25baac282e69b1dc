"""Self-contained HTML viewer page: the posed scene in 3D (three.js, inlined from robrayc's
package data with its licence: no network at view time), orbit controls, one slider per
configuration variable within its limits (forward kinematics in the page is robrayc's), the
frame name under the pointer, and a visual/collision geometry toggle. The picture options
(camera, ``--highlight-collisions``, ``--config``) are listed under pov output."""

from __future__ import annotations

import argparse
import base64
import json
import re

from robrayc import __version__, ir
from robrayc.analysis.view import PictureOptions as Options  # noqa: F401  (typed options)
from robrayc.backends import EmitContext, OutputFile

NAME = "html"
HELP = "self-contained 3D viewer page (three.js) with joint sliders and frame names on hover"
# Scenes with more triangles than this are drawn without multisampling: in software WebGL
# (no GPU) it cost 60 % of a frame of the UR5 (benchmarks/pictures.py).
ANTIALIAS_TRIANGLES = 50_000


def add_arguments(group: argparse._ArgumentGroup) -> None:
    """The picture options are added by the pov backend."""


def _b64(array, dtype) -> str:
    import numpy as np

    return base64.b64encode(np.ascontiguousarray(array, dtype=dtype).tobytes()).decode()


def _kinematics(scene: ir.Scene) -> dict:
    """robrayc's FK as data for the page: the moving rigid groups (parent group, constant
    pose, joint) and each frame's group and constant pose in it (kinematics.GroupFK)."""
    from robrayc.kinematics import GroupFK

    fk = GroupFK(scene)

    def rows(m) -> list[float]:
        return [float(x) for x in m.reshape(-1)]

    groups = [{"parent": pg, "base": rows(const), "kind": kind, "axis": axis.tolist(),
               "variable": var, "offset": offset}
              for pg, const, kind, axis, var, offset in fk.motions]
    frames = [{"name": f.name, "group": int(fk.group[i]), "rel": rows(fk.rel[i])}
              for i, f in enumerate(scene.frames)]
    return {"groups": groups, "frames": frames}


def _variables(scene: ir.Scene, config: dict[str, float]) -> list[dict]:
    from robrayc.kinematics import sample_ranges

    lo, hi = sample_ranges(scene)
    out = []
    for name, a, b in zip(scene.variables, lo.tolist(), hi.tolist(), strict=True):
        value = config.get(name, 0.0)
        out.append({"name": name, "lo": min(a, value), "hi": max(b, value), "value": value})
    return out


def _geometries(scene: ir.Scene, highlighted: set[str], sink) -> tuple[list, list]:
    """Every visual or collision geometry (the page toggles them) and the shared triangles."""
    from robrayc.analysis.view import triangles
    from robrayc.meshes import load_mesh

    meshes: list[dict] = []
    mesh_index: dict[tuple, int] = {}
    geoms = []
    for i, f in enumerate(scene.frames):
        for g in f.geometries:
            if not (g.visual or g.collision):
                continue
            key = (g.shape, g.scale)
            if key not in mesh_index:
                verts, faces = triangles(g, sink)
                if len(faces) == 0:
                    continue
                entry = {"positions": _b64(verts, "<f4"), "indices": _b64(faces, "<u4"),
                         "normals": None, "smooth": isinstance(g.shape, ir.Sphere),
                         "triangles": len(faces)}
                if isinstance(g.shape, ir.Mesh):
                    entry["normals"] = _b64(load_mesh(g.shape, sink, g.pos).normals, "<f4")
                mesh_index[key] = len(meshes)
                meshes.append(entry)
            geoms.append({"frame": i, "mesh": mesh_index[key], "color": list(g.color),
                          "highlight": f.name in highlighted, "alpha": g.alpha,
                          "visual": g.visual, "collision": g.collision,
                          "flat": not isinstance(g.shape, (ir.Mesh, ir.Sphere))})
    return geoms, meshes


def _json_in_script(data) -> str:
    """JSON safe inside a <script> element: every '<' as its JSON escape (no '</script>', no
    '<!--' can end or change the element)."""
    return json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")


def emit(scene: ir.Scene, ctx: EmitContext) -> list[OutputFile]:
    from robrayc.analysis import view
    from robrayc.resources import resource_path
    from robrayc.xmltext import escape

    opts = view.for_scene(ctx.options, scene, ctx.sink)
    pairs = view.colliding_pairs(scene, opts, ctx.sink)
    cam = view.camera_for(view.posed_geometries(scene, opts, set()), opts, ctx.sink)
    geoms, meshes = _geometries(scene, view.highlighted_frames(pairs), ctx.sink)
    data = {**_kinematics(scene), "antialiasTriangles": ANTIALIAS_TRIANGLES,
            "variables": _variables(scene, opts.configuration),
            "geometries": geoms, "meshes": meshes, "pairs": [list(p) for p in pairs],
            "highlightColor": list(view.HIGHLIGHT),
            "camera": {"eye": cam.eye, "look": cam.look, "up": cam.up, "fov": cam.fov,
                       "width": cam.width, "height": cam.height}}
    legend = "".join(f'<div class="pair">{escape(view.pair_label(p))}</div>' for p in pairs)
    page = resource_path("viewer", "page.html").read_text(encoding="utf-8")
    title = escape(f"{ctx.name if ctx.name != 'scenegraph' else _title(scene)} - robrayc")
    parts = {"version": __version__, "title": title, "legend": legend,
             "three": resource_path("viewer", "three.min.js").read_text(encoding="utf-8"),
             "scene": _json_in_script(data),
             "viewer": resource_path("viewer", "viewer.js").read_text(encoding="utf-8")}
    page = re.sub(r"\{\{(\w+)\}\}", lambda m: parts[m.group(1)], page)
    return [OutputFile(ctx.output, page.encode())]


def _title(scene: ir.Scene) -> str:
    from robrayc.analysis.projection import comment_text

    first = scene.sources[0].replace("\\", "/").rsplit("/", 1)[-1] if scene.sources else ""
    return comment_text(first) or "scene"
