"""CajunBot simulator object files: version 2 (XML, default) or version 1 (line format).

No public reader exists, so this follows the CajunBot wiki's document strictly (element and
attribute names as written there): sizes and offsets in metres, orientation offsets in degrees
(roll, pitch, yaw about x, y, z: R = Rz(yaw) Ry(pitch) Rx(roll), as robray's rpy).

* each wall or block (collision geometry by default; roles and the height band decide, a solid
  is kept whole when any of it is in the band) is a ``static`` object: boxes, spheres and
  cylinders natively with ``position_offset`` at the solid's centre and ``size`` its extent
  (a sphere's size is its diameter on every axis, a cylinder's x and y its diameter);
* cones and meshes are ``mesh`` objects: world-coordinate vertices ("x y z" per line) and
  triangles ("i j k", 0-based) in text files written beside the object file;
* each robot is an ``autonomous`` box: the bounding box of its collision geometry (all of
  its geometry when none collides) in its own frame, at
  the box's centre, oriented as the robot frame, with the document's wheel and steering values;
  ``start_position`` is 0 0 0 (disabled) unless ``--cajunbot-start SEG,LANE,WP``.

Version 1 (``--cajunbot-version 1``) writes the same objects in the line format with the
document's ``//`` comments; its mesh objects use object type 3 (the document names a MESH type
without a number; 0-2 are taken).

The 2D options (``--z-min`` etc.) are added by the cs2 backend and read here too.
"""

from __future__ import annotations

import argparse
import math
import re
from pathlib import Path

from robrayc import __version__, ir
from robrayc.analysis.footprints import frustum_mesh, solid_points, world_transform
from robrayc.analysis.projection import (
    OBSTACLE_ROLES,
    ProjectionOptions,
    Robot,
    comment_text,
    fmt,
    no_robot_help,
    options_from,
    project_for,
    source_names,
)
from robrayc.backends import EmitContext, OutputFile
from robrayc.diagnostics import DiagnosticSink
from robrayc.kinematics import quat_to_rpy
from robrayc.records import record
from robrayc.xmltext import escape, quoteattr

NAME = "cajunbot"
HELP = "CajunBot simulator object file (XML version 2, or the version 1 line format)"

# The document's values for the autonomous object.
WHEELS = {"type": "1", "radius": "0.38", "width": "0.20"}
STEERING = {"throttle_rate": "2", "lever_rate": "0.5"}
SHAPE_CODES = {"box": 0, "sphere": 1, "cylinder": 2}
V1_DYN_SIM, V1_STATIC, V1_MESH = 0, 2, 3


def add_arguments(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--cajunbot-version", choices=("1", "2"), default="2",
                       help="CajunBot: object file version (default 2, XML)")
    group.add_argument("--cajunbot-start", metavar="SEG,LANE,WP",
                       help="CajunBot: RNDF start waypoint of the robot (default 0,0,0: "
                            "disabled, the offsets are absolute)")
    group.add_argument("--cajunbot-mesh-path", choices=("base", "full"), default="base",
                       help="CajunBot: name mesh files by base name (found in the simulator's "
                            "working directory) or full path (default base)")


@record(frozen=True, slots=True)
class Options:
    projection: ProjectionOptions
    version: str = "2"
    start: str | None = None  # SEG,LANE,WP
    mesh_path: str = "base"

    @classmethod
    def from_args(cls, ns: argparse.Namespace, sink: DiagnosticSink) -> Options:
        return cls(options_from(ns, sink), ns.cajunbot_version, ns.cajunbot_start,
                   ns.cajunbot_mesh_path)


@record
class _Object:
    kind: str  # autonomous | static | mesh
    name: str
    shape: str = "box"
    position: tuple = (0.0, 0.0, 0.0)
    orientation: tuple = (0.0, 0.0, 0.0)  # degrees
    size: tuple = (0.0, 0.0, 0.0)
    vertices: str = ""  # mesh objects: file names as written in the object file
    indices: str = ""


