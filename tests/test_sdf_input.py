"""SDF input against libsdformat itself: a small C++ program (sdf_input/sdf_poses.cc, compiled
here against libsdformat-dev) prints the world pose of every link, frame and joint as
libsdformat resolves them, and each joint's type, links and axes; robrayc's FK of the same
file must give the same link and frame poses (1e-9) at the rest pose and at random
configurations (the reference composes libsdformat's rest poses and axes). Covered: every
joint kind, relative_to chains through links, joints and frames, nested models, placement
frames, includes of model:// folders, worlds, SDFormat 1.6 files, and robrayc's own SDF of
the corpus robots (read back with the same link and joint names)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from robrayc import ir
from robrayc.cli.main import main
from robrayc.diagnostics import CompileError, DiagnosticSink
from robrayc.frontend import LoadOptions, load_scene
from robrayc.kinematics import fk
from tests.sdformat import (
    Reference,
    compile_against_sdformat,
    joint_motion,
    matrix,
    reference,
    rotvec,
    sdformat_fk,
)
from tests.urdf_robots import ROBOTS, robot_path, ros_env  # noqa: F401  (fixture)

HERE = Path(__file__).parent / "sdf_input"
MODELS = HERE / "models"
PACKAGES = {"tool": str(MODELS / "tool")}


@pytest.fixture(scope="session")
def sdf_poses(tmp_path_factory) -> Path:
    return compile_against_sdformat(HERE / "sdf_poses.cc", tmp_path_factory.mktemp("sdf_in"))


@pytest.fixture
def model_path(monkeypatch):
    """model:// folders for both readers (libsdformat reads SDF_PATH, robrayc the others)."""
    monkeypatch.setenv("SDF_PATH", str(MODELS))
    monkeypatch.setenv("GZ_SIM_RESOURCE_PATH", str(MODELS))


def scene_motion(scene: ir.Scene, cfg):
    """Joint motions at cfg with robrayc's variable names: the joint's, JOINT_axis2 for a
    second axis, a ball's rotation vector (sdf_in's docstring)."""
    def motion(name: str, kind: str, axes) -> np.ndarray:
        names = {"fixed": ()}.get(kind, (name,))
        if kind in ("universal", "revolute2"):
            names = (name, f"{name}_axis2")
        elif kind == "ball":
            names = ir.joint_variables(scene.frame(name))
        return joint_motion(kind, axes, [cfg[v] for v in names])

    def root_motion(link: str) -> np.ndarray | None:
        f = scene.frame(link)
        if f.kind != "floating":
            return None
        x, y, z, *r = (cfg[v] for v in ir.joint_variables(f))
        move = rotvec(r)
        move[:3, 3] = (x, y, z)
        return move

    return motion, root_motion


def reference_fk(ref: Reference, scene: ir.Scene, cfg) -> dict[str, np.ndarray]:
    return sdformat_fk(ref, *scene_motion(scene, cfg))


def link_frames(scene: ir.Scene) -> dict[str, str]:
    """SDF link name -> the IR frame at its origin."""
    return {f.link: f.name for f in scene.frames if f.link is not None and f.link_role == "link"}


def load(path: Path, **options) -> ir.Scene:
    return load_scene([str(path)], LoadOptions(package_paths=PACKAGES, **options),
                      DiagnosticSink(quiet=True))


def compare(scene: ir.Scene, ref: Reference, seed: str,
            attached: dict[str, str] | None = None) -> None:
    """Link poses equal at rest and at random configurations; frames at rest, and moving
    with the link `attached` says they are on."""
    own = link_frames(scene)
    assert set(own) == set(ref.links)
    rng = random.Random(seed)
    for trial in range(4):
        cfg = {v: (rng.uniform(-2, 2) if trial else 0.0) for v in scene.variables}
        ours = fk(scene, cfg)
        theirs = reference_fk(ref, scene, cfg)
        for link, frame in own.items():
            np.testing.assert_allclose(ours[frame], theirs[link], atol=1e-9, err_msg=link)
        for name, rest in ref.frames.items():
            link = (attached or {}).get(name)
            want = rest if link is None or not trial else \
                theirs[link] @ np.linalg.inv(ref.links[link]) @ rest
            if link is not None or not trial:
                np.testing.assert_allclose(ours[name], want, atol=1e-9, err_msg=name)


