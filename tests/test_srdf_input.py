"""`--srdf` on `plan` and `collide` (issue 30): the link pairs a MoveIt SRDF disables are not
checked (`<disable_collisions>`, `<disable_default_collisions>` less `<enable_collisions>`, as
MoveIt's matrix), and a configuration that collides names its frame pairs, with a hint at
--srdf when they are adjacent links (in `collide --json` too). The corpus UR5, whose
neighbouring links' meshes touch at the zero configuration, and the adjacent pairs of MoveIt's
UR5 SRDF (ur5_moveit_config), written here by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.run import robrayc
from tests.urdf_robots import robot_path, ros_env  # noqa: F401  (ros_env: fixture)

UR5_SRDF = """<?xml version="1.0" ?>
<robot name="ur5">
    <group name="manipulator"><chain base_link="base_link" tip_link="ee_link"/></group>
    <disable_collisions link1="base_link" link2="shoulder_link" reason="Adjacent" />
    <disable_collisions link1="ee_link" link2="wrist_3_link" reason="Adjacent" />
    <disable_collisions link1="forearm_link" link2="upper_arm_link" reason="Adjacent" />
    <disable_collisions link1="forearm_link" link2="wrist_1_link" reason="Adjacent" />
    <disable_collisions link1="shoulder_link" link2="upper_arm_link" reason="Adjacent" />
    <disable_collisions link1="wrist_1_link" link2="wrist_2_link" reason="Adjacent" />
    <disable_collisions link1="wrist_2_link" link2="wrist_3_link" reason="Adjacent" />
