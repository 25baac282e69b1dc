"""POV-Ray scene text of a posed scene (shared by the pov and png backends).

Conventions of the original (amino's povray.lisp and render.lisp): POV-Ray is left-handed, so
every vector is written with Y and Z swapped (``<x, z, y>``) and every frame transform as the
swapped ``matrix``; each drawn geometry is preceded by a ``// FRAME: name`` comment; shapes are
POV-Ray's own primitives (box centred on the frame, cylinder and cone along +Z from the origin,
sphere), meshes ``mesh2`` objects declared once per file; the colour is the pigment, alpha
``transmit 1 - alpha``, specular the average of the specular colour; the lighting is the
original's ``default.inc`` (white sky, ambient 0.2, a parallel sun) plus a shadowless fill
light at the camera so that faces turned from the sun stay readable.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from robrayc import __version__, ir
from robrayc.analysis.projection import comment_text, source_names
from robrayc.analysis.view import Camera, Posed, grid_bars, pair_label
from robrayc.diagnostics import DiagnosticSink
from robrayc.links import frame_links

SUN = (10.0, 20.0, -15.0)  # default.inc, already in POV-Ray's axes


def num(x: float) -> str:
    """Shortest round-tripping text of a float (POV-Ray reads exponents)."""
    x = float(x)
    return "0" if x == 0 else repr(x)


def vec(v) -> str:
    """A robrayc (right-handed, Z up) vector in POV-Ray's axes."""
    return f"<{num(v[0])}, {num(v[2])}, {num(v[1])}>"


def matrix(world) -> str:
    """`matrix <...>` of a 4x4 transform, Y and Z swapped on both sides (as pov-matrix)."""
    import numpy as np

    swap = np.array([[1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1]], dtype=float)
    m = swap @ np.asarray(world, dtype=float) @ swap
    cols = [m[:3, i] for i in range(4)]  # POV rows are the images of the basis vectors
    return "matrix <" + ", ".join(num(x) for c in cols for x in c) + ">"


def texture(color: ir.Vec3, alpha: float, specular: ir.Vec3) -> str:
    r, g, b = color
    transmit = 1.0 - min(max(alpha, 0.0), 1.0)
    pigment = f"color rgb <{num(r)}, {num(g)}, {num(b)}>"
    if transmit:
        pigment += f" transmit {num(transmit)}"
    spec = sum(specular) / 3
    finish = f" finish {{ specular {num(spec)} }}" if spec else ""
    return f"texture {{ pigment {{ {pigment} }}{finish} }}"


def _rows(rows, exp: int | None = None) -> str:
    """One `<a,b,c>` per line; with `exp`, integers times ten to that power (`<1234567e-7,...>`:
    POV-Ray reads exponents). Integer text is twice as fast to make as float text, and meshes
    hold hundreds of thousands of rows."""
    import numpy as np

    rows = np.asarray(rows)
    if exp is None:
        return ",\n".join(map("<{},{},{}>".format, *rows.T.tolist()))
    return ",\n".join(map(f"<{{}}e{exp},{{}}e{exp},{{}}e{exp}>".format, *rows.T.tolist()))


def _quantized(rows, digits: int):
    """(integers, exponent): the rows to `digits` significant digits of their largest value."""
    import numpy as np

    big = float(np.max(np.abs(rows))) if rows.size else 0.0
    exp = (math.floor(math.log10(big)) if big > 0 else 0) - (digits - 1)
    return np.rint(rows / 10.0 ** exp).astype(np.int64), exp


def _distinct(ints):
    """(distinct rows, index of each row among them) of an integer array."""
    import numpy as np

    ints = np.ascontiguousarray(ints)
    keys = ints.view(np.dtype((np.void, ints.dtype.itemsize * ints.shape[1]))).reshape(-1)
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return ints[first], inverse.reshape(-1)


def mesh2(name: str, verts, normals, faces) -> str:
    """`#declare NAME = mesh2 {...}` with Y and Z swapped. Vertices are (position, normal)
    pairs; where edges are hard (a position under many normals), positions and normals are
    written once each, with normal_indices beside face_indices, if that is fewer rows
    (POV-Ray's parse time goes with the rows: half of them for the Fetch's meshes)."""
    v, v_exp = _quantized(verts[:, [0, 2, 1]], 8)
    n, n_exp = _quantized(normals[:, [0, 2, 1]], 4)
    positions, at_position = _distinct(v)
    directions, at_direction = _distinct(n)
    if len(positions) + len(directions) + len(faces) < 2 * len(v):
        lists = [("vertex_vectors", _rows(positions, v_exp), len(positions)),
                 ("normal_vectors", _rows(directions, n_exp), len(directions)),
                 ("face_indices", _rows(at_position[faces]), len(faces)),
                 ("normal_indices", _rows(at_direction[faces]), len(faces))]
    else:
        lists = [("vertex_vectors", _rows(v, v_exp), len(v)),
                 ("normal_vectors", _rows(n, n_exp), len(n)),
                 ("face_indices", _rows(faces), len(faces))]
    body = "\n".join(f"{keyword} {{ {count},\n{rows} }}" for keyword, rows, count in lists)
    return f"#declare {name} = mesh2 {{\n{body}\n}}"


