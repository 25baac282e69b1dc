"""An axis a rounding away from unit length (0.573576 0 0.819152 is 2.9e-7 short, as in
published hands) is made exactly unit on reading URDF and MJCF, as Pinocchio and MuJoCo read
it: kept as written, it moved links 1e-6 m off their poses (the robot zoo's only failures)."""

from __future__ import annotations

import numpy as np
import pytest

from robrayc.diagnostics import DiagnosticSink
from robrayc.frontend import LoadOptions, load_scene
from robrayc.kinematics import fk

AXIS = "0.573576 0 0.819152"
URDF = f"""<robot name="r">
  <link name="base"/><link name="arm"/><link name="tip"/>
  <joint name="j" type="revolute"><parent link="base"/><child link="arm"/>
    <axis xyz="{AXIS}"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="t" type="fixed"><parent link="arm"/><child link="tip"/>
    <origin xyz="1 2 3"/></joint>
</robot>
"""
MJCF = f"""<mujoco><worldbody><body name="arm"><joint name="j" axis="{AXIS}"/>
  <body name="tip" pos="1 2 3"><geom size="0.1"/></body></body></worldbody></mujoco>
"""


def _tip(tmp_path, name: str, text: str, frame: str) -> np.ndarray:
    path = tmp_path / name
    path.write_text(text)
    scene = load_scene([str(path)], LoadOptions(), DiagnosticSink())
    return fk(scene, {"j": 1.0})[frame][:3, 3]


def test_urdf_near_unit_axis_as_pinocchio(tmp_path):
    pin = pytest.importorskip("pinocchio")
    model = pin.buildModelFromXML(URDF)
    data = model.createData()
    pin.forwardKinematics(model, data, np.array([1.0]))
    pin.updateFramePlacements(model, data)
    want = data.oMf[model.getFrameId("tip")].translation
    assert np.abs(_tip(tmp_path, "r.urdf", URDF, "t") - want).max() < 1e-12


def test_mjcf_near_unit_axis_as_mujoco(tmp_path):
    mujoco = pytest.importorskip("mujoco")
    model = mujoco.MjModel.from_xml_string(MJCF)
    data = mujoco.MjData(model)
    data.qpos[0] = 1.0
    mujoco.mj_kinematics(model, data)
    want = data.xpos[model.body("tip").id]
    assert np.abs(_tip(tmp_path, "r.xml", MJCF, "tip") - want).max() < 1e-12
