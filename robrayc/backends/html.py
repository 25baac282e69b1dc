"""Self-contained HTML viewer page: the posed scene in 3D (three.js, inlined from robrayc's
package data with its licence: no network at view time), orbit controls, one slider per
configuration variable within its limits (forward kinematics in the page is robrayc's), the
frame name under the pointer, and a visual/collision geometry toggle. The picture options
(camera, ``--highlight-collisions``, ``--config``) are listed under pov output."""

from __future__ import annotations

import argparse
import math
import re

from robrayc import __version__, ir
from robrayc.analysis.view import PictureOptions as Options  # noqa: F401  (typed options)
from robrayc.backends import EmitContext, OutputFile
from robrayc.links import frame_links

NAME = "html"
HELP = "self-contained 3D viewer page (three.js) with joint sliders and frame names on hover"
# Scenes with more triangles than this are drawn without multisampling: in software WebGL
# (no GPU) it cost 60 % of a frame of the UR5 (benchmarks/pictures.py).
ANTIALIAS_TRIANGLES = 50_000
# While the view moves (orbit, slider), scenes drawing more triangles than this are drawn with
# coarse meshes (vertex clustering, about this many triangles in all) and at half resolution;
# at rest the page draws the full meshes at full resolution. Software WebGL draws the
# baxter's 257,000 triangles at a few frames per second (benchmarks/pictures.py).
COARSE_BUDGET = 25_000
COARSE_MIN = 500  # meshes with fewer triangles are never coarsened
FLOATING_REACH = 2.0  # a floating joint's translation sliders: +-this, in scene units


def add_arguments(group: argparse._ArgumentGroup) -> None:
    """The picture options are added by the pov backend."""


def _b64(array, dtype) -> str:
    import base64  # here, as numpy: `--help` loads every backend

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
               "variable": var, "offset": offset, "columns": columns}
              for (pg, const, kind, axis, var, offset), columns in zip(fk.motions, fk.columns,
                                                                       strict=True)]
    frames = [{"name": f.name, "group": int(fk.group[i]), "rel": rows(fk.rel[i])}
              for i, f in enumerate(scene.frames)]
    return {"groups": groups, "frames": frames}


def _variables(scene: ir.Scene, config: dict[str, float]) -> list[dict]:
    from robrayc.kinematics import sample_ranges

    lo, hi = sample_ranges(scene, strict=False)
    moved = {n for f in scene.frames if f.kind == "floating" for n in ir.joint_variables(f)[:3]}
    out = []
    for name, a, b in zip(scene.variables, lo.tolist(), hi.tolist(), strict=True):
        if name in moved:  # a floating joint's translation (never sampled): a slider of +-2
            a, b = -FLOATING_REACH, FLOATING_REACH
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
                normals = (load_mesh(g.shape, sink, g.pos).normals
                           if isinstance(g.shape, ir.Mesh) else None)
                mesh_index[key] = len(meshes)
                meshes.append({"verts": verts, "faces": faces, "normals": normals,
                               "smooth": isinstance(g.shape, ir.Sphere)})
            geoms.append({"frame": i, "mesh": mesh_index[key], "color": list(g.color),
                          "highlight": f.name in highlighted, "alpha": g.alpha,
                          "visual": g.visual, "collision": g.collision,
                          "flat": not isinstance(g.shape, (ir.Mesh, ir.Sphere))})
    return geoms, [_encoded(m, _coarse_share(geoms, meshes, i)) for i, m in enumerate(meshes)]


def _coarse_share(geoms: list, meshes: list, index: int) -> float:
    """The share of its triangles a mesh keeps while the view moves: the budget over the
    triangles drawn at once (visual or collision geometry, the larger), 1 within budget."""
    totals = [sum(len(meshes[g["mesh"]]["faces"]) for g in geoms if g[kind])
              for kind in ("visual", "collision")]
    return min(1.0, COARSE_BUDGET / max(max(totals), 1))


