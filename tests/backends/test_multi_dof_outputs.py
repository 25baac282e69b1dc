"""Ball and floating joints through every output, each read by its real reader: robray and
JSON by robrayc's readers (and the JSON schema), URDF by check_urdf and Pinocchio, MJCF by
MuJoCo (mj_kinematics at random configurations, the qpos quaternions from rotvec_to_quat),
SDF by libsdformat, amino C by the real amino library, standalone C by gcc; the expected
poses composed with scipy's rotations, not robrayc's kinematics."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from robrayc import ir
from robrayc.diagnostics import DiagnosticSink
from robrayc.frontend import load_scene
from robrayc.kinematics import fk, rotvec_to_quat
from tests.backends.test_sdf import sdf_check  # noqa: F401 (a fixture)
from tests.backends.validator import check_run, compile_to, every_backend
from tests.corpus import REPO

SCENE = """
frame table { translation [2, 0, 0]; geometry { shape box; dimension [1, 1, 0.1]; } }
frame base { type floating; translation [0.1, 0.2, 0.3]; rpy [0.3, -0.2, 0.9];
  geometry { shape sphere; radius 0.1; } }
frame elbow { parent base; type revolute; axis [0, 1, 0]; translation [0, 0, 0.5];
  limit_position [-1, 1]; geometry { shape box; dimension [0.05, 0.05, 0.4]; } }
frame wrist { parent elbow; type ball; variable w; translation [0.4, 0, 0];
  rpy [-1.1, 0.4, 0.2]; geometry { shape box; dimension [0.1, 0.1, 0.1]; } }
frame tool { parent wrist; translation [0, 0, 0.2]; geometry { shape sphere; radius 0.05; } }
frame carrier { translation [0, -1, 0.2]; rpy [0.1, 0.2, 0.3]; }
frame drone { parent carrier; type floating; translation [0.3, 0, 0]; rpy [0.5, 0, -0.4];
  geometry { shape sphere; radius 0.2; } }
"""
FIXED = {  # the frames' fixed poses: (rotation, translation)
    "table": (Rotation.identity(), [2.0, 0.0, 0.0]),
    "base": (Rotation.from_euler("xyz", [0.3, -0.2, 0.9]), [0.1, 0.2, 0.3]),
    "elbow": (Rotation.identity(), [0.0, 0.0, 0.5]),
    "wrist": (Rotation.from_euler("xyz", [-1.1, 0.4, 0.2]), [0.4, 0.0, 0.0]),
    "tool": (Rotation.identity(), [0.0, 0.0, 0.2]),
    "carrier": (Rotation.from_euler("xyz", [0.1, 0.2, 0.3]), [0.0, -1.0, 0.2]),
    "drone": (Rotation.from_euler("xyz", [0.5, 0.0, -0.4]), [0.3, 0.0, 0.0]),
}
PARENT = {"elbow": "base", "wrist": "elbow", "tool": "wrist", "drone": "carrier"}


def _tf(rotation: Rotation, translation) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = rotation.as_matrix()
    m[:3, 3] = translation
    return m


def _rv(c: dict, v: str) -> Rotation:
    return Rotation.from_rotvec([c[v + "_rx"], c[v + "_ry"], c[v + "_rz"]])


def _motion(name: str, c: dict) -> np.ndarray:
    if name in ("base", "drone"):
        return _tf(_rv(c, name), [c[name + "_x"], c[name + "_y"], c[name + "_z"]])
    if name == "wrist":
        return _tf(_rv(c, "w"), [0, 0, 0])
    if name == "elbow":
        return _tf(Rotation.from_rotvec([0, c["elbow"], 0]), [0, 0, 0])
    return np.eye(4)


def expected(c: dict) -> dict[str, np.ndarray]:
    """Every frame's world pose at configuration c, composed with scipy."""
    out: dict[str, np.ndarray] = {}
    for name, (r, t) in FIXED.items():  # parents first
        up = out[PARENT[name]] if name in PARENT else np.eye(4)
        out[name] = up @ _tf(r, t) @ _motion(name, c)
    return out


def configs(variables: tuple[str, ...], n: int, seed: int) -> list[dict[str, float]]:
    rng = np.random.default_rng(seed)
    out = [dict.fromkeys(variables, 0.0)]
    for _ in range(n):
        out.append(dict(zip(variables, rng.uniform(-3.0, 3.0, len(variables)).tolist(),
                            strict=True)))
    return out


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("mdof") / "mdof.robray"
    path.write_text(SCENE)
    return path


