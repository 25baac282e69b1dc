"""Run-time obstacles from files (`--obstacles`, `--points` of `robrayc plan` and `collide`;
robrayc.analysis.obstacle_scene, robrayc.frontend.point_cloud): an environment scene's
collision geometry given to the robot's own checker answers as the exact checker does with the
same environment loaded as fixed geometry of the scene (the judge); meshes and cones, given as
their sphere covers, never miss a collision the judge finds."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pytest

from robrayc.analysis.collision import CollisionChecker
from robrayc.analysis.obstacle_scene import scene_obstacles
from robrayc.diagnostics import CompileError, DiagnosticSink
from robrayc.frontend import load_scene
from robrayc.frontend.point_cloud import read_points
from robrayc.kinematics import sample_configs
from tests.backends.test_c_checker import needs_cc
from tests.corpus import ros_package_path
from tests.run import robrayc
from tests.urdf_robots import load, robot_path

ARM = Path(__file__).resolve().parents[1] / "examples" / "arm4.urdf"

# around a UR5 (reach 0.85 m): a turned box, a sphere, a cylinder, a cone and a mesh (an STL
# written by trimesh, the frame's `scale` 0.5 on it), each where the arm reaches
ENV_ROBRAY = """\
frame table { translation [0.45, 0.1, 0.2]; rpy [0, 0, 0.5];
  geometry { shape box; dimension [0.3, 0.4, 0.05]; } }
frame ball { translation [-0.3, 0.3, 0.4]; geometry { shape sphere; radius 0.15; } }
frame post { translation [0.0, -0.5, 0.0]; rpy [0.3, 0, 0];
  geometry { shape cylinder; radius 0.06; height 0.8; } }
frame spike { translation [-0.45, -0.2, 0.3]; geometry { shape cone; start_radius 0.1;
  end_radius 0.0; height 0.4; } }
frame rock { translation [0.2, 0.5, 0.6]; rpy [0.4, 0.2, 0.1];
  geometry { shape mesh; mesh "rock.stl"; scale 0.5; } }
"""
EXACT = {"table", "ball", "post"}


def _environment(folder: Path) -> Path:
    import trimesh

    trimesh.creation.icosphere(subdivisions=1, radius=0.3).export(folder / "rock.stl")
    path = folder / "env.robray"
    path.write_text(ENV_ROBRAY)
    return path


def _args(**given) -> argparse.Namespace:
    """The options set_obstacles reads, as the command line's parser leaves them."""
    from robrayc.cli.plan import _plan_parser

    return argparse.Namespace(**{**vars(_plan_parser().parse_args([])), **given})


@pytest.fixture(scope="module")
def ur5(tmp_path_factory):
    """UR5 (corpus, meshes), its environment file, and the robot with the environment merged
    in as fixed geometry (the judge's scene)."""
    folder = tmp_path_factory.mktemp("env")
    env = _environment(folder)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ROS_PACKAGE_PATH", ros_package_path())
        robot = load([robot_path("ur5")])
        merged = load([robot_path("ur5"), env])
    return robot, env, merged


def _by_frame(pairs, labels: dict[str, str]) -> set[tuple[str, str]]:
    """(robot frame, environment frame) of each pair naming an obstacle."""
    out = set()
    for a, b in pairs:
        a, b = labels.get(a, a), labels.get(b, b)
        if ":" in b:
            a, b = b, a
        if ":" in a:
            out.add((b, a.rsplit(":", 1)[1]))
    return out


