"""xacro input: the corpus xacros expand (through the real xacro package) to the robots of the
URDFs shipped beside them, checked against yourdfpy's reading of the shipped URDF; arguments,
$(find), depfiles and located errors."""

from __future__ import annotations

import math
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from robrayc import ir
from robrayc.diagnostics import CompileError, DiagnosticSink
from robrayc.kinematics import fk
from tests.corpus import URDF_CORPUS, require_corpus
from tests.run import robrayc
from tests.urdf_robots import (
    env_with_packages,
    load,
    ros_env,  # noqa: F401  (fixture)
    yourdfpy_robot,
)

pytest.importorskip("xacro")
pytestmark = pytest.mark.usefixtures("ros_env")

UR = "ros-industrial+universal_robot/ur_description/urdf/"
# (xacro, the URDF generated from it and shipped beside it). baxter.urdf.xacro is left out:
# the shipped baxter.urdf is a hand-kept, deprecated file, not its expansion (other limits,
# no grippers), as its header says.
PAIRS = (
    (UR + "ur5_robot.urdf.xacro", UR + "ur5_robot.urdf"),
    (UR + "ur5_joint_limited_robot.urdf.xacro", UR + "ur5_joint_limited_robot.urdf"),
    ("ipa320+schunk_robots/schunk_lwa4d/urdf/robot_lwa4d.urdf.xacro",
     "ipa320+schunk_robots/schunk_lwa4d/urdf/robot_lwa4d.urdf"),
)
# Where the shipped URDF is older than the xacro beside it (sed on the shipped text: the
# xacro at that commit lifts the arm 1 cm, "slightly above gazebo plane").
STALE = {"robot_lwa4d.urdf": ('<origin rpy="0 0 0" xyz="0 0 0"/>\n    <parent link="world"/>',
                              '<origin rpy="0 0 0" xyz="0 0 0.01"/>\n    <parent link="world"/>')}
# The shipped URDFs were written by Python 2's xacro: 12 significant digits.
REL = 1e-11


def _close(a, b) -> bool:
    return all(math.isclose(x, y, rel_tol=REL, abs_tol=1e-12) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: Path(p[0]).name)
def test_corpus_xacro_expands_to_the_shipped_robot(pair, tmp_path):
    require_corpus()
    scene = load([URDF_CORPUS / pair[0]])
    shipped = URDF_CORPUS / pair[1]
    if shipped.name in STALE:
        old, new = STALE[shipped.name]
        text = shipped.read_text()
        assert text.count(old) == 1
        shipped = tmp_path / shipped.name
        shipped.write_text(text.replace(old, new))
    ref = yourdfpy_robot(shipped)
    joints = {f.name for f in scene.frames if not f.name.endswith(
        ("-visual", "-collision", "-inertial")) and "-visual-" not in f.name}
    assert joints == set(ref.joint_map)
    base = ref.base_link
    rng = random.Random(pair[0])
    for _ in range(3):
        cfg = {n: rng.uniform(-2.0, 2.0) for n in ref.actuated_joint_names}
        ref.update_cfg(np.array([cfg[n] for n in ref.actuated_joint_names]))
        ours = fk(scene, cfg)
        for name, j in ref.joint_map.items():
            want = ref.get_transform(frame_to=j.child, frame_from=base)
            np.testing.assert_allclose(ours[name], want, atol=1e-9, err_msg=name)
    for name, j in ref.joint_map.items():
        f = scene.frame(name)
        assert f.kind == {"continuous": "revolute"}.get(j.type, j.type)
        if j.type in ("revolute", "prismatic"):
            assert _close(f.limits.position, (j.limit.lower, j.limit.upper))
            assert _close(f.limits.velocity, (-j.limit.velocity, j.limit.velocity))
            np.testing.assert_allclose(f.axis, j.axis, atol=1e-12)
    _same_links(scene, ref)


def _same_links(scene: ir.Scene, ref) -> None:
    """Per link: mass, inertia, and the shapes (kind, size, mesh file) of visuals/collisions."""
    holder = {j.child: n for n, j in ref.joint_map.items()}
    for lname, link in ref.link_map.items():
        frames = [holder.get(lname)] + [f.name for f in scene.frames
                                        if f.name.startswith(lname + "-")]
        mine = [g for n in frames if n and scene.has_frame(n) for g in scene.frame(n).geometries]
        inertials = [scene.frame(n).inertial for n in frames
                     if n and scene.has_frame(n) and scene.frame(n).inertial]
        if link.inertial is not None:
            assert math.isclose(inertials[0].mass, link.inertial.mass, rel_tol=REL)
            assert _close(inertials[0].inertia, link.inertial.inertia.flatten())
        for kind, shapes in (("visual", link.visuals), ("collision", link.collisions)):
            ours = [g.shape for g in mine if getattr(g, kind)]
            assert len(ours) == len(shapes), (lname, kind)
            for s, v in zip(ours, shapes, strict=True):
                if v.geometry.mesh is not None:
                    assert isinstance(s, ir.Mesh) and s.source == v.geometry.mesh.filename
                elif v.geometry.cylinder is not None:
                    c = v.geometry.cylinder
                    assert _close((s.height, s.radius), (c.length, c.radius))
                elif v.geometry.box is not None:
                    assert _close(s.dimension, v.geometry.box.size)
                else:
                    assert _close((s.radius,), (v.geometry.sphere.radius,))


