"""The 2D projection shared by the simulator backends (cs2, pySimiam, SimMeR, CajunBot, SVG).

A scene is evaluated at one configuration (``--var/--val``, default zeros) and every geometry is
projected onto the world XY plane:

* boxes: the convex hull of the projected corners (exact under any rotation);
* spheres, cylinders and cones (frustums from the frame origin along +Z for ``height``, which may
  be negative) in any orientation: the hull of their projected rims, sampled with ``--segments``
  points per rim plus the rim points where X and Y are extreme, so extents are exact and areas
  converge from below;
* meshes: the union of the projected triangles, or their convex hull with ``--hull``;
* grids are skipped.

With a height band (``--z-min``/``--z-max``) only the part of each solid inside the band counts:
convex solids are clipped as polytopes (kept vertices plus edge/plane intersections), spheres
exactly, meshes triangle by triangle plus their cross-sections at the band planes (so a mesh cut
through its middle still projects its full section).

Each projected geometry gets a *role*: collision geometry is a wall, visual-only geometry is
decorative; class tags (``isa``) refine it (``marker``, ``tape``, ``robot``, ``block``,
``ignore``) and ``--role TAG=ROLE`` overrides the mapping. A frame whose geometry (or the frame
itself) is tagged ``robot`` is a robot start pose, its +X axis the heading; everything below it
is part of the robot, and frames below it tagged ``ultra``/``ir``/``comp``/``odom``/``gyro`` are
its sensors.

The command-line options are added once, by the cs2 backend (argparse refuses duplicates); every
2D backend reads the same ``ctx.options`` attributes through :func:`options_from`.

numpy, shapely and trimesh are imported inside functions so that loading the backend table for
``--help`` or a C compile stays cheap.
"""

from __future__ import annotations

import argparse
import math

from robrayc import ir
from robrayc.analysis.footprints import DEFAULT_SEGMENTS, ProjectionOptions, geometry_footprint
from robrayc.diagnostics import NOWHERE, DiagnosticSink, SourcePos, suggest
from robrayc.kinematics import absolute_poses, quat_to_matrix
from robrayc.records import field, record

# --- roles and units ----------------------------------------------------------------------------
GEOMETRY_ROLES = ("wall", "block", "decorative", "marker", "tape", "robot", "ignore")
SENSOR_KINDS = ("ultra", "ir", "comp", "odom", "gyro")  # SimMeR's sensor ids
ROLES = GEOMETRY_ROLES + SENSOR_KINDS
ROLE_ALIASES = {"obstacle": "wall"}
DEFAULT_TAG_ROLES: dict[str, str] = {
    "marker": "marker", "tape": "tape", "robot": "robot", "block": "block",
    **{k: k for k in SENSOR_KINDS},
}
OBSTACLE_ROLES = ("wall", "block")  # roles a robot collides with

M_PER_IN = 0.0254  # exact by definition
M_PER_FT = 0.3048
CM_PER_M = 100.0


def add_projection_arguments(group: argparse._ArgumentGroup) -> None:
    """The options every 2D backend reads (added once, by the cs2 backend)."""
    group.add_argument("--z-min", type=float, metavar="Z",
                       help="2D formats: only the part of each solid above height Z (metres) "
                            "is projected")
    group.add_argument("--z-max", type=float, metavar="Z",
                       help="2D formats: only the part of each solid below height Z (metres) "
                            "is projected")
    group.add_argument("--hull", action="store_true",
                       help="2D formats: project meshes as their convex hull (default: the "
                            "union of their triangles)")
    group.add_argument("--role", action="append", default=[], metavar="TAG=ROLE",
                       help="2D formats: geometry of class TAG gets ROLE (" + ", ".join(ROLES)
                            + "); defaults: collision geometry is a wall, visual-only is "
                              "decorative, tags marker/tape/robot/block and the sensor names "
                              "map to themselves")
    group.add_argument("--robot-frame", action="append", default=[], metavar="FRAME",
                       help="2D formats: FRAME is a robot start pose (as if its geometry were "
                            "tagged robot)")
    group.add_argument("--segments", type=int, default=DEFAULT_SEGMENTS, metavar="N",
                       help=f"2D formats: points per circle of spheres, cylinders and cones "
                            f"(default {DEFAULT_SEGMENTS})")


