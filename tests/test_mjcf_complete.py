"""MJCF input reads what MuJoCo reads, or says what it loses: classes used before their
<default>, includes at any depth (relative to the main file, as MuJoCo), include cycles,
<frame>, empty attributes, and elements whose bodies, joints or geoms robrayc would drop (each
a small file that failed before; poses checked against real MuJoCo)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from robrayc.diagnostics import CompileError, DiagnosticSink
from robrayc.frontend import LoadOptions, load_scene
from robrayc.kinematics import fk
from tests.run import robrayc

mujoco = pytest.importorskip("mujoco")


def write(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path / next(iter(files))


def same_bodies_as_mujoco(path: Path) -> None:
    """Every MuJoCo body is a frame of the scene at MuJoCo's pose (zero configuration)."""
    scene = load_scene([str(path)])
    model = mujoco.MjModel.from_xml_path(str(path))
    data = mujoco.MjData(model)
    mujoco.mj_kinematics(model, data)
    ours = fk(scene, dict.fromkeys(scene.variables, 0.0))
    assert model.nbody > 1
    for b in range(1, model.nbody):
        m = np.eye(4)
        m[:3, :3] = data.xmat[b].reshape(3, 3)
        m[:3, 3] = data.xpos[b]
        np.testing.assert_allclose(ours[model.body(b).name], m, atol=1e-12)
    assert model.ngeom == sum(len(f.geometries) for f in scene.frames)


def test_class_used_before_its_default_block(tmp_path):
    path = write(tmp_path, {"m.xml": """<mujoco>
  <asset><material name="red" class="paint"/></asset>
  <worldbody><body name="b" childclass="arm"><joint name="j"/><geom size=".1"/></body>
  </worldbody>
  <default><default class="arm"><joint axis="1 0 0"/><geom type="box" size=".1 .2 .3"/>
    </default><default class="paint"><material rgba="1 0 0 1"/></default></default>
</mujoco>"""})
    scene = load_scene([str(path)])
    assert scene.frame("b").axis == (1.0, 0.0, 0.0)
    same_bodies_as_mujoco(path)


INCLUDES = {
    "scene.xml": '<mujoco><include file="robots/robot.xml"/>'
                 '<worldbody><geom name="floor" type="plane" size="1 1 .1"/></worldbody>'
                 "</mujoco>",
    # MuJoCo resolves nested includes from the main file's directory, not the includer's
    "robots/robot.xml": '<mujoco><include file="parts/arm.xml"/></mujoco>',
    "parts/arm.xml": '<mujoco><worldbody><body name="arm" pos="0 0 1"><joint name="j"/>'
                     '<geom size=".1"/><body name="hand" pos=".5 0 0"><geom size=".05"/>'
                     "</body></body></worldbody></mujoco>",
}


def test_nested_includes_at_any_depth(tmp_path):
    path = write(tmp_path, INCLUDES)
    r = robrayc(path, "--list-frames", process=True)
    assert r.status == 0, r.err
    assert r.out.split() == ["arm", "hand"]
    assert "1 MJCF geom dropped (1 plane)" in r.err and "[-Wmjcf-lost]" in r.err
    assert robrayc(path, "-Werror", "--list-frames", process=True).status == 1
    model = mujoco.MjModel.from_xml_path(str(path))
    assert model.nbody == 3
    scene = load_scene([str(path)], LoadOptions(), DiagnosticSink(quiet=True))
    data = mujoco.MjData(model)
    mujoco.mj_kinematics(model, data)
    np.testing.assert_array_equal(fk(scene, {"j": 0.0})["hand"][:3, 3], data.body("hand").xpos)


def test_include_cycle_is_a_located_error(tmp_path):
    path = write(tmp_path, {"a.xml": '<mujoco>\n  <include file="b.xml"/>\n</mujoco>\n',
                            "b.xml": '<mujoco>\n <include file="a.xml"/>\n</mujoco>\n'})
    r = robrayc(path, "--list-frames", process=True)
    assert r.status == 1 and "Traceback" not in r.err
    assert f"{tmp_path / 'b.xml'}:2:11: error: include cycle: a.xml -> b.xml -> a.xml" \
        in r.err