def _write(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / name
    path.write_text('<?xml version="1.0"?>\n<robot name="r" '
                    'xmlns:xacro="http://www.ros.org/wiki/xacro">\n' + body + "</robot>\n")
    return path


ARM = """  <xacro:arg name="len" default="0.5"/>
  <xacro:property name="l" value="$(arg len)"/>
  <xacro:include filename="parts.xacro"/>
  <link name="base"/>
  <xacro:arm_link name="upper" parent="base" z="${l}"/>
"""
PARTS = """<?xml version="1.0"?>
<robot xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:macro name="arm_link" params="name parent z">
    <link name="${name}"><visual><geometry><box size="1 2 ${z*2}"/></geometry></visual></link>
    <joint name="${name}_joint" type="revolute"><parent link="${parent}"/>
      <child link="${name}"/><origin xyz="0 0 ${z}"/>
      <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  </xacro:macro>
</robot>
"""


def test_xacro_args_includes_and_depfile(tmp_path):
    main = _write(tmp_path, "arm.urdf.xacro", ARM)
    (tmp_path / "parts.xacro").write_text(PARTS)
    out = tmp_path / "arm.json"
    r = robrayc(main, "--xacro-arg", "len:=0.25", "-o", out, "-MD", cwd=tmp_path,
                env=env_with_packages(), process=True)
    assert r.status == 0, r.err
    import json

    frames = {f["name"]: f for f in json.loads(out.read_text())["frames"]}
    assert frames["upper_joint"]["translation"] == [0.0, 0.0, 0.25]
    dep = (tmp_path / "arm.json.d").read_text() if (tmp_path / "arm.json.d").exists() else \
        next(tmp_path.glob("*.d")).read_text()
    assert "parts.xacro" in dep and "arm.urdf.xacro" in dep


def test_find_uses_the_package_path(tmp_path):
    pkg = tmp_path / "pkgs" / "my_parts"
    pkg.mkdir(parents=True)
    (pkg / "parts.xacro").write_text(PARTS)
    main = _write(tmp_path, "a.xacro", ARM.replace('"parts.xacro"',
                                                    '"$(find my_parts)/parts.xacro"'))
    scene = load([main], package_paths={"my_parts": str(pkg)})
    assert scene.frame("upper_joint").translation == (0.0, 0.0, 0.5)
    with pytest.raises(CompileError) as exc:
        load([main])
    assert "package 'my_parts' not found" in str(exc.value)


@pytest.mark.parametrize("body, where, message", [
    ("  <link name='a'>\n  <link>\n", ":3:", "XML syntax error"),
    ("  <link name='a'/>\n  <xacro:property name='p' value='${nope * 2}'/>\n"
     "  <link name='${p}'/>\n", ":4:", "name 'nope' is not defined"),
    ("  <xacro:undefined_macro/>\n", ":3:", "unknown macro name"),
    # issue 32: these read "<class 'xacro.XacroException'>: MESSAGE MESSAGE" without a line
    ("  <link name='a'/>\n  <xacro:include filename='$(find no_such_pkg)/a.xacro'/>\n", ":4:28:",
     "package 'no_such_pkg' not found"),
    ("  <link name='$(env ROBRAYC_NOT_SET_X)'/>\n", ":3:15:",
     "environment variable 'ROBRAYC_NOT_SET_X' is not set"),
    ("  <xacro:include filename='missing.xacro'/>\n", ":3:28:", "no such file or directory"),
    ("  <xacro:macro name='m' params='a b'><link name='${a}'/></xacro:macro>\n"
     "  <xacro:m a='x'/>\n", ":4:3:", "undefined parameters [b]"),
    ("  <xacro:property name='p' value='${1/0}'/>\n  <link name='${p}'/>\n", ":3:35:",
     "division by zero"),
])
def test_errors_are_located_never_a_traceback(tmp_path, body, where, message):
    """Every xacro error reads like robrayc's own: located, the message once, no Python class
    name, a hint."""
    path = _write(tmp_path, "bad.xacro", body)
    r = robrayc(path, env=env_with_packages(), process=True)
    assert r.status == 1, r.err
    assert "Traceback" not in r.err and "<class" not in r.err, r.err
    first = r.err.splitlines()[0]
    assert first.startswith(str(path)) and where in first and message in first, r.err
    assert first.count(message) == 1, r.err
    assert "hint: " in r.err or "XML syntax" in first, r.err


def test_ros1_unprefixed_tags_are_read_with_a_warning(tmp_path):
    path = _write(tmp_path, "old.xacro", "  <property name='w' value='2'/>\n"
                  "  <link name='a'><visual><geometry><sphere radius='${w}'/></geometry>"
                  "</visual></link>\n")
    sink = DiagnosticSink()
    scene = load([path], sink=sink)
    assert scene.frame("a-visual").geometries[0].shape == ir.Sphere(2.0)
    assert any("unprefixed xacro tag <property>" in d.message for d in sink.items)


def test_without_the_xacro_package_a_clear_error(tmp_path):
    path = _write(tmp_path, "a.xacro", "  <link name='a'/>\n")
    code = ("import sys; sys.modules['xacro'] = None; from robrayc.cli.main import main; "
            f"sys.exit(main([{str(path)!r}]))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "needs the xacro package" in r.stderr and "robrayc[formats]" in r.stderr