def options_from(ns: argparse.Namespace, sink: DiagnosticSink) -> ProjectionOptions:
    """Read the shared 2D options from the command line; bad values are errors (then stop)."""
    where = NOWHERE
    z_min = ns.z_min
    z_max = ns.z_max
    for name, value in (("--z-min", z_min), ("--z-max", z_max)):
        if value is not None and not math.isfinite(value):
            sink.error(f"{name} must be a finite height in metres, got {value!r}", where)
    if z_min is not None and z_max is not None and z_min > z_max:
        sink.error(f"--z-min {z_min!r} is above --z-max {z_max!r}", where)
    segments = ns.segments
    if segments < 8:
        sink.error(f"--segments must be at least 8, got {segments}", where)
    roles: dict[str, str] = {}
    for item in ns.role:
        tag, sep, role = item.partition("=")
        tag, role = tag.strip(), role.strip()
        if not sep or not tag or not role:
            sink.error(f"--role expects TAG=ROLE, got {item!r}", where,
                       "e.g. --role pillar=wall")
            continue
        role = ROLE_ALIASES.get(role, role)
        if role not in ROLES:
            sink.error(f"unknown role '{role}' in --role {item}", where,
                       suggest(role, ROLES + tuple(ROLE_ALIASES))
                       or "roles: " + ", ".join(ROLES))
            continue
        roles[tag] = role
    sink.check()
    return ProjectionOptions(
        z_min=z_min, z_max=z_max, hull=bool(ns.hull), roles=roles,
        robot_frames=tuple(ns.robot_frame), segments=segments,
        configuration=dict(ns.configuration or {}))


# --- number and colour formatting (shared by the text formats) ----------------------------------
def clean(x: float, digits: int = 10) -> float:
    """Round away conversion noise (0.3048/0.0254 -> 12.0) and negative zero."""
    r = round(float(x), digits)
    return 0.0 if r == 0 else r


def fmt(x: float, digits: int = 10) -> str:
    """A number as text: shortest round-trip repr of the cleaned value, integers without '.0'."""
    r = clean(x, digits)
    if r == int(r) and abs(r) < 1e15:
        return str(int(r))
    return repr(r)


def hex_color(rgb: ir.Vec3) -> str:
    """#rrggbb from a 0..1 colour (clamped): what Qt, pySimiam and SVG all accept."""
    return "#" + "".join(f"{max(0, min(255, round(c * 255))):02x}" for c in rgb)


def degrees(rad: float) -> float:
    """Radians to degrees in [0, 360) (SimMeR and the heading comments)."""
    d = math.degrees(rad) % 360.0
    return 0.0 if clean(d) == 360.0 else d


# --- results ------------------------------------------------------------------------------------
@record
class Footprint:
    """One geometry's projection: a shapely (Multi)Polygon in world metres."""

    frame: ir.Frame
    geometry: ir.Geometry
    index: int  # the geometry's index in its frame
    role: str
    polygon: object  # shapely Polygon | MultiPolygon, non-empty, positive area
    z_low: float  # height range of the (band-clipped) solid
    z_high: float
    robot: str | None = None  # the robot frame this geometry belongs to

    @property
    def pos(self) -> SourcePos:
        return self.geometry.pos

    @property
    def name(self) -> str:
        return self.frame.name if self.index == 0 else f"{self.frame.name}#{self.index}"


@record
class Sensor:
    frame: ir.Frame
    kind: str  # one of SENSOR_KINDS
    local: tuple[float, float, float]  # position in the robot frame (metres)
    heading: float  # radians, counter-clockwise from the robot's +X


@record
class Robot:
    frame: ir.Frame
    position: tuple[float, float, float]  # world
    heading: float  # radians, world, the frame's +X projected on XY
    rotation: tuple  # 3x3 world rotation (row-major tuples)
    parts: list[Footprint] = field(default_factory=list)
    sensors: list[Sensor] = field(default_factory=list)
    # the first part's colour when parts were not asked for (project_scene's `roles`)
    unprojected_color: ir.Vec3 | None = None

    @property
    def name(self) -> str:
        return self.frame.name

    def footprint(self):
        """Union of the parts (world), or None if nothing of the robot is in the band."""
        import shapely

        if not self.parts:
            return None
        return shapely.union_all([p.polygon for p in self.parts])

    def to_local(self, geom):
        """A world XY shape in the robot's 2D frame (origin at the robot, +X its heading)."""
        from shapely import affinity

        moved = affinity.translate(geom, -self.position[0], -self.position[1])
        return affinity.rotate(moved, -self.heading, origin=(0, 0), use_radians=True)

    def color(self) -> ir.Vec3:
        for p in self.parts:
            return p.geometry.color
        if self.unprojected_color is not None:
            return self.unprojected_color
        for g in self.frame.geometries:
            return g.color
        return ir.DEFAULT_COLOR


@record
class Projection:
    footprints: list[Footprint]  # everything but robot parts, in frame/geometry order
    robots: list[Robot]
    options: ProjectionOptions
    poses: dict  # frame name -> (q, v) world pose

    def by_role(self, *roles: str) -> list[Footprint]:
        return [f for f in self.footprints if f.role in roles]

    def all_footprints(self) -> list[Footprint]:
        return self.footprints + [p for r in self.robots for p in r.parts]

    def bounds(self, roles: tuple[str, ...] | None = None):
        """(minx, miny, maxx, maxy) of the footprints with these roles (all if None)."""
        items = [f for f in self.all_footprints() if roles is None or f.role in roles]
        if not items:
            return None
        bs = [f.polygon.bounds for f in items]
        return (min(b[0] for b in bs), min(b[1] for b in bs),
                max(b[2] for b in bs), max(b[3] for b in bs))