</robot>
"""
# The frames of the UR5 that collide at zero (a URDF link's frame is its joint's), by link.
ZERO_PAIRS = ("  ee_link-collision wrist_3_joint (links ee_link wrist_3_link)\n"
              "  elbow_joint shoulder_lift_joint (links forearm_link upper_arm_link)\n"
              "  elbow_joint wrist_1_joint (links forearm_link wrist_1_link)\n"
              "  wrist_2_joint wrist_3_joint (links wrist_2_link wrist_3_link)\n")
HINT = "hint: links ee_link and wrist_3_link are adjacent (and 3 more adjacent pairs)"
PLAN = ("plan", "--backend", "exact", "--goal", "shoulder_pan_joint=1")


@pytest.fixture
def ur5(ros_env) -> Path:  # noqa: F811
    return robot_path("ur5")


def test_collide_allows_the_srdf_pairs(ur5: Path, tmp_path: Path) -> None:
    run = robrayc("collide", ur5)
    assert run.status == 1 and HINT in run.err and "--srdf ROBOT.srdf" in run.err
    assert run.out.splitlines() == ["ee_link wrist_3_link", "forearm_link upper_arm_link",
                                    "forearm_link wrist_1_link", "wrist_2_link wrist_3_link"]
    (tmp_path / "ur5.srdf").write_text(UR5_SRDF)
    run = robrayc("collide", ur5, "--srdf", tmp_path / "ur5.srdf")
    assert (run.status, run.out, run.err) == (0, "", "no collisions at the zero configuration\n")
    # not the adjacent pairs only: the SRDF's pairs, whatever their reason
    partial = UR5_SRDF.replace('"forearm_link" link2="wrist_1_link" reason="Adjacent"',
                               '"forearm_link" link2="wrist_1_link" reason="Never"')
    (tmp_path / "ur5.srdf").write_text(partial.replace(
        '<disable_collisions link1="ee_link" link2="wrist_3_link" reason="Adjacent" />', ""))
    run = robrayc("collide", ur5, "--srdf", tmp_path / "ur5.srdf")
    assert run.status == 1 and run.out == "ee_link wrist_3_link\n"
    assert "hint: links ee_link and wrist_3_link are adjacent: " in run.err
    assert f"{tmp_path / 'ur5.srdf'} does not disable them" in run.err


def test_plan_names_the_pairs_and_succeeds_with_the_srdf(ur5: Path, tmp_path: Path) -> None:
    pytest.importorskip("ompl", reason="the plan extra (PyPI ompl) is not installed")
    run = robrayc(*PLAN, ur5)
    assert (run.status, run.out) == (1, "")
    assert run.err.startswith("robrayc plan: the start collides: 4 colliding pairs\n"
                              + ZERO_PAIRS + HINT)
    (tmp_path / "ur5.srdf").write_text(UR5_SRDF)
    run = robrayc(*PLAN, ur5, "--srdf", tmp_path / "ur5.srdf")
    assert run.status == 0, run.err
    assert run.out.splitlines()[1:] == ["0.0,0.0,0.0,0.0,0.0,0.0", "1.0,0.0,0.0,0.0,0.0,0.0"]


@pytest.mark.parametrize("command", [("collide",), PLAN])
def test_a_bad_srdf_is_a_located_error(ur5: Path, tmp_path: Path, command) -> None:
    srdf = tmp_path / "bad.srdf"
    srdf.write_text('<robot name="ur5">\n  <disable_collisions link1="base_link"/>\n</robot>\n')
    run = robrayc(*command, ur5, "--srdf", srdf)
    assert (run.status, run.out) == (2, "")
    assert run.err.startswith(f"{srdf}:2:3: error: <disable_collisions> needs link1 and link2\n"
                              '   <disable_collisions link1="base_link"/>\n   ^~~')
    srdf.write_text(UR5_SRDF.replace('link1="base_link"', 'link1="base_lnk"'))
    run = robrayc(*command, ur5, "--srdf", srdf, "-Werror")
    assert (run.status, run.out) == (2, "")
    assert f"{srdf}:4:5: error: SRDF names 'base_lnk', which is no link of the robot" in run.err
    assert "hint: did you mean 'base_link'?" in run.err
    # a bad <enable_collisions> or <disable_default_collisions>: as bad a file
    for line, message in (('<enable_collisions link1="forearm_link"/>', "<enable_collisions> "
                           "needs link1 and link2"),
                          ('<disable_default_collisions lnk="ee_link"/>',
                           "<disable_default_collisions> needs link")):
        srdf.write_text(f'<robot name="ur5">\n  {line}\n</robot>\n')
        run = robrayc(*command, ur5, "--srdf", srdf)
        assert (run.status, run.out) == (2, "")
        assert run.err.startswith(f"{srdf}:2:3: error: {message}\n   {line}\n   ^~~"), run.err


# MoveIt's matrix from an SRDF, written here from its source (not by robrayc.srdf): srdfdom
# (src/model.cpp, initXml) reads <disable_default_collisions>, then <enable_collisions>, then
# <disable_collisions>; moveit2's AllowedCollisionMatrix(const srdf::Model&)
# (moveit_core/collision_detection/src/collision_matrix.cpp) sets each default link's default
# entry ALWAYS, each enabled pair's entry NEVER, each disabled pair's entry ALWAYS (the last
# set wins); getAllowedCollision takes a pair's entry, else either link's default.
def moveit_allowed(a: str, b: str, defaults: set[str], enabled: list, disabled: list) -> bool:
    entries = {frozenset(p): False for p in enabled} | {frozenset(p): True for p in disabled}
    return entries.get(frozenset((a, b)), a in defaults or b in defaults)


MATRIX_SRDF = """<?xml version="1.0" ?>
<robot name="ur5">
    <disable_default_collisions link="wrist_3_link" />
    <disable_default_collisions link="forearm_link" />
    <enable_collisions link1="wrist_1_link" link2=" forearm_link " reason="mine" />
    <enable_collisions link1="wrist_3_link" link2="base_link" />
    <disable_collisions link1="wrist_3_link" link2="base_link" reason="Never" />
    <disable_collisions link1="ee_link" link2="wrist_2_link" reason="Never" />
</robot>
"""
DEFAULTS = {"wrist_3_link", "forearm_link"}
ENABLED = [("wrist_1_link", "forearm_link"), ("wrist_3_link", "base_link")]
DISABLED = [("wrist_3_link", "base_link"), ("ee_link", "wrist_2_link")]


def test_defaults_and_enabled_pairs_as_moveit_applies_them(ur5: Path, tmp_path: Path) -> None:
    """example-robot-data's SRDFs use neither element: a UR5 SRDF written here."""
    import json
    from itertools import combinations

    yourdfpy = pytest.importorskip("yourdfpy")
    urdf = yourdfpy.URDF.load(str(ur5), build_scene_graph=False, load_meshes=False,
                              build_collision_scene_graph=False, load_collision_meshes=False)
    shaped = [link.name for link in urdf.robot.links if link.collisions]
    checked = {frozenset(p) for p in combinations(shaped, 2)
               if not moveit_allowed(*p, DEFAULTS, ENABLED, DISABLED)}
    assert len(shaped) == 8 and len(checked) == 15  # of 28 pairs, 13 not checked
    srdf = tmp_path / "ur5.srdf"
    srdf.write_text(MATRIX_SRDF)
    # --distance lists every pair checked
    run = robrayc("collide", ur5, "--srdf", srdf, "--json", "--distance")
    doc = json.loads(run.out)
    assert {frozenset(p) for p in doc["distance_links"]} == checked
    # forearm's default would allow its pair with wrist_1, which collides at zero: re-enabled
    assert run.status == 1 and doc["collision_links"] == [["forearm_link", "wrist_1_link"]]
    assert doc["adjacent_links"] == [["forearm_link", "wrist_1_link"]]
    assert doc["hint"].startswith("links forearm_link and wrist_1_link are adjacent: ")
    assert f"{srdf} does not disable them" in doc["hint"]
    # without it, the defaults allow every pair colliding at zero
    srdf.write_text(MATRIX_SRDF.replace("<enable_collisions link1=\"wrist_1_link\"", "<x"))
    run = robrayc("collide", ur5, "--srdf", srdf, "--json")
    assert run.status == 0 and json.loads(run.out)["collisions"] == []
    assert (json.loads(run.out)["adjacent_links"], json.loads(run.out)["hint"]) == ([], None)


