"""`--srdf` on `plan` and `collide` (issue 30): the link pairs a MoveIt SRDF disables are not
checked, and a configuration that collides names its frame pairs, with a hint at --srdf when
they are adjacent links. The corpus UR5, whose neighbouring links' meshes touch at the zero
configuration, and the adjacent pairs of MoveIt's UR5 SRDF (ur5_moveit_config), written here
by hand."""

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
    # MoveIt's default-disabled link: not applied (its pairs stay checked), and said so
    srdf.write_text(UR5_SRDF.replace("</robot>", '<disable_default_collisions link="ee_link"/>'
                                     "</robot>"))
    run = robrayc(*command, ur5, "--srdf", srdf, "-Werror=srdf-ignored")
    assert (run.status, run.out) == (2, "")
    assert (f"{srdf}:11:1: error: <disable_default_collisions> is not applied: the pairs of "
            "link 'ee_link' stay checked") in run.err