def emit(scene: ir.Scene, ctx: EmitContext) -> list[OutputFile]:
    sink = ctx.sink
    version = ctx.options.version
    start = _start(ctx.options.start, sink)
    # Obstacles only: the autonomous box is sized from 3D geometry, decoration is not written.
    proj = project_for(scene, ctx, roles=OBSTACLE_ROLES)
    segments = proj.options.segments
    files: list[OutputFile] = []
    objects: list[_Object] = []
    if not proj.robots:
        where, hint = no_robot_help(scene)
        sink.warning("no robot: the CajunBot simulator needs an autonomous object", where,
                     hint, name="no-robot")
    for r in proj.robots:
        objects.append(_robot(scene, r, proj.poses, sink, segments))
    meshes = 0
    for f in proj.by_role(*OBSTACLE_ROLES):
        g = f.geometry
        rot, t = world_transform(proj.poses[f.frame.name])
        rpy = _degrees(quat_to_rpy(proj.poses[f.frame.name][0]))
        primitive = ir.handler(_PRIMITIVES, g.shape)
        if primitive is not None:
            objects.append(primitive(f.name, g.shape, g.scale, rot, t, rpy))
        else:  # cones and meshes: triangles in world coordinates
            if ctx.output is None:
                raise sink.fatal(f"'{f.name}' becomes a CajunBot mesh object whose vertex and "
                                 "index files are written beside the object file: give -o FILE",
                                 f.pos)
            verts, faces = _triangles(g, sink, segments)
            verts = verts @ rot.T + t
            meshes += 1
            vpath, ipath = _mesh_paths(ctx.output, meshes)
            mode = ctx.options.mesh_path
            name_of = (lambda p: str(p.resolve())) if mode == "full" else (lambda p: p.name)
            files.append(OutputFile(vpath, "".join(
                f"{fmt(x)} {fmt(y)} {fmt(z)}\n" for x, y, z in verts).encode()))
            files.append(OutputFile(ipath, "".join(
                f"{a} {b} {c}\n" for a, b, c in faces).encode()))
            objects.append(_Object("mesh", f.name, vertices=name_of(vpath),
                                   indices=name_of(ipath)))
    title = ctx.output.name if ctx.output is not None else ctx.name
    title = re.sub(r"\.objects\.xml$|\.xml$", "", title)
    if version == "1":
        text = _v1(objects, start, scene)
    else:
        text = _v2(objects, start, scene, title)
    return [OutputFile(ctx.output, text.encode()), *files]


def _start(text: str | None, sink) -> tuple[int, int, int]:
    if text is None:
        return (0, 0, 0)
    m = re.fullmatch(r"\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*", text)
    if not m:
        raise sink.fatal(f"--cajunbot-start expects SEG,LANE,WP (whole numbers), got {text!r}")
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


def _degrees(rpy) -> tuple[float, float, float]:
    return tuple(math.degrees(a) for a in rpy)


def _box(name: str, shape: ir.Box, s: float, rot, t, rpy) -> _Object:
    return _Object("static", name, "box", tuple(t), rpy, tuple(abs(d * s) for d in shape.dimension))


def _sphere(name: str, shape: ir.Sphere, s: float, rot, t, rpy) -> _Object:
    d = abs(2 * shape.radius * s)
    return _Object("static", name, "sphere", tuple(t), rpy, (d, d, d))


def _cylinder(name: str, shape: ir.Cylinder, s: float, rot, t, rpy) -> _Object:
    h, d = shape.height * s, abs(2 * shape.radius * s)
    centre = t + rot[:, 2] * (h / 2)
    return _Object("static", name, "cylinder", tuple(centre), rpy, (d, d, abs(h)))


# shape -> the static object CajunBot has for it; None: a mesh object of triangles
_PRIMITIVES = {ir.Box: _box, ir.Sphere: _sphere, ir.Cylinder: _cylinder, ir.Cone: None,
               ir.Mesh: None}


def _cone_triangles(g: ir.Geometry, sink, segments: int):
    shape, s = g.shape, g.scale
    return frustum_mesh(shape.height * s, shape.start_radius * s, shape.end_radius * s,
                        segments)


def _mesh_triangles(g: ir.Geometry, sink, segments: int):
    import numpy as np

    from robrayc.meshes import load_mesh

    data = load_mesh(g.shape, sink, g.pos)
    return np.asarray(data.vertices, dtype=float) * g.scale, np.asarray(data.faces)


def _triangles(g: ir.Geometry, sink, segments: int):
    return ir.handler({ir.Cone: _cone_triangles, ir.Mesh: _mesh_triangles}, g.shape)(
        g, sink, segments)


def _mesh_paths(output: Path, k: int) -> tuple[Path, Path]:
    stem = re.sub(r"\.objects\.xml$|\.xml$|\.[^.]*$", "", output.name) or "objects"
    return (output.with_name(f"{stem}_mesh{k}_vertices.txt"),
            output.with_name(f"{stem}_mesh{k}_indices.txt"))


def _robot(scene: ir.Scene, r: Robot, poses, sink, segments: int) -> _Object:
    """The robot's bounding box in its own frame, as an autonomous box."""
    import numpy as np

    rot_r, t_r = world_transform(poses[r.name])
    pts = []
    for f, g in _robot_geometries(scene, r):
        rot, t = world_transform(poses[f.name])
        world = solid_points(g, sink, segments) @ rot.T + t
        pts.append((world - t_r) @ rot_r)  # into the robot frame
    if pts:
        allp = np.concatenate(pts)
        lo, hi = allp.min(0), allp.max(0)
    else:
        lo = hi = np.zeros(3)
    centre = rot_r @ ((lo + hi) / 2) + t_r
    rpy = _degrees(quat_to_rpy(poses[r.name][0]))
    return _Object("autonomous", r.name, "box", tuple(centre), rpy, tuple(hi - lo))


