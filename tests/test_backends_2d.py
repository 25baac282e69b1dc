"""The 2D backends on the shipped maze and the corpus blocks scene: every output is read back
(cs2 by robrayc's .board reader, pySimiam by DTD validation and a re-read following pySimiam's
XMLReader, SimMeR CSVs by shape and values, CajunBot XML and version-1 text re-read, SVG parsed)
and its geometry compared with the projection within 1e-9."""

from __future__ import annotations

import csv
import io
import math
import re
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from robrayc.analysis.projection import (
    M_PER_IN,
    ProjectionOptions,
    edges,
    options_from,
    parts,
    project_scene,
    ring_points,
)
from robrayc.cli.main import build_parser, configuration, main
from robrayc.diagnostics import DiagnosticSink
from robrayc.frontend import load_scene
from tests.corpus import CORPUS, REPO, SHARED, require_corpus

MAZE = REPO / "examples" / "maze.robray"
SPECS = SHARED / "specs"
TOL = 1e-9


def _blocks() -> Path:
    require_corpus()
    return CORPUS / "amino" / "demo" / "simple-rx" / "scene" / "table_class.robray"


# name -> (scene file, options): the blocks scene has no robot, so block_b stands in for one,
# and the band starts above the table so that the blocks are not under a table-sized wall.
SCENES = {
    "maze": (lambda: MAZE, []),
    "blocks": (_blocks, ["--robot-frame", "block_b", "--z-min", "0.006"]),
}


@pytest.fixture(params=sorted(SCENES))
def case(request):
    path_fn, args = SCENES[request.param]
    return request.param, path_fn(), list(args)


def _spec(name: str) -> str:
    path = SPECS / name
    if not path.is_file():
        require_corpus()  # skips (or fails in CI) when ../shared is missing
        pytest.skip(f"{path} missing")
    return path.read_text(encoding="utf-8")


def _compile(path: Path, args: list[str]) -> int:
    return main([str(path), *args])


def _projection(path: Path, args: list[str]):
    ns = build_parser().parse_args([str(path), *args])
    ns.configuration = configuration(ns)
    sink = DiagnosticSink()
    opts = options_from(ns, sink)
    return project_scene(load_scene([str(path)]), opts, sink)


def _match(expected: list, got: list, key, what: str) -> None:
    """Every expected item has a distinct counterpart within TOL, and nothing else is there."""
    assert len(expected) == len(got), f"{what}: {len(expected)} expected, {len(got)} written"
    left = list(got)
    for e in expected:
        for i, g in enumerate(left):
            if key(e, g) <= TOL:
                del left[i]
                break
        else:
            raise AssertionError(f"{what}: nothing written matches {e}")


def _seg_distance(a, b) -> float:
    (p, q), (r, s) = a, b
    same = max(math.dist(p, r), math.dist(q, s))
    flipped = max(math.dist(p, s), math.dist(q, r))
    return min(same, flipped)


# --- cs2 ----------------------------------------------------------------------------------------
def _board_segment(frame) -> tuple:
    """(start, end) of a line read back from a board (a box along the segment)."""
    box = frame.geometries[0].shape
    x, y, _ = frame.translation
    qz, qw = frame.quaternion[2], frame.quaternion[3]
    yaw = 2 * math.atan2(qz, qw)
    dx, dy = box.dimension[0] / 2 * math.cos(yaw), box.dimension[0] / 2 * math.sin(yaw)
    return ((x - dx, y - dy), (x + dx, y + dy))


