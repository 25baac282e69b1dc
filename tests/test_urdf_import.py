"""URDF import: every corpus robot, checked against yourdfpy; the original's mapping; errors."""

from __future__ import annotations

import math
import random
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from robrayc import ir
from robrayc.diagnostics import CompileError, DiagnosticSink
from robrayc.frontend.frames import stable_unit_quaternion
from robrayc.frontend.urdf import UNBOUNDED
from robrayc.kinematics import fk, qnorm, quat_to_matrix, rpy_to_quat
from tests.corpus import URDF_CORPUS, require_corpus, ros_package_path
from tests.run import robrayc
from tests.urdf_robots import (
    BY_KEY,
    ROBOTS,
    load,
    robot_path,
    ros_env,  # noqa: F401  (fixture)
    yourdfpy_robot,
)

pytestmark = pytest.mark.usefixtures("ros_env")


def _origin(el) -> np.ndarray:
    m = np.eye(4)
    o = el.find("origin") if el is not None else None
    if o is not None:
        xyz = [float(x) for x in (o.get("xyz") or "0 0 0").split()]
        rpy = [float(x) for x in (o.get("rpy") or "0 0 0").split()]
        m[:3, :3] = quat_to_matrix(rpy_to_quat(*rpy))
        m[:3, 3] = xyz
    return m


# --- every robot: counts, structure, poses against yourdfpy ----------------------------------


@pytest.mark.parametrize("robot", ROBOTS, ids=lambda r: r.key)
def test_counts_and_structure(robot):
    path = robot_path(robot)
    root = ET.parse(path).getroot()
    joints = root.findall("joint")
    links = root.findall("link")
    assert (len(joints), len(links)) == (robot.joints, robot.links)
    scene = load([path])
    # one frame per joint, named after it, of the mapped type
    kinds = {"fixed": "fixed", "revolute": "revolute", "continuous": "revolute",
             "prismatic": "prismatic"}
    for j in joints:
        f = scene.frame(j.get("name"))
        assert f.kind == kinds[j.get("type")]
    extra = [f for f in scene.frames if f.name not in {j.get("name") for j in joints}]
    # every other frame is a shape/inertia frame of a link: LINK-visual, LINK-collision, ...
    names = {link.get("name") for link in links}
    for f in extra:
        link, _, kind = f.name.rpartition("-")
        if kind.isdigit():
            link, _, kind = link.rpartition("-")
        assert link in names and kind in ("visual", "collision", "inertial"), f.name
        assert f.kind == "fixed"
    # the variables are the non-mimic moving joints
    moving = [j.get("name") for j in joints if j.get("type") != "fixed"
              and j.find("mimic") is None]
    assert sorted(scene.variables) == sorted(moving)
    assert len(scene.frames) == len(joints) + len(extra)
    # the URDF and every mesh read are dependencies
    assert scene.sources[0] == str(path)
    meshes = {g.shape.path for _, g in ir.walk_geometries(scene) if isinstance(g.shape, ir.Mesh)}
    assert meshes <= set(scene.sources)
    n_mesh_refs = len({m.get("filename") for m in root.iter("mesh")})
    assert len(meshes) == n_mesh_refs - robot.missing_meshes