@needs_cc
@pytest.mark.slow
def test_an_environment_file_answers_as_the_same_environment_in_the_scene(ur5, monkeypatch
                                                                         ) -> None:
    import robrayc.cli.main as main
    from robrayc.cli.obstacle_options import set_obstacles
    from robrayc.diagnostics import SourceCache

    monkeypatch.setattr(main, "_SOURCES", SourceCache())  # as a command's run sets it

    robot, env, merged = ur5
    checker = CollisionChecker(robot, backend="compiled")
    labels = set_obstacles(checker, _args(obstacles=[str(env)]), DiagnosticSink(quiet=True))
    labels = {k: f"env:{v.rsplit(':', 1)[1]}" for k, v in labels.items()}
    judge = CollisionChecker(merged)
    moving = {f.name for f in robot.frames} - {"world", "base_link"}
    env_frames = {f.name for f in merged.frames} - {f.name for f in robot.frames}
    seen = {name: 0 for name in env_frames}
    q = sample_configs(robot, 300, seed=5)
    for row in q:
        config = dict(zip(robot.variables, row.tolist(), strict=True))
        got = _by_frame(checker.colliding_pairs(config), labels)
        want = {(a, b) if b in env_frames else (b, a) for a, b in judge.colliding_pairs(config)
                if (a in env_frames) != (b in env_frames)}
        want = {p for p in want if p[0] in moving}
        got = {p for p in got if p[0] in moving}
        assert want <= got, (config, want - got)  # a cover never misses
        assert {p for p in got if p[1] in EXACT} == {p for p in want if p[1] in EXACT}, config
        for _, b in want:
            seen[b] += 1
    assert all(seen.values()), seen  # every kind was hit somewhere


def test_every_format_gives_the_same_obstacles(tmp_path: Path) -> None:
    """A box and a cylinder from robray, URDF, MJCF and SDF are the same run-time shapes (the
    loaders' own placement rules: a URDF, MJCF or SDF cylinder is centred, a robray one starts
    at its frame)."""
    files = {
        "env.robray": "frame b { translation [1, 2, 3]; rpy [0.1, 0.2, 0.3]; geometry { shape "
                      "box; dimension [0.2, 0.4, 0.6]; } }\nframe c { translation [0, 0, -0.5]; "
                      "geometry { shape cylinder; radius 0.1; height 1; } }\n",
        "env.urdf": '<robot name="e"><link name="w"/><link name="b"><collision><origin '
                    'xyz="1 2 3" rpy="0.1 0.2 0.3"/><geometry><box size="0.2 0.4 0.6"/>'
                    '</geometry></collision><collision><geometry><cylinder radius="0.1" '
                    'length="1"/></geometry></collision></link><joint name="j" type="fixed">'
                    '<parent link="w"/><child link="b"/></joint></robot>',
        "env.xml": '<mujoco><compiler angle="radian" eulerseq="XYZ"/><worldbody><geom '
                   'type="box" pos="1 2 3" euler="0.1 0.2 0.3" size="0.1 0.2 0.3"/>'
                   '<geom type="cylinder" size="0.1 0.5"/></worldbody></mujoco>',
        "env.sdf": '<sdf version="1.7"><world name="w"><model name="m"><static>true</static>'
                   '<link name="b"><collision name="box"><pose>1 2 3 0.1 0.2 0.3</pose><geometry>'
                   '<box><size>0.2 0.4 0.6</size></box></geometry></collision><collision '
                   'name="c"><geometry><cylinder><radius>0.1</radius><length>1</length>'
                   '</cylinder></geometry></collision></link></model></world></sdf>',
    }
    shapes = {}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        scene = load_scene([str(tmp_path / name)])
        found = scene_obstacles(scene, DiagnosticSink())
        shapes[name] = sorted(found, key=lambda o: type(o.shape).__name__)
    ref = shapes.pop("env.robray")
    for name, found in shapes.items():
        assert [type(o.shape) for o in found] == [type(o.shape) for o in ref], name
        for a, b in zip(found, ref, strict=True):
            np.testing.assert_allclose(a.shape.centre, b.shape.centre, atol=1e-12, err_msg=name)
            np.testing.assert_allclose(a.shape.rotation, b.shape.rotation, atol=1e-12,
                                       err_msg=name)