def test_cs2_writes_what_cs2_reads(case, tmp_path: Path) -> None:
    name, path, args = case
    out = tmp_path / f"{name}.board"
    assert _compile(path, [*args, "-o", str(out)]) == 0
    text = out.read_text()
    commands = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
    assert commands[0] == "set-units cm"
    zs = []
    for ln in commands:
        assert "\t" not in ln and "  " not in ln and ln == ln.strip()  # single spaces only
        word, *args_ = ln.split(" ")
        assert word in {"line", "dec-line", "dec-rect", "tape", "pen", "brush", "set-z",
                        "set-units"}
        if word == "pen":
            assert re.fullmatch(r"#[0-9a-f]{6}", args_[0]) and args_[1].isdigit()
        if word == "brush":
            assert re.fullmatch(r"#[0-9a-f]{6}", args_[0])
        if word == "set-z":
            zs.append(float(args_[0]))
    assert zs == sorted(zs)  # Qt paints larger z on top: higher solids come later

    proj = _projection(path, args)
    scene = load_scene([str(out)])
    frames = {f.name: f for f in scene.frames}
    kinds: dict[str, list] = {"wall": [], "dec_rect": [], "dec_line": [], "tape": []}
    for fname, f in frames.items():
        kind = re.fullmatch(rf"{name}_(\w+?)_\d+", fname).group(1)
        kinds[kind].append(f)
    walls = [e for fp in proj.by_role("wall", "block") for e in edges(fp.polygon)]
    _match(walls, [_board_segment(f) for f in kinds["wall"]], _seg_distance, "walls")
    rects = [fp.polygon.bounds for fp in proj.by_role("decorative", "marker")]

    def rect_of(f):
        d = f.geometries[0].shape.dimension
        x, y = f.translation[:2]
        return (x - d[0] / 2, y - d[1] / 2, x + d[0] / 2, y + d[1] / 2)

    _match(rects, [rect_of(f) for f in kinds["dec_rect"]],
           lambda a, b: max(abs(u - v) for u, v in zip(a, b, strict=True)), "dec-rects")
    assert not kinds["dec_line"]  # every decorative footprint here is an axis-aligned rectangle
    for f in kinds["wall"] + kinds["dec_rect"]:
        assert not f.geometries[0].collision == (f in kinds["dec_rect"])
    # tape: the strip's centre line, pen as wide as the strip
    tapes = proj.by_role("tape")
    assert len(tapes) == len(kinds["tape"])
    for fp, f in zip(tapes, kinds["tape"], strict=True):
        ring = ring_points(fp.polygon.exterior)
        sides = [(ring[i], ring[(i + 1) % 4]) for i in range(4)]
        short = sorted(sides, key=lambda s: math.dist(*s))[:2]
        mids = tuple(((a[0] + b[0]) / 2, (a[1] + b[1]) / 2) for a, b in short)
        assert _seg_distance(mids, _board_segment(f)) <= TOL
        width = math.dist(*short[0])
        assert f.geometries[0].shape.dimension[1] == round(width * 100) / 100
        assert "tape" in f.geometries[0].tags
    # drawing order survives: each item's top is its set-z
    tops = sorted({round(fp.z_high, 9) for fp in proj.footprints})
    assert sorted({round(f.translation[2] + 0.0005, 9) for f in scene.frames}) == tops


def test_maze_board_robot_comment(tmp_path: Path) -> None:
    out = tmp_path / "maze.board"
    assert main([str(MAZE), "-o", str(out)]) == 0
    assert "# robot 'robot' starts at 15.24 -106.68 heading 0 deg (board axes)" in \
        out.read_text().splitlines()


BOARD = """\
set-units in
# a comment line
pen white 1
brush transparent
set-z -1.0
dec-rect 0 0 10 5
pen #808090 3
set-z 1
line 0 0  10 0
line\t0 0 1 1
pen black 0.5
tape 1 1 1 4
frobnicate 1
pen #0f0 2
dec-line 0 2 3 2
"""


def test_board_reader_follows_cs2(tmp_path: Path) -> None:
    path = tmp_path / "kipr.board"
    path.write_text(BOARD)
    sink = DiagnosticSink()
    scene = load_scene([str(path)], sink=sink)
    f = {fr.name: fr for fr in scene.frames}
    assert sorted(f) == ["kipr_dec_line_15", "kipr_dec_rect_6", "kipr_tape_12", "kipr_wall_9"]
    rect = f["kipr_dec_rect_6"]
    g = rect.geometries[0]
    assert g.shape.dimension[:2] == pytest.approx((0.254, 0.127), abs=TOL)  # inches -> m
    assert rect.translation == pytest.approx((0.127, -0.0635, -0.01 - 0.0005), abs=TOL)
    assert g.alpha == 0 and not g.collision  # brush transparent; decorative
    wall = f["kipr_wall_9"]  # two spaces between tokens are one separator, as Qt splits
    assert wall.geometries[0].collision
    assert wall.geometries[0].shape.dimension[:2] == pytest.approx((0.254, 0.03), abs=TOL)
    assert wall.geometries[0].color == pytest.approx((0x80 / 255, 0x80 / 255, 0x90 / 255))
    assert wall.translation[2] == pytest.approx(0.01 - 0.0005, abs=TOL)
    tape = f["kipr_tape_12"]  # pen width 0.5 reads as 0: a cosmetic pen
    assert tape.geometries[0].tags == ("tape",)
    assert tape.geometries[0].shape.dimension[:2] == pytest.approx((0.0762, 0.001), abs=TOL)
    assert f["kipr_dec_line_15"].geometries[0].color == pytest.approx((0, 1, 0))
    warnings = [(d.pos.line, d.pos.col, d.message) for d in sink.items]
    assert [w[:2] for w in warnings] == [(10, 1), (11, 11), (13, 1)]
    assert "unknown board command" in warnings[0][2] and "0.5" in warnings[1][2]
    assert sink.items[0].hint.startswith("cs2 splits on spaces only")