def _encoded(mesh: dict, share: float) -> dict:
    verts, faces = mesh["verts"], mesh["faces"]
    entry = {"positions": _b64(verts, "<f4"), "indices": _b64(faces, "<u4"),
             "normals": None if mesh["normals"] is None else _b64(mesh["normals"], "<f4"),
             "smooth": mesh["smooth"], "triangles": len(faces), "coarse": None}
    if share < 1 and len(faces) > COARSE_MIN:
        pos, tri, nrm = coarse_mesh(verts, faces, mesh["normals"],
                                    max(COARSE_MIN, int(len(faces) * share)))
        if len(tri) < 0.7 * len(faces):
            entry["coarse"] = {"positions": _b64(pos, "<f4"), "indices": _b64(tri, "<u4"),
                               "normals": None if nrm is None else _b64(nrm, "<f4"),
                               "smooth": mesh["smooth"], "triangles": len(tri)}
    return entry


def clustered(verts, faces, normals, cells: int):
    """Vertex clustering: the vertices in each cube of a grid `cells` cubes along the mesh's
    longest side merge into their mean (normals: the mean direction); triangles that
    collapse are dropped, and those that turned over are turned back to face their normals
    (else two-sided shading draws them dark)."""
    import numpy as np

    lo = verts.min(axis=0)
    side = float((verts.max(axis=0) - lo).max()) / cells or 1.0
    ijk = np.minimum(((verts - lo) / side).astype(np.int64), cells)
    key = (ijk[:, 0] * (cells + 1) + ijk[:, 1]) * (cells + 1) + ijk[:, 2]
    if (cells + 1) ** 3 <= 1 << 22:  # a table over the grid's cubes: no sort
        counts = np.bincount(key, minlength=(cells + 1) ** 3)
        occupied = np.flatnonzero(counts)
        number = np.zeros(len(counts), dtype=np.int64)
        number[occupied] = np.arange(len(occupied))
        cluster, counts = number[key], counts[occupied]
    else:
        _, cluster, counts = np.unique(key, return_inverse=True, return_counts=True)
        cluster = cluster.reshape(-1)

    def mean(values):
        return np.stack([np.bincount(cluster, values[:, k], len(counts)) for k in range(3)], 1)

    pos = mean(verts) / counts[:, None]
    tri = cluster[faces]
    tri = tri[(tri[:, 0] != tri[:, 1]) & (tri[:, 1] != tri[:, 2]) & (tri[:, 2] != tri[:, 0])]
    if normals is None:
        return pos, tri, None
    nrm = mean(normals)
    nrm /= np.maximum(np.linalg.norm(nrm, axis=1), 1e-12)[:, None]
    a, b, c = pos[tri[:, 0]], pos[tri[:, 1]], pos[tri[:, 2]]
    flipped = (np.cross(b - a, c - a) * (nrm[tri].sum(axis=1))).sum(axis=1) < 0
    tri[flipped] = tri[flipped][:, [0, 2, 1]]
    return pos, tri, nrm


def coarse_mesh(verts, faces, normals, target: int):
    """A clustered mesh with about `target` triangles: a closed surface clustered in a grid of
    n cubes a side keeps about 5 n^2 of them (fewer if it is long and thin); one correction
    if the guess was far off."""
    cells = max(4, round(math.sqrt(target / 5)))
    out = clustered(verts, faces, normals, cells)
    if not target / 2 <= len(out[1]) <= 1.5 * target:
        better = round(cells * math.sqrt(target / max(len(out[1]), 1)))
        if better != cells:
            out = clustered(verts, faces, normals, min(max(better, 4), 1024))
    return out


def _json_in_script(data) -> str:
    """JSON safe inside a <script> element: every '<' as its JSON escape (no '</script>', no
    '<!--' can end or change the element)."""
    import json
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
    links = frame_links(scene)
    legend = "".join(f'<div class="pair">{escape(view.pair_label(p, links))}</div>' for p in pairs)
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
