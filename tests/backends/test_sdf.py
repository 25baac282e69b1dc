"""SDF export, validated by the real libsdformat: a small C++ program (sdf/sdf_check.cc,
compiled here against libsdformat-dev) loads the file with sdf::Root, fails on any error and
prints the poses libsdformat resolves. Link poses equal the FK at zero and at random
configurations (joints composed from libsdformat's resolved frames and axes); limits equal
yourdfpy's reading of the URDF; and robrayc keeps at least what sdformat's own URDF -> SDF
conversion of the same robot keeps (same link poses, every shape, the total mass)."""

from __future__ import annotations

import random
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from robrayc import ir
from robrayc.cli.main import main
from robrayc.frontend import LoadOptions, load_scene
from robrayc.kinematics import fk
from robrayc.links import plan_links
from tests.corpus import amino_corpus_files, corpus_id, require_corpus
from tests.run import robrayc
from tests.sdformat import compile_against_sdformat
from tests.urdf_robots import (
    ROBOTS,
    load,
    robot_path,
    ros_env,  # noqa: F401  (fixture)
    yourdfpy_robot,
)

pytestmark = pytest.mark.usefixtures("ros_env")
CHECKER = Path(__file__).parent / "sdf" / "sdf_check.cc"
# Robots sdformat's own URDF -> SDF conversion refuses (README: SDF, differences): the
# tutorials' links have no <inertial>, which the conversion drops, leaving no link; Fetch's
# gripper fingers have unphysical inertia tensors.
CONVERTER_FAILS = {f"tutorial0{n}" for n in range(1, 7)} | {"fetch"}
JOINT_TYPES = {2: "continuous", 3: "fixed", 5: "prismatic", 6: "revolute"}  # sdf::JointType


@pytest.fixture(scope="session")
def sdf_check(tmp_path_factory) -> Path:
    return compile_against_sdformat(CHECKER, tmp_path_factory.mktemp("sdf"))


@dataclass
class Model:
    links: dict[str, np.ndarray] = field(default_factory=dict)  # resolved, in the model
    mass: dict[str, float] = field(default_factory=dict)
    joints: dict[str, tuple] = field(default_factory=dict)  # type parent child axis limits
    shapes: list[tuple] = field(default_factory=list)  # link kind name geometry... pose
    world: bool = False  # an empty <world>: the scene had no frames


def matrix(x, y, z, qw, qx, qy, qz) -> np.ndarray:
    from robrayc.kinematics import quat_to_matrix

    m = np.eye(4)
    m[:3, :3] = np.array(quat_to_matrix((qx, qy, qz, qw)))
    m[:3, 3] = (x, y, z)
    return m


def run_check(exe: Path, path: Path, must_load: bool = True) -> Model | None:
    r = subprocess.run([str(exe), str(path)], capture_output=True, text=True)
    if r.returncode != 0 and not must_load:
        return None
    assert r.returncode == 0, r.stderr[-3000:]
    model = Model()
    for line in r.stdout.splitlines():
        kind, *rest = line.split()
        if kind == "link":
            model.links[rest[0]] = matrix(*map(float, rest[1:8]))
        elif kind == "inertial":
            model.mass[rest[0]] = float(rest[1])
        elif kind == "joint":
            nums = tuple(map(float, rest[4:]))
            model.joints[rest[0]] = (JOINT_TYPES.get(int(rest[1]), rest[1]), rest[2], rest[3],
                                     nums[:3], nums[3:])
        elif kind == "world":
            model.world = True
        elif kind == "shape":
            model.shapes.append(tuple(rest))
    return model


def export(inputs, out: Path, *extra: str) -> None:
    run = robrayc(*inputs, "--missing-mesh=drop", "-q", "-o", out, *extra)
    assert run.status == 0, run.err


def motion(kind: str, axis, q: float) -> np.ndarray:
    m = np.eye(4)
    a = np.asarray(axis, dtype=float)
    if kind in ("revolute", "continuous"):
        k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
        m[:3, :3] = np.eye(3) + np.sin(q) * k + (1 - np.cos(q)) * k @ k
    elif kind == "prismatic":
        m[:3, 3] = a * q
    return m


