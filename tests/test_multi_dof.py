"""Ball and floating joints in the IR and in kinematics: their scalar variables, the
rotation-vector converters and forward kinematics (pure Python, single and batched) against
scipy's rotations composed by hand, frame by frame."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from robrayc.ir import Frame, Scene, joint_variables
from robrayc.kinematics import (
    GroupFK,
    absolute_poses,
    fk,
    fk_batch,
    quat_to_rotvec,
    rotvec_to_quat,
    sample_configs,
    sample_ranges,
)

Q_BASE = tuple(Rotation.from_euler("xyz", [0.3, -0.2, 0.9]).as_quat())
Q_BALL = tuple(Rotation.from_euler("xyz", [-1.1, 0.4, 0.2]).as_quat())


def mdof_scene() -> Scene:
    """world > table (fixed) ; world > base (floating) > elbow (revolute) > wrist (ball) >
    slide (prismatic) > tool (fixed)."""
    return Scene(frames=(
        Frame("table", translation=(2.0, 0.0, 0.0)),
        Frame("base", kind="floating", translation=(0.1, 0.2, 0.3), quaternion=Q_BASE,
              variable="base"),
        Frame("elbow", parent="base", kind="revolute", translation=(0.0, 0.0, 0.5),
              axis=(0.0, 1.0, 0.0), variable="elbow", offset=0.25),
        Frame("wrist", parent="elbow", kind="ball", translation=(0.4, 0.0, 0.0),
              quaternion=Q_BALL, variable="wrist"),
        Frame("slide", parent="wrist", kind="prismatic", translation=(0.0, 0.1, 0.0),
              axis=(1.0, 0.0, 0.0), variable="slide"),
        Frame("tool", parent="slide", translation=(0.0, 0.0, 0.2)),
    ))


def _tf(rotation: Rotation, translation) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = rotation.as_matrix()
    m[:3, 3] = translation
    return m


def _expected(c: dict[str, float]) -> dict[str, np.ndarray]:
    """The chain composed by hand with scipy (rotation vectors: Rotation.from_rotvec)."""
    def rv(name: str) -> Rotation:
        return Rotation.from_rotvec([c[name + "_rx"], c[name + "_ry"], c[name + "_rz"]])

    table = _tf(Rotation.identity(), [2.0, 0.0, 0.0])
    base = (_tf(Rotation.from_quat(Q_BASE), [0.1, 0.2, 0.3])
            @ _tf(rv("base"), [c["base_x"], c["base_y"], c["base_z"]]))
    elbow = base @ _tf(Rotation.from_rotvec([0.0, c["elbow"] + 0.25, 0.0]), [0.0, 0.0, 0.5])
    wrist = elbow @ _tf(Rotation.from_quat(Q_BALL), [0.4, 0.0, 0.0]) @ _tf(rv("wrist"), [0] * 3)
    slide = wrist @ _tf(Rotation.identity(), [c["slide"], 0.1, 0.0])
    tool = slide @ _tf(Rotation.identity(), [0.0, 0.0, 0.2])
    return {"table": table, "base": base, "elbow": elbow, "wrist": wrist, "slide": slide,
            "tool": tool}


def _pose_matrix(pose) -> np.ndarray:
    return _tf(Rotation.from_quat(pose[0]), pose[1])


def _random_configs(scene: Scene, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    q = rng.uniform(-4.0, 4.0, (n, len(scene.variables)))  # rotation vectors beyond pi too
    q[0] = 0.0
    q[1] = 1e-9 * rng.standard_normal(len(scene.variables))  # near the identity
    return q


def test_variables_are_scalar_and_named_by_suffix() -> None:
    scene = mdof_scene()
    assert joint_variables(scene.frame("wrist")) == ("wrist_rx", "wrist_ry", "wrist_rz")
    assert joint_variables(scene.frame("table")) == ()
    assert scene.variables == ("base_x", "base_y", "base_z", "base_rx", "base_ry", "base_rz",
                               "elbow", "wrist_rx", "wrist_ry", "wrist_rz", "slide")


def test_converters_against_scipy() -> None:
    rng = np.random.default_rng(1)
    vectors = list(rng.uniform(-3.0, 3.0, (200, 3))) + [np.zeros(3), np.array([1e-12, 0, 0]),
                                                       np.array([0.0, math.pi, 0.0])]
    for r in vectors:
        q = rotvec_to_quat(tuple(r))
        want = Rotation.from_rotvec(r).as_quat()
        assert np.allclose(q, want if np.dot(q, want) >= 0 else -want, atol=1e-15, rtol=0)
        # angle in [0, pi]: the same vector back, else the same rotation
        want_back = r if np.linalg.norm(r) <= math.pi else Rotation.from_rotvec(r).as_rotvec()
        assert np.abs(np.array(quat_to_rotvec(q)) - want_back).max() < 1e-12
        # either sign of the quaternion, not normalised: the same rotation vector
        assert np.abs(np.array(quat_to_rotvec(tuple(-3.0 * np.array(q)))) - want_back
                      ).max() < 1e-12
    with pytest.raises(ValueError):
        quat_to_rotvec((0.0, 0.0, 0.0, 0.0))


def test_rest_pose_is_the_fixed_pose() -> None:
    scene = mdof_scene()
    want = _expected(dict.fromkeys(scene.variables, 0.0))
    for name, pose in absolute_poses(scene).items():
        assert np.abs(_pose_matrix(pose) - want[name]).max() < 1e-15


def test_forward_kinematics_every_path() -> None:
    """absolute_poses (pure Python), fk (one configuration), fk_batch and GroupFK's
    batched group poses all equal the hand-composed chain."""
    scene = mdof_scene()
    q = _random_configs(scene, 50, 7)
    batched = fk_batch(scene, q)
    for row, frames in zip(q, batched, strict=True):
        config = dict(zip(scene.variables, row.tolist(), strict=True))
        want = _expected(config)
        single = fk(scene, config)
        python = absolute_poses(scene, config)
        for i, f in enumerate(scene.frames):
            assert np.abs(frames[i] - want[f.name]).max() < 1e-12
            assert np.abs(single[f.name] - want[f.name]).max() < 1e-12
            assert np.abs(_pose_matrix(python[f.name]) - want[f.name]).max() < 1e-12


def test_rigid_groups_and_batched_groups_agree() -> None:
    scene = mdof_scene()
    groups = GroupFK(scene)
    assert [scene.frames[b.frame].name for b in groups.groups.bodies] == [
        "base", "elbow", "wrist", "slide"]
    q = _random_configs(scene, 30, 3)
    many = groups.group_poses(q)
    for k in range(len(q)):
        assert np.abs(groups.group_poses(q[k:k + 1])[0] - many[k]).max() < 1e-13


def test_sampling_ranges() -> None:
    scene = mdof_scene()
    lo, hi = sample_ranges(scene)
    ranges = dict(zip(scene.variables, zip(lo.tolist(), hi.tolist(), strict=True), strict=True))
    for axis in "xyz":
        assert ranges["base_" + axis] == (0.0, 0.0)
        assert ranges["base_r" + axis] == (-math.pi, math.pi)
        assert ranges["wrist_r" + axis] == (-math.pi, math.pi)
    assert ranges["elbow"] == (-math.pi, math.pi)
    samples = sample_configs(scene, 100, 5)
    assert samples.shape == (100, len(scene.variables))
    assert np.all(samples[:, :3] == 0.0)


def test_language_server_hover_names_the_variables() -> None:
    from robrayc.lsp.analysis import frame_hover

    text = frame_hover(mdof_scene(), "wrist")
    assert "- ball joint, variables `wrist_rx`, `wrist_ry`, `wrist_rz`" in text


def test_readers_refuse_to_tie_a_scalar_joint_to_one(tmp_path) -> None:
    """A URDF joint mimicking a floating joint keeps its own variable (a warning); an MJCF
    joint equality with a ball joint is an error, as MuJoCo's."""
    from robrayc.diagnostics import CompileError, DiagnosticSink
    from robrayc.frontend import load_scene

    urdf = tmp_path / "m.urdf"
    urdf.write_text(
        '<robot name="m"><link name="a"/><link name="b"/><link name="c"/>\n'
        '<joint name="f" type="floating"><parent link="a"/><child link="b"/></joint>\n'
        '<joint name="r" type="revolute"><parent link="b"/><child link="c"/>'
        '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/>'
        '<mimic joint="f"/></joint></robot>\n')
    sink = DiagnosticSink()
    scene = load_scene([str(urdf)], sink=sink)
    assert scene.variables == ("f_x", "f_y", "f_z", "f_rx", "f_ry", "f_rz", "r")
    assert [d.message for d in sink.items] == [
        "joint 'r' mimics floating joint 'f'; mimic ignored"]
    mjcf = tmp_path / "m.xml"
    mjcf.write_text(
        '<mujoco><worldbody><body name="a"><joint name="h" type="hinge"/>'
        '<geom size=".1"/></body><body name="c"><joint name="b" type="ball"/>'
        '<geom size=".1"/></body></worldbody>\n'
        '<equality><joint joint1="h" joint2="b"/></equality></mujoco>\n')
    sink = DiagnosticSink()
    with pytest.raises(CompileError):
        load_scene([str(mjcf)], sink=sink)
    errors = [d for d in sink.items if d.severity == "error"]
    assert [(d.message, d.pos.line) for d in errors] == [
        ("only hinge and slide joints are allowed in a joint equality", 2)]