def test_frame_places_its_children(tmp_path):
    path = write(tmp_path, {"m.xml": """<mujoco><compiler angle="radian"/>
  <default><default class="c"><geom type="box" size=".1 .1 .1"/></default></default>
  <worldbody>
    <frame pos="0 0 1" euler="0 0 1.5707963267948966" childclass="c">
      <frame pos="1 0 0" quat="0 1 0 0"><body name="a"><geom/></body></frame>
      <geom pos="0 1 0"/><site name="s" pos="0 0 1"/>
      <body name="b" pos="0 2 0"><joint name="j"/><geom fromto="0 0 0 1 0 0" type="cylinder"
        size=".1"/><frame pos="0 0 3"><body name="c"/></frame></body>
    </frame>
  </worldbody></mujoco>"""})
    same_bodies_as_mujoco(path)
    scene = load_scene([str(path)])
    model = mujoco.MjModel.from_xml_path(str(path))
    data = mujoco.MjData(model)
    mujoco.mj_kinematics(model, data)
    np.testing.assert_allclose(fk(scene, {"j": 0.0})["s"][:3, 3], data.site("s").xpos,
                               atol=1e-12)


def test_empty_attributes_are_absent_as_for_mujoco(tmp_path):
    path = write(tmp_path, {"m.xml": """<mujoco><worldbody>
  <body name="b" pos=""><joint name="j" axis="" range=""/>
    <geom size=".1" rgba="" pos="" quat="" material=""/></body>
  </worldbody></mujoco>"""})
    scene = load_scene([str(path)])
    geom = scene.frame("b").geometries[0]
    model = mujoco.MjModel.from_xml_path(str(path))
    assert (*geom.color, geom.alpha) == tuple(float(c) for c in model.geom_rgba[0])
    assert scene.frame("b").axis == tuple(model.jnt_axis[0])
    same_bodies_as_mujoco(path)


@pytest.mark.parametrize("element", [
    '<flexcomp name="f" type="grid" count="2 2 1" spacing=".1 .1 .1" dim="2"/>',
    '<composite type="particle" count="2 2 2" spacing=".1"><geom size=".01"/></composite>',
])
def test_elements_that_make_bodies_are_errors(tmp_path, element):
    path = write(tmp_path, {"m.xml": f"<mujoco><worldbody>\n  {element}\n</worldbody></mujoco>"})
    r = robrayc(path, "--list-frames", process=True)
    assert r.status == 1 and "Traceback" not in r.err
    assert f"{path}:2:3: error: MJCF <{element[1:10].split()[0]}> is not read" in r.err


def test_inline_mesh_is_an_error_that_says_so(tmp_path):
    path = write(tmp_path, {"m.xml": """<mujoco><asset>
  <mesh name="tet" vertex="0 0 0 1 0 0 0 1 0 0 0 1"/></asset>
  <worldbody><geom type="mesh" mesh="tet"/></worldbody></mujoco>"""})
    with pytest.raises(CompileError):
        load_scene([str(path)], LoadOptions(), DiagnosticSink(quiet=True))
    assert "lists its vertices in the MJCF" in robrayc(path, "--list-frames", process=True).err


def test_primitive_fitted_to_a_mesh_is_counted_as_lost(tmp_path):
    """MuJoCo sizes a capsule that names a mesh to fit it; robrayc drops it and says so."""
    path = write(tmp_path, {"m.xml": """<mujoco><asset><mesh name="m" file="tet.obj"/></asset>
  <worldbody><body name="b"><geom type="capsule" mesh="m"/><geom type="mesh" mesh="m"/>
  </body></worldbody></mujoco>""",
                            "tet.obj": "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n"
                                       "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"})
    model = mujoco.MjModel.from_xml_path(str(path))
    assert model.geom_size[0][0] > 0  # MuJoCo's fitted capsule
    r = robrayc(path, "--list-frames", process=True)
    assert r.status == 0
    assert "1 MJCF geom dropped (1 capsule fitted to a mesh)" in r.err
    assert len(load_scene([str(path)], LoadOptions(), DiagnosticSink(quiet=True))
               .frame("b").geometries) == 1


ATTACHED = {
    "main.xml": """<mujoco><asset><model name="arm" file="parts/arm.xml"/></asset>
 <worldbody><body name="mount" pos="0 2 0"><attach model="arm" body="base" prefix="left-"/>
 </body><attach model="arm" body="link" prefix="r/"/></worldbody></mujoco>""",
    # its own angle unit and classes
    "parts/arm.xml": """<mujoco model="arm"><compiler angle="radian"/>
 <default><default class="big"><geom size="0.2"/></default></default>
 <worldbody><body name="base" pos="0 0 1" euler="0 0 1.5707963"><geom class="big"/>
   <body name="link" pos="1 0 0"><joint name="j" axis="0 1 0"/><geom size=".1"/>
   <site name="tip" pos=".5 0 0"/></body></body>
   <body name="other" pos="5 5 5"/></worldbody></mujoco>""",
}


