"""robrayc.kinematics: batched group poses against the one-configuration path and against each
joint's own rotation matrix, composed frame by frame."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from robrayc.kinematics import GroupFK, axis_rotations, sample_configs
from tests.test_collision import DEMO_7DOF, scene_from
from tests.urdf_robots import load, robot_path, ros_env  # noqa: F401 (a fixture)


def _composed(fk: GroupFK, q: np.ndarray) -> np.ndarray:
    """Group poses as parent @ constant @ joint transform, one joint at a time."""
    G = np.empty((len(q), len(fk.motions) + 1, 4, 4))
    G[:, 0] = np.eye(4)
    for g, (pg, const, kind, axis, var, offset) in enumerate(fk.motions, start=1):
        base = G[:, pg] @ const
        value = q[:, var] + offset
        if kind == "revolute":
            G[:, g] = base @ axis_rotations(axis, value)
        else:
            G[:, g] = base
            G[:, g, :3, 3] += (base[:, :3, :3] @ axis) * value[:, None]
    return G


def _check(scene) -> None:
    fk = GroupFK(scene)
    q = sample_configs(scene, 500, 3) * 3  # beyond the limits too: any angle
    batched = fk.group_poses(q)
    assert np.abs(batched - _composed(fk, q)).max() < 1e-12
    for row in q[:20]:
        assert np.abs(fk.group_poses(row[None])[0] - _composed(fk, row[None])[0]).max() < 1e-12


def test_7dof_demo_group_poses() -> None:
    from robrayc.frontend import load_scene

    _check(load_scene([str(DEMO_7DOF)]))


@pytest.mark.usefixtures("ros_env")
def test_pr2_group_poses() -> None:
    """PR2: 45 moving groups, a prismatic torso, mimic joints."""
    _check(load([robot_path("pr2")]))


def test_scaled_axes_and_prismatic_joints(tmp_path: Path) -> None:
    """Axes that are not unit vectors (amino scales the angle by the axis length) and a
    prismatic joint along a tilted axis, under a turned frame."""
    _check(scene_from(tmp_path, """
frame a { type revolute; axis [0, 0, 2]; quaternion [0.1, 0.2, 0.3, 0.9];
    frame b { type prismatic; axis [0.3, 0.4, 0.5]; translation [1, 2, 3];
        frame c { type revolute; axis [0.6, -0.8, 0.1]; translation [0, 0.5, 0]; } } }
"""))
