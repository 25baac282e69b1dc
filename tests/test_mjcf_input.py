"""MJCF input: scenes come back from robrayc's own MJCF; an MJCF file using includes, default
classes, every orientation form, fromto, capsules, joint chains and degrees gives the body and
geom poses real MuJoCo computes (mj_kinematics at random configurations); what robrayc cannot
read is a located error or warning; .xml files are dispatched on their root element."""

from __future__ import annotations

import random
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from robrayc import ir
from robrayc.cli.main import main
from robrayc.diagnostics import CompileError, DiagnosticSink
from robrayc.frontend import LoadOptions, load_scene
from robrayc.kinematics import fk
from robrayc.records import replace
from tests.corpus import amino_corpus_files, corpus_id, require_corpus
from tests.run import robrayc
from tests.urdf_robots import (
    ROBOTS,
    robot_path,
    ros_env,  # noqa: F401  (fixture)
    same_up_to_poses,
)

mujoco = pytest.importorskip("mujoco")
pytestmark = pytest.mark.usefixtures("ros_env")

SCENE = """
frame base { translation [.1, -.2, .3]; rpy [.1, .2, .3];
             geometry { shape box; dimension [.1, .2, .3]; color [1, 0, 0]; alpha .25; } }
frame arm { parent base; type revolute; axis [0, 1, 0]; translation [0, 0, .3];
            offset .25; limit_position [-1, 2]; limit_effort [-3, 3]; mass 2;
            inertia [.1, .01, 0, .01, .2, 0, 0, 0, .3];
            geometry { shape cylinder; height .5; radius .05; visual 0; }
            geometry { shape sphere; radius .1; collision 0; color [0, 0, 1]; } }
frame slider { parent arm; type prismatic; axis [1, 0, 0]; variable arm; offset -.1;
               geometry { shape sphere; radius .04; } }
frame other { parent base; type revolute; axis [0, 0, 1]; variable q7; }
frame tip { parent slider; quaternion [0, 0, 1, 0]; }
allow_collision base arm;
"""


def round_trip(scene_files: list[Path], tmp_path: Path) -> tuple[ir.Scene, ir.Scene]:
    out = tmp_path / "m.mjcf"
    run = robrayc(*scene_files, "--missing-mesh=drop", "-q", "-o", out)
    assert run.status == 0, run.err
    before = load_scene([str(p) for p in scene_files], LoadOptions(missing_mesh="drop"))
    return before, load_scene([str(out)], LoadOptions(), DiagnosticSink(quiet=True))


def test_scene_survives_mjcf_exactly(tmp_path):
    src = tmp_path / "s.robray"
    src.write_text(SCENE)
    before, after = round_trip([src], tmp_path)
    assert same_up_to_poses(before, after, tol=0.0) == []


@pytest.mark.parametrize("path", amino_corpus_files(), ids=corpus_id)
def test_amino_demo_survives_mjcf(path, tmp_path):
    require_corpus()
    before, after = round_trip([path], tmp_path)
    assert same_up_to_poses(_comparable(before), _comparable(after), tol=0.0) == []


def _comparable(scene: ir.Scene) -> ir.Scene:
    """What MJCF holds (the export warns about the rest): no velocity or acceleration limits,
    specular colours, no-shadow flags, tags, robot identity or material names; meshes and cones
    compared by kind (MJCF refers to STL files written for it); no grids."""
    frames = []
    for f in scene.frames:
        geoms = []
        for g in f.geometries:
            if isinstance(g.shape, ir.Grid):
                continue
            g = replace(g, material=None, specular=ir.ZERO_V, no_shadow=False, tags=())
            if isinstance(g.shape, (ir.Mesh, ir.Cone)):
                g = replace(g, scale=1.0, shape=ir.Mesh("mesh"))
            geoms.append(g)
        frames.append(replace(f, geometries=tuple(geoms), link=None, link_role="link", tags=(),
                              limits=replace(f.limits, velocity=None, acceleration=None),
                              inertial=_as_mujoco_takes_it(f.inertial)))
    return ir.Scene(frames=tuple(frames), allowed=scene.allowed)