# --- the projection -----------------------------------------------------------------------------
def project_scene(scene: ir.Scene, opts: ProjectionOptions, sink: DiagnosticSink,
                  needs_robot: str | None = None,
                  roles: tuple[str, ...] | None = None) -> Projection:
    """Project every geometry of `scene` at `opts.configuration` (see the module docstring).
    `needs_robot`: the error when the scene has no robot, raised before any projecting;
    `roles`: project only geometry of these roles (robot parts have role "robot")."""
    poses = absolute_poses(scene, opts.configuration)

    def tag_role(tags: tuple[str, ...]) -> str | None:
        # User mappings beat the defaults; within each, the first (most direct) tag wins.
        for table in (opts.roles, DEFAULT_TAG_ROLES):
            for t in tags:
                if t in table:
                    return table[t]
        return None

    robot_names = _robot_frames(scene, opts, tag_role, sink)
    if needs_robot and not robot_names:  # a precondition: no seconds of work before saying so
        where, hint = no_robot_help(scene)
        raise sink.fatal(needs_robot, where, hint)
    owner = _robot_owners(scene, robot_names)
    robots: dict[str, Robot] = {}
    for name in robot_names:
        f = scene.frame(name)
        q, v = poses[name]
        rot = quat_to_matrix(q)
        robots[name] = Robot(f, tuple(v), _heading(rot, f, sink), rot)

    footprints: list[Footprint] = []
    from robrayc.progress import terminal_bar

    progress = terminal_bar(sum(len(f.geometries) for f in scene.frames), "projecting",
                            "geometry")
    for f in scene.frames:
        belongs = owner.get(f.name)
        frame_role = tag_role(f.tags)
        for i, g in enumerate(f.geometries):
            if isinstance(g.shape, ir.Grid):
                continue  # a drawing aid, never an obstacle
            role = tag_role(g.tags) or (frame_role if frame_role in GEOMETRY_ROLES else None)
            if role == "ignore":
                continue
            if belongs is not None:
                role = "robot"
            elif role is None or role in SENSOR_KINDS or role == "robot":
                role = "wall" if g.collision else "decorative" if g.visual else "ignore"
                if role == "ignore":
                    continue
            if roles is not None and role not in roles:  # a footprint nobody reads
                if belongs is not None and robots[belongs].unprojected_color is None:
                    robots[belongs].unprojected_color = g.color
                continue
            poly, zlo, zhi = geometry_footprint(g, poses[f.name], opts, sink)
            if poly is None:
                continue
            fp = Footprint(f, g, i, role, poly, zlo, zhi, belongs)
            if belongs is not None:
                robots[belongs].parts.append(fp)
            else:
                footprints.append(fp)
        progress(len(f.geometries))
        if belongs is not None:
            kind = frame_role if frame_role in SENSOR_KINDS else None
            for g in f.geometries:
                if kind is None:
                    r = tag_role(g.tags)
                    kind = r if r in SENSOR_KINDS else None
            if kind is not None:
                robots[belongs].sensors.append(_sensor(robots[belongs], f, kind, poses))
        elif frame_role in SENSOR_KINDS:
            sink.warning(f"frame '{f.name}' is tagged as a '{frame_role}' sensor but is not "
                         "part of a robot; ignored", f.pos,
                         "put it below a frame whose geometry is tagged 'robot'", name="projection")
    _warn_unused_roles(scene, opts, sink)
    progress(-1)
    return Projection(footprints, [robots[n] for n in robot_names], opts, poses)


def _warn_unused_roles(scene: ir.Scene, opts: ProjectionOptions, sink: DiagnosticSink) -> None:
    """A --role TAG=ROLE whose tag no frame or geometry has (a typo must not go unnoticed)."""
    all_tags = {t for f in scene.frames for t in f.tags} | {
        t for f in scene.frames for g in f.geometries for t in g.tags}
    for tag in opts.roles:
        if tag not in all_tags:
            sink.warning(f"--role {tag}={opts.roles[tag]}: no frame or geometry has class "
                         f"'{tag}'", NOWHERE, suggest(tag, sorted(all_tags)), name="projection")


