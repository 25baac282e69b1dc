"""URDF references outside the file: `package:///PATH` (no package name) found as Pinocchio
finds it, and a joint whose parent link is a frame of another input of the same command (each
a small input that failed before)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from robrayc.cli.main import main
from robrayc.diagnostics import DiagnosticSink
from robrayc.frontend import LoadOptions, load_scene
from robrayc.kinematics import fk
from tests.run import robrayc

TET = ("solid t\n" + "".join(
    f"facet normal 0 0 0\nouter loop\n{a}\n{b}\n{c}\nendloop\nendfacet\n"
    for a, b, c in [("vertex 0 0 0", "vertex 0 1 0", "vertex 1 0 0"),
                    ("vertex 0 0 0", "vertex 1 0 0", "vertex 0 0 1"),
                    ("vertex 0 0 0", "vertex 0 0 1", "vertex 0 1 0"),
                    ("vertex 1 0 0", "vertex 0 1 0", "vertex 0 0 1")]) + "endsolid t\n")

NO_PACKAGE = """<robot name="r"><link name="a"><visual><geometry>
  <mesh filename="package:///meshes/tet.stl"/></geometry></visual></link></robot>
"""


def mesh_path(scene) -> str:
    return scene.frames[0].geometries[0].shape.path


@pytest.fixture
def package_dirs(tmp_path, monkeypatch):
    """A URDF in robot/ with package:/// meshes, and two ROS_PACKAGE_PATH folders, the
    mesh only under the second."""
    robot = tmp_path / "robot"
    empty, found = tmp_path / "first", tmp_path / "second"
    for d in (robot / "meshes", empty, found / "meshes"):
        d.mkdir(parents=True)
    (robot / "r.urdf").write_text(NO_PACKAGE)
    (found / "meshes" / "tet.stl").write_text(TET)
    monkeypatch.setenv("ROS_PACKAGE_PATH", f"{empty}:{found}")
    return robot / "r.urdf", found


def test_empty_package_name_is_searched_in_each_package_path_folder(package_dirs):
    urdf, found = package_dirs
    scene = load_scene([str(urdf)])
    assert mesh_path(scene) == str(found / "meshes" / "tet.stl")
    pin = pytest.importorskip("pinocchio")  # the same file as Pinocchio's
    _, _, visual = pin.buildModelsFromUrdf(str(urdf))
    assert Path(visual.geometryObjects[0].meshPath).resolve() == Path(mesh_path(scene))


def test_empty_package_name_by_package_path_option(package_dirs, tmp_path):
    urdf, _ = package_dirs
    (tmp_path / "elsewhere" / "meshes").mkdir(parents=True)
    (tmp_path / "elsewhere" / "meshes" / "tet.stl").write_text(TET)
    scene = load_scene([str(urdf)], LoadOptions(package_paths={"": str(tmp_path / "elsewhere")}))
    assert mesh_path(scene) == str(tmp_path / "elsewhere" / "meshes" / "tet.stl")
    r = robrayc(urdf, "--package-path", f"={tmp_path / 'elsewhere'}", "-o", tmp_path / "o.json",
                process=True)
    assert r.status == 0 and r.err == ""


def test_empty_package_name_beside_the_urdf_with_a_warning(tmp_path, monkeypatch):
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    (tmp_path / "meshes").mkdir()
    (tmp_path / "meshes" / "tet.stl").write_text(TET)
    (tmp_path / "r.urdf").write_text(NO_PACKAGE)
    sink = DiagnosticSink()
    scene = load_scene([str(tmp_path / "r.urdf")], LoadOptions(), sink)
    assert mesh_path(scene) == str(tmp_path / "meshes" / "tet.stl")
    assert [d.name for d in sink.items] == ["mesh-path-fallback"]


ARM = """<robot name="arm">
  <link name="base"/><link name="tip"/>
  <joint name="mount" type="fixed"><parent link="world"/><child link="base"/>
    <origin xyz="0 0 1"/></joint>
  <joint name="j" type="revolute"><parent link="base"/><child link="tip"/>
    <origin xyz=".5 0 0"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>
"""


def test_parent_link_from_another_input(tmp_path, capsys):
    (tmp_path / "arm.urdf").write_text(ARM)
    (tmp_path / "world.robray").write_text("frame world { translation [1, 0, 0]; }\n")
    inputs = [str(tmp_path / "world.robray"), str(tmp_path / "arm.urdf")]
    scene = load_scene(inputs, LoadOptions(), DiagnosticSink(quiet=True))
    assert scene.frame("mount").parent == "world"
    np.testing.assert_array_equal(fk(scene, {"j": 0.0})["j"][:3, 3], [1.5, 0.0, 1.0])
    out = tmp_path / "out.json"
    assert main([*inputs, "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"{tmp_path / 'arm.urdf'}:3:44: warning: joint 'mount': parent link 'world' is " \
           "not in its file: attached to that frame of another input" in err
    assert "[-Woutside-parent]" in err


def test_parent_link_found_nowhere_is_a_located_error(tmp_path):
    (tmp_path / "arm.urdf").write_text(ARM)
    r = robrayc(tmp_path / "arm.urdf", process=True)
    assert r.status == 1 and "Traceback" not in r.err
    assert f"{tmp_path / 'arm.urdf'}:3:44: error: joint 'mount': unknown parent link " \
           "'world' (neither in its file nor a frame of another input)" in r.err


def test_frame_named_world_loads_in_mujoco(tmp_path):
    mujoco = pytest.importorskip("mujoco")
    (tmp_path / "arm.urdf").write_text(ARM)
    (tmp_path / "world.robray").write_text("frame world { translation [1, 0, 0]; }\n")
    out = tmp_path / "out.mjcf"
    assert main([str(tmp_path / "world.robray"), str(tmp_path / "arm.urdf"), "-q", "-o",
                 str(out)]) == 0
    model = mujoco.MjModel.from_xml_path(str(out))
    data = mujoco.MjData(model)
    mujoco.mj_kinematics(model, data)
    np.testing.assert_array_equal(data.body("j").xpos, [1.5, 0.0, 1.0])
