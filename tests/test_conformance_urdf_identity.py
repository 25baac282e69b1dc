"""Conformance points of issue 13, each on a small input of robrayc's own, against the ORIGINAL
aarxc and the REAL amino library (check_scene, --collide): URDF shape frames, empty scene
files, lenient XML declarations, <material> inside <geometry>, continuous joints' limits, and
TMKit allow_collision lists against Baxter giving the same colliding pairs."""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests import amino_real as A
from tests.corpus import URDF_CORPUS, require_corpus
from tests.test_conformance import DATA, assert_conforms, differential

pytestmark = pytest.mark.skipif(not A.AMINO_DIR.is_dir(),
                                reason="../shared/amino absent (no shared/ beside the checkout)")

URDF_DATA = DATA / "urdf"
PUBLIC = URDF_CORPUS.parent / "public-robray"
BAXTER = URDF_CORPUS / "RethinkRobotics+baxter_common/baxter_description/urdf/baxter.urdf"
ROBOT = """<robot name="r">
  <link name="a"><visual><geometry><box size="0.1 0.1 0.1"/></geometry></visual></link>
  <link name="b"><visual><geometry><sphere radius="0.1"/>{extra}</geometry></visual></link>
  <joint name="j" type="{kind}"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
    {limit}</joint>
</robot>
"""


