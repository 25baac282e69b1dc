"""URDF export: urdfdom's check_urdf and yourdfpy load it; URDF -> robray/JSON -> URDF keeps
every joint, limit, inertia, shape and colour; robray-only features map as documented."""

from __future__ import annotations

import math
import os
import random
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from robrayc import ir
from robrayc.backends.urdf import UNBOUNDED, cone_stl
from robrayc.diagnostics import DiagnosticSink
from robrayc.kinematics import fk
from tests.corpus import IN_CI
from tests.run import robrayc
from tests.urdf_robots import (
    ROBOTS,
    load,
    robot_path,
    ros_env,  # noqa: F401  (fixture)
    same_up_to_poses,
    yourdfpy_robot,
)

pytestmark = pytest.mark.usefixtures("ros_env")



def check_urdf(path: Path) -> None:
    tool = shutil.which("check_urdf")
    if tool is None:
        if IN_CI:
            pytest.fail("check_urdf (liburdfdom-tools) is not installed in CI")
        pytest.skip("check_urdf not installed (apt-get install liburdfdom-tools)")
    r = subprocess.run([tool, str(path)], capture_output=True, text=True)
    assert r.returncode == 0 and "Successfully Parsed XML" in r.stdout, r.stdout + r.stderr


def export(inputs, out: Path, *extra) -> subprocess.CompletedProcess:
    # bbox: a link whose visual mesh is missing keeps a visual (its colour is what URDF gives
    # the link's collision shapes too)
    r = robrayc(*inputs, "--missing-mesh=bbox", "-q", "-o", out, *extra, process=True)
    assert r.status == 0, r.err
    return r


@pytest.mark.parametrize("robot", ROBOTS, ids=lambda r: r.key)
def test_export_loads_in_urdfdom_and_yourdfpy_and_reimports_identically(robot, tmp_path):
    src = robot_path(robot)
    out = tmp_path / f"{robot.key}.urdf"
    export([src], out)
    check_urdf(out)
    ref = yourdfpy_robot(out)
    original = load([src], missing="bbox")
    assert set(ref.joint_map) == {f.name for f in original.frames
                                  if not _is_part(f, original)}
    again = load([out], missing="bbox")
    assert same_up_to_poses(original, again) == []
    # the links are the original links (named by their part frames) where it can tell
    names = {link.get("name") for link in ET.parse(src).getroot().findall("link")}
    exported = {link.get("name") for link in ET.parse(out).getroot().findall("link")}
    parted = {f.name.rsplit("-", 1)[0] for f in original.frames if _is_part(f, original)}
    assert parted <= exported and parted <= names


def _is_part(f: ir.Frame, scene: ir.Scene) -> bool:
    return f.name.rsplit("-", 1)[-1] in ("visual", "collision", "inertial") and f.kind == "fixed"


@pytest.mark.parametrize("via", ["robray", "json"])
@pytest.mark.parametrize("robot", ["pr2", "baxter", "fetch", "tutorial07", "lwa4d"])
def test_urdf_through_robray_or_json_back_to_urdf(robot, via, tmp_path):
    src = robot_path(robot)
    mid = tmp_path / f"mid.{via}"
    export([src], mid)
    direct, indirect = tmp_path / "direct.urdf", tmp_path / "indirect.urdf"
    export([src], direct)
    export([mid], indirect)
    check_urdf(indirect)
    a, b = load([direct]), load([indirect])
    exact = via == "json"  # robray has no package:// spelling: meshes by path there
    assert same_up_to_poses(a, b, mesh_source=exact) == []
    assert same_up_to_poses(load([src], missing="bbox"), b, mesh_source=exact) == []
    # limits, inertia, shapes and colours element by element
    ra, rb = ET.parse(direct).getroot(), ET.parse(indirect).getroot()
    for tag in ("limit", "inertia", "mass", "box", "cylinder", "sphere", "color", "mimic",
                "axis") + (("mesh",) if exact else ()):
        assert [e.attrib for e in ra.iter(tag)] == [e.attrib for e in rb.iter(tag)], tag