@pytest.mark.parametrize("robot", [r for r in ROBOTS if r.probes], ids=lambda r: r.key)
def test_poses_match_yourdfpy(robot):
    """Absolute poses at random non-zero configurations: robrayc's scene (numpy FK) against
    yourdfpy's own forward kinematics of the same URDF, including mimic joints."""
    path = robot_path(robot)
    scene = load([path])
    ref = yourdfpy_robot(path)
    base = ref.base_link
    rng = random.Random(robot.key)
    for _ in range(3):
        cfg = {}
        for name in ref.actuated_joint_names:
            j = ref.joint_map[name]
            lo, hi = -1.0, 1.0
            if j.limit is not None and j.type != "continuous" and j.limit.lower is not None:
                lo, hi = j.limit.lower, j.limit.upper
            cfg[name] = rng.uniform(lo, hi)
        assert cfg or not scene.variables
        ref.update_cfg(np.array([cfg[n] for n in ref.actuated_joint_names]))
        ours = fk(scene, cfg)
        probes = robot.probes or tuple(j for j in ref.joint_map)
        for name in probes:
            child = ref.joint_map[name].child
            want = ref.get_transform(frame_to=child, frame_from=base)
            np.testing.assert_allclose(ours[name], want, atol=1e-9, err_msg=name)
        # shape frames: link pose * visual origin (cylinders shifted to their base)
        for link in ET.parse(path).getroot().findall("link"):
            lname = link.get("name")
            for kind in ("visual", "collision"):
                shapes = link.findall(kind)
                if not shapes or not scene.has_frame(f"{lname}-{kind}"):
                    continue
                el = shapes[0]
                want = ref.get_transform(frame_to=lname, frame_from=base) @ _origin(el)
                cyl = el.find("geometry/cylinder")
                if cyl is not None:
                    shift = np.eye(4)
                    shift[2, 3] = -float(cyl.get("length")) / 2
                    want = want @ shift
                np.testing.assert_allclose(ours[f"{lname}-{kind}"], want, atol=1e-9)


@pytest.mark.parametrize("robot", ROBOTS, ids=lambda r: r.key)
def test_limits_inertia_geometry_match_yourdfpy(robot):
    path = robot_path(robot)
    scene = load([path])
    ref = yourdfpy_robot(path)
    for name, j in ref.joint_map.items():
        f = scene.frame(name)
        if j.type == "fixed":
            assert f.limits == ir.NO_LIMITS
            continue
        lim = j.limit
        if j.type == "continuous" or lim is None:
            assert f.limits.position is None
        else:
            assert f.limits.position == (lim.lower or 0.0, lim.upper or 0.0)
        if lim is not None and lim.velocity is not None:
            assert f.limits.velocity == (-lim.velocity, lim.velocity)
        if lim is not None and lim.effort is not None:
            assert f.limits.effort == (-lim.effort, lim.effort)
        axis = np.asarray(j.axis) / np.linalg.norm(j.axis)
        if j.mimic is not None:
            assert f.variable == j.mimic.joint
            axis = axis * (j.mimic.multiplier or 1.0)
        else:
            assert f.variable == name
        np.testing.assert_allclose(f.axis, axis, atol=1e-15)
    # inertia: the symmetric tensor, on the link's frame (or LINK-inertial)
    parent_joint = {j.child: n for n, j in ref.joint_map.items()}
    for lname, link in ref.link_map.items():
        if link.inertial is None:
            continue
        holder = (f"{lname}-inertial" if scene.has_frame(f"{lname}-inertial")
                  else parent_joint[lname])
        inertial = scene.frame(holder).inertial
        assert inertial.mass == link.inertial.mass
        np.testing.assert_array_equal(np.asarray(inertial.inertia).reshape(3, 3),
                                      link.inertial.inertia)
    # geometry: same number of visual/collision shapes per link, kinds and sizes
    holders: dict[str, list[ir.Geometry]] = {}
    for f in scene.frames:
        holders.setdefault(f.name, []).extend(f.geometries)
    for lname, link in ref.link_map.items():
        mine = []
        for name in (parent_joint.get(lname), *[f.name for f in scene.frames
                                                if f.name.startswith(lname + "-")]):
            if name is not None and name in holders:
                mine += holders[name]
        vis = [g for g in mine if g.visual]
        col = [g for g in mine if g.collision]
        expect_vis = [v for v in link.visuals if not _missing(v, robot)]
        assert len(vis) == len(expect_vis), lname
        assert len(col) == len(link.collisions), lname
        for g, v in zip(vis, expect_vis, strict=True):
            _same_shape(g, v.geometry)


def _missing(visual, robot) -> bool:
    m = visual.geometry.mesh
    if m is None or robot.missing_meshes == 0:
        return False
    return m.filename.endswith(("base_link.DAE", "PEDESTAL.DAE", "base_link.dae"))