@pytest.fixture(scope="module")
def loaded(source: Path) -> ir.Scene:
    return load_scene([str(source)])


def test_the_scene_and_its_fk(loaded: ir.Scene) -> None:
    assert [f.kind for f in loaded.frames] == ["fixed", "floating", "revolute", "ball", "fixed",
                                              "fixed", "floating"]
    for c in configs(loaded.variables, 10, 1):
        want, got = expected(c), fk(loaded, c)
        for name in FIXED:
            assert np.abs(got[name] - want[name]).max() < 1e-12


def _same_frames(a: ir.Scene, b: ir.Scene) -> None:
    for f, g in zip(a.frames, b.frames, strict=True):
        assert (f.name, f.parent, f.kind, f.variable, f.axis, f.limits) == (
            g.name, g.parent, g.kind, g.variable, g.axis, g.limits)
        assert f.translation == g.translation and f.quaternion == g.quaternion


@pytest.mark.parametrize("fmt", ["robray", "json"])
def test_robray_and_json_keep_them(fmt: str, source: Path, loaded: ir.Scene, tmp_path: Path):
    run = compile_to(fmt, source, tmp_path)
    assert run.returncode == 0, run.stderr
    assert "warning" not in run.stderr
    if fmt == "json":
        import jsonschema

        schema = json.loads((REPO / "schemas" / "robrayc-scene.schema.json").read_text())
        jsonschema.validate(json.loads(run.output.read_text()), schema)
    _same_frames(loaded, load_scene([str(run.output)]))


def test_robray_reports_what_a_ball_ignores(tmp_path: Path) -> None:
    path = tmp_path / "b.robray"
    path.write_text("frame b { type ball; axis [0, 0, 1]; limit_position [-1, 1]; }\n")
    run = compile_to("robray", path, tmp_path)
    assert run.returncode == 0
    assert "b.robray:1:27: warning: 'axis' has no effect on ball frame 'b'" in run.stderr
    assert "'limit_position' has no effect on ball frame 'b'" in run.stderr
    assert load_scene([str(run.output)]).variables == ("b_rx", "b_ry", "b_rz")


def test_json_refuses_an_axis_on_a_floating_frame(tmp_path: Path) -> None:
    from tests.backends.validator import LOCATED_ERROR

    doc = {"format": "robrayc-scene", "version": 1, "frames": [
        {"name": "f", "type": "floating", "axis": [0, 0, 1]}]}
    path = tmp_path / "f.json"
    path.write_text(json.dumps(doc))
    run = compile_to("robray", path, tmp_path)
    assert run.returncode == 1 and "must be null for a floating frame" in run.stderr
    assert LOCATED_ERROR.search(run.stderr) or "f.json" in run.stderr


# --- URDF: check_urdf and Pinocchio ---------------------------------------------------------


def test_urdf_through_pinocchio(source: Path, loaded: ir.Scene, tmp_path: Path) -> None:
    pin = pytest.importorskip("pinocchio")
    run = compile_to("urdf", source, tmp_path)
    assert run.returncode == 0, run.stderr
    assert "[-Wball-joint]" in run.stderr and "'wrist_yaw', 'wrist_pitch', 'wrist_roll'" in \
        run.stderr
    if shutil.which("check_urdf"):
        subprocess.run(["check_urdf", str(run.output)], check=True, capture_output=True)
    model = pin.buildModelFromUrdf(str(run.output))
    data = model.createData()
    kinds = {model.names[j]: model.joints[j].shortname() for j in range(1, model.njoints)}
    assert kinds["base"] == "JointModelFreeFlyer" and kinds["drone"] == "JointModelFreeFlyer"
    for c in configs(loaded.variables, 8, 2):
        q = pin.neutral(model)
        for name in ("base", "drone"):  # (x, y, z, qx, qy, qz, qw), after the origin
            j = model.getJointId(name)
            q[model.idx_qs[j]:model.idx_qs[j] + 7] = [
                c[name + "_x"], c[name + "_y"], c[name + "_z"], *_rv(c, name).as_quat()]
        q[model.idx_qs[model.getJointId("elbow")]] = c["elbow"]
        yaw, pitch, roll = _rv(c, "w").as_euler("ZYX")  # URDF rpy: Rz(yaw) Ry(pitch) Rx(roll)
        for name, angle in (("wrist_yaw", yaw), ("wrist_pitch", pitch), ("wrist_roll", roll)):
            k = model.idx_qs[model.getJointId(name)]
            q[k:k + 2] = [np.cos(angle), np.sin(angle)]  # continuous: (cos, sin)
        pin.framesForwardKinematics(model, data, q)
        want = expected(c)
        for name in FIXED:
            got = data.oMf[model.getFrameId(name, pin.BODY)].homogeneous
            assert np.abs(got - want[name]).max() < 1e-9, name