def test_board_reader_bad_number_is_located(tmp_path: Path, capsys) -> None:
    path = tmp_path / "bad.board"
    path.write_text("set-units cm\nline 0 0 1x 4\n")
    assert main([str(path), "-o", str(tmp_path / "x.svg")]) == 1
    err = capsys.readouterr().err
    assert f"{path}:2:10: error: expected a number, got '1x'" in err
    assert "^~" in err


# --- pySimiam -----------------------------------------------------------------------------------
# The documented DTD requires <supervisor> in <robot> but never declares it; pySimiam's reader
# reads its `type` attribute. Completed with exactly that, the DTD validates strictly.
SUPERVISOR_DECL = "<!ELEMENT supervisor EMPTY>\n<!ATTLIST supervisor type CDATA #REQUIRED>\n"


def _pysimiam_dtd(complete: bool = True):
    from lxml import etree

    text = _spec("pysimiam-world-file.rst")
    block = textwrap.dedent(text.split(".. code-block:: dtd", 1)[1].split(".. [#", 1)[0])
    return etree.DTD(io.StringIO(block + (SUPERVISOR_DECL if complete else "")))


def _read_world(path: Path) -> list[dict]:
    """pySimiam's XMLReader._parse_simulation, minus the simulator classes."""
    def color(c):
        if c is None:
            return None
        if c[0] == "#":
            return int(c[1:], 16)
        raise ValueError(f"bad color {c}")  # names other than 4 would fail; we write hex

    root = ET.parse(path).getroot()
    out = []
    for robot in root.findall("robot"):
        pose = robot.find("pose")
        out.append({"type": "robot", "class": robot.get("type"),
                    "supervisor": robot.find("supervisor").attrib["type"],
                    "pose": tuple(float(pose.get(k)) for k in ("x", "y", "theta")),
                    "color": color(robot.get("color"))})
    for tag in ("obstacle", "marker"):
        for item in root.findall(tag):
            points = [(float(p.get("x")), float(p.get("y")))
                      for p in item.find("geometry").findall("point")]
            if len(points) < 3:
                raise ValueError("Too few points!")
            pose = item.find("pose")
            out.append({"type": tag, "points": points, "color": color(item.get("color")),
                        "pose": tuple(float(pose.get(k)) for k in ("x", "y", "theta"))})
    return out


def test_pysimiam_validates_and_rereads(case, tmp_path: Path) -> None:
    from lxml import etree

    name, path, args = case
    out = tmp_path / f"{name}.xml"
    assert _compile(path, [*args, "--format", "pysimiam", "-o", str(out)]) == 0
    dtd = _pysimiam_dtd()
    assert dtd.validate(etree.parse(str(out))), str(dtd.error_log)
    raw = _pysimiam_dtd(complete=False)  # as documented: only the missing declaration fails
    raw.validate(etree.parse(str(out)))
    assert {e.message for e in raw.error_log} == {
        "No declaration for element supervisor",
        "No declaration for attribute type of element supervisor"}
    items = _read_world(out)
    proj = _projection(path, args)
    robots = [i for i in items if i["type"] == "robot"]
    assert [(r["class"], r["supervisor"]) for r in robots] == \
        [("Khepera3", "K3DefaultSupervisor")] * len(proj.robots)
    for r, pr in zip(robots, proj.robots, strict=True):
        expect = (pr.position[0], pr.position[1], pr.heading)
        assert max(abs(a - b) for a, b in zip(r["pose"], expect, strict=True)) <= TOL
    for tag, roles in (("obstacle", ("wall", "block")),
                       ("marker", ("decorative", "marker", "tape"))):
        expected = [(ring_points(p.exterior), fp.geometry.color)
                    for fp in proj.by_role(*roles) for p in parts(fp.polygon)]
        got = [i for i in items if i["type"] == tag]
        assert len(got) == len(expected)
        for (ring, rgb), item in zip(expected, got, strict=True):
            x0, y0, th = item["pose"]
            world = [(x0 + math.cos(th) * x - math.sin(th) * y,
                      y0 + math.sin(th) * x + math.cos(th) * y) for x, y in item["points"]]
            assert len(world) == len(ring) >= 3
            assert max(math.dist(a, b) for a, b in zip(ring, world, strict=True)) <= TOL
            assert item["color"] == int("".join(f"{round(c * 255):02x}" for c in rgb), 16)