def _same_shape(g: ir.Geometry, geom) -> None:
    s = g.shape
    if geom.box is not None:
        assert s == ir.Box(tuple(geom.box.size))
    elif geom.sphere is not None:
        assert s == ir.Sphere(geom.sphere.radius)
    elif geom.cylinder is not None:
        assert s == ir.Cylinder(geom.cylinder.length, geom.cylinder.radius)
    else:
        assert isinstance(s, ir.Mesh) and s.source == geom.mesh.filename
        scale = tuple(geom.mesh.scale) if geom.mesh.scale is not None else (1.0, 1.0, 1.0)
        assert tuple(g.scale * c for c in s.scale3) == scale


# --- the original's mapping, on the tutorial robots ---------------------------------------


def test_root_link_and_cylinder_frames_as_the_original():
    scene = load([robot_path("tutorial01")])
    # one cylinder on the root link: always its own frame, shifted down by half its length
    (f,) = scene.frames
    assert f.name == "base_link-visual" and f.parent is None
    assert f.translation == (0.0, 0.0, -0.3)
    (g,) = f.geometries
    assert g.shape == ir.Cylinder(0.6, 0.2) and g.visual and not g.collision


def test_materials_by_name_and_inline():
    scene = load([robot_path("tutorial04")])
    colors = {f.name: [g.color + (g.alpha,) for g in f.geometries] for f in scene.frames}
    assert colors["base_link-visual"] == [(0.0, 0.0, 0.8, 1.0)]  # <material name="blue">
    assert colors["base_to_right_leg"] == [] and colors["right_leg-visual"] == [
        (1.0, 1.0, 1.0, 1.0)]  # "white", by name


def test_collision_shapes_take_the_first_visual_colour():
    scene = load([robot_path("tutorial07")])
    f = scene.frame("right_leg-collision")
    (g,) = f.geometries
    assert g.collision and not g.visual and g.color == (1.0, 1.0, 1.0)


def test_joint_without_axis_uses_urdf_default_and_continuous_has_no_position_limit():
    scene = load([robot_path("tutorial06")])
    # 06-flexible has a revolute joint with no <axis>: URDF's default is (1, 0, 0)
    root = ET.parse(robot_path("tutorial06")).getroot()
    (no_axis,) = [j.get("name") for j in root.findall("joint")
                  if j.get("type") != "fixed" and j.find("axis") is None]
    assert scene.frame(no_axis).axis == (1.0, 0.0, 0.0)
    for j in root.findall("joint"):
        if j.get("type") == "continuous":
            f = scene.frame(j.get("name"))
            assert f.kind == "revolute" and f.limits.position is None


def test_uniform_mesh_scale_is_the_geometry_scale():
    scene = load([robot_path("pr2")])
    scaled = [g for _, g in ir.walk_geometries(scene) if g.scale != 1.0]
    assert scaled and all(g.scale == 0.001 and g.shape.scale3 == (1.0, 1.0, 1.0)
                          for g in scaled)


def test_pr2_mimic_joints_share_the_mimicked_variable():
    scene = load([robot_path("pr2")])
    for side in "lr":
        master = f"{side}_gripper_l_finger_joint"
        for joint in (f"{side}_gripper_r_finger_joint", f"{side}_gripper_l_finger_tip_joint",
                      f"{side}_gripper_r_finger_tip_joint"):
            assert scene.frame(joint).variable == master
    assert len(scene.variables) == 94 - 49 - 6


# --- synthetic URDFs: mapping details and errors --------------------------------------------

HEAD = '<?xml version="1.0"?>\n<robot name="t">\n'


# the corpus's ROS packages, for a robrayc run
PACKAGES = {"ROS_PACKAGE_PATH": ros_package_path()}


def write(tmp_path: Path, body: str, name: str = "t.urdf") -> Path:
    p = tmp_path / name
    p.write_text(HEAD + body + "</robot>\n")
    return p