def test_mjcf_free_joint_in_the_worldbody_is_an_error(tmp_path) -> None:
    from robrayc.diagnostics import CompileError, DiagnosticSink
    from robrayc.frontend import load_scene

    path = tmp_path / "w.xml"
    path.write_text('<mujoco><worldbody>\n<freejoint/><body name="b"><geom size=".1"/></body>'
                    "</worldbody></mujoco>\n")
    sink = DiagnosticSink()
    with pytest.raises(CompileError):
        load_scene([str(path)], sink=sink)
    assert [(d.message, d.pos.line, d.pos.col) for d in sink.items] == [
        ("a joint in the worldbody (MuJoCo refuses it)", 2, 1)]


CLASHING_URDF = """<robot name="clash"><link name="a"/><link name="b"/><link name="c"/>
<link name="d"/>
<joint name="base" type="fixed"><parent link="a"/><child link="b"/></joint>
<joint name="f" type="floating"><parent link="b"/><child link="c"/></joint>
<joint name="f_x" type="revolute"><parent link="c"/><child link="d"/><axis xyz="0 0 1"/>
<limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>
"""


def test_generated_variables_that_clash_are_renamed(tmp_path) -> None:
    """A floating joint's variables are generated (f_x ... f_rz): a joint 'f_x' (valid for
    check_urdf and yourdfpy, as a hinge 'b_rx' beside a ball 'b' is for MuJoCo) would have
    been tied to its translation; the floating (ball) joint's variable gets a suffix instead,
    with a warning."""
    import mujoco
    import yourdfpy

    from robrayc.diagnostics import DiagnosticSink
    from robrayc.frontend import load_scene
    from tests.backends.test_urdf import check_urdf

    urdf = tmp_path / "clash.urdf"
    urdf.write_text(CLASHING_URDF)
    check_urdf(urdf)
    assert yourdfpy.URDF.load(str(urdf)).joint_names == ["base", "f", "f_x"]
    sink = DiagnosticSink()
    scene = load_scene([str(urdf)], sink=sink)
    assert scene.variables == ("f_2_x", "f_2_y", "f_2_z", "f_2_rx", "f_2_ry", "f_2_rz", "f_x")
    assert [(d.message, d.name, d.pos.line) for d in sink.items] == [
        ("floating joint 'f': its variable 'f' would give 'f_x', another joint's variable, "
         "and tie the two: renamed 'f_2'", "renamed", 4)]
    mjcf = tmp_path / "clash.xml"
    mjcf.write_text('<mujoco><worldbody><body name="a"><joint name="b" type="ball"/>\n'
                    '<geom size=".1"/><body name="c" pos="0 0 1"><joint name="b_rx"/>'
                    '<geom size=".1"/></body></body></worldbody></mujoco>\n')
    assert mujoco.MjModel.from_xml_path(str(mjcf)).njnt == 2
    scene = load_scene([str(mjcf)], sink=DiagnosticSink())
    assert scene.variables == ("b_2_rx", "b_2_ry", "b_2_rz", "b_rx")


def test_mjcf_output_names_the_joints_of_a_nested_floating_joint_apart(tmp_path) -> None:
    """A floating joint below another frame is written as slides NAME_x, NAME_y, NAME_z and
    a ball NAME_r: a joint of the input named 'f_r' keeps its name, the ball gets a suffix
    (MuJoCo refused the repeated name)."""
    import mujoco

    from tests.run import robrayc

    urdf = tmp_path / "clash.urdf"
    urdf.write_text(CLASHING_URDF.replace('"f_x"', '"f_r"'))
    out = tmp_path / "clash.mjcf"
    r = robrayc(str(urdf), "-o", str(out))
    assert r.status == 0, r.err
    model = mujoco.MjModel.from_xml_path(str(out))
    names = [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, k) for k in range(model.njnt)]
    assert names == ["f_x", "f_y", "f_z", "f_r_2", "f_r"]
    assert "ball joint of floating joint 'f' written as 'f_r_2'" in r.err