def poses_at(model: Model, values: dict[str, float]) -> dict[str, np.ndarray]:
    """Link poses at joint values, composed from libsdformat's zero-pose frames and axes."""
    out: dict[str, np.ndarray] = {}
    by_child = {j[2]: (name, j) for name, j in model.joints.items()}

    def pose(link: str) -> np.ndarray:
        if link not in out:
            name, (kind, parent, _, axis, _) = by_child[link]
            base = np.eye(4) if parent == "world" else pose(parent)
            rest = (np.eye(4) if parent == "world" else np.linalg.inv(model.links[parent])) \
                @ model.links[link]
            out[link] = base @ rest @ motion(kind, axis, values.get(name, 0.0))
        return out[link]

    for link in model.links:
        pose(link)
    return out


def link_contents(scene: ir.Scene) -> dict[str, list[ir.Frame]]:
    """link name -> the frames robrayc.links folds into it (its own frame first)."""
    plan = plan_links(scene)
    out: dict[str, list[ir.Frame]] = {plan.names[f.name]: [f] for f in plan.links}
    for f in scene.frames:
        if f.name in plan.folded:
            out.setdefault(plan.names[f.name], []).append(f)
    return out


def check_scene(scene: ir.Scene, model: Model, seed: str) -> None:
    assert model.world == (not scene.frames)
    if not scene.frames:
        return
    plan = plan_links(scene)
    own = {plan.names[f.name]: f for f in plan.links}
    contents = link_contents(scene)
    if scene.root_link not in (None, "world"):  # the URDF's root link, fixed to the world
        contents.setdefault(plan.root, [])
    assert set(model.links) == set(contents)
    joint_of = {j[2]: name for name, j in model.joints.items()}
    rng = random.Random(seed)
    for trial in range(3):
        cfg = {v: (rng.uniform(-2, 2) if trial else 0.0) for v in scene.variables}
        values = {joint_of[link]: cfg[f.variable] for link, f in own.items() if f.is_joint}
        ours = fk(scene, cfg)
        theirs = poses_at(model, values) if trial else model.links
        for link, f in own.items():
            np.testing.assert_allclose(theirs[link], ours[f.name], atol=1e-9, err_msg=link)
    for link, frames in contents.items():
        f = own.get(link)
        if f is not None:
            kind, _, _, _, lim = model.joints[joint_of[link]]
            assert kind == ("continuous" if f.kind == "revolute" and f.limits.position is None
                            else f.kind)
            if f.limits.position is not None:
                assert lim[:2] == f.limits.position
        masses = [p.inertial.mass for p in frames if p.inertial is not None]
        assert model.mass[link] == (masses[0] if masses else 1.0)  # SDF's default: 1
        want = sum(g.visual + g.collision for p in frames for g in p.geometries
                   if not isinstance(g.shape, ir.Grid))
        assert len([s for s in model.shapes if s[0] == link]) == want, link


@pytest.mark.parametrize("robot", ROBOTS, ids=lambda r: r.key)
def test_corpus_robot_loads_in_libsdformat_and_keeps_what_its_converter_keeps(
        robot, tmp_path, sdf_check):
    path = robot_path(robot)
    out = tmp_path / f"{robot.key}.sdf"
    export([path], out)
    ours = run_check(sdf_check, out)
    scene = load([path])
    check_scene(scene, ours, robot.key)
    ref = yourdfpy_robot(path)
    by_child = {j[2]: (name, j) for name, j in ours.joints.items()}
    for name, j in ref.joint_map.items():  # URDF's joint and link names, its limits
        if j.child not in by_child:  # a link folded away: a shape frame's own "link"
            continue
        mine, (_, parent, _, _, lim) = by_child[j.child]
        # a joint named like a link is renamed: SDF names links and joints apart
        assert mine == name or (mine == f"{name}_joint" and name in ref.link_map)
        assert parent in (j.parent, "world")
        if j.type in ("revolute", "prismatic") and j.mimic is None:
            assert lim[:2] == (j.limit.lower or 0.0, j.limit.upper or 0.0)
    # sdformat's own conversion of the URDF: its links sit where ours do (1e-8: it turns
    # UR5's 1.570796325 rad into pi/2), and it keeps no shape or mass that ours does not
    conv = run_check(sdf_check, path, must_load=False)
    if conv is None:  # sdformat cannot convert it; robrayc's SDF of it loads
        assert robot.key in CONVERTER_FAILS
        return
    for link, pose in conv.links.items():
        np.testing.assert_allclose(ours.links[link], pose, atol=1e-8, err_msg=link)
    assert len(ours.shapes) + robot.missing_meshes >= len(conv.shapes)  # missing: dropped
    declared = sum(lk.inertial.mass for lk in ref.link_map.values() if lk.inertial)
    held = [link for link, frames in link_contents(scene).items()
            if any(p.inertial for p in frames)]
    assert sum(ours.mass[link] for link in held) == pytest.approx(declared, rel=1e-12)