def test_mimic_multipliers(tmp_path):
    body = """<link name="a"/><link name="b"/><link name="c"/><link name="d"/>
<joint name="j1" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
 <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
<joint name="j2" type="revolute"><parent link="b"/><child link="c"/><axis xyz="0 1 0"/>
 <limit lower="-1" upper="1" effort="1" velocity="1"/>
 <mimic joint="j1" multiplier="-1" offset="0.25"/></joint>
<joint name="j3" type="prismatic"><parent link="c"/><child link="d"/><axis xyz="1 0 0"/>
 <limit lower="0" upper="1" effort="1" velocity="1"/>
 <mimic joint="j1" multiplier="0.5"/></joint>
"""
    sink = DiagnosticSink()
    scene = load([write(tmp_path, body)], sink=sink)
    j2 = scene.frame("j2")
    # value(j2) = -q + 0.25 about +y  ==  (q - 0.25) about -y
    assert (j2.variable, j2.axis, j2.offset) == ("j1", (0.0, -1.0, 0.0), -0.25)
    assert scene.frame("j3").variable == "j3"  # multiplier 0.5: its own variable, warned
    assert any("multiplier 0.5" in d.message for d in sink.items)
    for q in (-0.7, 0.3):
        ours = fk(scene, {"j1": q})
        want = np.eye(4)
        c, s = math.cos(-q + 0.25), math.sin(-q + 0.25)
        want[:3, :3] = [[c, 0, s], [0, 1, 0], [-s, 0, c]]
        np.testing.assert_allclose(np.linalg.inv(ours["j1"][:3, :3]) @ ours["j2"][:3, :3],
                                   want[:3, :3], atol=1e-12)


def test_mimic_of_an_unknown_joint_is_ignored_with_a_warning(tmp_path):
    """As urdfdom (check_urdf) and yourdfpy: a published robot (example-robot-data's
    alex_psyonic_hands) mimics joint names that do not exist."""
    body = """<link name="a"/><link name="b"/>
<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
 <limit lower="-1" upper="1" effort="1" velocity="1"/><mimic joint="nope"/></joint>"""
    sink = DiagnosticSink()
    scene = load([write(tmp_path, body)], sink=sink)
    assert scene.frame("j").variable == "j"
    assert [d.name for d in sink.items] == ["urdf-mimic"]
    assert "mimics unknown joint 'nope'; mimic ignored" in sink.items[0].message


def test_unbounded_limits_read_back_as_none(tmp_path):
    body = f"""<link name="a"/><link name="b"/>
<joint name="p" type="prismatic"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
 <limit lower="{-UNBOUNDED!r}" upper="{UNBOUNDED!r}" effort="{UNBOUNDED!r}" velocity="2"/>
</joint>"""
    f = load([write(tmp_path, body)]).frame("p")
    assert f.limits == ir.Limits(velocity=(-2.0, 2.0))


def test_limit_with_one_bound_follows_the_urdf_spec(tmp_path):
    body = """<link name="a"/><link name="b"/>
<joint name="r" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
 <limit upper="1.5" effort="1" velocity="1"/></joint>"""
    assert load([write(tmp_path, body)]).frame("r").limits.position == (0.0, 1.5)


def test_repeated_texts_are_each_reported_at_their_own_element(tmp_path):
    """Limits and boxes are shared by the joints and shapes that repeat them, but a text that
    needs a diagnostic is reported wherever it occurs; a repeated clean one is shared."""
    limit = '<limit lower="-1" upper="1" effort="1" velocity="-2"/>'
    body = ('<link name="a"><visual><geometry><box size="1 -1 1"/></geometry></visual></link>\n'
            '<link name="b"><visual><geometry><box size="1 -1 1"/></geometry></visual></link>\n'
            '<link name="c"/>\n'
            f'<joint name="j" type="revolute"><parent link="a"/><child link="b"/>{limit}</joint>\n'
            f'<joint name="k" type="revolute"><parent link="b"/><child link="c"/>{limit}</joint>\n')
    r = robrayc(write(tmp_path, body), "-o", tmp_path / "out.c", env=PACKAGES, process=True)
    assert r.err.count("negative size in <box>") == 2, r.err
    assert ":3:34: error: negative size in <box> of link 'a'" in r.err, r.err
    assert ":4:34: error: negative size in <box> of link 'b'" in r.err, r.err
    body = body.replace("1 -1 1", "1 1 1")
    sink = DiagnosticSink()
    scene = load([write(tmp_path, body)], sink=sink)
    warned = [(d.pos.line, d.pos.col) for d in sink.items if d.name == "urdf-limits"]
    assert warned == [(6, 107), (7, 107)], sink.items
    j, k = scene.frame("j"), scene.frame("k")
    assert j.limits == k.limits == ir.Limits((-1.0, 1.0), (-2.0, 2.0), None, (-1.0, 1.0))
    body = body.replace('velocity="-2"', 'velocity="2"')
    scene = load([write(tmp_path, body)])
    assert scene.frame("j").limits is scene.frame("k").limits  # one record, one C text
    root_box = scene.frame("a-visual").geometries[0].shape  # link a is the root: own frame
    assert root_box is scene.frame("j").geometries[0].shape == ir.Box((1.0, 1.0, 1.0))


