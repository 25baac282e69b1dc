"""SRDF (issue 13): links never frames, MoveIt's adjacency and reasons, the robot's name, and
`allowed-collisions --check-srdf` as a linter. Expected pairs are worked out by hand from
small robots of robrayc's own; corpus robots check that every name is a URDF link."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from robrayc import srdf
from robrayc.cli.main import main
from tests.urdf_robots import load, robot_path, ros_env  # noqa: F401  (ros_env: fixture)

# base -(fixed)- plate (no collision geometry) -(revolute)- arm -(revolute)- hand, and a
# sensor hanging from base. MoveIt: plate has no shapes, so base-arm and sensor-arm are
# adjacent through it (its neighbours become fully connected), as are base-sensor.
ROBOT = """<robot name="lint_me">
  <link name="base"><collision><geometry><box size="0.4 0.4 0.2"/></geometry></collision></link>
  <link name="plate"><visual><geometry><box size="0.1 0.1 0.01"/></geometry></visual></link>
  <link name="sensor"><collision><origin xyz="0.3 0 0"/>
    <geometry><sphere radius="0.05"/></geometry></collision></link>
  <link name="arm"><collision><origin xyz="0 0 0.25"/>
    <geometry><cylinder radius="0.05" length="0.5"/></geometry></collision></link>
  <link name="hand"><collision><origin xyz="0 0 0.3"/>
    <geometry><sphere radius="0.3"/></geometry></collision></link>
  <joint name="plate_joint" type="fixed"><parent link="base"/><child link="plate"/>
    <origin xyz="0 0 0.1"/></joint>
  <joint name="sensor_joint" type="fixed"><parent link="plate"/><child link="sensor"/></joint>
  <joint name="shoulder" type="revolute"><parent link="plate"/><child link="arm"/>
    <axis xyz="0 1 0"/><limit lower="-2.5" upper="2.5" effort="1" velocity="1"/></joint>
  <joint name="elbow" type="revolute"><parent link="arm"/><child link="hand"/>
    <origin xyz="0 0 0.5"/><axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="1"
    velocity="1"/></joint>
</robot>
"""


@pytest.fixture
def robot(tmp_path: Path) -> Path:
    path = tmp_path / "lint_me.urdf"
    path.write_text(ROBOT)
    return path


def entries(path: Path) -> list[tuple[str, str, str]]:
    root = ET.parse(path).getroot()
    return [(d.get("link1"), d.get("link2"), d.get("reason"))
            for d in root.findall("disable_collisions")]


def test_moveit_adjacency_on_links(robot: Path) -> None:
    scene = load([robot])
    plan = srdf.plan_links(scene)
    assert srdf.adjacent_links(scene, plan) == {
        ("arm", "base"), ("arm", "sensor"), ("base", "sensor"), ("arm", "hand")}


def test_srdf_output_names_links_with_moveit_reasons(robot: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.srdf"
    assert main(["allowed-collisions", str(robot), "--samples", "300", "-j", "1",
                 "-o", str(out)]) == 0
    assert ET.parse(out).getroot().get("name") == "lint_me"  # the URDF's, not the file's
    got = entries(out)
    links = {"base", "plate", "sensor", "arm", "hand"}
    assert all(a in links and b in links and a < b for a, b, _ in got)
    adjacent = {(a, b) for a, b, r in got if r == "Adjacent"}
    assert adjacent == {("arm", "base"), ("arm", "sensor"), ("base", "sensor"), ("arm", "hand")}
    assert {r for _, _, r in got} <= {"Adjacent", "Default", "Always", "Never"}
    # the hand reaches the base and the sensor when the arm folds: never disabled
    assert not {(a, b) for a, b, _ in got} & {("base", "hand"), ("hand", "sensor")}


def test_check_srdf_reports_disabled_pairs_that_collide(robot: Path, tmp_path: Path,
                                                        capsys) -> None:
    bad = tmp_path / "bad.srdf"
    bad.write_text('<?xml version="1.0"?>\n<robot name="lint_me">\n'
                   '  <disable_collisions link1="arm" link2="base" reason="Adjacent"/>\n'
                   '  <disable_collisions link1="hand" link2="base" reason="Never"/>\n'
                   '  <disable_collisions link1="hand" link2="gripper" reason="Never"/>\n'
                   '</robot>\n')
    assert main(["allowed-collisions", str(robot), "--check-srdf", str(bad),
                 "--samples", "400"]) == 1
    out, err = capsys.readouterr()
    assert f"{bad}:4:3: base hand (Never): collide in " in out
    assert "arm base" not in out  # adjacent: they touch by design
    assert f"{bad}:5:3: warning: SRDF names 'gripper', which is no link" in err
    good = tmp_path / "good.srdf"
    good.write_text('<robot name="lint_me"><disable_collisions link1="arm" link2="base" '
                    'reason="Adjacent"/></robot>')
    assert main(["allowed-collisions", str(robot), "--check-srdf", str(good),
                 "--samples", "400"]) == 0
    assert "0 colliding" in capsys.readouterr().out


def test_urdf_export_srdf_names_links(robot: Path, tmp_path: Path) -> None:
    """--srdf beside a URDF export: the scene's allow_collision pairs on the links."""
    allow = tmp_path / "allow.robray"
    allow.write_text('allow_collision "elbow" "hand-collision";\n'
                     'allow_collision "shoulder" "hand-collision";\n'
                     'allow_collision "shoulder" "base-collision";\n')
    out = tmp_path / "out.urdf"
    assert main([str(robot), str(allow), "-q", "-o", str(out), "--srdf",
                 str(tmp_path / "s.srdf")]) == 0
    # arm (on shoulder) and hand (its own frame): every pair allowed; arm and base too;
    # the hand's frames are elbow (no geometry) and hand-collision
    assert entries(tmp_path / "s.srdf") == [("arm", "base", "Adjacent"),
                                            ("arm", "hand", "Adjacent")]