@needs_cc
def test_collide_names_the_obstacle_and_its_file(tmp_path: Path) -> None:
    env = tmp_path / "wall.urdf"
    env.write_text('<robot name="e"><link name="wall"><collision><origin xyz="0.55 0 0.35"/>'
                   '<geometry><box size="0.1 0.2 0.7"/></geometry></collision></link></robot>')
    at = ["--var", "shoulder", "--val", "1.2", "--var", "elbow", "--val", "0.6"]
    hit = robrayc("collide", ARM, "--obstacles", env, *at, "--backend", "compiled")
    assert hit.status == 1, hit.err
    assert f'"{env}:wall" forearm' in hit.out
    # the same wall as fixed geometry of the scene: the exact checker agrees
    judge = robrayc("collide", ARM, env, *at)
    assert judge.status == 1 and "forearm wall" in judge.out.replace('"', "")
    away = robrayc("collide", ARM, "--obstacles", env, "--var", "turn", "--val", "3", *at)
    assert away.status == 0, away.out + away.err


def test_points_from_every_format_are_the_points(tmp_path: Path) -> None:
    """PCD (pypcd4, ascii, binary and binary_compressed), PLY (trimesh, binary and ascii),
    .npy and .xyz read back as written; NaN points are left out with a warning."""
    import trimesh
    from pypcd4 import Encoding
    from pypcd4 import PointCloud as Pcd

    rng = np.random.default_rng(1)
    pts = rng.normal(size=(50, 3)).astype(np.float32).astype(float)
    files = {}
    # x y z and an intensity (a field after them: binary_compressed stores a field at a time)
    cloud = Pcd.from_xyzi_points(np.column_stack([pts, rng.random(len(pts))]).astype(np.float32))
    for mode in ("ascii", "binary", "binary_compressed"):
        files[f"{mode}.pcd"] = tmp_path / f"{mode}.pcd"
        cloud.save(files[f"{mode}.pcd"], encoding=Encoding(mode))
    for mode in ("binary", "ascii"):
        files[f"{mode}.ply"] = tmp_path / f"{mode}.ply"
        files[f"{mode}.ply"].write_bytes(trimesh.PointCloud(pts).export(
            file_type="ply", encoding=mode))
    files["p.npy"] = tmp_path / "p.npy"
    np.save(files["p.npy"], pts)
    files["p.xyz"] = tmp_path / "p.xyz"
    files["p.xyz"].write_text("# x y z\n" + "".join(f"{x!r} {y!r}, {z!r} 7\n"
                                                     for x, y, z in pts.tolist()))
    rounding = {"ascii.pcd": 5.1e-11, "ascii.ply": 5.1e-9}  # the writers' 10 and 8 decimals
    for name, path in files.items():
        np.testing.assert_allclose(read_points(str(path), DiagnosticSink()), pts, rtol=0,
                                   atol=rounding.get(name, 0), err_msg=name)
    holes = tmp_path / "holes.xyz"
    holes.write_text("1 2 3\nnan nan nan\n4 5 6\n")
    sink = DiagnosticSink()
    assert read_points(str(holes), sink).tolist() == [[1, 2, 3], [4, 5, 6]]
    assert [d.name for d in sink.items] == ["missing-points"]
    mesh = tmp_path / "mesh.ply"  # a mesh given as a point cloud: its faces are not points
    mesh.write_bytes(trimesh.creation.box().export(file_type="ply"))
    sink = DiagnosticSink()
    assert len(read_points(str(mesh), sink)) == 8
    assert [d.name for d in sink.items] == ["point-cloud-faces"]