def _robot_frames(scene: ir.Scene, opts: ProjectionOptions, tag_role, sink) -> list[str]:
    """Frames that are robot start poses, outermost only, in frame order."""
    marked: set[str] = set()
    for name in opts.robot_frames:
        if not scene.has_frame(name):
            sink.error(f"--robot-frame: no frame named '{name}'", NOWHERE,
                       suggest(name, [f.name for f in scene.frames]))
        marked.add(name)
    sink.check()
    for f in scene.frames:
        if tag_role(f.tags) == "robot" or any(tag_role(g.tags) == "robot" for g in f.geometries):
            marked.add(f.name)
    out = []
    for f in scene.frames:  # parents first: an ancestor is always decided before its children
        if f.name in marked and not _has_ancestor(scene, f, marked):
            out.append(f.name)
    return out


def _has_ancestor(scene: ir.Scene, f: ir.Frame, names: set[str]) -> bool:
    p = f.parent
    while p is not None and scene.has_frame(p):
        if p in names:
            return True
        p = scene.frame(p).parent
    return False


def _robot_owners(scene: ir.Scene, robots: list[str]) -> dict[str, str]:
    owner: dict[str, str] = {}
    rset = set(robots)
    for f in scene.frames:  # parents first
        if f.name in rset:
            owner[f.name] = f.name
        elif f.parent is not None and f.parent in owner:
            owner[f.name] = owner[f.parent]
    return owner


def _heading(rot, frame: ir.Frame, sink: DiagnosticSink) -> float:
    x, y = rot[0][0], rot[1][0]
    if math.hypot(x, y) < 1e-9:
        sink.warning(f"the +X axis of robot frame '{frame.name}' points straight up or down; "
                     "heading taken as 0", frame.pos, name="projection")
        return 0.0
    return math.atan2(y, x)


def _sensor(robot: Robot, f: ir.Frame, kind: str, poses: dict) -> Sensor:
    from robrayc.kinematics import compose, inverse

    rel_q, rel_v = compose(inverse(poses[robot.name]), poses[f.name])
    # Heading in the robot's XY plane: the sensor's +X axis expressed in the robot frame.
    m = quat_to_matrix(rel_q)
    return Sensor(f, kind, tuple(rel_v), math.atan2(m[1][0], m[0][0]))


# --- polygon helpers for the writers ------------------------------------------------------------
def parts(geom) -> list:
    """The polygons of a Polygon or MultiPolygon."""
    if geom is None or geom.is_empty:
        return []
    if geom.geom_type == "Polygon":
        return [geom]
    return [g for g in geom.geoms if g.geom_type == "Polygon" and not g.is_empty]


def ring_points(ring) -> list[tuple[float, float]]:
    """A ring's vertices without the closing repeat."""
    coords = list(ring.coords)
    if len(coords) > 1 and coords[0] == coords[-1]:
        coords = coords[:-1]
    return [(float(x), float(y)) for x, y in coords]


def rings(geom) -> list[list[tuple[float, float]]]:
    """Every boundary ring (exteriors counter-clockwise, then holes) of a (multi)polygon."""
    from shapely.geometry.polygon import orient

    out = []
    for p in parts(geom):
        p = orient(p, 1.0)
        out.append(ring_points(p.exterior))
        out.extend(ring_points(h) for h in p.interiors)
    return out


def edges(geom) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """Every boundary edge of a (multi)polygon."""
    out = []
    for ring in rings(geom):
        for i, a in enumerate(ring):
            out.append((a, ring[(i + 1) % len(ring)]))
    return out


def comment_text(text: str) -> str:
    """Text safe inside a one-line comment of any format (no controls, no '--' for XML)."""
    out = "".join(c if c.isprintable() else "?" for c in text)
    while "--" in out:
        out = out.replace("--", "-")
    return out


def no_robot_help(scene: ir.Scene) -> tuple[SourcePos, str]:
    """Where to point and what to suggest when a format needs a robot and the scene has none:
    the first frame, as the example of a frame that could be one."""
    first = scene.frames[0] if scene.frames else None
    where = first.pos if first is not None else (
        SourcePos(scene.sources[0]) if scene.sources else NOWHERE)
    name = first.name if first is not None else "FRAME"
    return where, ("make a frame a robot start pose: tag its geometry with a 'robot' class "
                   "(class robot { } ... geometry { isa robot; ... }) or pass --robot-frame "
                   f"{name}")


def source_names(scene: ir.Scene) -> str:
    """The input file names for header comments."""
    names = [s.replace("\\", "/").rsplit("/", 1)[-1] for s in scene.sources[:3]]
    more = len(scene.sources) - 3
    text = ", ".join(names) + (f" and {more} more" if more > 0 else "")
    return comment_text(text) or "(no files)"


def project_for(scene: ir.Scene, ctx, needs_robot: str | None = None,
                roles: tuple[str, ...] | None = None) -> Projection:
    """The projection with a 2D backend's options (ctx.options.projection, built by
    options_from); errors stop the compilation. See project_scene for the rest."""
    proj = project_scene(scene, ctx.options.projection, ctx.sink, needs_robot, roles)
    ctx.sink.check()
    return proj