def _as_mujoco_takes_it(inertial: ir.Inertial | None) -> ir.Inertial | None:
    """A tensor MuJoCo refuses (a negative moment, or A + B < C) as the export writes it:
    each moment the trace's third (MuJoCo's balanceinertia)."""
    if inertial is None:
        return None
    a, b, c = np.linalg.eigvalsh(np.array(inertial.inertia).reshape(3, 3))
    if a >= -1e-15 * abs(c) and a + b >= c - 1e-15 * abs(c):
        return inertial
    i = inertial.inertia
    mean = max((i[0] + i[4] + i[8]) / 3, 0.0)
    return replace(inertial, inertia=(mean, 0.0, 0.0, 0.0, mean, 0.0, 0.0, 0.0, mean))


@pytest.mark.parametrize("robot", ROBOTS, ids=lambda r: r.key)
def test_corpus_robot_survives_mjcf(robot, tmp_path):
    before, after = round_trip([robot_path(robot)], tmp_path)
    assert same_up_to_poses(_comparable(before), _comparable(after), tol=1e-15) == []


PARTS = """<mujoco>
  <default>
    <default class="arm"><joint type="hinge" axis="0 1 0" range="-45 90"/>
      <geom rgba="0 1 0 1"/></default>
  </default>
</mujoco>
"""
MODEL = """<mujoco model="t">
  <compiler eulerseq="zyX"/>
  <include file="parts.xml"/>
  <worldbody>
    <geom name="post" type="cylinder" size=".05 .3" pos="1 0 .3"/>
    <body name="base" pos=".1 .2 .3" euler="10 20 30" childclass="arm">
      <inertial pos=".01 0 0" quat="1 0 0 1" mass="2" diaginertia=".1 .2 .25"/>
      <joint name="j1" ref="15" pos="0 0 .1"/>
      <joint name="j2" axis="1 0 0" type="slide" range="-.5 .5"/>
      <geom type="capsule" size=".04" fromto="0 0 0 .3 .1 -.2"/>
      <geom type="box" size=".05 .05 0" fromto=".3 .1 -.2 .3 .4 -.2" contype="0" conaffinity="0"/>
      <site name="tool" pos=".3 0 0" xyaxes="0 1 0 -1 0 0"/>
      <body name="link" pos=".3 0 0" axisangle="1 1 0 60">
        <joint name="j3" class="arm"/>
        <geom type="sphere" size=".05" zaxis="1 1 1" pos="0 0 .2" group="3"/>
        <body name="hand" quat="0.5 0.5 0.5 0.5"><geom type="box" size=".1 .2 .3"/></body>
      </body>
    </body>
  </worldbody>
  <contact><exclude body1="base" body2="link"/></contact>
</mujoco>
"""


def _mujoco_pose(data, b: int) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = data.xmat[b].reshape(3, 3)
    m[:3, 3] = data.xpos[b]
    return m


def test_mjcf_file_gives_mujocos_poses(tmp_path):
    (tmp_path / "parts.xml").write_text(PARTS)
    path = tmp_path / "model.xml"
    path.write_text(MODEL)
    scene = load_scene([str(path)])
    model = mujoco.MjModel.from_xml_path(str(path))
    data = mujoco.MjData(model)
    rng = random.Random(5)
    assert scene.variables == ("j1", "j2", "j3")
    assert [(a.a, a.b) for a in scene.allowed] == [("base", "link")]
    assert scene.frame("link").limits.position == pytest.approx((-np.pi / 4, np.pi / 2), abs=0)
    for _ in range(3):
        cfg = {v: rng.uniform(-.5, .5) for v in scene.variables}
        for v, q in cfg.items():
            jid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, v)
            data.qpos[model.jnt_qposadr[jid]] = q
        mujoco.mj_kinematics(model, data)
        ours = fk(scene, cfg)
        for name in ("base", "link", "hand"):
            b = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name)
            np.testing.assert_allclose(ours[name], _mujoco_pose(data, b), atol=1e-12)
        site = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, "tool")
        np.testing.assert_allclose(ours["tool"][:3, 3], data.site_xpos[site], atol=1e-12)
        np.testing.assert_allclose(ours["tool"][:3, :3], data.site_xmat[site].reshape(3, 3),
                                   atol=1e-12)
        _same_geoms(scene, ours, model, data)