def test_bad_files_are_located_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.xyz"
    bad.write_text("1 2 3\n4 x 6\n")
    run = robrayc("plan", ARM, "--points", bad, "--goal", "turn=1")
    assert run.status == 2 and f"{bad}:2:3: error: 'x' is not a number" in run.err, run.err
    assert "\n 4 x 6\n   ^" in run.err, run.err  # the line and a caret under 'x'
    assert "Traceback" not in run.err
    head = ("VERSION .7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\nWIDTH 1\n"
            "HEIGHT 1\nPOINTS 1\n")
    packed = tmp_path / "c.pcd"
    packed.write_bytes(head.encode() + b"DATA binary_compressed\n" + bytes([4, 0, 0, 0, 12, 0, 0, 0,
                                                                          0xE0, 0xFF, 0, 0]))
    run = robrayc("collide", ARM, "--points", packed)
    assert run.status == 2 and f"{packed}:9:1: error: PCD binary_compressed data is corrupt" \
        in run.err, run.err
    other = tmp_path / "d.pcd"
    other.write_text(head + "DATA zip\n")
    run = robrayc("collide", ARM, "--points", other)
    assert run.status == 2 and f"{other}:9:6: error: PCD DATA zip is not read" in run.err
    missing = robrayc("collide", ARM, "--obstacles", tmp_path / "none.urdf")
    assert missing.status == 2 and "none.urdf" in missing.err and "Traceback" not in missing.err
    typo = tmp_path / "typo.robray"
    typo.write_text("frame a { geometry { shape box; dimension [1, 1]; } }\n")
    run = robrayc("collide", ARM, "--obstacles", typo)
    assert run.status == 2 and f"{typo}:1:" in run.err
    for option in (["--point-radius", "-1"], ["--obstacle-sphere-size", "0"],
                   ["--obstacles", typo, "--distance"]):
        run = robrayc("collide", ARM, *option)
        assert run.status == 2 and "error:" in run.err, option
    with pytest.raises(CompileError):
        read_points(str(tmp_path / "p.las"), DiagnosticSink())


@needs_cc
def test_a_point_at_the_forearm_collides(tmp_path: Path) -> None:
    """A point a hair off the forearm (its radius reaching it) collides; the same point with
    no radius does not."""
    at = ["--var", "shoulder", "--val", "1.2", "--var", "elbow", "--val", "0.6"]
    scene = load_scene([str(ARM)])
    judge = CollisionChecker(scene)
    from robrayc.analysis.collision import Sphere

    # find a point next to the forearm with the exact checker: a sphere grown until it hits
    centre = (0.55, 0.0, 0.35)
    judge.set_obstacles([Sphere(centre=centre, radius=0.0)])
    config = {"shoulder": 1.2, "elbow": 0.6}
    lo, hi = 0.0, 1.0
    for _ in range(30):
        mid = (lo + hi) / 2
        judge.set_obstacles([Sphere(centre=centre, radius=mid)])
        lo, hi = (lo, mid) if judge.check(config) else (mid, hi)
    cloud = tmp_path / "p.xyz"
    cloud.write_text(" ".join(map(repr, centre)) + "\n")
    free = robrayc("collide", ARM, "--points", cloud, "--point-radius", repr(lo * 0.99), *at)
    hit = robrayc("collide", ARM, "--points", cloud, "--point-radius", repr(hi * 1.01), *at)
    assert free.status == 0 and hit.status == 1, free.out + hit.out
    assert f'"{cloud}" ' in hit.out


@pytest.mark.slow
def test_plan_around_an_environment_file(tmp_path: Path) -> None:
    """`plan --obstacles room.urdf`: a path around the wall, every segment free for the exact
    checker with the room loaded as fixed geometry of the scene."""
    pytest.importorskip("ompl", reason="the plan extra (PyPI ompl) is not installed")
    from robrayc.analysis.planning import path_collisions

    room = tmp_path / "room.urdf"
    room.write_text('<robot name="room"><link name="wall"><collision><origin '
                    'xyz="0.55 0 0.35"/><geometry><box size="0.1 0.2 0.7"/></geometry>'
                    '</collision></link></robot>')
    ends = ["--start", "turn=-1.2", "--start", "shoulder=1.2", "--start", "elbow=0.6",
            "--goal", "turn=1.2", "--goal", "shoulder=1.2", "--goal", "elbow=0.6"]
    run = robrayc("plan", ARM, "--obstacles", room, *ends, "--timeout", "20")
    assert run.status == 0, run.err
    path = np.array([[float(x) for x in line.split(",")] for line in run.out.split()[1:]])
    judge = CollisionChecker(load_scene([str(ARM), str(room)]))
    assert judge.check_motion(path[0], path[-1])  # the straight line collides
    assert not path_collisions(judge, path).any()