def test_quaternions_survive_robray_normalisation():
    rng = random.Random(3)
    for _ in range(2000):
        q = stable_unit_quaternion(rpy_to_quat(*(rng.uniform(-4, 4) for _ in range(3))))
        n = qnorm(q)
        assert tuple(c / n for c in q) == q


def test_relative_mesh_path_and_file_url(tmp_path):
    from robrayc.backends.urdf import cone_stl

    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "c.stl").write_bytes(cone_stl(1.0, 0.5, 0.0))
    body = f"""<link name="a"><visual><geometry><mesh filename="m/c.stl" scale="1 2 3"/>
</geometry></visual><collision><geometry><mesh filename="file://{tmp_path}/m/c.stl"/>
</geometry></collision></link>"""
    scene = load([write(tmp_path, body)], missing="error")
    vis, col = scene.frame("a-visual").geometries + scene.frame("a-collision").geometries
    assert vis.shape.path == col.shape.path == str(tmp_path / "m" / "c.stl")
    assert vis.shape.scale3 == (1.0, 2.0, 3.0) and vis.scale == 1.0
    assert str(tmp_path / "m" / "c.stl") in scene.sources


def test_package_url_on_the_command_line():
    scene = load(["package://ur_description/urdf/ur5_robot.urdf"])
    assert scene.has_frame("ee_fixed_joint")


BAD = [
    ("entity", '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "x"><!ENTITY b "&a;&a;">]>'
               '<robot name="&b;"><link name="a"/></robot>', "declares XML entities"),
    ("external_entity", '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM '
                        '"file:///etc/passwd">]><robot name="x"><link name="&x;"/></robot>',
     "declares XML entities"),
    ("external_dtd", '<?xml version="1.0"?><!DOCTYPE robot SYSTEM "http://example.com/r.dtd">'
                     '<robot name="x"><link name="a"/></robot>', "external DTD"),
    ("xinclude", '<robot name="x" xmlns:xi="http://www.w3.org/2001/XInclude"><link name="a"/>'
                 '<xi:include href="/etc/passwd" parse="text"/></robot>', "XInclude"),
    ("xacro", '<robot name="x" xmlns:xacro="http://www.ros.org/wiki/xacro"><xacro:property '
              'name="p" value="1"/><link name="a"/></robot>', "xacro"),
    ("syntax", '<robot name="x"><link name="a"></robot>', "XML syntax error"),
    ("not_robot", '<world name="x"/>', "not a URDF"),
    ("planar", HEAD + '<link name="a"/><link name="b"/><joint name="p" type="planar">'
               '<parent link="a"/><child link="b"/></joint></robot>', "planar joint"),
    ("unknown_type", HEAD + '<link name="a"/><link name="b"/><joint name="j" type="revolut">'
                     '<parent link="a"/><child link="b"/></joint></robot>',
     "did you mean 'revolute'"),
    ("unknown_link", HEAD + '<link name="base"/><link name="b"/><joint name="j" type="fixed">'
                     '<parent link="bose"/><child link="b"/></joint></robot>',
     "unknown parent link 'bose'"),
    ("duplicate_link", HEAD + '<link name="a"/><link name="a"/></robot>', "duplicate link 'a'"),
    ("two_parents", HEAD + '<link name="a"/><link name="b"/><link name="c"/>'
                    '<joint name="j" type="fixed"><parent link="a"/><child link="c"/></joint>'
                    '<joint name="k" type="fixed"><parent link="b"/><child link="c"/></joint>'
                    '</robot>', "child of two joints"),
    ("cycle", HEAD + '<link name="a"/><link name="b"/>'
              '<joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint>'
              '<joint name="k" type="fixed"><parent link="b"/><child link="a"/></joint>'
              '</robot>', "cycle"),
    ("bad_number", HEAD + '<link name="a"><visual><origin xyz="0 0 x"/><geometry><box '
                   'size="1 1 1"/></geometry></visual></link></robot>', "not a list of numbers"),
    ("short_vector", HEAD + '<link name="a"><visual><geometry><box size="1 1"/></geometry>'
                     '</visual></link></robot>', "box size needs 3 numbers"),
    ("zero_axis", HEAD + '<link name="a"/><link name="b"/><joint name="j" type="revolute">'
                  '<parent link="a"/><child link="b"/><axis xyz="0 0 0"/></joint></robot>',
     "axis of joint 'j' is zero"),
    ("reversed_limits", HEAD + '<link name="a"/><link name="b"/><joint name="j" '
                        'type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>'
                        '<limit lower="1" upper="-1" effort="1" velocity="1"/></joint></robot>',
     "lower limit 1.0 is above upper limit -1.0"),
    ("two_shapes", HEAD + '<link name="a"><visual><geometry><box size="1 1 1"/><sphere '
                   'radius="1"/></geometry></visual></link></robot>', "several shapes"),
    ("capsule", HEAD + '<link name="a"><visual><geometry><capsule radius="1" length="1"/>'
                '</geometry></visual></link></robot>', "unsupported URDF shape <capsule>"),
    ("missing_mesh", HEAD + '<link name="a"><visual><geometry>\n  <mesh filename="nope.stl"/>'
                     '</geometry></visual></link></robot>', "mesh file 'nope.stl' not found"),
    ("no_package", HEAD + '<link name="a"><visual><geometry><mesh filename='
                   '"package://no_such_pkg/x.stl"/></geometry></visual></link></robot>',
     "package 'no_such_pkg' of mesh"),
    ("no_links", HEAD + "</robot>", "has no links"),
]