@pytest.mark.parametrize("path", amino_corpus_files(), ids=corpus_id)
def test_amino_demo_loads_in_libsdformat(path, tmp_path, sdf_check):
    require_corpus()
    out = tmp_path / "scene.sdf"
    export([path], out)
    scene = load_scene([str(path)], LoadOptions(missing_mesh="drop"))
    check_scene(scene, run_check(sdf_check, out), path.name)


SHAPES = """
frame base { geometry { shape box; dimension [.1, .2, .3]; color [1, 0, 0]; } }
frame arm { parent base; type revolute; axis [0, 1, 0]; translation [0, 0, .3];
            offset .25; limit_position [-1, 2];
            geometry { shape cylinder; height .5; radius .05; alpha .5; visual 0; }
            geometry { shape cone; height .2; start_radius .1; end_radius .02; collision 0; }
            geometry { shape grid; dimension [1, 1]; delta [.1, .1]; thickness .01; } }
frame slider { parent arm; type prismatic; axis [1, 0, 0]; variable arm; offset -.1;
               geometry { shape sphere; radius .04; specular [1, 1, 1]; } }
frame arm_joint { parent base; }
allow_collision base arm;
"""


def test_every_shape_offsets_and_located_warnings(tmp_path, sdf_check, capsys):
    src = tmp_path / "s.robray"
    src.write_text(SHAPES)
    out = tmp_path / "s.sdf"
    assert main([str(src), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"{src}:7:13: warning: SDF cannot express grid geometry" in err
    assert f"{src}:8:7: warning: SDF cannot express shared configuration variables" in err
    assert "allowed collision pairs" in err
    assert (tmp_path / "s-cone-1.stl").is_file()
    scene = load_scene([str(src)])
    model = run_check(sdf_check, out)
    assert model.joints["arm_joint_joint"][2] == "arm_joint"  # names kept apart
    assert model.joints["arm_joint_2"][2] == "arm"
    check_scene(scene, model, "shapes")


def test_hostile_names_survive_libsdformat(tmp_path, sdf_check):
    """Names XML can hold come back from libsdformat byte for byte (links; joints FRAME_joint)."""
    from tests.test_hostile_names import CONTROL, HOSTILE, expected_frames, robray_scene

    names = {k: v for k, v in HOSTILE.items() if k not in CONTROL | {"spaces"}}
    src = tmp_path / "h.robray"
    src.write_bytes(robray_scene(names).encode())
    out = tmp_path / "h.sdf"
    assert main([str(src), "-o", str(out), "-q"]) == 0
    # leading/trailing white space: libsdformat strips <parent>/<child> text; an error
    spaced = tmp_path / "s.robray"
    spaced.write_bytes(robray_scene({"spaces": HOSTILE["spaces"]}).encode())
    assert main([str(spaced), "-o", str(tmp_path / "s.sdf"), "-q"]) == 1
    assert not (tmp_path / "s.sdf").exists()
    r = subprocess.run([str(sdf_check), str(out)], capture_output=True)
    assert r.returncode == 0, r.stderr[-2000:]
    links = {line[5:].rsplit(b" ", 7)[0].decode() for line in r.stdout.split(b"\n")
             if line.startswith(b"link ")}
    assert links == expected_frames(names)
