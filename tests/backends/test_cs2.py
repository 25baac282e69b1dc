"""cs2 boards: written boards read back by robrayc's .board reader (following cs2's
own), geometry against the projection."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from robrayc.analysis.projection import (
    edges,
    ring_points,
)
from robrayc.cli.main import main
from robrayc.diagnostics import DiagnosticSink
from robrayc.frontend import load_scene
from tests.backends.twod import (
    MAZE,
    TOL,
    match_within,
    projection_of,
    seg_distance,
)
from tests.corpus import REPO
from tests.run import robrayc


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
    assert robrayc(path, *args, "-o", str(out)).status == 0
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

    proj = projection_of(path, args)
    scene = load_scene([str(out)])
    frames = {f.name: f for f in scene.frames}
    kinds: dict[str, list] = {"wall": [], "dec_rect": [], "dec_line": [], "tape": []}
    for fname, f in frames.items():
        kind = re.fullmatch(rf"{name}_(\w+?)_\d+", fname).group(1)
        kinds[kind].append(f)
    walls = [e for fp in proj.by_role("wall", "block") for e in edges(fp.polygon)]
    match_within(walls, [_board_segment(f) for f in kinds["wall"]], seg_distance, "walls")
    rects = [fp.polygon.bounds for fp in proj.by_role("decorative", "marker")]

    def rect_of(f):
        d = f.geometries[0].shape.dimension
        x, y = f.translation[:2]
        return (x - d[0] / 2, y - d[1] / 2, x + d[0] / 2, y + d[1] / 2)

    match_within(rects, [rect_of(f) for f in kinds["dec_rect"]],
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
        assert seg_distance(mids, _board_segment(f)) <= TOL
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
