"""CajunBot object files: XML and version-1 text re-read, geometry against the
projection."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

from robrayc.cli.main import main
from tests.backends.twod import (
    TOL,
    projection_of,
)
from tests.run import robrayc


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
    assert robrayc(path, *args, "-o", str(out)).status == 0
    root = ET.parse(out).getroot()
    assert root.tag == "object_file" and root.find("name").text == name
    objects = root.findall("object")
    proj = projection_of(path, args)
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
    assert robrayc(path, *args, "--format", "cajunbot", "--cajunbot-version", "1", "-o",
                   str(v1)).status == 0
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
    proj = projection_of(path, [])
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