@pytest.mark.parametrize("name,text,message", BAD, ids=[b[0] for b in BAD])
def test_errors_are_clear_and_positioned(tmp_path, name, text, message):
    p = tmp_path / f"{name}.urdf"
    p.write_text(text)
    r = robrayc(p, "-o", tmp_path / "out.c", env=PACKAGES, process=True)
    assert r.status == 1, r.err
    assert "Traceback" not in r.err
    first = r.err.splitlines()[0]
    assert first.startswith(str(p)) and ": error: " in first, r.err
    assert message in r.err, r.err
    assert not (tmp_path / "out.c").exists()


def test_missing_mesh_error_points_at_the_mesh_element(tmp_path):
    p = write(tmp_path, '<link name="a"><visual><geometry>\n    <mesh filename="gone.dae"/>'
                        '</geometry></visual></link>\n')
    r = robrayc(p, "-o", tmp_path / "out.c", env=PACKAGES, process=True)
    assert f"{p}:4:11: error: mesh file 'gone.dae' not found" in r.err, r.err
    assert '    <mesh filename="gone.dae"/>' in r.err
    assert "\n" + " " * 11 + "^~~~~~~~\n" in r.err  # under 'filename'


def test_positions_count_lines_as_libxml2_does(tmp_path):
    """U+2028 and U+0085 in a comment end no line for libxml2 (nor for the diagnostics'
    source line): the column is still found on the line lxml gives."""
    p = write(tmp_path, '<!-- a \u2028 line separator and a \u0085 next line -->\n'
                        '<link name="a"/>\n<link name="a"/>\n')
    r = robrayc(p, "-o", tmp_path / "out.c", env=PACKAGES, process=True)
    assert f"{p}:5:7: error: duplicate link 'a'" in r.err, r.err
    assert f"{p}:4:7: note: first defined here" in r.err, r.err



