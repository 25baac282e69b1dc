"""SimMeR configuration (a directory: SimMeR's ``config`` folder), as SimMeR v0.2 reads it.

* ``maze.csv``: rows x columns of 1-ft cells, row 1 the NORTH (top) row: 0 wall, 1 empty,
  2 robot start, 3 block. A cell is a wall when walls cover at least ``--fill`` of it (default
  0.5). The grid's south-west corner and size come from ``--maze-origin X,Y`` (metres) and
  ``--maze-size COLSxROWS``, else the corner of the bounds of the walls, blocks and robot and
  SimMeR's size: ``import_maze.m`` hard-codes an 8 x 4 ft maze (it needs at least 4 rows of 8
  cells and ignores the rest), so a scene needing more is an error ("maze too large") unless
  ``--maze-size`` says so; anything outside an explicit grid is an error too. Objects may
  overhang the grid by less than ``--fill`` of a cell: that cannot fill a cell outside it (a
  wall on the maze's edge joins SimMeR's own outer wall).
* ``robot.csv``: circle (0) or rectangle (1) from the robot's footprint in its own frame,
  centred on the robot frame (diameter = twice the farthest point; rectangle = twice the
  farthest |x| and |y|), inches; SimMeR rejects robots over 12 in.
* ``sensors.csv``: frames below the robot tagged ``ultra``, ``ir``, ``comp``, ``odom``, ``gyro``:
  ids are the type plus one digit (SimMeR strips one character), poll characters a letter and
  that digit; positions in inches in the robot frame, rotation in degrees counter-clockwise
  from the robot's +X, error/field of view/threshold from the manual's sample (overridable with
  ``--sensor-error``/``--sensor-fov``/``--sensor-threshold TYPE=VALUE``).
* ``drive.csv``: the manual's default drive table.
* ``main_setup.m``: ``bot_center``, ``bot_rot``, ``block_center`` and ``blocksize`` to paste into
  SimMeR's Main.m, which does not read them from the maze.

The 2D options (``--z-min`` etc.) are added by the cs2 backend and read here too.
"""

from __future__ import annotations

import argparse
import math
import re

from robrayc import __version__, ir
from robrayc.analysis.projection import (
    M_PER_FT,
    M_PER_IN,
    SENSOR_KINDS,
    Footprint,
    Projection,
    ProjectionOptions,
    Robot,
    degrees,
    fmt,
    no_robot_help,
    options_from,
    project_for,
    rings,
    source_names,
)
from robrayc.backends import EmitContext, OutputFile
from robrayc.diagnostics import NOWHERE, DiagnosticSink, suggest
from robrayc.records import record

NAME = "simmer"
HELP = "SimMeR configuration folder (maze.csv, robot.csv, sensors.csv, drive.csv; inches)"
DIRECTORY = True

SIMMER_MAZE = (8, 4)  # dim1 x dim2 in import_maze.m (columns x rows, feet)
MAX_ROBOT_IN = 12.0  # import_bot.m rejects larger robots
WALL, EMPTY, START, BLOCK = 0, 1, 2, 3

SENSOR_HEADER = ("ID,Poll Character,Enabled,X Position (in),Y Position (in),Z Position (in),"
                 "Rotation (deg),Percent Error (0-1),Field of View (deg),Threshold")
POLL_LETTER = {"ultra": "u", "ir": "i", "comp": "c", "odom": "o", "gyro": "g"}
# (percent error, field of view, threshold) per type, from the manual's sample sensors.csv
SENSOR_DEFAULTS = {
    "ultra": (0.02, 5.0, 0.0), "ir": (0.05, 40.0, 0.8), "comp": (0.1, 0.0, 0.0),
    "odom": (0.02, 0.0, 0.0), "gyro": (0.01, 0.0, 0.0),
}
DRIVE_CSV = ("ID,Poll Character,Enabled,Y-Axis Error,X-Axis Error,Rotation Error,Y-Axis Bias,"
             "X-Axis Bias,Rotation Bias\n") + """\
up,w1,1,0.05,0.02,0.02,0,0,0
down,s1,1,0.05,0.02,0.02,0,0,0
left,a1,1,0.02,0.05,0.02,0,0,0
right,d1,1,0.02,0.05,0.02,0,0,0
rot,r1,1,0.003,0.003,0.02,0,0,0
"""  # the manual's Figure 2 (and SimMeR's config/drive.csv)
SAMPLE_ROBOT_CSV = ("circle (0) / rectangle (1),0\ndiameter/x-size,6\n"
                    "unused/y-size,6\n")  # SimMeR's config/robot.csv
