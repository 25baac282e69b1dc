"""MJCF export, checked by the real MuJoCo: every corpus robot and amino demo scene loads with
MjModel.from_xml_path; body poses after mj_kinematics equal the FK (robrayc's, and yourdfpy's
for the URDF robots) within 1e-9 at random configurations; joint ranges equal the limits
(yourdfpy's reading of the URDF); geom sizes and colours match the scene."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from robrayc import ir
from robrayc.cli.main import main
from robrayc.frontend import LoadOptions, load_scene
from robrayc.kinematics import fk
from tests.corpus import amino_corpus_files, corpus_id, require_corpus
from tests.run import robrayc
from tests.urdf_robots import (
    ROBOTS,
    load,
    robot_path,
    ros_env,  # noqa: F401  (fixture)
    yourdfpy_robot,
)

mujoco = pytest.importorskip("mujoco")
pytestmark = pytest.mark.usefixtures("ros_env")


def export(inputs: list[Path], out: Path, *extra: str) -> None:
    run = robrayc(*inputs, "--missing-mesh=drop", "-q", "-o", out, *extra)
    assert run.status == 0, run.err


def body_id(model, name: str) -> int:
    return mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name)


def pose_at(model, data, scene: ir.Scene, cfg: dict[str, float]) -> None:
    """Every MuJoCo joint at the value of its frame's configuration variable; kinematics."""
    for j in range(model.njnt):
        body = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, model.jnt_bodyid[j])
        data.qpos[model.jnt_qposadr[j]] = cfg[scene.frame(body).variable]
    mujoco.mj_kinematics(model, data)


def body_matrix(data, b: int) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = data.xmat[b].reshape(3, 3)
    m[:3, 3] = data.xpos[b]
    return m


def random_config(scene: ir.Scene, rng: random.Random) -> dict[str, float]:
    cfg = {}
    for f in scene.frames:
        if f.is_joint and f.variable not in cfg:
            lo, hi = f.limits.position or (-2.0, 2.0)
            cfg[f.variable] = rng.uniform(max(lo, -3.0), min(hi, 3.0))
    return cfg


def check_model(scene: ir.Scene, model, seed: str) -> None:
    data = mujoco.MjData(model)
    assert model.nbody == len(scene.frames) + 1  # every frame a body, plus the world
    rng = random.Random(seed)
    for _ in range(3):
        cfg = random_config(scene, rng)
        pose_at(model, data, scene, cfg)
        ours = fk(scene, cfg)
        for f in scene.frames:
            np.testing.assert_allclose(body_matrix(data, body_id(model, f.name)), ours[f.name],
                                       atol=1e-9, err_msg=f.name)
    for f in scene.frames:
        b = body_id(model, f.name)
        geoms = [g for g in range(model.ngeom) if model.geom_bodyid[g] == b]
        kept = [g for g in f.geometries if not isinstance(g.shape, ir.Grid)]
        assert len(geoms) == len(kept), f.name
        for gid, g in zip(geoms, kept, strict=True):
            check_geom(model, gid, g)


def check_geom(model, gid: int, g: ir.Geometry) -> None:
    s, k = g.shape, g.scale
    t = mujoco.mjtGeom
    size = model.geom_size[gid]
    if isinstance(s, ir.Box):
        assert model.geom_type[gid] == t.mjGEOM_BOX
        np.testing.assert_array_equal(size, [c * k / 2 for c in s.dimension])
    elif isinstance(s, ir.Sphere):
        assert model.geom_type[gid] == t.mjGEOM_SPHERE and size[0] == s.radius * k
    elif isinstance(s, ir.Cylinder) or (isinstance(s, ir.Cone)
                                        and s.start_radius == s.end_radius):
        h = s.height * k
        r = (s.radius if isinstance(s, ir.Cylinder) else s.start_radius) * k
        assert model.geom_type[gid] == t.mjGEOM_CYLINDER
        np.testing.assert_array_equal(size[:2], [r, h / 2])
        np.testing.assert_array_equal(model.geom_pos[gid], [0.0, 0.0, h / 2])
    else:
        assert model.geom_type[gid] == t.mjGEOM_MESH
    np.testing.assert_allclose(model.geom_rgba[gid], [*g.color, g.alpha], atol=1e-7)
    assert bool(model.geom_contype[gid]) == g.collision


