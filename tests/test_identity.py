"""Robot identity survives every text format (issue 13): link and joint names, the tree, link
poses (yourdfpy, the independent reference, 1e-12) and robot name through URDF -> URDF,
URDF -> robray -> URDF and URDF -> JSON -> URDF for every corpus robot, each output accepted
by urdfdom's check_urdf; rotations written as rpy are exact at gimbal lock."""

from __future__ import annotations

import math
import random
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from robrayc import ir
from robrayc.cli.main import main
from robrayc.kinematics import qconj, qmul, quat_to_rpy, rpy_to_quat
from tests.backends.test_urdf import check_urdf
from tests.run import robrayc
from tests.urdf_robots import (  # noqa: F401  (ros_env: fixture)
    ROBOTS,
    load,
    robot_path,
    ros_env,
    yourdfpy_robot,
)

HALF_PI = math.pi / 2


def angle(a: ir.Quat, b: ir.Quat) -> float:
    d = qmul(qconj(a), b)
    return 2 * math.atan2(math.sqrt(d[0] ** 2 + d[1] ** 2 + d[2] ** 2), abs(d[3]))


def singular_rotations(rng: random.Random) -> list[ir.Quat]:
    """Pitch exactly at and within 1e-16..1e-1 of +-pi/2, half turns, axis quarter turns, and
    the rotation Baxter's URDF writes as rpy="-1.57079632679 -1.57079632679 0"."""
    out = [rpy_to_quat(-1.57079632679, -1.57079632679, 0.0)]
    for pitch in (HALF_PI, -HALF_PI):
        for k in range(0, 17):
            for _ in range(8):
                near = pitch + rng.choice((-1, 1)) * rng.random() * 10.0 ** -k if k else pitch
                out.append(rpy_to_quat(rng.uniform(-math.pi, math.pi), near,
                                       rng.uniform(-math.pi, math.pi)))
    r = math.sqrt(0.5)
    out += [(1.0, 0.0, 0.0, 0.0), (0.0, 1.0, 0.0, 0.0), (0.0, 0.0, 1.0, 0.0),
            (0.0, 0.0, 0.0, 1.0), (r, 0.0, 0.0, r), (0.0, r, 0.0, r), (0.0, -r, 0.0, r),
            (0.0, 0.0, r, r), (0.5, 0.5, 0.5, 0.5), (0.5, -0.5, 0.5, 0.5), (-0.5, 0.5, 0.5, 0.5)]
    return out


def random_rotations(rng: random.Random, n: int) -> list[ir.Quat]:
    out = []
    for _ in range(n):
        v = [rng.gauss(0.0, 1.0) for _ in range(4)]
        norm = math.sqrt(sum(c * c for c in v))
        out.append(tuple(c / norm for c in v))
    return out


def test_rpy_reproduces_the_rotation_within_1e_12():
    rng = random.Random(13)
    for q in singular_rotations(rng) + random_rotations(rng, 20000):
        rpy = quat_to_rpy(q)
        assert all(-math.pi <= a <= math.pi for a in rpy), (q, rpy)
        assert angle(q, rpy_to_quat(*rpy)) <= 1e-12, (q, rpy)


@pytest.mark.parametrize("fmt", ["urdf", "robray", "json"])
def test_text_writers_keep_singular_rotations(fmt, tmp_path: Path):
    """Frames at (and next to) gimbal lock written by each text writer and read back."""
    rng = random.Random(7)
    quats = singular_rotations(rng)[::3] + random_rotations(rng, 30)
    src = tmp_path / "scene.json"
    scene = ir.Scene(frames=tuple(
        ir.Frame(name=f"f{i}", parent=None if i == 0 else f"f{i - 1}", quaternion=q,
                 translation=(0.1, 0.0, 0.0),
                 geometries=(ir.Geometry(ir.Box((0.1, 0.1, 0.1))),))
        for i, q in enumerate(quats)))
    from robrayc.backends.json_ import dumps

    src.write_text(dumps(scene))
    out = tmp_path / f"rot.{fmt}"
    assert main([str(src), "-q", "-o", str(out)]) == 0
    again = load([out])
    for f in scene.frames:
        assert angle(f.quaternion, again.frame(f.name).quaternion) <= 1e-12, f.name


# --- every corpus robot, three round trips --------------------------------------------------


def _links_and_joints(path: Path) -> tuple[str, set[str], dict[str, tuple[str, str, str]]]:
    root = ET.parse(path).getroot()
    links = {e.get("name") for e in root.findall("link")}
    joints = {e.get("name"): (e.find("parent").get("link"), e.find("child").get("link"),
                              e.get("type")) for e in root.findall("joint")}
    return root.get("name"), links, joints


def _all_joint_values(robot, cfg: dict[str, float]) -> dict[str, float]:
    """Every movable joint's value under cfg (mimic joints followed), as yourdfpy does."""
    def value(name: str) -> float:
        j = robot.joint_map[name]
        if j.mimic is not None:
            return j.mimic.multiplier * value(j.mimic.joint) + j.mimic.offset
        return cfg[name]
    return {n: value(n) for n, j in robot.joint_map.items() if j.type != "fixed"}


def _configure(robot, values: dict[str, float]) -> None:
    robot.update_cfg({n: values[n] for n in robot.actuated_joint_names})


def _round_trip(src: Path, via: str | None, tmp: Path) -> Path:
    for out in ([tmp / f"middle.{via}"] if via is not None else []) + [tmp / "out.urdf"]:
        run = robrayc(src, "--missing-mesh=drop", "-q", "-o", out)
        assert run.status == 0, run.err
        src = out
    return out


@pytest.mark.usefixtures("ros_env")
@pytest.mark.parametrize("via", [None, "robray", "json"], ids=["urdf", "robray", "json"])
@pytest.mark.parametrize("robot", ROBOTS, ids=lambda r: r.key)
def test_round_trip_keeps_names_tree_and_link_poses(robot, via, tmp_path: Path):
    src = robot_path(robot)
    out = _round_trip(src, via, tmp_path)
    check_urdf(out)
    name, links, joints = _links_and_joints(src)
    name2, links2, joints2 = _links_and_joints(out)
    assert (name2, links2) == (name, links)
    assert {j: (p, c) for j, (p, c, _) in joints2.items()} == \
        {j: (p, c) for j, (p, c, _) in joints.items()}
    assert {j: t for j, (_, _, t) in joints2.items()} == {j: t for j, (_, _, t) in joints.items()}
    ref, ours = yourdfpy_robot(src), yourdfpy_robot(out)
    assert ours.base_link == ref.base_link
    rng = random.Random(hash((robot.key, via)) & 0xFFFF)
    for _ in range(3):
        cfg = {}
        for n in ref.actuated_joint_names:
            lim = ref.joint_map[n].limit
            lo = lim.lower if lim is not None and lim.lower is not None else -math.pi
            hi = lim.upper if lim is not None and lim.upper is not None else math.pi
            cfg[n] = rng.uniform(lo, hi) if hi > lo else lo
        values = _all_joint_values(ref, cfg)
        _configure(ref, values)
        _configure(ours, values)
        for link in links:
            np.testing.assert_allclose(ours.get_transform(link, ours.base_link),
                                       ref.get_transform(link, ref.base_link), rtol=0,
                                       atol=1e-12, err_msg=link)