def test_attach_a_body_of_another_model(tmp_path):
    path = write(tmp_path, ATTACHED)
    same_bodies_as_mujoco(path)
    scene = load_scene([str(path)])
    assert scene.variables == ("left-j", "r/j")
    model = mujoco.MjModel.from_xml_path(str(path))
    data = mujoco.MjData(model)
    cfg = {"left-j": 0.3, "r/j": -1.1}
    for name, value in cfg.items():
        data.joint(name).qpos[0] = value
    mujoco.mj_kinematics(model, data)
    ours = fk(scene, cfg)
    for site in ("left-tip", "r/tip"):
        np.testing.assert_allclose(ours[site][:3, 3], data.site(site).xpos, atol=1e-12)


@pytest.mark.parametrize("attach, message", [
    ('<attach model="nope" body="base"/>', "<attach> names no <model> asset 'nope'"),
    ('<attach model="arm" body="hand"/>', "model 'arm' (parts/arm.xml) has no body 'hand'"),
])
def test_attach_errors_are_located(tmp_path, attach, message):
    files = dict(ATTACHED)
    files["main.xml"] = ('<mujoco><asset><model name="arm" file="parts/arm.xml"/></asset>\n'
                         f"<worldbody>\n  {attach}\n</worldbody></mujoco>")
    r = robrayc(write(tmp_path, files), "--list-frames", process=True)
    assert r.status == 1 and "Traceback" not in r.err
    assert "main.xml:3:" in r.err and message in r.err


def test_replicate_copies_as_mujoco(tmp_path):
    """Copies composed (offset, euler) i times, names suffixed innermost first."""
    path = write(tmp_path, {"m.xml": """<mujoco><worldbody><body name="p" pos="0 0 1">
<replicate count="12" offset="1 0 0" euler="0 0 30" sep="-">
  <body name="b" pos="0 1 0" euler="10 0 0"><joint name="j"/><geom size=".1"/>
    <body name="c" pos=".1 0 0"/></body>
  <geom name="g" size=".1" pos="0 0 2"/></replicate>
<replicate count="2" offset="1 0 0"><replicate count="3" offset="0 1 0" euler="0 30 0">
  <body name="n"/></replicate></replicate>
</body></worldbody></mujoco>"""})
    same_bodies_as_mujoco(path)
    scene = load_scene([str(path)])
    assert scene.variables == tuple(f"j-{i:02d}" for i in range(12))
    assert scene.has_frame("n10") and scene.has_frame("g-11")


@pytest.mark.parametrize("text, where, message", [
    ("<worldbody>\n<body><bdy/></body></worldbody>", "2:7", "unknown element <bdy> in a body"),
    ("\n<wrldbody/>", "2:1", "unknown element <wrldbody> in <mujoco>"),
])
def test_elements_mujoco_refuses_are_errors(tmp_path, text, where, message):
    """A misspelt element would drop what it holds: MuJoCo refuses it, and so does robrayc."""
    path = write(tmp_path, {"m.xml": f"<mujoco>{text}</mujoco>"})
    with pytest.raises(ValueError, match="unrecognized element"):
        mujoco.MjModel.from_xml_path(str(path))
    r = robrayc(path, "--list-frames", process=True)
    assert r.status == 1 and f"{path}:{where}: error: {message}" in r.err


def test_mesh_reference_pose_is_an_error(tmp_path):
    """refpos/refquat move a mesh's vertices (MuJoCo applies them): not a harmless loss."""
    path = write(tmp_path, {"m.xml": '<mujoco><asset>\n<mesh name="m" file="t.obj" '
                                     'refpos="0 0 1"/></asset><worldbody><geom type="mesh" '
                                     'mesh="m"/></worldbody></mujoco>',
                            "t.obj": "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n"
                                     "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"})
    mujoco.MjModel.from_xml_path(str(path))
    r = robrayc(path, "--list-frames", process=True)
    assert r.status == 1 and f"{path}:2:29: error: <mesh refpos> is not read" in r.err
    assert "warning" not in r.err
