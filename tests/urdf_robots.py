"""The robots of the URDF corpus (../shared/corpus/urdf) and helpers shared by the URDF, mesh
and round-trip tests: loading through robrayc, loading through yourdfpy (the independent
reference), and comparing scenes field by field."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from robrayc import ir
from robrayc.diagnostics import NOWHERE, DiagnosticSink
from robrayc.frontend import LoadOptions, load_scene
from robrayc.records import fields, is_record, replace
from tests.corpus import URDF_CORPUS, require_corpus, ros_package_path


@dataclass(frozen=True)
class Robot:
    key: str
    path: str  # below URDF_CORPUS
    joints: int  # as SOURCES.md counts them
    links: int
    probes: tuple[str, ...]  # frames whose absolute pose is compared with yourdfpy
    missing_meshes: int = 0  # mesh files absent from the corpus (too large upstream)
    mimic: int = 0


ROBOTS = (
    Robot("baxter", "RethinkRobotics+baxter_common/baxter_description/urdf/baxter.urdf",
          48, 49, ("left_endpoint", "right_endpoint", "head_nod", "right_w2"), 2),
    Robot("ur5", "ros-industrial+universal_robot/ur_description/urdf/ur5_robot.urdf",
          10, 11, ("ee_fixed_joint", "wrist_3_joint", "wrist_3_link-tool0_fixed_joint")),
    Robot("ur5_limited",
          "ros-industrial+universal_robot/ur_description/urdf/ur5_joint_limited_robot.urdf",
          10, 11, ("ee_fixed_joint",)),
    Robot("fetch", "fetchrobotics+fetch_ros/fetch_description/robots/fetch.urdf", 25, 26,
          ("gripper_axis", "l_gripper_finger_joint", "head_camera_rgb_optical_joint"), 1),
    Robot("freight", "fetchrobotics+fetch_ros/fetch_description/robots/freight.urdf", 6, 7,
          ("r_wheel_joint",), 1),
    Robot("lwa4d", "ipa320+schunk_robots/schunk_lwa4d/urdf/robot_lwa4d.urdf", 8, 9,
          ("arm_7_joint", "arm_4_joint")),
    Robot("pr2", "ros-planning+moveit_resources/moveit_resources_pr2_description/urdf/robot.xml",
          94, 95, ("r_gripper_l_finger_tip_joint", "l_gripper_r_finger_tip_joint",
                   "l_wrist_roll_joint", "head_plate_frame_joint", "torso_lift_joint"), 0, 6),
    *(Robot(f"tutorial{n:02d}", f"ros+urdf_tutorial/urdf_tutorial/urdf/{name}.urdf", j, j + 1,
            probes)
      for n, name, j, probes in (
          (1, "01-myfirst", 0, ()), (2, "02-multipleshapes", 1, ("base_to_right_leg",)),
          (3, "03-origins", 1, ("base_to_right_leg",)),
          (4, "04-materials", 2, ("base_to_left_leg",)),
          (5, "05-visual", 15, ("left_tip_joint", "head_swivel")),
          (6, "06-flexible", 15, ("left_tip_joint", "gripper_extension")),
          (7, "07-physics", 15, ("right_tip_joint", "tobox")))),
)
BY_KEY = {r.key: r for r in ROBOTS}


def robot_path(robot: Robot | str) -> Path:
    require_corpus()
    r = BY_KEY[robot] if isinstance(robot, str) else robot
    return URDF_CORPUS / r.path


@pytest.fixture
def ros_env(monkeypatch):
    """ROS_PACKAGE_PATH naming every package folder of the corpus."""
    require_corpus()
    monkeypatch.setenv("ROS_PACKAGE_PATH", ros_package_path())


def load(paths, missing: str = "drop", sink: DiagnosticSink | None = None, **options):
    sink = sink or DiagnosticSink(quiet=True)
    return load_scene([str(p) for p in paths], LoadOptions(missing_mesh=missing, **options),
                      sink)


def yourdfpy_robot(path: Path):
    """The corpus URDF through yourdfpy, meshes not loaded (the kinematics are the point)."""
    import yourdfpy

    return yourdfpy.URDF.load(str(path), load_meshes=False, build_scene_graph=True,
                              build_collision_scene_graph=False,
                              load_collision_meshes=False)


# --- comparing scenes ---------------------------------------------------------------------


def _strip(obj):
    """A dataclass tree without source positions (they name the file a scene came from)."""
    if isinstance(obj, tuple):
        return tuple(_strip(x) for x in obj)
    if is_record(obj):
        changes = {}
        for f in fields(obj):
            if f.name == "pos":
                changes["pos"] = NOWHERE
            elif f.name == "_index":
                continue
            else:
                changes[f.name] = _strip(getattr(obj, f.name))
        return replace(obj, **changes)
    return obj


def canonical(scene: ir.Scene, keep_mesh_source: bool = True) -> ir.Scene:
    """The scene without what records where it came from: positions and the list of files
    read; with `keep_mesh_source` False also the mesh references as written."""
    frames = _strip(scene.frames)
    if not keep_mesh_source:
        frames = tuple(replace(f, geometries=tuple(
            replace(g, shape=replace(g.shape, source="")) if isinstance(g.shape, ir.Mesh) else g
            for g in f.geometries)) for f in frames)
    return ir.Scene(frames=frames, allowed=_strip(scene.allowed), sources=())


def bits(scene: ir.Scene):
    """Every float of a scene as its repr (bit-exact comparison: -0.0 != 0.0, nan == nan)."""
    def walk(obj):
        if isinstance(obj, float):
            return ("f", repr(obj))
        if isinstance(obj, tuple):
            return tuple(walk(x) for x in obj)
        if is_record(obj):
            return (type(obj).__name__,) + tuple(
                (f.name, walk(getattr(obj, f.name))) for f in fields(obj) if f.name != "_index")
        return obj
    return walk(canonical(scene))


def close_pose(a, b, tol: float = 1e-9) -> bool:
    import numpy as np

    return bool(np.allclose(a, b, atol=tol, rtol=0))


def same_up_to_poses(a: ir.Scene, b: ir.Scene, tol: float = 1e-9,
                     mesh_source: bool = True) -> list[str]:
    """Differences between two scenes, poses compared with a tolerance (URDF writes rpy);
    `mesh_source` False compares mesh files by path only (robray cannot spell package://)."""
    if not mesh_source:
        a, b = canonical(a, False), canonical(b, False)
    out = []
    fa = {f.name: f for f in a.frames}
    fb = {f.name: f for f in b.frames}
    if set(fa) != set(fb):
        out.append(f"frames differ: only in first {sorted(set(fa) - set(fb))[:5]}, "
                   f"only in second {sorted(set(fb) - set(fa))[:5]}")
    for name in sorted(set(fa) & set(fb)):
        x, y = fa[name], fb[name]
        for key in ("parent", "kind", "variable", "limits", "inertial", "tags"):
            if getattr(x, key) != getattr(y, key):
                out.append(f"{name}.{key}: {getattr(x, key)!r} != {getattr(y, key)!r}")
        for key in ("translation", "axis"):
            u, v = getattr(x, key), getattr(y, key)
            if (u is None) != (v is None) or (u is not None and not all(
                    math.isclose(p, q, abs_tol=tol) for p, q in zip(u, v, strict=True))):
                out.append(f"{name}.{key}: {u!r} != {v!r}")
        qa, qb = x.quaternion, y.quaternion
        dot = abs(sum(p * q for p, q in zip(qa, qb, strict=True)))
        if not math.isclose(dot, 1.0, abs_tol=tol):
            out.append(f"{name}.quaternion: {qa!r} != {qb!r}")
        if not math.isclose(x.offset, y.offset, abs_tol=tol):
            out.append(f"{name}.offset: {x.offset!r} != {y.offset!r}")
        ga = [_strip(g) for g in x.geometries]
        gb = [_strip(g) for g in y.geometries]
        if ga != gb:
            out.append(f"{name}.geometries: {ga!r} != {gb!r}")
    if [(p.a, p.b) for p in a.allowed] != [(p.a, p.b) for p in b.allowed]:
        out.append("allowed pairs differ")
    return out


def env_with_packages() -> dict[str, str]:
    return dict(os.environ, ROS_PACKAGE_PATH=ros_package_path())