def test_entity_bomb_is_refused_quickly(tmp_path):
    levels = "".join(f'<!ENTITY l{i} "&l{i - 1};&l{i - 1};&l{i - 1};&l{i - 1};'
                     f'&l{i - 1};&l{i - 1};&l{i - 1};&l{i - 1};&l{i - 1};&l{i - 1};">'
                     for i in range(1, 12))
    p = tmp_path / "bomb.urdf"
    p.write_text(f'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY l0 "lol">{levels}]>'
                 '<robot name="&l11;"><link name="a"/></robot>')
    with pytest.raises(CompileError) as exc:
        load([p], sink=DiagnosticSink())
    assert "entities" in str(exc.value)


def test_missing_meshes_dropped_or_boxed():
    sink = DiagnosticSink()
    scene = load([robot_path("baxter")], missing="drop", sink=sink)
    warned = [d.message for d in sink.items if "not found" in d.message]
    assert len(warned) == 2 and any("PEDESTAL.DAE" in w for w in warned)
    assert not scene.frame("torso_t0").geometries or all(
        not g.visual for g in scene.frame("torso_t0").geometries)

    sink = DiagnosticSink()
    boxed = load([robot_path("baxter")], missing="bbox", sink=sink)
    assert sum("bounding box" in d.message for d in sink.items) == 2
    # torso's visual DAE is missing: a box around its collision mesh replaces it
    root = ET.parse(robot_path("baxter")).getroot()
    torso_joint = next(j.get("name") for j in root.findall("joint")
                       if j.find("child").get("link") == "torso")
    box_frames = [f for f in boxed.frames if f.name.startswith("torso-visual")]
    assert box_frames and box_frames[0].parent == torso_joint
    (g,) = box_frames[0].geometries
    assert isinstance(g.shape, ir.Box) and g.visual and not g.collision
    from robrayc import meshes

    col = next(gg for gg in boxed.frame(torso_joint).geometries if gg.collision)
    lo, hi = meshes.bounds(meshes.convert(meshes.read_raw(col.shape.path)))
    np.testing.assert_allclose(g.shape.dimension, hi - lo, atol=1e-12)
    np.testing.assert_allclose(box_frames[0].translation, (lo + hi) / 2, atol=1e-12)


def test_missing_mesh_is_an_error_by_default():
    with pytest.raises(CompileError) as exc:
        load([robot_path("fetch")], missing="error", sink=DiagnosticSink())
    assert "base_link.dae" in str(exc.value)


# --- the command line on URDF inputs ---------------------------------------------------------


def test_list_frames_vars_and_dot(tmp_path):
    path = robot_path("ur5")
    frames = robrayc(path, "--list-frames", env=PACKAGES, process=True).out.split()
    scene = load([path])
    assert frames == [f.name for f in scene.frames]
    listed = robrayc(path, "--list-vars", env=PACKAGES, process=True).out.split()
    assert listed == list(scene.variables)
    dot = robrayc(path, "--format", "dot", env=PACKAGES, process=True).out
    assert dot.startswith("// Generated by robrayc") and dot.rstrip().endswith("}")
    for f in scene.frames:
        parent = f'"frame:{f.parent}"' if f.parent is not None else '"(root)"'
        label = f' [label="{f.variable} (revolute)"]' if f.is_joint else ""
        assert f'{parent} -> "frame:{f.name}"{label};' in dot
    assert dot.count(" -> ") == len(scene.frames)


def test_robray_and_urdf_mixed_on_the_command_line(tmp_path):
    scene_file = tmp_path / "s.robray"
    scene_file.write_text('frame block { parent right_endpoint; translation [0, 0, 0.1];\n'
                          '  geometry { shape box; dimension [0.05, 0.05, 0.05]; } }\n'
                          'allow_collision block right_gripper_base;\n')
    r = robrayc(robot_path("baxter"), scene_file, "--missing-mesh=drop", "-q", "--list-frames",
                env=PACKAGES, process=True)
    assert r.status == 0, r.err
    assert "block" in r.out.split() and "right_endpoint" in r.out.split()


def test_robot_table_is_complete():
    require_corpus()
    found = {str(p.relative_to(URDF_CORPUS)) for p in URDF_CORPUS.rglob("*.urdf")}
    found |= {str(p.relative_to(URDF_CORPUS)) for p in URDF_CORPUS.rglob("robot.xml")}
    assert found == {r.path for r in BY_KEY.values()}