def test_mimic_joints_written_as_mimic(tmp_path):
    out = tmp_path / "pr2.urdf"
    export([robot_path("pr2")], out)
    mimics = {j.get("name"): j.find("mimic").get("joint")
              for j in ET.parse(out).getroot().findall("joint") if j.find("mimic") is not None}
    assert mimics == {f"{s}_gripper_{k}_joint": f"{s}_gripper_l_finger_joint"
                      for s in "lr" for k in ("r_finger", "l_finger_tip", "r_finger_tip")}
    ref = yourdfpy_robot(out)
    assert len(ref.actuated_joint_names) == len(load([robot_path("pr2")]).variables)


SCENE = """
def h 0.4;
frame base { geometry { shape box; dimension [1, 2, 0.1]; color [0.2, 0.4, 0.6]; alpha 0.5; } }
frame arm {
    parent base; type revolute; axis [0, 0, 1]; offset 0.3; translation [0, 0, 0.1];
    rpy [0.1, 0.2, 0.3]; limit_position [-1, 2]; limit_velocity 3; limit_effort [-4, 4];
    mass 2; inertia [0.1, 0.01, 0.02, 0.2, 0.03, 0.3];
    geometry { shape cylinder; height h; radius 0.05; collision 0; }
    geometry { shape cone; height h; start_radius 0.1; end_radius 0.02; visual 0; }
}
frame slide { parent arm; type prismatic; axis [1, 0, 0]; offset -0.1;
    geometry { shape sphere; radius 0.1; scale 2; } }
frame twin { parent arm; type revolute; axis [0, 1, 0]; variable arm; offset 0.5; }
frame pad { parent slide; geometry { shape grid; dimension [1, 1]; delta [0.1, 0.1];
    thickness 0.01; } }
allow_collision base arm;
allow_collision arm slide;
"""


def test_robray_scene_to_urdf_keeps_the_kinematics(tmp_path):
    src = tmp_path / "s.robray"
    src.write_text(SCENE)
    out = tmp_path / "s.urdf"
    export([src], out, "--srdf", tmp_path / "s.srdf")
    check_urdf(out)
    cone = tmp_path / "s-cone-1.stl"
    assert cone.read_bytes() == cone_stl(0.4, 0.1, 0.02)
    original = load([src])
    again = load([out])
    ref = yourdfpy_robot(out)
    rng = random.Random(1)
    for _ in range(5):
        cfg = {"arm": rng.uniform(-1, 2), "slide": rng.uniform(-1, 1)}
        ours, theirs = fk(original, cfg), fk(again, cfg)
        for name in ("arm", "slide", "twin", "pad"):  # offsets folded, twin mimics arm
            np.testing.assert_allclose(theirs[name], ours[name], atol=1e-12, err_msg=name)
        ref.update_cfg(np.array([cfg[n] for n in ref.actuated_joint_names]))
        for name in ("arm", "slide", "twin"):
            child = ref.joint_map[name].child
            np.testing.assert_allclose(ref.get_transform(child, ref.base_link), ours[name],
                                       atol=1e-12, err_msg=name)
    arm = again.frame("arm")
    assert arm.limits == ir.Limits(position=(-1.0, 2.0), velocity=(-3.0, 3.0),
                                   effort=(-4.0, 4.0))
    assert arm.inertial == original.frame("arm").inertial
    assert again.frame("twin").variable == "arm"
    # shapes: the box keeps colour and alpha; the sphere's scale went into its radius; the
    # cylinder sits where it did (URDF centres it)
    root = ET.parse(out).getroot()
    assert root.find(".//sphere").get("radius") == "0.2"
    world = fk(original, {})["arm"]
    cyl_frame = fk(again, {})
    # a cylinder whose URDF origin is exactly its half-length shift shares the joint's frame
    # (the original's rule)
    cyl = [n for n in cyl_frame if n.startswith("arm-visual")] or ["arm"]
    assert any(isinstance(g.shape, ir.Cylinder) for g in again.frame(cyl[0]).geometries)
    np.testing.assert_allclose(cyl_frame[cyl[0]], world, atol=1e-12)
    (box,) = again.frame("base-visual").geometries if again.has_frame("base-visual") else \
        [g for g in again.frame("base").geometries if g.visual]
    assert (box.color, box.alpha) == ((0.2, 0.4, 0.6), 0.5)
    srdf = ET.parse(tmp_path / "s.srdf").getroot()
    pairs = sorted((d.get("link1"), d.get("link2")) for d in srdf.findall("disable_collisions"))
    assert pairs == [("arm", "base"), ("arm", "slide")]