def _same_geoms(scene: ir.Scene, ours: dict, model, data) -> None:
    """Each MuJoCo primitive's centre and axes equal the IR shape's, placed as amino does."""
    centres = []
    for f in scene.frames:
        for g in f.geometries:
            m = ours[f.name]
            if isinstance(g.shape, ir.Cylinder):  # amino's cylinder starts at the frame
                m = m @ np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, g.shape.height / 2],
                                  [0, 0, 0, 1]])
            centres.append((type(g.shape), m))
    cylinders = [m for t, m in centres if t is ir.Cylinder]
    for gid in range(model.ngeom):
        centre = data.geom_xpos[gid]
        kind = int(model.geom_type[gid])
        pool = cylinders if kind in (int(mujoco.mjtGeom.mjGEOM_CYLINDER),
                                     int(mujoco.mjtGeom.mjGEOM_CAPSULE)) else \
            [m for t, m in centres if t is not ir.Cylinder]
        best = min(pool, key=lambda m: np.linalg.norm(m[:3, 3] - centre))
        np.testing.assert_allclose(best[:3, 3], centre, atol=1e-12)
        if kind != int(mujoco.mjtGeom.mjGEOM_SPHERE):
            np.testing.assert_allclose(best[:3, 2], data.geom_xmat[gid].reshape(3, 3)[:, 2],
                                       atol=1e-12)


def test_unsupported_features_of_mujocos_test_model_are_located(tmp_path):
    model = Path(mujoco.__file__).parent / "testdata" / "model.xml"
    sink = DiagnosticSink()
    with pytest.raises(CompileError):
        load_scene([str(model)], LoadOptions(), sink)
    text = model.read_text().splitlines()
    errors = [d for d in sink.items if d.severity == "error"]
    assert errors
    for d in sink.items:
        assert d.pos.file == str(model) and d.pos.line > 0, d
        assert d.pos.line <= len(text)
    warned = " ".join(d.message for d in sink.items if d.severity == "warning")
    for what in ("2 ellipsoid", "1 plane", "1 hfield", "<option>", "<actuator>"):
        assert what in warned, what


def test_mujocos_zipped_model_with_assetdir(tmp_path):
    archive = Path(mujoco.__file__).parent / "testdata" / "MJCF_Root.zip"
    with zipfile.ZipFile(archive) as z:
        z.extractall(tmp_path)
    path = tmp_path / "MJCF_Zipped" / "model_with_assetdir.xml"
    sink = DiagnosticSink()
    scene = load_scene([str(path)], LoadOptions(), sink)
    meshes = [g.shape for _, g in ir.walk_geometries(scene)]
    assert [Path(m.path).relative_to(path.parent).as_posix() for m in meshes] == [
        "meshes/cube.stl", "meshes/more_meshes/cube.stl", "meshes/cube.msh"]
    model = mujoco.MjModel.from_xml_path(str(path))
    assert model.ngeom == len(meshes) + 1  # and the hfield, which robrayc reports
    assert any("hfield" in d.message for d in sink.items)