EPS = 1e-9


def add_arguments(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--maze-origin", metavar="X,Y",
                       help="SimMeR: south-west corner of the maze grid, metres (default: "
                            "from the walls, blocks and robot)")
    group.add_argument("--maze-size", metavar="COLSxROWS",
                       help="SimMeR: maze size in 1-ft cells (default SimMeR's 8x4; larger "
                            "mazes need dim1/dim2 changed in import_maze.m)")
    group.add_argument("--fill", type=float, default=0.5, metavar="F",
                       help="SimMeR: a cell is a wall when walls cover at least F of it "
                            "(default 0.5)")
    group.add_argument("--sensor-error", action="append", default=[], metavar="TYPE=V",
                       help="SimMeR: percent error (0-1) of sensors of TYPE")
    group.add_argument("--sensor-fov", action="append", default=[], metavar="TYPE=V",
                       help="SimMeR: field of view (degrees) of sensors of TYPE")
    group.add_argument("--sensor-threshold", action="append", default=[], metavar="TYPE=V",
                       help="SimMeR: IR threshold (0-1) of sensors of TYPE")
    group.add_argument("--simmer-robot-shape", choices=("auto", "circle", "rectangle"),
                       default="auto", help="SimMeR: robot.csv shape (default: the closer fit)")


@record(frozen=True, slots=True)
class Options:
    projection: ProjectionOptions
    fill: float = 0.5
    robot_shape: str = "auto"
    maze_origin: str | None = None
    maze_size: str | None = None
    sensor_error: tuple[str, ...] = ()
    sensor_fov: tuple[str, ...] = ()
    sensor_threshold: tuple[str, ...] = ()

    @classmethod
    def from_args(cls, ns: argparse.Namespace, sink: DiagnosticSink) -> Options:
        return cls(options_from(ns, sink), fill=ns.fill, robot_shape=ns.simmer_robot_shape,
                   maze_origin=ns.maze_origin, maze_size=ns.maze_size,
                   sensor_error=tuple(ns.sensor_error), sensor_fov=tuple(ns.sensor_fov),
                   sensor_threshold=tuple(ns.sensor_threshold))


def emit(scene: ir.Scene, ctx: EmitContext) -> list[OutputFile]:
    sink = ctx.sink
    if ctx.output is None:
        raise sink.fatal("format simmer writes a directory: give -o DIR")
    settings = _settings(ctx)
    # Walls, blocks and the robot fill the grid; decoration is projected only when there is
    # nothing else to place the grid by (_grid).
    proj = project_for(scene, ctx, roles=SOLID_ROLES)
    if not _solid(proj):
        proj = project_for(scene, ctx)
    robot = proj.robots[0] if proj.robots else None
    if robot is None:
        where, hint = no_robot_help(scene)
        sink.warning("no frame is a robot start pose: robot.csv describes SimMeR's sample "
                     "robot (a 6 in circle) and sensors.csv has no sensors", where, hint,
                     name="no-robot")
    for other in proj.robots[1:]:
        sink.warning(f"SimMeR simulates one robot; '{other.name}' is left out", other.frame.pos,
                     notes=((robot.frame.pos, f"'{robot.name}' is the robot written"),),
                     name="format-loss")
    origin, size = _grid(proj, settings, sink)
    sink.check()
    maze, block = _maze(proj, robot, origin, size, settings["fill"], sink)
    robot_csv = _robot_csv(robot, settings["shape"], sink) if robot else SAMPLE_ROBOT_CSV
    sensors_csv = _sensors_csv(robot, settings, sink) if robot else SENSOR_HEADER + "\n"
    sink.check()
    setup = _setup(scene, robot, block, origin)
    out = ctx.output
    return [OutputFile(out / "maze.csv", maze.encode()),
            OutputFile(out / "robot.csv", robot_csv.encode()),
            OutputFile(out / "sensors.csv", sensors_csv.encode()),
            OutputFile(out / "drive.csv", DRIVE_CSV.encode()),
            OutputFile(out / "main_setup.m", setup.encode())]