def test_urdf_through_yourdfpy(source: Path, loaded: ir.Scene, tmp_path: Path) -> None:
    """yourdfpy poses a floating joint at its origin (its FK leaves it out): the rest of the
    robot at random configurations of its other joints."""
    yourdfpy = pytest.importorskip("yourdfpy")
    run = compile_to("urdf", source, tmp_path)
    robot = yourdfpy.URDF.load(str(run.output), load_meshes=False)
    for c in configs(loaded.variables, 5, 10):
        c.update({f"{v}_{a}": 0.0 for v in ("base", "drone") for a in ("x", "y", "z", "rx",
                                                                        "ry", "rz")})
        yaw, pitch, roll = _rv(c, "w").as_euler("ZYX")
        robot.update_cfg({"elbow": c["elbow"], "wrist_yaw": yaw, "wrist_pitch": pitch,
                          "wrist_roll": roll})
        want = expected(c)
        for name in FIXED:
            assert np.abs(robot.get_transform(name) - want[name]).max() < 1e-9, name


def test_urdf_floating_joint_reads_back(source: Path, loaded: ir.Scene, tmp_path: Path):
    run = compile_to("urdf", source, tmp_path)
    back = load_scene([str(run.output)])
    for name in ("base", "drone"):
        f = back.frame(name)
        assert (f.kind, ir.joint_variables(f)) == ("floating", ir.joint_variables(
            loaded.frame(name)))
    c = configs(back.variables, 1, 3)[1]
    mine = {k: v for k, v in c.items() if not k.startswith("wrist_")}
    mine.update({"w_rx": 0.0, "w_ry": 0.0, "w_rz": 0.0})
    for k in ("wrist_yaw", "wrist_pitch", "wrist_roll"):
        c[k] = 0.0
    got, want = fk(back, c), expected(mine)
    for name in FIXED:  # link wrist: the frame of its joint wrist_roll
        assert np.abs(got["wrist_roll" if name == "wrist" else name] - want[name]).max() < \
            1e-12, name


# --- MJCF: MuJoCo ----------------------------------------------------------------------------


def mujoco_poses(model, c: dict) -> dict[str, np.ndarray]:
    """MuJoCo's body poses (mj_kinematics) at configuration c: a free joint's qpos is the
    body's world pose, its qpos0 (MuJoCo's body pose) times the translation and rotation
    vector of c; a ball's the quaternion (w x y z) of its rotation vector."""
    import mujoco

    data = mujoco.MjData(model)
    for j in range(model.njnt):
        name, k = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j), model.jnt_qposadr[j]
        kind = model.jnt_type[j]
        if kind == mujoco.mjtJoint.mjJNT_FREE:  # a child of the worldbody
            b = model.jnt_bodyid[j]
            w, x, y, z = model.body_quat[b]
            world = _tf(Rotation.from_quat([x, y, z, w]), model.body_pos[b]) @ _tf(
                _rv(c, name), [c[name + "_x"], c[name + "_y"], c[name + "_z"]])
            x, y, z, w = Rotation.from_matrix(world[:3, :3]).as_quat()
            data.qpos[k:k + 7] = [*world[:3, 3], w, x, y, z]
        elif kind == mujoco.mjtJoint.mjJNT_BALL:
            x, y, z, w = rotvec_to_quat((c[name + "_rx"], c[name + "_ry"], c[name + "_rz"]))
            data.qpos[k:k + 4] = [w, x, y, z]
        else:
            data.qpos[k] = c[name]
    mujoco.mj_kinematics(model, data)
    out = {}
    for b in range(1, model.nbody):
        m = np.eye(4)
        m[:3, :3] = data.xmat[b].reshape(3, 3)
        m[:3, 3] = data.xpos[b]
        out[mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, b)] = m
    return out