@pytest.mark.parametrize("robot", ROBOTS, ids=lambda r: r.key)
def test_corpus_robot_loads_in_mujoco_with_the_same_kinematics(robot, tmp_path):
    path = robot_path(robot)
    out = tmp_path / f"{robot.key}.mjcf"
    export([path], out)
    model = mujoco.MjModel.from_xml_path(str(out))
    scene = load([path])
    check_model(scene, model, robot.key)
    # independent reference: yourdfpy's FK of the URDF and its joint limits
    ref = yourdfpy_robot(path)
    data = mujoco.MjData(model)
    cfg = random_config(scene, random.Random(1))
    pose_at(model, data, scene, cfg)
    ref.update_cfg(np.array([cfg[scene.frame(n).variable] if ref.joint_map[n].mimic is None
                             else cfg[ref.joint_map[n].mimic.joint]
                             for n in ref.actuated_joint_names]))
    for name, j in ref.joint_map.items():
        want = ref.get_transform(frame_to=j.child, frame_from=ref.base_link)
        np.testing.assert_allclose(body_matrix(data, body_id(model, name)), want, atol=1e-9)
        if j.type in ("revolute", "prismatic") and j.mimic is None:
            jid = model.body_jntadr[body_id(model, name)]
            assert model.jnt_limited[jid]
            assert tuple(model.jnt_range[jid]) == (j.limit.lower or 0.0, j.limit.upper or 0.0)


@pytest.mark.parametrize("path", amino_corpus_files(), ids=corpus_id)
def test_amino_demo_loads_in_mujoco(path, tmp_path):
    require_corpus()
    out = tmp_path / "scene.mjcf"
    export([path], out)
    scene = load_scene([str(path)], LoadOptions(missing_mesh="drop"))
    check_model(scene, mujoco.MjModel.from_xml_path(str(out)), path.name)


SHAPES = """
frame base { geometry { shape box; dimension [.1, .2, .3]; color [1, 0, 0]; } }
frame arm { parent base; type revolute; axis [0, 1, 0]; translation [0, 0, .3];
            offset .25; limit_position [-1, 2];
            geometry { shape cylinder; height .5; radius .05; alpha .5; visual 0; }
            geometry { shape cone; height .2; start_radius .1; end_radius .02; collision 0; }
            geometry { shape cone; height .2; start_radius .1; end_radius .1; scale 2; }
            geometry { shape grid; dimension [1, 1]; delta [.1, .1]; thickness .01; } }
frame slider { parent arm; type prismatic; axis [1, 0, 0]; variable q_arm; offset -.1;
               geometry { shape sphere; radius .04; specular [1, 1, 1]; } }
allow_collision base arm;
"""


def test_every_shape_offsets_shared_variables_and_warnings(tmp_path, capsys):
    src = tmp_path / "s.robray"
    src.write_text(SHAPES.replace("q_arm", "arm"))
    out = tmp_path / "s.mjcf"
    assert main([str(src), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"{src}:8:13: warning: MJCF cannot express grid geometry" in err
    assert "specular colours" in err
    assert (tmp_path / "s-mesh-1.stl").is_file()
    model = mujoco.MjModel.from_xml_path(str(out))
    scene = load_scene([str(src)])
    check_model(scene, model, "shapes")
    assert model.neq == 1 and model.nexclude == 1
    # the shared variable: the equality holds at the configuration MuJoCo settles on
    data = mujoco.MjData(model)
    data.qpos[:] = [0.7, 0.7]
    mujoco.mj_forward(model, data)
    rows = [i for i in range(data.nefc)
            if data.efc_type[i] == mujoco.mjtConstraint.mjCNSTR_EQUALITY]
    assert len(rows) == 1 and abs(data.efc_pos[rows[0]]) < 1e-12
    data.qpos[:] = [0.7, 0.5]
    mujoco.mj_forward(model, data)
    assert abs(abs(data.efc_pos[rows[0]]) - 0.2) < 1e-12


def test_hostile_names_survive_mujoco(tmp_path):
    """Names XML can hold come back from MuJoCo byte for byte: bodies, joints (variables),
    contact exclusions."""
    from tests.test_hostile_names import CONTROL, HOSTILE, expected_frames, robray_scene

    names = {k: v for k, v in HOSTILE.items() if k not in CONTROL}
    src = tmp_path / "h.robray"
    src.write_bytes(robray_scene(names).encode())
    out = tmp_path / "h.mjcf"
    assert main([str(src), "-o", str(out), "-q"]) == 0
    model = mujoco.MjModel.from_xml_path(str(out))
    bodies = {mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, b) for b in range(1, model.nbody)}
    assert bodies == expected_frames(names)
    joints = {mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j) for j in range(model.njnt)}
    assert joints == {f"v{n}" for n in names.values()}
    assert model.nexclude == len(names) - 1