def _check_urdf(path: Path) -> None:
    tool = shutil.which("check_urdf")
    if tool is not None:
        r = subprocess.run([tool, str(path)], capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr


def test_urdf_shape_frames_follow_the_original(tmp_path: Path) -> None:
    """A shape shares its link's joint frame exactly when its origin (a cylinder's half-length
    shift included) is the identity; root links' shapes always get their own frame."""
    out = differential([URDF_DATA / "shape_frames.urdf"], tmp_path)
    assert_conforms(out, ["inertia"])  # the original puts no inertia on hand-inertial
    assert set(out.ours[0]["frames"]) == {
        "shoulder", "wrist", "knuckle", "base-visual", "arm-collision", "hand-visual",
        "hand-inertial", "finger-visual", "finger-collision"}
    shapes = {name: [g["shape"] for g in gs] for name, gs in out.ours[0]["geometry"].items()}
    assert shapes["shoulder"] == ["cylinder"]  # arm's visual, on the joint's frame
    assert sorted(shapes["wrist"]) == ["box"]  # hand's collision box


@pytest.mark.parametrize("text", ["", "// nothing\n/* at all */\n# here\n"])
def test_empty_scene_file_is_an_empty_scene(text: str, tmp_path: Path) -> None:
    """As the original: an empty (or comment-only) file is an empty scene; robrayc warns."""
    empty = tmp_path / "empty.robray"
    empty.write_text(text)
    frame = tmp_path / "one.robray"
    frame.write_text("frame a { geometry { shape box; dimension [1, 1, 1]; } }\n")
    out = differential([frame, empty], tmp_path)
    assert_conforms(out)
    alone = A.run_robrayc([empty], "e", tmp_path / "alone" / "e.c")
    assert alone.ok, alone.output
    assert "warning: empty scene file: no statements [-Wempty-scene]" in alone.stderr
    assert A.load_c(alone.c_file, "e")[0]["frame_count"] == 0


@pytest.mark.parametrize("decl", ['<?xml version="0.0"?>', '<?xml version="1.0" encoding="x"?>',
                                  '\n<?xml version="1.0"?>'])
def test_xml_declaration_as_lenient_as_urdfdom(decl: str, tmp_path: Path) -> None:
    path = tmp_path / "decl.urdf"
    path.write_text(decl + ROBOT.format(extra="", kind="fixed", limit=""))
    _check_urdf(path)  # urdfdom reads it
    if decl.startswith("<"):  # the original reads these too (not one after a blank line)
        out = differential([path], tmp_path, name="d")
        assert_conforms(out)
        ours = out.robrayc
    else:
        ours = A.run_robrayc([path], "d", tmp_path / "r" / "d.c")
        assert ours.ok, ours.output
    assert "XML declaration ignored" in ours.stderr and "[-Wxml-declaration]" in ours.stderr
    assert {f["name"] for f in A.load_c(ours.c_file, "d")[0]["frames"]} == {"a-visual", "j"}


def test_material_inside_geometry_is_ignored(tmp_path: Path) -> None:
    """urdfdom and the original ignore it; robrayc too, with a warning."""
    path = tmp_path / "mat.urdf"
    path.write_text(ROBOT.format(extra='<material name="red"/>', kind="fixed", limit=""))
    _check_urdf(path)
    out = differential([path], tmp_path)
    assert_conforms(out)
    assert "<material> inside the <geometry>" in out.robrayc.stderr


def test_continuous_limits(tmp_path: Path) -> None:
    """The original hands a continuous joint's lower/upper to amino, whose IK then clamps the
    joint and whose planners bound it; URDF (and urdfdom, MoveIt) say a continuous joint has
    no position limits. robrayc follows URDF (difference `urdf-continuous-limits`): the real
    library reports no position limit, velocity and effort as the original."""
    path = tmp_path / "cont.urdf"
    path.write_text(ROBOT.format(extra="", kind="continuous",
                                 limit='<limit lower="-1" upper="2" effort="3" velocity="4"/>'))
    out = differential([path], tmp_path)
    assert_conforms(out, ["urdf-continuous-limits"])
    theirs, ours = out.theirs[0]["configs"]["j"], out.ours[0]["configs"]["j"]
    assert theirs["pos"] == [-1, 2] and ours.get("pos") is None
    assert ours["vel"] == theirs["vel"] == [-4, 4] and ours["eff"] == theirs["eff"] == [-3, 3]
    assert "continuous joint 'j': <limit lower> ignored" in out.robrayc.stderr


# --- TMKit allow_collision lists against Baxter -----------------------------------------------


def _baxter_with_boxes(tmp: Path) -> Path:
    """Baxter with every mesh replaced by a 5 cm box at the same origin (the original needs
    Blender for meshes): the frames and the allow lists' meaning are those of the real robot."""
    from lxml import etree

    tree = etree.parse(str(BAXTER))
    for mesh in list(tree.getroot().iter("mesh")):
        geometry = mesh.getparent()
        geometry.remove(mesh)
        etree.SubElement(geometry, "box", size="0.05 0.05 0.05")
    out = tmp / "baxter.urdf"
    tree.write(str(out))
    return out


def _tmkit_baxter_lists() -> list[Path]:
    """Public allow_collision files naming only Baxter frames by the original's URDF naming
    (joints, LINK-collision, LINK-visual), deduplicated by content."""
    if not PUBLIC.is_dir() or not BAXTER.is_file():
        return []
    import xml.etree.ElementTree as ET

    urdf = ET.parse(BAXTER).getroot()
    names = {j.get("name") for j in urdf.iter("joint")}
    names |= {f"{link.get('name')}-{kind}" for link in urdf.iter("link")
              for kind in ("visual", "collision")}
    seen, out = set(), []
    for path in sorted(PUBLIC.rglob("allowed-collision*.robray")):
        text = path.read_text(errors="replace")
        pairs = re.findall(r'allow_collision\s+"([^"]+)"\s+"([^"]+)"', text)
        if pairs and text not in seen and all(a in names and b in names for a, b in pairs):
            seen.add(text)
            out.append(path)
    return out


@pytest.mark.parametrize("allow", _tmkit_baxter_lists(),
                         ids=lambda p: p.relative_to(PUBLIC).parts[0])
def test_tmkit_baxter_lists_collide_as_the_original(allow: Path, tmp_path: Path) -> None:
    require_corpus()
    A.require_aarxc()
    robot = _baxter_with_boxes(tmp_path)
    theirs = A.run_aarxc([robot, allow], "b", tmp_path / "a" / "b.c")
    ours = A.run_robrayc([robot, allow], "b", tmp_path / "r" / "b.c")
    assert theirs.ok and ours.ok, theirs.output[-2000:] + ours.output[-2000:]
    assert "unknown frame" not in ours.stderr
    tb, ob = A.check_binary(theirs.c_file, "b"), A.check_binary(ours.c_file, "b")
    t0 = A.run_check(tb, collide=True)
    variables = [c["name"] for c in t0["configs"]]
    rng = random.Random(13)
    configs = [None] + [{v: rng.uniform(-1.5, 1.5) for v in variables} for _ in range(3)]
    for cfg in configs:
        t = A.run_check(tb, cfg, collide=True)
        o = A.run_check(ob, cfg, collide=True)
        assert {f["name"] for f in o["frames"]} == {f["name"] for f in t["frames"]}
        assert sorted(map(tuple, o["allowed_collision"])) == \
            sorted(map(tuple, t["allowed_collision"]))
        assert o["collisions"] == t["collisions"], cfg


def test_tmkit_lists_found() -> None:
    require_corpus()
    assert len(_tmkit_baxter_lists()) >= 1
    names = re.findall(r'"([^"]+-collision)"', _tmkit_baxter_lists()[0].read_text())
    assert "collision_head_link_1-collision" in names


# --- listed differences (docs/differences.md) --------------------------------------------------


def test_material_defined_inline_used_by_name(tmp_path: Path) -> None:
    """`urdf-material-by-name`: link a defines material "red" inline, link b names it; urdfdom
    (and robrayc) paint b red, the original leaves b its default grey."""
    path = tmp_path / "mat.urdf"
    path.write_text("""<robot name="m">
  <link name="a"><visual><geometry><box size="1 1 1"/></geometry>
    <material name="red"><color rgba="1 0 0 1"/></material></visual></link>
  <link name="b"><visual><geometry><box size="1 1 1"/></geometry><material name="red"/>
    </visual></link>
  <joint name="j" type="fixed"><parent link="a"/><child link="b"/><origin xyz="0 0 2"/></joint>
</robot>
""")
    _check_urdf(path)
    out = differential([path], tmp_path)
    assert_conforms(out, ["urdf-material-by-name"])
    assert out.ours[0]["geometry"]["j"][0]["opt"]["color"] == [1, 0, 0]
    assert out.theirs[0]["geometry"]["j"][0]["opt"]["color"] == [0.8, 0.8, 0.8]


def test_mimic_joint_shares_the_variable(tmp_path: Path) -> None:
    """`urdf-mimic`: the original ignores <mimic> (j2 its own variable); robrayc gives j2 the
    variable of j1, so moving j1 moves both, as in ROS."""
    path = tmp_path / "mimic.urdf"
    path.write_text("""<robot name="m">
  <link name="a"/><link name="b"><visual><geometry><sphere radius="0.1"/></geometry></visual>
  </link><link name="c"><visual><geometry><sphere radius="0.1"/></geometry></visual></link>
  <joint name="j1" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="j2" type="revolute"><parent link="b"/><child link="c"/><axis xyz="0 0 1"/>
    <origin xyz="1 0 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/>
    <mimic joint="j1"/></joint>
</robot>
""")
    _check_urdf(path)
    out = differential([path], tmp_path)
    assert_conforms(out, ["urdf-mimic"])
    assert out.theirs[0]["frames"]["j2"]["config"] == "j2"
    assert out.ours[0]["frames"]["j2"]["config"] == "j1"


def test_unknown_parent_link_is_an_error(tmp_path: Path) -> None:
    """`urdf-unknown-link`: a joint whose parent link is not defined. The original hangs the
    joint from the root without a word; robrayc reports it where it is written."""
    path = tmp_path / "unk.urdf"
    path.write_text("""<robot name="m">
  <link name="b"><visual><geometry><box size="1 1 1"/></geometry></visual></link>
  <joint name="j" type="fixed"><parent link="nowhere"/><child link="b"/></joint>
</robot>
""")
    A.require_aarxc()
    theirs = A.run_aarxc([path], "u", tmp_path / "a" / "u.c")
    assert theirs.ok, theirs.output
    frames = {f["name"]: f for f in A.load_c(theirs.c_file, "u")[0]["frames"]}
    assert frames["j"]["parent"] is None  # the root
    ours = A.run_robrayc([path], "u", tmp_path / "r" / "u.c")
    assert not ours.ok and ours.returncode == 1
    assert f"{path}:3:40: error: joint 'j': unknown parent link 'nowhere'" in ours.stderr