def test_mjcf_through_mujoco(source: Path, loaded: ir.Scene, tmp_path: Path) -> None:
    mujoco = pytest.importorskip("mujoco")
    run = compile_to("mjcf", source, tmp_path)
    assert run.returncode == 0, run.stderr
    model = mujoco.MjModel.from_xml_path(str(run.output))
    kinds = {mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j): int(model.jnt_type[j])
             for j in range(model.njnt)}
    assert kinds == {"base": mujoco.mjtJoint.mjJNT_FREE, "elbow": mujoco.mjtJoint.mjJNT_HINGE,
                     "w": mujoco.mjtJoint.mjJNT_BALL, "drone_x": mujoco.mjtJoint.mjJNT_SLIDE,
                     "drone_y": mujoco.mjtJoint.mjJNT_SLIDE,
                     "drone_z": mujoco.mjtJoint.mjJNT_SLIDE, "drone_r": mujoco.mjtJoint.mjJNT_BALL}
    for c in configs(loaded.variables, 20, 4):
        got, want = mujoco_poses(model, {**c, **_drone_r(c)}), expected(c)
        for name in FIXED:  # the base pose included
            assert np.abs(got[name] - want[name]).max() < 1e-9, name


def _drone_r(c: dict) -> dict:
    """The drone's rotation vector under the name of its ball joint in MJCF (drone_r)."""
    return {f"drone_r_r{a}": c[f"drone_r{a}"] for a in "xyz"}


def test_mjcf_round_trip_against_mujoco(source: Path, loaded: ir.Scene, tmp_path: Path):
    """scene -> MJCF -> robrayc: the free joint and the ball read back as floating and ball
    frames; robrayc's FK of what it read equals MuJoCo's bodies at random configurations."""
    mujoco = pytest.importorskip("mujoco")
    run = compile_to("mjcf", source, tmp_path)
    back = load_scene([str(run.output)])
    assert [(back.frame(n).kind, back.frame(n).variable) for n in ("base", "wrist", "drone_r")
            ] == [("floating", "base"), ("ball", "w"), ("ball", "drone_r")]
    assert [back.frame(f"drone_{a}").kind for a in "xyz"] == ["prismatic"] * 3
    model = mujoco.MjModel.from_xml_path(str(run.output))
    for c in configs(back.variables, 20, 8):
        got, want = fk(back, c), mujoco_poses(model, c)
        for name, pose in want.items():
            assert np.abs(got[name] - pose).max() < 1e-9, name
        mine = {**c, **{f"drone_{a}": c[f"drone_{a}"] for a in "xyz"},
                **{f"drone_r{a}": c[f"drone_r_r{a}"] for a in "xyz"},
                "w_rx": c["w_rx"], "w_ry": c["w_ry"], "w_rz": c["w_rz"]}
        for name, pose in expected(mine).items():  # the scene it was written from
            assert np.abs(got[name] - pose).max() < 1e-9, name


# --- SDF: libsdformat -------------------------------------------------------------------------