def _box(shape: ir.Box, mesh_names: dict[str, str]) -> str | None:
    d = [abs(x) / 2 for x in shape.dimension]
    return f"box {{ {vec([-x for x in d])}, {vec(d)}"


def _sphere(shape: ir.Sphere, mesh_names: dict[str, str]) -> str | None:
    return f"sphere {{ <0, 0, 0>, {num(abs(shape.radius))}"


def _cylinder(shape: ir.Cylinder, mesh_names: dict[str, str]) -> str | None:
    if shape.height == 0 or shape.radius == 0:
        return None
    return f"cylinder {{ <0, 0, 0>, {vec((0, 0, shape.height))}, {num(abs(shape.radius))}"


def _cone(shape: ir.Cone, mesh_names: dict[str, str]) -> str | None:
    if shape.height == 0:
        return None
    return (f"cone {{ <0, 0, 0>, {num(abs(shape.start_radius))}, "
            f"{vec((0, 0, shape.height))}, {num(abs(shape.end_radius))}")


def _mesh(shape: ir.Mesh, mesh_names: dict[str, str]) -> str | None:
    return f"object {{ {mesh_names[shape.path + repr(shape.scale3)]}"


def _grid(shape: ir.Grid, mesh_names: dict[str, str]) -> str | None:
    boxes = [f"box {{ {vec([c - s / 2 for c, s in zip(centre, size, strict=True)])}, "
             f"{vec([c + s / 2 for c, s in zip(centre, size, strict=True)])} }}"
             for centre, size in grid_bars(shape)]
    return "union {\n" + "\n".join(boxes) if boxes else None


PRIMITIVES: dict[type, Callable[..., str | None]] = {
    ir.Box: _box, ir.Sphere: _sphere, ir.Cylinder: _cylinder, ir.Cone: _cone,
    ir.Mesh: _mesh, ir.Grid: _grid,
}


def _primitive(p: Posed, mesh_names: dict[str, str]) -> str | None:
    """The POV-Ray object of one geometry in its frame (before scale, texture and matrix);
    None for what POV-Ray cannot draw (a zero-height cylinder or cone)."""
    shape = p.geometry.shape
    return ir.handler(PRIMITIVES, shape)(shape, mesh_names)


def camera(cam: Camera) -> str:
    return ("camera {\n"
            f"location {vec(cam.eye)}\n"
            f"sky {vec(cam.up)}\n"
            f"right x*{cam.width}/{cam.height}\n"
            f"angle {num(cam.fov)}\n"
            f"look_at {vec(cam.look)}\n"
            "}")


def lights(cam: Camera) -> str:
    return ("background { color rgb <1, 1, 1> }\n"
            "global_settings { assumed_gamma 1.0 ambient_light rgb <0.2, 0.2, 0.2> }\n"
            f"light_source {{ <{SUN[0]}, {SUN[1]}, {SUN[2]}> color rgb <1, 1, 1> parallel "
            "point_at <0, 0, 0> }\n"
            f"light_source {{ {vec(cam.eye)} color rgb <0.45, 0.45, 0.45> shadowless }}")


def scene_text(scene: ir.Scene, posed: list[Posed], cam: Camera, sink: DiagnosticSink,
               pairs: list[tuple[str, str]] = (), includes: tuple[str, ...] = ()) -> str:
    """The whole POV-Ray scene: header, camera, lights, declared meshes, one object per drawn
    geometry (each after its FRAME comment), then the --pov-include files."""
    out = [f"// POV-Ray 3.7 scene generated by robrayc {__version__} from "
           f"{source_names(scene)}",
           "#version 3.7;"]
    links = frame_links(scene) if pairs else None
    for pair in pairs:
        named = pair_label(pair, links) + (f" (frames {pair[0]}, {pair[1]})" if links else "")
        out.append(f"// COLLIDING (drawn red): {comment_text(named)}")
    out += [camera(cam), lights(cam)]
    mesh_names: dict[str, str] = {}
    for p in posed:
        shape = p.geometry.shape
        if isinstance(shape, ir.Mesh):
            key = shape.path + repr(shape.scale3)
            if key not in mesh_names:
                from robrayc.meshes import load_mesh

                mesh_names[key] = f"robrayc_mesh_{len(mesh_names)}"
                data = load_mesh(shape, sink, p.geometry.pos)
                out.append(f"// mesh {comment_text(shape.source or shape.path)}")
                out.append(mesh2(mesh_names[key], data.vertices, data.normals, data.faces))
    for p in posed:
        obj = _primitive(p, mesh_names)
        if obj is None:
            continue
        g = p.geometry
        mods = []
        if g.scale != 1:
            mods.append(f"scale {num(g.scale)}")
        mods.append(texture(p.color, g.alpha, g.specular))
        if g.no_shadow:
            mods.append("no_shadow")
        mods.append(matrix(p.world))
        out.append(f"// FRAME: {comment_text(p.frame.name)}")
        out.append(f"{obj}\n" + "\n".join(mods) + "\n}")
    for inc in includes:
        out.append(f'#include "{inc}"')
    return "\n".join(out) + "\n"