FEATURE_FRAMES = {"mount": "base", "tcp": "hand", "tcp_offset": "hand",
                  "gripper::pinch": "gripper::finger", "tail::tip": "tail::seg"}


def test_every_feature_gives_libsdformats_poses(sdf_poses, model_path):
    path = HERE / "features.sdf"
    scene = load(path)
    compare(scene, reference(sdf_poses, path), "features", FEATURE_FRAMES)
    kinds = {f.name: (f.kind, f.variable) for f in scene.frames}
    assert kinds["yaw"] == ("revolute", "yaw")
    assert scene.frame("yaw").limits == ir.Limits(position=(-1.5, 2.5), effort=(-40.0, 40.0),
                                                  velocity=(-2.0, 2.0))
    assert scene.frame("pitch").limits == ir.NO_LIMITS  # continuous
    assert kinds["extend"] == ("prismatic", "extend")
    assert kinds["cardan"] == ("revolute", "cardan")
    assert kinds["cardan_axis2"] == ("revolute", "cardan_axis2")
    assert kinds["tail_ball"] == ("ball", "tail_ball")
    assert ir.joint_variables(scene.frame("tail_ball")) == ("tail_ball_rx", "tail_ball_ry",
                                                            "tail_ball_rz")


def test_shapes_materials_and_inertia_as_libsdformat_reads_them(model_path):
    scene = load(HERE / "features.sdf")
    poses = fk(scene)
    base = poses["anchor"]
    by_frame = {f.name: f for f in scene.frames}
    body = by_frame["anchor"].geometries[0]
    assert body.shape == ir.Box((0.4, 0.3, 0.1)) and body.visual and not body.collision
    assert body.color == (0.9, 0.5, 0.25) and body.alpha == 0.75 and body.no_shadow
    assert body.specular == (0.5, 0.5, 0.5)
    lamp = by_frame["base-visual"]  # relative_to mount: away from the link origin
    assert lamp.geometries[0].color == (0.0, 1.0, 0.0)  # ambient when there is no diffuse
    np.testing.assert_allclose(poses["base-visual"], poses["mount"] @ matrix(
        0, 0, 0.2, 1, 0, 0, 0), atol=1e-12)
    inertial = by_frame["base-inertial"]
    assert inertial.inertial == ir.Inertial(3.5, (0.1, 0.01, 0.002, 0.01, 0.2, 0.003, 0.002,
                                                  0.003, 0.25))
    want = base @ matrix(0.01, 0.02, 0.03, np.cos(0.05), 0, np.sin(0.05), 0)
    np.testing.assert_allclose(poses["base-inertial"], want, atol=1e-12)
    # a cylinder starts at its base in robrayc; a capsule is a cylinder and two spheres
    shoulder = [g.shape for f in scene.frames if f.link == "shoulder" for g in f.geometries]
    assert ir.Cylinder(0.2, 0.04) in shoulder and ir.Cylinder(0.15, 0.03) in shoulder
    assert shoulder.count(ir.Sphere(0.03)) == 2
    meshes = [(g.shape, g.scale) for f in scene.frames for g in f.geometries
              if isinstance(g.shape, ir.Mesh)]
    assert {Path(m.path) for m, _ in meshes} == {(MODELS / "tool/meshes/tet.obj").resolve()}
    assert sorted((m.scale3, s) for m, s in meshes) == [
        ((1.0, 1.0, 1.0), 1.0), ((1.0, 1.0, 1.0), 2.0), ((1.0, 2.0, 3.0), 1.0)]


@pytest.mark.parametrize("name", ["scene.world", "legacy.sdf", "merge.sdf"])
def test_worlds_includes_and_sdformat_1_6(name, sdf_poses, model_path):
    path = HERE / name
    scene = load(path)
    compare(scene, reference(sdf_poses, path), name)