def test_sdf_through_libsdformat(source: Path, loaded: ir.Scene, tmp_path: Path,
                                 sdf_check) -> None:  # noqa: F811 (the fixture)
    from tests.backends.test_sdf import run_check

    run = compile_to("sdf", source, tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stderr.count("[-Wfloating-joint]") == 2
    model = run_check(sdf_check, run.output)
    joints = {name: j[0] for name, j in model.joints.items()}
    assert joints["wrist_joint"] == "1"  # sdf::JointType::BALL
    assert not {"base_joint", "drone_joint"} & set(joints)  # free links
    want = expected(dict.fromkeys(loaded.variables, 0.0))
    for name in FIXED:
        assert np.abs(model.links[name] - want[name]).max() < 1e-12, name


# --- C: the real amino library, gcc ----------------------------------------------------------


def test_amino_c_in_the_real_library(source: Path, loaded: ir.Scene, tmp_path: Path) -> None:
    from tests import amino_real

    run = compile_to("c", source, tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stderr.count("[-Wfloating-joint]") == 2 and "[-Wball-joint]" in run.stderr
    amino_real.require_library()
    cs = configs(loaded.variables, 5, 5)
    rest = ("base", "drone")  # fixed at their rest poses in amino
    for c in cs:
        c.update({f"{v}_{a}": 0.0 for v in rest for a in ("x", "y", "z", "rx", "ry", "rz")})
    amino_cfgs = []
    for c in cs:
        yaw, pitch, roll = _rv(c, "w").as_euler("ZYX")
        amino_cfgs.append({"elbow": c["elbow"], "w_yaw": yaw, "w_pitch": pitch, "w_roll": roll})
    for c, got in zip(cs, amino_real.load_c(run.output, "scene", amino_cfgs), strict=True):
        frames = {f["name"]: f["abs"] for f in got["frames"]}
        want = expected(c)
        for name in FIXED:
            m = _tf(Rotation.from_quat(frames[name]["q"]), frames[name]["v"])
            assert np.abs(m - want[name]).max() < 1e-9, name


def test_amino_c_floating_base_error(source: Path, tmp_path: Path) -> None:
    run = compile_to("c", source, tmp_path, "--floating-base", "error")
    assert run.returncode == 1
    assert "mdof.robray:3:7: error: amino C has no floating joint: 'base' is one" in run.stderr
    assert not run.output.exists()


def test_standalone_c_fk_and_tables(loaded: ir.Scene, tmp_path: Path) -> None:
    from tests.backends.test_c_standalone import check_fk, check_tables, compile_scene, load

    lib = compile_scene([], tmp_path, "mdof", scene=loaded)
    compiled = load(loaded, lib, "mdof")
    check_tables(loaded, compiled)
    check_fk(loaded, compiled)
    from tests.backends.test_c_standalone import matrices

    cs = configs(loaded.variables, 20, 6) + [dict.fromkeys(loaded.variables, 1e-7)]
    got = matrices(compiled.fk(np.array([[c[v] for v in loaded.variables] for c in cs])))
    for c, poses in zip(cs, got, strict=True):
        want = expected(c)
        for i, f in enumerate(loaded.frames):
            assert np.abs(poses[i] - want[f.name]).max() < 1e-12, f.name


HAND_MJCF = """<mujoco>
  <compiler angle="degree"/>
  <worldbody>
    <body name="torso" pos="0.1 -0.2 1.3" euler="10 -20 30">
      <freejoint name="root"/>
      <geom type="sphere" size="0.1"/>
      <body name="thigh" pos="0 0.1 -0.2" quat="0.9 0.1 0.3 -0.2">
        <joint name="hip" type="ball" pos="0 0 0.05"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.04"/>
        <body name="shin" pos="0 0 -0.35">
          <joint name="knee" type="hinge" axis="0 1 0" range="-150 0"/>
          <geom type="box" size="0.03 0.03 0.15"/>
          <body name="foot" pos="0 0 -0.3">
            <joint name="ankle" type="ball" range="0 40"/>
            <geom type="box" size="0.08 0.03 0.02"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def test_mjcf_free_and_ball_joints_read_as_mujoco_moves_them(tmp_path: Path) -> None:
    """A hand-written body with a free joint (placed by euler angles), a ball joint away
    from its body's origin and one at it: robrayc's FK equals mj_kinematics at random
    configurations, the base pose included; a ball's range is a located warning."""
    mujoco = pytest.importorskip("mujoco")
    path = tmp_path / "legged.xml"
    path.write_text(HAND_MJCF)
    sink = DiagnosticSink()
    back = load_scene([str(path)], sink=sink)
    warned = [d for d in sink.items if "range of a ball joint" in d.message]
    assert len(warned) == 1 and warned[0].pos.line == 14
    assert [(f.kind, f.variable) for f in back.frames if f.is_joint] == [
        ("floating", "root"), ("ball", "hip"), ("revolute", "knee"), ("ball", "ankle")]
    model = mujoco.MjModel.from_xml_path(str(path))
    for c in configs(back.variables, 30, 9):
        got, want = fk(back, c), mujoco_poses(model, c)
        for name, pose in want.items():
            assert np.abs(got[name] - pose).max() < 1e-9, name


# SimMeR: this scene is larger than SimMeR's mazes and robots (a located error, as for any
# scene of its size)
REFUSED = {"c-checker": "robot.robray:4:7: error: the compiled checker does not support "
                        "floating joints ('base')", "simmer": "SimMeR"}


@pytest.mark.parametrize("fmt", every_backend())
def test_every_backend_at_a_configuration(fmt: str, tmp_path: Path) -> None:
    """Every backend on the scene (its floating base a robot for the 2D formats) posed by
    --var at values of a floating and a ball joint: read by its format's reader, or refused
    with a located error where the format cannot take it."""
    path = tmp_path / "robot.robray"
    path.write_text("class robot {}\n" + SCENE.replace("type floating; translation [0.1",
                                                       "type floating; isa robot; "
                                                       "translation [0.1"))
    run = compile_to(fmt, path, tmp_path, "--var", "base_x", "--val", "0.3", "--var", "w_ry",
                     "--val", "0.5")
    check_run(run)
    assert (run.returncode == 1) == (fmt in REFUSED), run.stderr
    if fmt in REFUSED:
        assert REFUSED[fmt] in run.stderr