def _settings(ctx: EmitContext) -> dict:
    sink, o = ctx.sink, ctx.options
    s: dict = {"fill": o.fill, "shape": o.robot_shape,
               "origin": None, "size": None}
    if not 0 < s["fill"] <= 1:
        sink.error(f"--fill must be in (0, 1], got {s['fill']!r}")
    text = o.maze_origin
    if text is not None:
        m = re.fullmatch(r"\s*([^,\s]+)\s*,\s*([^,\s]+)\s*", text)
        try:
            s["origin"] = (float(m.group(1)), float(m.group(2))) if m else None
        except ValueError:
            s["origin"] = None
        if s["origin"] is None or not all(map(math.isfinite, s["origin"])):
            sink.error(f"--maze-origin expects X,Y in metres, got {text!r}")
    text = o.maze_size
    if text is not None:
        m = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
        if not m:
            sink.error(f"--maze-size expects COLSxROWS (e.g. 8x4), got {text!r}")
        else:
            cols, rows = int(m.group(1)), int(m.group(2))
            if cols < SIMMER_MAZE[0] or rows < SIMMER_MAZE[1]:
                sink.error(f"--maze-size {cols}x{rows} is smaller than SimMeR's maze: "
                           f"import_maze.m reads {SIMMER_MAZE[1]} rows of {SIMMER_MAZE[0]} "
                           "cells")
            elif cols > 1000 or rows > 1000:
                sink.error(f"--maze-size {cols}x{rows} is unreasonably large")
            s["size"] = (cols, rows)
            if (cols, rows) != SIMMER_MAZE:
                sink.warning(f"SimMeR reads an {SIMMER_MAZE[0]} x {SIMMER_MAZE[1]} ft maze; "
                             f"set dim1 = {cols}, dim2 = {rows} in import_maze.m for "
                             f"{cols} x {rows}", name="format-loss")
    s["values"] = {}
    for flag, attr, col in (("--sensor-error", "sensor_error", 0),
                            ("--sensor-fov", "sensor_fov", 1),
                            ("--sensor-threshold", "sensor_threshold", 2)):
        for item in getattr(o, attr):
            kind, sep, value = item.partition("=")
            kind = kind.strip()
            try:
                number = float(value)
            except ValueError:
                number = math.nan
            if not sep or kind not in SENSOR_KINDS or not math.isfinite(number):
                sink.error(f"{flag} expects TYPE=VALUE with TYPE one of "
                           f"{', '.join(SENSOR_KINDS)}, got {item!r}", NOWHERE,
                           suggest(kind, SENSOR_KINDS))
                continue
            s["values"][(kind, col)] = number
    sink.check()
    return s


SOLID_ROLES = ("wall", "block", "robot")


def _solid(proj: Projection) -> list[Footprint]:
    """What the grid must hold: walls, blocks and the robot."""
    return proj.by_role(*SOLID_ROLES) + [p for r in proj.robots for p in r.parts]