def test_xml_dispatch_on_root_and_input_format(tmp_path):
    src = tmp_path / "s.robray"
    src.write_text(SCENE)
    mj = tmp_path / "m.mjcf"
    assert main([str(src), "-o", str(mj), "-q"]) == 0
    as_xml = tmp_path / "m.xml"
    shutil.copy(mj, as_xml)
    as_txt = tmp_path / "m.txt"
    shutil.copy(mj, as_txt)
    want = load_scene([str(mj)])
    assert same_up_to_poses(want, load_scene([str(as_xml)]), tol=0.0) == []
    assert same_up_to_poses(want, load_scene([str(as_txt)], LoadOptions(input_format="mjcf")),
                            tol=0.0) == []
    urdf = tmp_path / "r.xml"
    urdf.write_text('<robot name="r"><link name="a"/><link name="b"/>'
                    '<joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint>'
                    "</robot>")
    assert [f.name for f in load_scene([str(urdf)]).frames] == ["j"]
    r = robrayc(as_txt, "--input-format", "mjcf", "--list-frames", process=True)
    assert r.status == 0 and r.out.split() == [f.name for f in want.frames]


def test_mjcf_errors_are_located(tmp_path):
    path = tmp_path / "bad.xml"
    path.write_text('<mujoco>\n  <worldbody>\n    <body name="b">\n'
                    '      <joint type="planar"/>\n      <geom type="mesh" mesh="nope"/>\n'
                    "    </body>\n  </worldbody>\n</mujoco>\n")
    r = robrayc(path, process=True)
    assert r.status == 1 and "Traceback" not in r.err
    assert f"{path}:4:14: error: unknown joint type 'planar'" in r.err
    assert f"{path}:5:25: error: unknown mesh asset 'nope'" in r.err


def test_mjcf_positions_count_lines_as_libxml2_does(tmp_path):
    """U+2028 and U+0085 in a comment end no line for libxml2: the column of a later error is
    still found on the line lxml gives."""
    path = tmp_path / "bad.xml"
    path.write_text('<!-- a \u2028 line separator and a \u0085 next line -->\n<mujoco>\n'
                    '  <worldbody>\n    <body name="b">\n      <joint type="planar"/>\n'
                    "    </body>\n  </worldbody>\n</mujoco>\n", encoding="utf-8")
    r = robrayc(path, process=True)
    assert r.status == 1 and "Traceback" not in r.err
    assert f"{path}:5:14: error: unknown joint type 'planar'" in r.err, r.err


def test_names_robrayc_makes_leave_the_files_names_alone(tmp_path: Path) -> None:
    """MuJoCo names bodies and joints apart (a body 'j' beside a joint 'j' is valid), and a
    body may be called what robrayc names an inertial frame ('a-inertial'): the bodies keep
    their names, the frames robrayc makes get a suffix, with a warning where a name of the
    file is moved (before, the bodies became 'j-2' and 'a-inertial-2' without a word)."""
    path = tmp_path / "names.xml"
    path.write_text(
        '<mujoco><worldbody>\n<body name="a"><joint name="j" pos="0 0 0.1"/><geom size=".1"/>\n'
        '<inertial pos="0.1 0 0" mass="1" diaginertia="1 2 3" quat="0.6 0.8 0 0"/>\n'
        '<body name="j" pos="0 0 1"><geom size=".2"/></body>\n'
        '<body name="a-inertial" pos="0 1 1"><geom size=".3"/></body>\n'
        "</body></worldbody></mujoco>\n")
    model = mujoco.MjModel.from_xml_path(str(path))
    assert (model.nbody, model.njnt) == (4, 1)
    sink = DiagnosticSink()
    scene = load_scene([str(path)], sink=sink)
    radius = {f.name: f.geometries[0].shape.radius for f in scene.frames if f.geometries}
    assert radius == {"a": 0.1, "j": 0.2, "a-inertial": 0.3}
    assert scene.frame("a-inertial-2").inertial is not None
    assert scene.frame("j-2").variable == "j" and scene.variables == ("j",)
    assert [(d.message, d.name, d.pos.line) for d in sink.items] == [
        ("the frame of joint 'j' is 'j-2' ('j' names a frame already)", "renamed", 2)]
