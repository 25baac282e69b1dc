"""SVG previews: the legend (roles, colours, colliding pairs), the scale bar, and the front and
side views, read back from the SVG's own coordinates."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from robrayc.analysis.projection import ProjectionOptions
from robrayc.cli.main import main
from tests.backends.pictures import robrayc, write_boxes
from tests.backends.twod import MAZE, projection_of

NS = {"s": "http://www.w3.org/2000/svg"}
TWO_BOXES = (
    "frame a { translation [1, 2, 3];\n"
    "  geometry { shape box; dimension [0.2, 0.4, 0.6]; color [1, 0, 0]; } }\n"
    "frame b { translation [1, 3, 3];\n"
    "  geometry { shape box; dimension [0.2, 0.4, 0.6]; color [0, 0, 1]; visual 0; } }\n"
    "frame c { translation [1, 2.5, 3];\n"
    "  geometry { shape sphere; radius 0.05; color [0, 1, 0]; collision 0; } }\n")


def _svg(tmp_path, *args, text=TWO_BOXES):
    scene = tmp_path / "s.robray"
    scene.write_text(text)
    out = tmp_path / "s.svg"
    r = robrayc(str(scene), "-o", str(out), *args)
    assert r.status == 0, r.err
    raw = out.read_text()
    scale = float(re.search(r"1 m = ([0-9.e+-]+) px", raw).group(1))
    return ET.fromstring(raw), scale


def _extent(root, title: str):
    """(minx, maxx, miny, maxy) in px of the path whose <title> is `title`."""
    for path in root.iter("{http://www.w3.org/2000/svg}path"):
        t = path.find("s:title", NS)
        if t is not None and t.text == title:
            nums = [float(v) for v in re.findall(r"-?[0-9.]+(?:e-?\d+)?", path.get("d"))]
            xs, ys = nums[0::2], nums[1::2]
            return min(xs), max(xs), min(ys), max(ys)
    raise AssertionError(f"no path titled {title!r}")


@pytest.mark.parametrize("view, right, up, b_right", [
    ("top", 0.2, 0.4, True),  # X right (0.2 wide), Y up (0.4 tall); b at larger Y: above
    ("front", 0.4, 0.6, True),  # Y right, Z up: b to the right of a
    ("side", 0.2, 0.6, False),  # X right, Z up: b right behind a (same column)
])
def test_views_show_the_right_axes(tmp_path, view, right, up, b_right):
    root, scale = _svg(tmp_path, "--view", view)
    a, b = _extent(root, "wall a"), _extent(root, "wall b")
    assert a[1] - a[0] == pytest.approx(right * scale, abs=1e-2)
    assert a[3] - a[2] == pytest.approx(up * scale, abs=1e-2)
    if view == "top":
        assert b[3] < a[2]  # b is above a (SVG y grows downwards)
    elif b_right:
        assert b[0] > a[1]
    else:
        assert b[0] == pytest.approx(a[0], abs=1e-2)
    heading = root.find("s:g[@class='legend']/s:text", NS).text
    assert heading.startswith(f"{view} view")


def test_legend_names_roles_and_colours_and_the_scale_bar_is_to_scale(tmp_path):
    root, scale = _svg(tmp_path)
    legend = root.find("s:g[@class='legend']", NS)
    texts = [t.text for t in legend.iter("{http://www.w3.org/2000/svg}text")]
    assert {"roles", "colours", "wall", "decorative"} <= set(texts)
    assert "#ff0000 a" in texts and "#0000ff b" in texts and "#00ff00 c" in texts
    swatches = {g.find("s:text", NS).text: g.find("s:rect", NS).get("fill")
                for g in legend.findall("s:g[@class='legend-color']", NS)}
    assert swatches["#ff0000 a"] == "#ff0000"
    bar = root.find("s:g[@class='scale-bar']", NS)
    line = bar.find("s:line", NS)
    label = bar.find("s:text", NS).text
    metres = float(label.split()[0]) / (1000 if label.endswith("mm") else 1)
    length = float(line.get("x2")) - float(line.get("x1"))
    assert length == pytest.approx(metres * scale, rel=1e-6)


def test_highlight_colours_colliding_footprints_and_names_the_pairs(tmp_path):
    scene = write_boxes(tmp_path)
    out = tmp_path / "b.svg"
    r = robrayc(str(scene), "-o", str(out), "--highlight-collisions", "--var", "slide",
                "--val", "0.5")
    assert r.status == 0, r.err
    root = ET.fromstring(out.read_text())
    fills = {p.find("s:title", NS).text: (p.get("fill"), p.get("stroke"))
             for p in root.iter("{http://www.w3.org/2000/svg}path")
             if p.find("s:title", NS) is not None}
    assert fills["wall blue_box"] == ("#ff0000", "#ff0000")
    assert fills["wall slider"] == ("#ff0000", "#ff0000")
    assert fills["wall red_box"] == ("#ff0000", "#000000")  # its own colour, not outlined
    pairs = [g.find("s:text", NS).text
             for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("class") ==
             "legend-pair"]
    assert pairs == ["blue_box <-> slider"]


# --- the 2D projection's SVG (tests/backends/twod.py scenes) ---------------------------------
def test_svg_preview(case, tmp_path: Path) -> None:
    name, path, args = case
    out = tmp_path / f"{name}.svg"
    assert robrayc(path, *args, "--svg-scale", "500", "-o", str(out)).status == 0
    ns = {"s": "http://www.w3.org/2000/svg"}
    root = ET.parse(out).getroot()
    proj = projection_of(path, args)
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