def _grid(proj: Projection, s: dict, sink) -> tuple[tuple[float, float], tuple[int, int]]:
    items = _solid(proj) or proj.all_footprints()
    bounds = None
    if items:
        bs = [f.polygon.bounds for f in items]
        bounds = (min(b[0] for b in bs), min(b[1] for b in bs),
                  max(b[2] for b in bs), max(b[3] for b in bs))
    if s["origin"] is not None:
        origin = s["origin"]
    elif bounds is not None:
        origin = (bounds[0], bounds[1])
    else:
        origin = (0.0, 0.0)
    size = s["size"] or SIMMER_MAZE
    x0, y0 = origin
    x1, y1 = x0 + size[0] * M_PER_FT, y0 + size[1] * M_PER_FT
    # An overhang narrower than `fill` of a cell cannot fill any cell outside the grid (a wall
    # on the maze's edge merges with SimMeR's own outer wall): only wider ones are too large.
    tol = (s["fill"] - EPS) * M_PER_FT
    for f in items:
        bx0, by0, bx1, by1 = f.polygon.bounds
        if bx0 < x0 - tol or by0 < y0 - tol or bx1 > x1 + tol or by1 > y1 + tol:
            if s["size"] is None and s["origin"] is None:
                span = (f"{fmt((bounds[2] - bounds[0]) / M_PER_FT, 3)} x "
                        f"{fmt((bounds[3] - bounds[1]) / M_PER_FT, 3)} ft")
                sink.error(f"maze too large: SimMeR's maze is {size[0]} x {size[1]} ft; the "
                           f"walls, blocks and robot span {span}", f.pos,
                           "leave objects out with --z-min/--z-max or --role TAG=ignore, or "
                           "pass --maze-size COLSxROWS after changing dim1/dim2 in "
                           "import_maze.m")
                break  # one error says it: the scene does not fit
            sink.error(f"maze too large: '{f.name}' lies outside the {size[0]} x {size[1]} ft "
                       "maze grid", f.pos, "give a larger --maze-size or another --maze-origin")
    return origin, size


def _cell_of(x: float, y: float, origin, size) -> tuple[int, int] | None:
    """(row from the north, column) of a point, or None outside the grid."""
    fx = (x - origin[0]) / M_PER_FT
    fy = (y - origin[1]) / M_PER_FT
    if not (-EPS <= fx <= size[0] + EPS and -EPS <= fy <= size[1] + EPS):
        return None
    cx = min(max(math.floor(fx), 0), size[0] - 1)
    cy = min(max(math.floor(fy), 0), size[1] - 1)
    return size[1] - 1 - cy, cx


def _maze(proj: Projection, robot: Robot | None, origin, size, fill: float, sink):
    import shapely

    cols, rows = size
    walls = [f.polygon for f in proj.by_role("wall")]
    union = shapely.union_all(walls) if walls else None
    if union is not None:
        shapely.prepare(union)
    cell_area = M_PER_FT * M_PER_FT
    grid = [[EMPTY] * cols for _ in range(rows)]
    for r in range(rows):
        for c in range(cols):
            x0 = origin[0] + c * M_PER_FT
            y0 = origin[1] + (rows - 1 - r) * M_PER_FT
            cell = shapely.box(x0, y0, x0 + M_PER_FT, y0 + M_PER_FT)
            if union is not None and union.intersects(cell):
                if union.intersection(cell).area >= (fill - EPS) * cell_area:
                    grid[r][c] = WALL
    at = _cell_of(robot.position[0], robot.position[1], origin, size) if robot else None
    if robot is not None and at is None:
        sink.error(f"robot '{robot.name}' starts outside the maze grid", robot.frame.pos)
    elif robot is not None:
        if grid[at[0]][at[1]] == WALL:
            sink.warning(f"robot '{robot.name}' starts in a wall cell (row {at[0] + 1}, "
                         f"column {at[1] + 1})", robot.frame.pos, name="simmer-layout")
        grid[at[0]][at[1]] = START
    block = None
    for f in proj.by_role("block"):
        c = f.polygon.centroid
        at = _cell_of(c.x, c.y, origin, size)
        if at is None:
            sink.warning(f"block '{f.name}' has its centre outside the maze grid; not placed",
                         f.pos, name="simmer-layout")
            continue
        if block is None:
            block = f
        if grid[at[0]][at[1]] == START:
            sink.warning(f"block '{f.name}' is in the robot's start cell", f.pos,
                         name="simmer-layout")
            continue
        grid[at[0]][at[1]] = BLOCK
    return "".join(",".join(str(v) for v in row) + "\n" for row in grid), block