def test_world_models_float_or_stay(model_path, capsys):
    assert main([str(HERE / "scene.world"), "--list-frames"]) == 0
    err = capsys.readouterr().err
    scene = load(HERE / "scene.world")
    crate = scene.frame("crate::body")
    assert (crate.kind, crate.variable) == ("floating", "crate::body")
    assert scene.frame("ground::plane").kind == "fixed"  # static
    assert "scene.world:5:5: warning: SDF <world><physics> is not read" in err
    plane = scene.frame("ground::plane-collision").geometries[0]
    assert plane.shape == ir.Box((10.0, 8.0, 0.001)) and plane.collision
    assert scene.frame("tool_a::spin").variable == "tool_a::spin"


BAD = {
    "screw": ('<joint name="s" type="screw"><parent>a</parent><child>b</child></joint>',
              "screw joint 's' couples rotation and translation"),
    "gearbox": ('<joint name="g" type="gearbox"><parent>a</parent><child>b</child></joint>',
                "gearbox joint 'g' couples two other joints"),
    "type": ('<joint name="t" type="hinge"><parent>a</parent><child>b</child></joint>',
             "unknown joint type 'hinge'"),
    "frame": ('<joint name="j" type="fixed"><parent>nowhere</parent><child>b</child></joint>',
              "unknown frame 'nowhere'"),
    "cycle": ('<frame name="f1"><pose relative_to="f2"/></frame>'
              '<frame name="f2"><pose relative_to="f1"/></frame>',
              "relative to each other in a cycle"),
    "ellipsoid": ('<link name="c"><collision name="e"><geometry><ellipsoid><radii>1 2 3'
                  '</radii></ellipsoid></geometry></collision></link>',
                  "ellipsoid of link 'c' with radii (1.0, 2.0, 3.0) has no robrayc shape"),
    "heightmap": ('<link name="c"><visual name="e"><geometry><heightmap><uri>h.png</uri>'
                  '</heightmap></geometry></visual></link>',
                  "SDF <heightmap> geometry (link 'c') has no robrayc shape"),
    "include": ("<include><uri>model://no_such_model</uri></include>",
                "model 'no_such_model' of 'model://no_such_model' not found"),
    "mesh": ('<link name="c"><visual name="e"><geometry><mesh><uri>https://x.org/a.stl</uri>'
             '</mesh></geometry></visual></link>', "robrayc does not download"),
}


@pytest.mark.parametrize("case", BAD)
def test_what_robrayc_cannot_read_is_a_located_error(case, tmp_path, capsys):
    body, message = BAD[case]
    src = tmp_path / "bad.sdf"
    src.write_text('<sdf version="1.9">\n<model name="m">\n<link name="a"/>\n<link name="b"/>\n'
                   f"{body}\n</model>\n</sdf>\n")
    assert main([str(src), "--list-frames"]) == 1
    err = capsys.readouterr().err
    assert f"{src}:5:" in err and message in err and "Traceback" not in err
    with pytest.raises(CompileError):
        load(src)


@pytest.mark.slow
@pytest.mark.parametrize("robot", [r for r in ROBOTS if r.key in ("ur5", "pr2", "baxter",
                                                                  "tutorial05", "fetch")],
                         ids=lambda r: r.key)
def test_robrayc_sdf_reads_back_with_its_names_and_libsdformats_poses(
        robot, tmp_path, sdf_poses, ros_env):  # noqa: F811
    """URDF -> robrayc -> SDF -> robrayc -> SDF: the second SDF has the first's links and
    joints, named alike, at the same poses; robrayc's FK of the first is libsdformat's."""
    first, second = tmp_path / "a.sdf", tmp_path / "b.sdf"
    assert main([str(robot_path(robot)), "--missing-mesh=drop", "-q", "-o", str(first)]) == 0
    scene = load(first, missing_mesh="drop")
    ref = reference(sdf_poses, first)
    compare(scene, ref, robot.key)
    assert main([str(first), "--missing-mesh=drop", "-q", "-o", str(second)]) == 0
    again = reference(sdf_poses, second)
    assert set(again.links) == set(ref.links)
    assert {n: j[:3] for n, j in again.joints.items()} == {n: j[:3] for n, j in
                                                         ref.joints.items()}
    for name, pose in ref.links.items():
        np.testing.assert_allclose(again.links[name], pose, atol=1e-12, err_msg=name)


