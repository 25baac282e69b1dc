"""SimMeR configuration folders: CSVs checked by shape and values against the
projection."""

from __future__ import annotations

import csv
import io
import math
import re
from pathlib import Path

import pytest

from robrayc.analysis.projection import (
    M_PER_IN,
)
from robrayc.cli.main import main
from tests.backends.twod import (
    MAZE,
    SCENES,
    TOL,
    blocks_scene,
    projection_of,
    spec_text,
)


def _manual_table(first_header: str) -> list[list[str]]:
    """A table of the SimMeR manual: its header row (row 1) and data rows."""
    rows = []
    lines = spec_text("simmer-manual.md").splitlines()
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
    proj = projection_of(MAZE, [])
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
    path, args = blocks_scene(), SCENES["blocks"][1]
    out = tmp_path / "config"
    assert main([str(path), *args, "--format", "simmer", "-o", str(out)]) == 0
    maze = [[int(c) for c in row] for row in _csv(out / "maze.csv")]
    assert len(maze) == 4 and all(len(r) == 8 for r in maze)  # padded to SimMeR's 8 x 4 ft
    proj = projection_of(path, args)
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
    path = blocks_scene()
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


def test_simmer_without_robot_writes_the_sample_robot(tmp_path: Path, capsys) -> None:
    out = tmp_path / "config"
    assert main([str(blocks_scene()), "--format", "simmer", "-o", str(out)]) == 0
    assert "warning: no frame is a robot start pose" in capsys.readouterr().err
    assert _csv(out / "robot.csv") == [["circle (0) / rectangle (1)", "0"],
                                       ["diameter/x-size", "6"], ["unused/y-size", "6"]]
    assert len(_csv(out / "sensors.csv")) == 1  # the header row SimMeR skips
    assert "bot_center" not in (out / "main_setup.m").read_text().replace("keep Main.m's "
                                                                         "bot_center", "")


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