def _robot_csv(robot: Robot, shape: str, sink) -> str:
    foot = robot.footprint()
    if foot is None:
        raise sink.fatal(f"robot '{robot.name}' has no footprint", robot.frame.pos,
                         "none of its geometry is projected: check --z-min/--z-max and "
                         "--role ...=ignore")
    local = robot.to_local(foot)
    pts = [pt for ring in rings(local) for pt in ring]
    half_x = max(abs(x) for x, _ in pts)
    half_y = max(abs(y) for _, y in pts)
    radius = max(math.hypot(x, y) for x, y in pts)
    if shape == "auto":  # the closer fit: a rectangle fills its box, a disc pi/4 of it
        minx, miny, maxx, maxy = local.bounds
        fill = local.area / ((maxx - minx) * (maxy - miny))
        shape = "rectangle" if fill > (1 + math.pi / 4) / 2 else "circle"
    if shape == "circle":
        d = 2 * radius / M_PER_IN
        size = (d, d)
        rows = (("circle (0) / rectangle (1)", 0), ("diameter/x-size", d),
                ("unused/y-size", d))
    else:
        size = (2 * half_x / M_PER_IN, 2 * half_y / M_PER_IN)
        rows = (("circle (0) / rectangle (1)", 1), ("diameter/x-size", size[0]),
                ("unused/y-size", size[1]))
    if max(size) > MAX_ROBOT_IN + EPS:
        sink.error(f"robot '{robot.name}' is {fmt(size[0], 3)} x {fmt(size[1], 3)} in; SimMeR "
                   f"accepts robots up to {fmt(MAX_ROBOT_IN)} x {fmt(MAX_ROBOT_IN)} in",
                   robot.frame.pos, "the robot's footprint is measured from its frame origin")
    return "".join(f"{label},{fmt(v)}\n" for label, v in rows)


def _sensors_csv(robot: Robot, s: dict, sink) -> str:
    lines = [SENSOR_HEADER]
    order = sorted(robot.sensors, key=lambda x: SENSOR_KINDS.index(x.kind))  # stable
    count: dict[str, int] = {}
    for sensor in order:
        n = count.get(sensor.kind, 0) + 1
        count[sensor.kind] = n
        if n > 10:
            sink.error(f"more than 10 '{sensor.kind}' sensors: SimMeR ids are the type and "
                       "one character", sensor.frame.pos)
            continue
        digit = str(n % 10)
        x, y, z = (v / M_PER_IN for v in sensor.local)
        err, fov, thr = (s["values"].get((sensor.kind, i), SENSOR_DEFAULTS[sensor.kind][i])
                         for i in range(3))
        lines.append(",".join([sensor.kind + digit, POLL_LETTER[sensor.kind] + digit, "1",
                               fmt(x), fmt(y), fmt(z), fmt(degrees(sensor.heading)),
                               fmt(err), fmt(fov), fmt(thr)]))
    return "\n".join(lines) + "\n"


def _setup(scene: ir.Scene, robot: Robot | None, block: Footprint | None, origin) -> str:
    def inches(x: float, y: float) -> str:
        return f"[{fmt((x - origin[0]) / M_PER_IN)},{fmt((y - origin[1]) / M_PER_IN)}]"

    out = [f"% SimMeR setup values generated by robrayc {__version__} from "
           f"{source_names(scene)}",
           "% Main.m does not read these from the config files: copy them over its",
           "% \"User-editable variables\" (inches from the maze's south-west corner, degrees)."]
    if robot is not None:
        out += [f"bot_center = {inches(robot.position[0], robot.position[1])};  % robot "
                f"'{_m(robot.name)}'",
                f"bot_rot = {fmt(degrees(robot.heading))};"]
    else:
        out.append("% (no robot start pose: keep Main.m's bot_center and bot_rot)")
    if block is not None:
        c = block.polygon.centroid
        minx, miny, maxx, maxy = block.polygon.bounds
        side = max(maxx - minx, maxy - miny) / M_PER_IN
        out += [f"block_center = {inches(c.x, c.y)};  % block '{_m(block.name)}'",
                f"blocksize = {fmt(side)};"]
    else:
        out.append("% (no geometry tagged 'block': keep Main.m's block_center and blocksize)")
    return "\n".join(out) + "\n"


def _m(text: str) -> str:
    """Text safe inside a MATLAB comment."""
    return "".join(c if c.isprintable() else "?" for c in text)