def test_collide_json_names_the_adjacent_links(ur5: Path) -> None:
    import json

    run = robrayc("collide", ur5, "--json")
    doc = json.loads(run.out)
    assert run.status == 1 and doc["adjacent_links"] == doc["collision_links"] == [
        ["ee_link", "wrist_3_link"], ["forearm_link", "upper_arm_link"],
        ["forearm_link", "wrist_1_link"], ["wrist_2_link", "wrist_3_link"]]
    text = robrayc("collide", ur5).err  # the text's hint, as it says it
    assert HINT in text and f"hint: {doc['hint']}\n" in text
    doc = json.loads(robrayc("collide", ur5, "--json", "--ignore-allowed").out)
    assert len(doc["adjacent_links"]) == 4 and doc["hint"] is None  # every pair was asked for


def test_plan_with_default_disabled_links(ur5: Path, tmp_path: Path) -> None:
    pytest.importorskip("ompl", reason="the plan extra (PyPI ompl) is not installed")
    srdf = tmp_path / "ur5.srdf"
    srdf.write_text(MATRIX_SRDF)
    run = robrayc(*PLAN, ur5, "--srdf", srdf)
    assert (run.status, run.out) == (1, "")
    assert run.err.startswith("robrayc plan: the start collides: 1 colliding pair\n"
                              "  elbow_joint wrist_1_joint (links forearm_link wrist_1_link)\n")
    srdf.write_text(MATRIX_SRDF.replace("<enable_collisions link1=\"wrist_1_link\"", "<x"))
    run = robrayc(*PLAN, ur5, "--srdf", srdf)
    assert run.status == 0, run.err
    assert run.out.splitlines()[1:] == ["0.0,0.0,0.0,0.0,0.0,0.0", "1.0,0.0,0.0,0.0,0.0,0.0"]


def test_what_is_not_applied_is_said(ur5: Path, tmp_path: Path) -> None:
    srdf = tmp_path / "ur5.srdf"
    # MoveIt reads the collision elements of <robot> only, and leaves out unknown links
    srdf.write_text(UR5_SRDF.replace("<chain", '<disable_default_collisions link="ee_link"/>'
                                     "<chain").replace("</robot>", '<enable_collisions link1='
                                                       '"wrist_3_lnk" link2="ee_link"/></robot>'))
    run = robrayc("collide", ur5, "--srdf", srdf)
    assert run.status == 0, run.err
    assert (f"{srdf}:3:31: warning: <disable_default_collisions> inside <group> is not applied: "
            "MoveIt reads it only as a child of <robot> [-Wsrdf-ignored]") in run.err
    assert (f"{srdf}:11:1: warning: SRDF names 'wrist_3_lnk', which is no link of the robot "
            "[-Wunknown-frame]") in run.err and "did you mean 'wrist_3_link'?" in run.err
    # run-time obstacles stay checked against a default-disabled link
    srdf.write_text(MATRIX_SRDF)
    cloud = tmp_path / "cloud.xyz"
    cloud.write_text("0 0 0\n")
    run = robrayc("collide", ur5, "--srdf", srdf, "--points", cloud, "-Werror=srdf-ignored")
    assert (run.status, run.out) == (2, "")
    assert (f"{srdf}:3:5: error: <disable_default_collisions> of link 'wrist_3_link' allows its "
            "pairs with the scene's frames, not with run-time obstacles") in run.err
    # --check-srdf lints <disable_collisions> pairs, not a default-disabled link's
    run = robrayc("allowed-collisions", ur5, "--check-srdf", srdf, "--samples", "0")
    assert f"{srdf}:3:5: warning: the pairs of link 'wrist_3_link' " in run.err
    assert run.out.startswith(f"{srdf}: 2 disabled pairs, ")