def test_xml_suffix_and_input_format(tmp_path):
    src = tmp_path / "m.xml"
    src.write_text('<sdf version="1.9"><model name="m"><static>1</static>'
                   '<link name="a"/></model></sdf>')
    assert [f.name for f in load(src).frames] == ["a"]
    other = tmp_path / "m.txt"
    other.write_text(src.read_text())
    scene = load_scene([str(other)], LoadOptions(input_format="sdf"))
    assert scene.robot_name == "m"


def test_xml_attacks_are_refused(tmp_path, capsys):
    secret = tmp_path / "secret.txt"
    secret.write_text("CANARY-sdf 1 2 3")
    for text in (f'<!DOCTYPE sdf [<!ENTITY x SYSTEM "{secret.as_uri()}">]>\n'
                 '<sdf version="1.9"><model name="&x;"><link name="a"/></model></sdf>',
                 '<!DOCTYPE sdf [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>\n'
                 '<sdf version="1.9"><model name="&b;"><link name="a"/></model></sdf>'):
        src = tmp_path / "attack.sdf"
        src.write_text(text)
        assert main([str(src), "--list-frames"]) == 1
        err = capsys.readouterr().err
        assert f"{src}:1:1: error: SDF declares XML entities" in err and "CANARY" not in err


@pytest.mark.parametrize("name", ["features.sdf", "scene.world"])
def test_nested_models_and_worlds_survive_sdf_out(name, tmp_path, sdf_poses, model_path):
    """SDF -> robrayc -> SDF: scoped names (a world's models, nested models) come back as
    nested models with the same names, every link where libsdformat put it; joints keep
    their names unless robrayc's frames differ from SDF's (a joint away from its child
    link, a universal joint: JOINT_joint, JOINT_axis2)."""
    out = tmp_path / "again.sdf"
    assert main([str(HERE / name), f"--package-path=tool={PACKAGES['tool']}", "-q",
                 "-Wno-floating-joint", "-o", str(out)]) == 0
    before, after = reference(sdf_poses, HERE / name), reference(sdf_poses, out)
    assert set(before.links) <= set(after.links)
    for link, pose in before.links.items():
        np.testing.assert_allclose(after.links[link], pose, atol=1e-12, err_msg=link)
    kept = {n: j[:3] for n, j in before.joints.items()
            if n not in ("pitch", "cardan", "twist")}
    assert kept.items() <= {n: j[:3] for n, j in after.joints.items()}.items()


def test_a_name_no_nested_model_can_hold_is_an_sdf_error(tmp_path, capsys):
    src = tmp_path / "h.robray"
    src.write_text('frame "arm::" { geometry { shape box; dimension [1, 1, 1]; } }\n')
    out = tmp_path / "h.sdf"
    assert main([str(src), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"{src}:1:7: error: SDF cannot hold the name 'arm::'" in err
    assert not out.exists()


def test_tree_of_a_model_whose_mesh_is_missing(sdf_poses, tmp_path, capsys):
    """--tree reads no mesh (as for a URDF's or robray file's): a model:// mesh that is
    nowhere still lists; a compile, which needs it, is a located error."""
    src = tmp_path / "m.sdf"
    src.write_text('<sdf version="1.9">\n<model name="m">\n<link name="base">\n'
                   '<collision name="c"><geometry><mesh>\n'
                   "<uri>model://no_such_model/meshes/part.stl</uri>\n"
                   "</mesh></geometry></collision>\n</link>\n"
                   '<link name="arm"/>\n<joint name="j" type="revolute"><parent>base</parent>'
                   "<child>arm</child><axis><xyz>0 0 1</xyz></axis></joint>\n</model>\n</sdf>\n")
    assert set(reference(sdf_poses, src).links) == {"base", "arm"}  # libsdformat reads it
    assert main([str(src), "--tree"]) == 0
    assert capsys.readouterr().out == "base [floating base]\n`-- j [revolute j]\n"
    assert main([str(src), "-o", str(tmp_path / "m.json")]) == 1
    err = capsys.readouterr().err
    assert f"{src}:5:" in err and "model 'no_such_model'" in err and "Traceback" not in err
