"""pySimiam worlds: DTD validation and a re-read following pySimiam's XMLReader,
geometry against the projection."""

from __future__ import annotations

import io
import math
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

from robrayc.analysis.projection import (
    parts,
    ring_points,
)
from robrayc.cli.main import main
from tests.backends.twod import (
    MAZE,
    TOL,
    blocks_scene,
    projection_of,
    spec_text,
)
from tests.run import robrayc

# The documented DTD requires <supervisor> in <robot> but never declares it; pySimiam's reader
# reads its `type` attribute. Completed with exactly that, the DTD validates strictly.
SUPERVISOR_DECL = "<!ELEMENT supervisor EMPTY>\n<!ATTLIST supervisor type CDATA #REQUIRED>\n"


def _pysimiam_dtd(complete: bool = True):
    from lxml import etree

    text = spec_text("pysimiam-world-file.rst")
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
    assert robrayc(path, *args, "--format", "pysimiam", "-o", str(out)).status == 0
    dtd = _pysimiam_dtd()
    assert dtd.validate(etree.parse(str(out))), str(dtd.error_log)
    raw = _pysimiam_dtd(complete=False)  # as documented: only the missing declaration fails
    raw.validate(etree.parse(str(out)))
    assert {e.message for e in raw.error_log} == {
        "No declaration for element supervisor",
        "No declaration for attribute type of element supervisor"}
    items = _read_world(out)
    proj = projection_of(path, args)
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
    path = blocks_scene()
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