def test_pysimiam_without_robot_is_an_error(tmp_path: Path, capsys) -> None:
    path = _blocks()
    out = tmp_path / "w.xml"
    assert main([str(path), "--format", "pysimiam", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    # pointed at the first frame, as an example of a frame that could be the robot
    assert f"{path}:16:7: error: pySimiam needs a robot" in err
    assert "--robot-frame front_table" in err
    assert not out.exists()


def test_pysimiam_classes_and_options(tmp_path: Path) -> None:
    out = tmp_path / "w.xml"
    assert main([str(MAZE), "--format", "pysimiam", "--robot-type", "QuickBot",
                 "--supervisor", "week7_solved.QBFullSupervisor",
                 "--robot-options", '{"a": 1}', "-o", str(out)]) == 0
    robot = ET.parse(out).getroot().find("robot")
    assert robot.get("type") == "QuickBot" and robot.get("options") == '{"a": 1}'
    assert robot.find("supervisor").get("type") == "week7_solved.QBFullSupervisor"


# --- SimMeR -------------------------------------------------------------------------------------
def _manual_table(first_header: str) -> list[list[str]]:
    """A table of the SimMeR manual: its header row (row 1) and data rows."""
    rows = []
    lines = _spec("simmer-manual.md").splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith(f"1\t{first_header}"))
    for ln in lines[start:]:
        cells = ln.split("\t")
        if not cells[0].isdigit() or len(cells) < 5:
            break
        rows.append([c.strip() for c in cells[1:]])
    return rows


def _csv(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text())))


MAZE_CSV = [  # SimMeR's sample maze walls, robot (2) and block (3) where the example puts them
    [2, 1, 1, 1, 0, 1, 0, 1],
    [1, 1, 0, 1, 1, 1, 1, 1],
    [1, 0, 1, 0, 0, 1, 0, 1],
    [1, 3, 1, 1, 1, 1, 0, 1],
]