def _robot_geometries(scene: ir.Scene, r: Robot) -> list[tuple[ir.Frame, ir.Geometry]]:
    """(frame, geometry) of the robot frame and every frame below it: the whole body in 3D,
    not only the part in the height band. The simulator's box is what the robot collides
    with, so collision geometry only (a `collision 0` sensor sphere must not make the robot
    taller); all geometry when none collides."""
    inside = {r.name}
    body = []
    for f in scene.frames:  # parents first
        if f.name in inside or f.parent in inside:
            inside.add(f.name)
            body += [(f, g) for g in f.geometries if not isinstance(g.shape, ir.Grid)]
    return [(f, g) for f, g in body if g.collision] or body


def _v2(objects: list[_Object], start, scene: ir.Scene, title: str) -> str:
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f"<!-- CajunBot object file generated by robrayc {__version__} from "
           f"{source_names(scene)} -->",
           "<object_file>",
           f"  <name>{escape(title)}</name>"]
    zero = (0, 0, 0)
    for o in objects:
        if o.kind == "mesh":
            out += ['  <object type="mesh">',
                    f"    <name>{escape(o.name)}</name>",
                    f'    <vertices path="{_path_mode(o.vertices)}">{escape(o.vertices)}'
                    "</vertices>",
                    f'    <indices path="{_path_mode(o.indices)}">{escape(o.indices)}</indices>',
                    "  </object>"]
            continue
        seg, lane, wp = start if o.kind == "autonomous" else zero
        out += [f'  <object type="{o.kind}" shape="{o.shape}">',
                f"    <name>{escape(o.name)}</name>",
                f'    <start_position segment="{seg}" lane="{lane}" waypoint="{wp}"/>',
                f"    <position_offset {_xyz(o.position)}/>",
                f"    <orientation_offset {_xyz(o.orientation)}/>",
                f"    <size {_xyz(o.size)}/>"]
        if o.kind == "autonomous":
            out += ["    <wheels " + " ".join(f"{k}={quoteattr(v)}" for k, v in WHEELS.items())
                    + "/>",
                    "    <steering " + " ".join(f"{k}={quoteattr(v)}"
                                                for k, v in STEERING.items()) + "/>"]
        out.append("  </object>")
    out.append("</object_file>")
    return "\n".join(out) + "\n"


def _path_mode(name: str) -> str:
    return "full" if name.startswith("/") or re.match(r"[A-Za-z]:[\\/]", name) else "base"


def _xyz(v) -> str:
    return f'x="{fmt(v[0])}" y="{fmt(v[1])}" z="{fmt(v[2])}"'


def _v1(objects: list[_Object], start, scene: ir.Scene) -> str:
    out = [f"{len(objects)} // number of objects (robrayc {__version__}, from "
           f"{source_names(scene)})"]
    next_id = 1
    for o in objects:
        out.append("")
        label = comment_text(o.name)
        if o.kind == "mesh":
            out += [f"{V1_MESH} // object type: mesh ({label})", o.vertices, o.indices,
                    "0 0 0 // segment lane waypoint"]
            continue
        if o.kind == "autonomous":
            out += [f"{V1_DYN_SIM} // object type: dyn_sim ({label})",
                    "0 // controller: sensor"]
            seg, lane, wp = start
        else:
            out.append(f"{V1_STATIC} // object type: static ({label})")
            seg, lane, wp = 0, 0, 0
        out += [f"{next_id} // object id",
                f"{SHAPE_CODES[o.shape]} // shape: box = 0, sphere = 1, cylinder = 2",
                f"{seg} {lane} {wp} // segment lane waypoint"]
        next_id += 1
        for axis, value in zip("xyz", o.position, strict=True):
            out.append(f"{fmt(value)} // pos {axis}")
        for axis, value in zip("xyz", o.size, strict=True):
            out.append(f"{fmt(value)} // size {axis}")
        for axis, value in zip("xyz", o.orientation, strict=True):
            out.append(f"{fmt(value)} // orientation {axis} (degrees)")
        if o.kind == "autonomous":
            out += [f"{WHEELS['type']} // wheel type: 0 = skid, 1 = conventional",
                    f"{WHEELS['radius']} // wheel radius",
                    f"{WHEELS['width']} // wheel width",
                    f"{STEERING['throttle_rate']} // throttle rate",
                    f"{STEERING['lever_rate']} // lever rate",
                    "0 // number of sensors"]
    return "\n".join(out) + "\n"