@pytest.mark.usefixtures("ros_env")
@pytest.mark.parametrize("key", ["ur5", "pr2"])
def test_corpus_srdf_names_only_links(key: str, tmp_path: Path) -> None:
    """PR2 used to get 0 of 995 pairs naming a link."""
    src = robot_path(key)
    out = tmp_path / "r.srdf"
    assert main(["allowed-collisions", str(src), "--samples", "50", "-j", "1",
                 "--missing-mesh=drop", "-q", "-o", str(out)]) == 0
    links = {e.get("name") for e in ET.parse(src).getroot().findall("link")}
    got = entries(out)
    assert got and all(a in links and b in links for a, b, _ in got)
    assert ET.parse(out).getroot().get("name") == ET.parse(src).getroot().get("name")


def test_check_srdf_judges_each_pair_by_its_reason(robot: Path, tmp_path: Path,
                                                   capsys) -> None:
    """Default/Always/Adjacent pairs that collide are expected (counted), as is an adjacent
    pair without a reason; an Always pair that never collides is a warning; exit 0."""
    srdf_file = tmp_path / "reasons.srdf"
    srdf_file.write_text('<robot name="lint_me">\n'
                         '  <disable_collisions link1="base" link2="hand" reason="Default"/>\n'
                         '  <disable_collisions link1="hand" link2="sensor" reason="Adjacent"/>\n'
                         '  <disable_collisions link1="base" link2="sensor" reason="Always"/>\n'
                         '  <disable_collisions link1="arm" link2="hand"/>\n'
                         '</robot>\n')
    assert main(["allowed-collisions", str(robot), "--check-srdf", str(srdf_file),
                 "--samples", "400"]) == 0
    out, err = capsys.readouterr()
    assert "0 colliding though disabled as never colliding" in out
    assert "3 colliding as their reason says" in out
    assert f"{srdf_file}:4:3: warning: base sensor disabled as Always colliding, but they " \
           "collide in none of 400 samples" in err and "[-Wsrdf-unneeded]" in err


@pytest.mark.parametrize("reason", ['reason="Never"', "", 'reason="Sometimes"'])
def test_check_srdf_never_no_or_unknown_reason_that_collides_is_an_error(
        robot: Path, tmp_path: Path, capsys, reason: str) -> None:
    srdf_file = tmp_path / "never.srdf"
    srdf_file.write_text('<robot name="lint_me">\n'
                         f'  <disable_collisions link1="base" link2="hand" {reason}/>\n'
                         '</robot>\n')
    assert main(["allowed-collisions", str(robot), "--check-srdf", str(srdf_file),
                 "--samples", "400"]) == 1
    word = reason.partition('"')[2].rstrip('"') or "no reason"
    assert f"{srdf_file}:2:3: base hand ({word}): collide in " in capsys.readouterr().out


# A free-flying box over the ground: check_urdf and yourdfpy read it (floating joint).
FLYER = """<robot name="flyer">
  <link name="ground"><collision><geometry><box size="2 2 0.1"/></geometry></collision></link>
  <link name="body"><collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision>
  </link>
  <link name="prop"><collision><origin xyz="0 0 0.2"/>
    <geometry><cylinder radius="0.05" length="0.1"/></geometry></collision></link>
  <joint name="fly" type="floating"><parent link="ground"/><child link="body"/>
    <origin xyz="0 0 5"/></joint>
  <joint name="spin" type="continuous"><parent link="body"/><child link="prop"/>
    <axis xyz="0 0 1"/></joint>
</robot>
"""


def test_check_srdf_pairs_a_floating_joint_moves_can_meet(tmp_path: Path, capsys) -> None:
    """The floating joint's translation is not sampled (0: the body 5 m up), but it brings
    the body onto the ground: a pair across it disabled as Never is an error, at the
    element's line and column; the pair it carries along (body, prop) is judged by samples."""
    urdf = tmp_path / "flyer.urdf"
    urdf.write_text(FLYER)
    srdf_file = tmp_path / "flyer.srdf"
    srdf_file.write_text('<robot name="flyer">\n'
                         '  <disable_collisions link1="body" link2="ground" reason="Never"/>\n'
                         '    <disable_collisions link1="body" link2="prop" reason="Never"/>\n'
                         '</robot>\n')
    assert main(["allowed-collisions", str(urdf), "--check-srdf", str(srdf_file),
                 "--samples", "300"]) == 1
    out = capsys.readouterr().out
    assert "1 colliding though disabled as never colliding" in out
    assert (f"{srdf_file}:2:3: body ground (Never): moved by floating joint 'fly', whose "
            "translation (not sampled) brings them together") in out
    assert "body prop" not in out