def test_what_urdf_cannot_say_is_warned(tmp_path):
    src = tmp_path / "s.robray"
    src.write_text(SCENE + "frame acc { type revolute; axis [1, 0, 0]; "
                   "limit_acceleration 2; geometry { shape box; dimension [1, 1, 1]; "
                   "specular [1, 0, 0]; no-shadow 1; } }\n")
    r = robrayc(src, "-o", tmp_path / "s.urdf", process=True)
    assert r.status == 0, r.err
    for what in ("grid geometry", "acceleration limits", "specular colours",
                 "no-shadow flags"):
        assert f"URDF cannot express {what}" in r.err, r.err
    assert "configuration variable" not in r.err  # 'arm' is its own joint's name


def test_unbounded_prismatic_and_continuous(tmp_path):
    src = tmp_path / "s.robray"
    src.write_text("frame p { type prismatic; axis [0, 0, 1]; }\n"
                   "frame c { type revolute; axis [0, 0, 1]; limit_velocity 2; }\n")
    out = tmp_path / "s.urdf"
    export([src], out)
    check_urdf(out)
    joints = {j.get("name"): j for j in ET.parse(out).getroot().findall("joint")}
    assert joints["c"].get("type") == "continuous"
    lim = joints["p"].find("limit").attrib
    assert float(lim["upper"]) == UNBOUNDED and float(lim["lower"]) == -UNBOUNDED
    again = load([out])
    assert again.frame("p").limits == ir.NO_LIMITS
    assert again.frame("c").limits == ir.Limits(velocity=(-2.0, 2.0))


def test_mesh_references_and_scales(tmp_path):
    tet = Path(__file__).resolve().parents[1] / "conformance" / "tet.obj"
    (tmp_path / "sub").mkdir()
    src = tmp_path / "sub" / "s.robray"
    src.write_text(f'frame m {{ geometry {{ mesh "{tet}"; scale 0.5; }} }}\n')
    out = tmp_path / "m.urdf"
    export([src], out)
    mesh = ET.parse(out).getroot().find(".//mesh")
    assert mesh.get("filename") == os.path.relpath(tet, tmp_path)
    assert mesh.get("scale") == "0.5 0.5 0.5"
    (g,) = [g for f in load([out]).frames for g in f.geometries if g.visual]
    assert g.shape.path == str(tet) and g.scale == 0.5
    # package:// references stay package://
    export([robot_path("ur5")], tmp_path / "ur5.urdf")
    files = {m.get("filename") for m in ET.parse(tmp_path / "ur5.urdf").getroot().iter("mesh")}
    assert files and all(f.startswith("package://ur_description/") for f in files)


def test_names_xml_cannot_carry_are_an_error(tmp_path):
    src = tmp_path / "s.json"
    src.write_text('{"format": "robrayc-scene", "version": 1, "frames": '
                   '[{"name": "bad\\u0001name"}], "allowed": [], "sources": []}')
    r = robrayc(src, "-o", tmp_path / "s.urdf", process=True)
    assert r.status == 1 and "cannot write URDF" in r.err and "Traceback" not in r.err


def test_stdout_and_robot_name(tmp_path):
    src = tmp_path / "s.robray"
    src.write_text("frame a { geometry { shape sphere; radius 1; } }\n")
    r = robrayc(src, "--format", "urdf", "-n", "bot", process=True)
    assert r.status == 0 and '<robot name="bot">' in r.out
    r = robrayc(src, "--format", "urdf", "--urdf-robot", "other", process=True)
    assert '<robot name="other">' in r.out
    sink = DiagnosticSink()
    assert math.isclose(load([robot_path("ur5")], sink=sink).frame("shoulder_pan_joint")
                        .limits.velocity[1], 3.15)