def test_simmer_maze(tmp_path: Path) -> None:
    out = tmp_path / "config"
    assert main([str(MAZE), "--format", "simmer", "-o", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "drive.csv", "main_setup.m", "maze.csv", "robot.csv", "sensors.csv"]
    assert [[int(c) for c in row] for row in _csv(out / "maze.csv")] == MAZE_CSV
    assert _csv(out / "robot.csv") == [["circle (0) / rectangle (1)", "0"],
                                       ["diameter/x-size", "6"], ["unused/y-size", "6"]]
    setup = (out / "main_setup.m").read_text()
    assert "bot_center = [6,42];" in setup and "bot_rot = 0;" in setup
    assert "block_center = [18,6];" in setup and "blocksize = 3;" in setup
    sensors = _csv(out / "sensors.csv")
    header, *rows = sensors
    manual = _manual_table("ID\tPoll Character\tEnabled\tX Position")
    assert header == manual[0]
    got = {r[0]: r[1:] for r in rows}
    assert list(got) == ["ultra1", "ultra2", "ultra3", "ultra4", "ir1", "comp1", "odom1",
                         "gyro1"]
    expect_pose = {"ultra1": (3, 0, 6, 0), "ultra2": (0, 3, 6, 90), "ultra3": (-3, 0, 6, 180),
                   "ultra4": (0, -3, 6, 270), "ir1": (2, 0, 1, 0), "comp1": (0, 0, 6, 0),
                   "odom1": (0, 3, 1, 90), "gyro1": (0, 0, 4, 0)}
    proj = _projection(MAZE, [])
    local = {s.frame.name: s for s in proj.robots[0].sensors}
    names = ["sonar_front", "sonar_left", "sonar_back", "sonar_right", "line_front",
             "compass", "wheel_left", "gyroscope"]
    # the manual's first row of each type gives its error, field of view and threshold
    defaults = {re.sub(r"\d$", "", r[0]): r[7:10] for r in reversed(manual[1:])}
    for (sid, cells), fname in zip(got.items(), names, strict=True):
        assert len(sid) == len(re.sub(r"\d$", "", sid)) + 1  # type + ONE character
        assert cells[0] == sid[0] + sid[-1] and cells[1] == "1"
        assert tuple(float(c) for c in cells[2:6]) == expect_pose[sid]
        s = local[fname]
        assert max(abs(float(c) - v / M_PER_IN) for c, v in zip(cells[2:5], s.local,
                                                                  strict=True)) <= TOL
        assert [float(c) for c in cells[6:9]] == [float(c) for c in defaults[sid[:-1]]]
    polls = [r[1] for r in rows] + [r[1] for r in _csv(out / "drive.csv")[1:]]
    assert len(set(polls)) == len(polls) and all(len(p) == 2 for p in polls)
    assert _csv(out / "drive.csv") == _manual_table("ID\tPoll Character\tEnabled\tY-Axis")


def test_simmer_blocks(tmp_path: Path) -> None:
    path, args = _blocks(), SCENES["blocks"][1]
    out = tmp_path / "config"
    assert main([str(path), *args, "--format", "simmer", "-o", str(out)]) == 0
    maze = [[int(c) for c in row] for row in _csv(out / "maze.csv")]
    assert len(maze) == 4 and all(len(r) == 8 for r in maze)  # padded to SimMeR's 8 x 4 ft
    proj = _projection(path, args)
    (block,) = proj.by_role("block")
    minx, miny = min(block.polygon.bounds[0], proj.robots[0].footprint().bounds[0]), \
        min(block.polygon.bounds[1], proj.robots[0].footprint().bounds[1])

    def cell(x, y):
        return 3 - math.floor((y - miny) / 0.3048), math.floor((x - minx) / 0.3048)

    expect = [[1] * 8 for _ in range(4)]
    r, c = cell(*proj.robots[0].position[:2])
    expect[r][c] = 2
    r, c = cell(block.polygon.centroid.x, block.polygon.centroid.y)
    expect[r][c] = 3
    assert maze == expect
    # block_b as the robot: a 10 cm cube turned a quarter: a 10 cm square
    robot = _csv(out / "robot.csv")
    assert robot[0][1] == "1"
    assert abs(float(robot[1][1]) - 0.1 / M_PER_IN) <= TOL
    assert abs(float(robot[2][1]) - 0.1 / M_PER_IN) <= TOL
    assert _csv(out / "sensors.csv")[1:] == []


def test_simmer_blocks_with_the_table(tmp_path: Path, capsys) -> None:
    # no band: the 75 cm table is a wall covering 2 x 2 cells at least half
    path = _blocks()
    out = tmp_path / "config"
    assert main([str(path), "--robot-frame", "block_b", "--format", "simmer", "-o",
                 str(out)]) == 0
    maze = [[int(c) for c in row] for row in _csv(out / "maze.csv")]
    # origin at the table's corner: cells 0-1 are covered fully, cell 2 by 0.46 ft (< 0.5);
    # the robot stands on the table (a wall cell: warned), the block 2.05 ft east of the corner
    assert maze == [[1] * 8, [1] * 8, [2, 0, 3, 1, 1, 1, 1, 1], [0, 0, 1, 1, 1, 1, 1, 1]]
    assert "robot 'block_b' starts in a wall cell (row 3, column 1)" in capsys.readouterr().err


def test_simmer_fill_and_sensor_options(tmp_path: Path) -> None:
    out = tmp_path / "config"
    assert main([str(MAZE), "--format", "simmer", "--fill", "0.05", "--sensor-fov",
                 "ultra=12.5", "--sensor-error", "gyro=0", "-o", str(out)]) == 0
    maze = [[int(c) for c in row] for row in _csv(out / "maze.csv")]
    # the 1-in outer walls cover 1/12 (sides) or about 1/6 (corners) of the border cells
    assert maze[0] == [2, 0, 0, 0, 0, 0, 0, 0] and maze[1][0] == 0 and maze[1][1] == 1
    rows = {r[0]: r for r in _csv(out / "sensors.csv")[1:]}
    assert rows["ultra3"][8] == "12.5" and rows["gyro1"][7] == "0"


LARGE = """
frame wall_a { translation [0, 0, .1]; geometry { shape box; dimension [.3, .3, .2]; } }
frame wall_b { translation [3, 0, .1];
               geometry { shape box; dimension [.3, .3, .2]; } }
class robot { }
frame bot { translation [0.5, 0.2, 0]; geometry { isa robot; shape sphere; radius .05; } }
"""


def test_simmer_maze_too_large(tmp_path: Path, capsys) -> None:
    path = tmp_path / "large.robray"
    path.write_text(LARGE)
    out = tmp_path / "config"
    assert main([str(path), "--format", "simmer", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:4:" in err and "error: maze too large: SimMeR's maze is 8 x 4 ft" in err
    assert not out.exists()
    assert main([str(path), "--format", "simmer", "--maze-size", "12x4", "--maze-origin",
                 "0.5,-0.5", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:2:" in err and "'wall_a' lies outside the 12 x 4 ft maze grid" in err
    assert main([str(path), "--format", "simmer", "--maze-size", "12x4", "-o",
                 str(out)]) == 0
    err = capsys.readouterr().err
    assert "set dim1 = 12, dim2 = 4 in import_maze.m" in err
    assert all(len(r) == 12 for r in _csv(out / "maze.csv"))


@pytest.mark.parametrize(("args", "text"), [
    (["--maze-size", "4x4"], "smaller than SimMeR's maze"),
    (["--maze-size", "big"], "--maze-size expects COLSxROWS"),
    (["--maze-origin", "1"], "--maze-origin expects X,Y"),
    (["--fill", "0"], "--fill must be in (0, 1]"),
    (["--sensor-fov", "sonar=3"], "--sensor-fov expects TYPE=VALUE"),
    (["--role", "block=wal"], "unknown role 'wal'"),
])
def test_simmer_option_errors(tmp_path: Path, capsys, args, text) -> None:
    assert main([str(MAZE), "--format", "simmer", *args, "-o", str(tmp_path / "c")]) == 1
    assert text in capsys.readouterr().err


def test_simmer_robot_too_large(tmp_path: Path, capsys) -> None:
    path = tmp_path / "big.robray"
    path.write_text("class robot { }\nframe bot {\n  geometry { isa robot; shape box; "
                    "dimension [.4, .1, .1]; }\n}\n")
    assert main([str(path), "--format", "simmer", "-o", str(tmp_path / "c")]) == 1
    err = capsys.readouterr().err
    assert f"{path}:2:7: error: robot 'bot' is 15.748 x 3.937 in" in err


# --- CajunBot -----------------------------------------------------------------------------------
def _obstacle_boxes(proj):
    """(name, centre, size, yaw) of axis-aligned-in-XY boxes, from the projection."""
    out = []
    for fp in proj.by_role("wall", "block"):
        minx, miny, maxx, maxy = fp.polygon.bounds
        out.append((fp.name, ((minx + maxx) / 2, (miny + maxy) / 2, (fp.z_low + fp.z_high) / 2),
                    (maxx - minx, maxy - miny, fp.z_high - fp.z_low)))
    return out


def _v1_objects(text: str) -> list[list[str]]:
    """Split a version-1 object file into objects by following the document's format."""
    lines = [ln.split("//")[0].strip() for ln in text.splitlines()]
    lines = [ln for ln in lines if ln]
    n = int(lines[0])
    i, objects = 1, []
    for _ in range(n):
        kind = int(lines[i])
        if kind == 3:  # mesh: two file names and a waypoint
            objects.append(lines[i:i + 4])
            i += 4
            continue
        size = 1 + (1 if kind != 2 else 0) + 3 + 9
        if kind == 0:
            size += 6
            nsens = int(lines[i + size - 1])
            size += 2 * nsens
        objects.append(lines[i:i + size])
        i += size
    assert i == len(lines)
    return objects


def test_cajunbot_v2_and_v1(case, tmp_path: Path) -> None:
    name, path, args = case
    out = tmp_path / f"{name}.objects.xml"
    assert _compile(path, [*args, "-o", str(out)]) == 0
    root = ET.parse(out).getroot()
    assert root.tag == "object_file" and root.find("name").text == name
    objects = root.findall("object")
    proj = _projection(path, args)
    auto = [o for o in objects if o.get("type") == "autonomous"]
    static = [o for o in objects if o.get("type") == "static"]
    assert len(auto) == len(proj.robots) == 1
    assert len(static) == len(proj.by_role("wall", "block"))
    common = ["name", "start_position", "position_offset", "orientation_offset", "size"]
    for o in static:
        assert [c.tag for c in o] == common
    assert [c.tag for c in auto[0]] == [*common, "wheels", "steering"]
    # every obstacle here is a box turned about Z by a multiple of 90 degrees: its footprint
    # bounds are its centre and size (x and y swapped for a quarter turn)

    def xyz(el):
        return tuple(float(el.get(k)) for k in "xyz")

    def got(o):
        return (o.find("name").text, xyz(o.find("position_offset")), xyz(o.find("size")),
                xyz(o.find("orientation_offset")))

    expected = {n: (c, s) for n, c, s in _obstacle_boxes(proj)}
    for o in static:
        n, c, s, rpy = got(o)
        assert o.get("shape") == "box"
        ec, es = expected[n]
        assert max(abs(a - b) for a, b in zip(c, ec, strict=True)) <= TOL
        if round(rpy[2]) % 180 == 90:
            s = (s[1], s[0], s[2])
        assert max(abs(a - b) for a, b in zip(s, es, strict=True)) <= TOL
    robot = proj.robots[0]
    n, c, s, rpy = got(auto[0])
    assert n == robot.name
    bounds = robot.footprint().bounds
    assert abs(c[0] - (bounds[0] + bounds[2]) / 2) <= TOL
    assert abs(rpy[2] - math.degrees(robot.heading)) <= TOL

    v1 = tmp_path / f"{name}.obj"
    assert _compile(path, [*args, "--format", "cajunbot", "--cajunbot-version", "1", "-o",
                           str(v1)]) == 0
    items = _v1_objects(v1.read_text())
    assert len(items) == len(objects)
    for item, o in zip(items, objects, strict=True):
        _, c, s, rpy = got(o)
        nums = [float(v) for v in item[-9:]] if item[0] == "2" else \
            [float(v) for v in item[5:14]]
        assert nums == [*c, *s, *rpy]


CONE_SCENE = """
frame spike { translation [1, 2, 0];
              geometry { shape cone; height .5; start_radius .2; end_radius 0; } }
frame barrel { translation [0, 0, .3]; rpy [90 * deg, 0, 0];
               geometry { shape cylinder; height -.6; radius .1; } }
frame ball { translation [0, 1, .5]; geometry { shape sphere; radius .25; } }
"""


def test_cajunbot_shapes_and_mesh_files(tmp_path: Path, capsys) -> None:
    path = tmp_path / "shapes.robray"
    path.write_text(CONE_SCENE)
    out = tmp_path / "shapes.objects.xml"
    assert main([str(path), "--cajunbot-start", "1,2,3", "-o", str(out)]) == 0
    assert "no robot" in capsys.readouterr().err  # a warning: the file is still written
    objects = {o.find("name").text: o for o in ET.parse(out).getroot().findall("object")}
    mesh = objects["spike"]
    assert mesh.get("type") == "mesh" and mesh.find("vertices").get("path") == "base"
    verts = [tuple(map(float, ln.split()))
             for ln in (tmp_path / mesh.find("vertices").text).read_text().splitlines()]
    tris = [tuple(map(int, ln.split()))
            for ln in (tmp_path / mesh.find("indices").text).read_text().splitlines()]
    assert all(0 <= i < len(verts) for t in tris for i in t)
    proj = _projection(path, [])
    spike = next(f for f in proj.footprints if f.frame.name == "spike")
    xs, ys = [v[0] for v in verts], [v[1] for v in verts]
    assert max(abs(a - b) for a, b in zip((min(xs), min(ys), max(xs), max(ys)),
                                          spike.polygon.bounds, strict=True)) <= TOL
    barrel = objects["barrel"]
    assert barrel.get("shape") == "cylinder"
    # the frame turns +Z to -Y; height -0.6 runs along +Y: the centre is 0.3 m along +Y
    centre = tuple(float(barrel.find("position_offset").get(k)) for k in "xyz")
    assert max(abs(a - b) for a, b in zip(centre, (0, 0.3, 0.3), strict=True)) <= TOL
    assert [barrel.find("size").get(k) for k in "xyz"] == ["0.2", "0.2", "0.6"]
    assert [objects["ball"].find("size").get(k) for k in "xyz"] == ["0.5"] * 3
    assert objects["ball"].find("start_position").get("segment") == "0"
    # to standard output a mesh object cannot be written: its files need a place
    assert main([str(path), "--format", "cajunbot"]) == 1
    assert "give -o FILE" in capsys.readouterr().err


def test_cajunbot_robot_sized_by_collision_geometry(tmp_path: Path) -> None:
    """A `collision 0` sensor on a mast must not make the autonomous box taller."""
    path = tmp_path / "bot.robray"
    path.write_text("class robot { }\n"
                    "frame bot { translation [1, 2, 0.1];\n"
                    "  geometry { isa robot; shape box; dimension [0.4, 0.3, 0.2]; } }\n"
                    "frame mast { parent bot; translation [0, 0, 1];\n"
                    "  geometry { isa robot; collision 0; shape sphere; radius 0.05; } }\n")
    out = tmp_path / "bot.objects.xml"
    assert main([str(path), "-o", str(out)]) == 0
    bot = next(o for o in ET.parse(out).getroot().findall("object")
               if o.get("type") == "autonomous")
    assert [bot.find("size").get(k) for k in "xyz"] == ["0.4", "0.3", "0.2"]
    centre = [float(bot.find("position_offset").get(k)) for k in "xyz"]
    assert max(abs(a - b) for a, b in zip(centre, (1, 2, 0.1), strict=True)) <= TOL


# --- SVG ----------------------------------------------------------------------------------------
def test_svg_preview(case, tmp_path: Path) -> None:
    name, path, args = case
    out = tmp_path / f"{name}.svg"
    assert _compile(path, [*args, "--svg-scale", "500", "-o", str(out)]) == 0
    ns = {"s": "http://www.w3.org/2000/svg"}
    root = ET.parse(out).getroot()
    proj = _projection(path, args)
    paths = [p for p in root.iter("{http://www.w3.org/2000/svg}path")
             if p.get("class") != "robot"]
    assert [p.get("class") for p in paths] == \
        [f.role for f in sorted(proj.footprints, key=lambda f: f.z_high)]
    for p, f in zip(paths, sorted(proj.footprints, key=lambda f: f.z_high), strict=True):
        nums = [float(v) for v in re.findall(r"-?[\d.]+(?:e-?\d+)?", p.get("d"))]
        xs, ys = nums[0::2], nums[1::2]
        minx, miny, maxx, maxy = f.polygon.bounds
        assert (max(xs) - min(xs)) / 500 == pytest.approx(maxx - minx, abs=2e-6)
        assert (max(ys) - min(ys)) / 500 == pytest.approx(maxy - miny, abs=2e-6)
        assert p.get("fill") == "#" + "".join(f"{round(c * 255):02x}"
                                              for c in f.geometry.color)
    groups = root.findall(".//s:g[@class='robot-group']", ns)
    assert len(groups) == len(proj.robots)
    sensors = root.findall(".//s:g[@class]", ns)
    assert sum("sensor" in g.get("class").split() for g in sensors) == \
        sum(len(r.sensors) for r in proj.robots)
    assert root.find(".//s:g[@class='scale-bar']", ns) is not None


def test_unknown_role_error_through_the_cli(tmp_path: Path, capsys) -> None:
    assert main([str(MAZE), "--role", "tape=stripe", "-o", str(tmp_path / "m.svg")]) == 1
    err = capsys.readouterr().err
    assert "error: unknown role 'stripe' in --role tape=stripe" in err


def test_projection_options_default() -> None:
    assert ProjectionOptions().band == (-math.inf, math.inf)


def test_simmer_without_robot_writes_the_sample_robot(tmp_path: Path, capsys) -> None:
    out = tmp_path / "config"
    assert main([str(_blocks()), "--format", "simmer", "-o", str(out)]) == 0
    assert "warning: no frame is a robot start pose" in capsys.readouterr().err
    assert _csv(out / "robot.csv") == [["circle (0) / rectangle (1)", "0"],
                                       ["diameter/x-size", "6"], ["unused/y-size", "6"]]
    assert len(_csv(out / "sensors.csv")) == 1  # the header row SimMeR skips
    assert "bot_center" not in (out / "main_setup.m").read_text().replace("keep Main.m's "
                                                                         "bot_center", "")


def test_arena_board_example(tmp_path: Path) -> None:
    path = REPO / "examples" / "2d" / "arena.board"
    sink = DiagnosticSink()
    scene = load_scene([str(path)], sink=sink)
    assert not sink.items
    kinds = [re.fullmatch(r"arena_(\w+?)_\d+", f.name).group(1) for f in scene.frames]
    assert kinds.count("wall") == 6 and kinds.count("tape") == 4
    assert kinds.count("dec_rect") == 1 and kinds.count("dec_line") == 1
    out = tmp_path / "copy.board"
    assert main([str(path), "-o", str(out)]) == 0
    # each 2 cm wide wall comes back as the 4 edges of its strip
    assert sum(ln.startswith("line ") for ln in out.read_text().splitlines()) == 6 * 4


@pytest.mark.parametrize(("overhang", "ok"), [(0.45, True), (0.55, False)])
def test_simmer_overhang_below_fill_is_allowed(tmp_path: Path, overhang: float, ok: bool,
                                                capsys) -> None:
    # an 8 x 4 ft maze whose north wall sticks out by `overhang` of a cell
    ft = 0.3048
    path = tmp_path / "edge.robray"
    path.write_text(f"""
class robot {{ }}
frame floor {{ translation [{4 * ft}, {2 * ft}, 0];
               geometry {{ shape box; dimension [{8 * ft}, {4 * ft}, .01]; }} }}
frame north {{ translation [{4 * ft}, {4 * ft + overhang * ft / 2}, .1];
               geometry {{ shape box; dimension [{8 * ft}, {overhang * ft}, .2]; }} }}
frame bot {{ translation [.15, .15, 0]; geometry {{ isa robot; shape sphere; radius .05; }} }}
""")
    status = main([str(path), "--format", "simmer", "--z-min", "0.01", "--maze-origin", "0,0",
                   "-o", str(tmp_path / "c")])
    assert status == (0 if ok else 1)
    if ok:
        assert all(c == "1" for row in _csv(tmp_path / "c" / "maze.csv")[:3] for c in row)
    else:
        assert "maze too large" in capsys.readouterr().err
