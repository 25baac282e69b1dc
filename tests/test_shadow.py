"""The mesh shadow (robrayc.analysis.shadow) equals shapely's union of every triangle, on UR5's
meshes and on triangle soups built to break it; 2D outputs check their preconditions before
projecting and show progress on a terminal."""

from __future__ import annotations

import io
import math
from pathlib import Path

import numpy as np
import pytest
import shapely

from robrayc.analysis import projection
from robrayc.analysis.shadow import triangles_union
from robrayc.cli.main import main
from tests.corpus import URDF_CORPUS, require_corpus
from tests.imports_probe import modules_after

UR5_MESHES = URDF_CORPUS / "ros-industrial+universal_robot" / "ur_description" / "meshes" / "ur5"


def _same(tris: np.ndarray) -> None:
    want = shapely.union_all(shapely.polygons(tris))
    got = triangles_union(tris)
    assert got.is_valid
    assert abs(got.area - want.area) <= 1e-12 * max(want.area, 1e-300)
    assert got.symmetric_difference(want).area <= 1e-9 * want.area


def _nonzero(tris: np.ndarray) -> np.ndarray:
    a = tris[:, 1] - tris[:, 0]
    b = tris[:, 2] - tris[:, 0]
    return tris[a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0] != 0]


def _projected(mesh: Path, angle: float) -> np.ndarray:
    from robrayc import meshes

    data = meshes.convert(meshes.read_raw(str(mesh)))
    c, s = math.cos(angle), math.sin(angle)
    rot = np.array([[1, 0, 0], [0, c, -s], [0, s, c]])  # tilted about X: new silhouettes
    v = np.asarray(data.vertices, dtype=float) @ rot.T
    return _nonzero(v[np.asarray(data.faces)][:, :, :2])


@pytest.mark.parametrize("name", ["collision/base.stl", "collision/upper_arm.stl",
                                  "collision/wrist_3.stl", "visual/Base.dae"])
@pytest.mark.parametrize("angle", [0.0, 0.7])
def test_ur5_mesh_shadows(name: str, angle: float) -> None:
    require_corpus()
    _same(_projected(UR5_MESHES / name, angle))


def _fan(rng, n: int, centre, flip_every: int = 0) -> np.ndarray:
    """Triangles around a centre sharing edges; every flip_every-th one folded back."""
    ts = np.sort(rng.uniform(0, 2 * math.pi, n))
    rim = np.stack([np.cos(ts), np.sin(ts)], 1) * rng.uniform(0.5, 1.5, (n, 1)) + centre
    tris = []
    for k in range(n):
        a, b = rim[k], rim[(k + 1) % n]
        if flip_every and k % flip_every == 0:
            b = centre + (centre - b) * 0.3  # folded: overlaps its neighbours
        tris.append([centre, a, b])
    return np.array(tris, dtype=float)


@pytest.mark.parametrize("seed", range(6))
def test_soups_built_to_break_it(seed: int) -> None:
    rng = np.random.default_rng(seed)
    parts = [_fan(rng, 40, np.array([0.0, 0.0])),
             _fan(rng, 30, np.array([0.8, 0.3]), flip_every=3),  # overlapping, folded
             rng.uniform(-2, 2, (60, 3, 2))]  # random overlapping triangles
    # a grid of squares split both ways: shared edges, T-junctions where sizes differ
    for size, offset in ((0.25, 0.0), (0.125, 0.0625)):
        for i in range(6):
            for j in range(6):
                x, y = -3 + i * size + offset, 2 + j * size
                sq = [[x, y], [x + size, y], [x + size, y + size], [x, y + size]]
                parts.append(np.array([[sq[0], sq[1], sq[2]], [sq[0], sq[2], sq[3]]]))
    # a ring (a hole in the middle) from two strips sharing edges
    ts = np.linspace(0, 2 * math.pi, 25)[:-1]
    inner = np.stack([np.cos(ts), np.sin(ts)], 1) * 0.5 + [3, -3]
    outer = np.stack([np.cos(ts), np.sin(ts)], 1) + [3, -3]
    for k in range(24):
        m = (k + 1) % 24
        parts.append(np.array([[inner[k], outer[k], outer[m]], [inner[k], outer[m], inner[m]]]))
    tris = _nonzero(np.concatenate(parts))
    rng.shuffle(tris)
    _same(tris)


def test_runs_of_a_large_soup_union_exactly(monkeypatch) -> None:
    """Large inputs are unioned run by run (shadow.RUN triangles each), then the runs' shadows:
    forced on a soup of overlapping, folded and holed parts."""
    from robrayc.analysis import shadow

    rng = np.random.default_rng(7)
    ts = np.linspace(0, 2 * math.pi, 25)[:-1]
    ring = [np.array([[np.cos(a) * 0.5, np.sin(a) * 0.5], [np.cos(a), np.sin(a)],
                      [np.cos(b), np.sin(b)]]) for a, b in zip(ts, np.roll(ts, -1), strict=True)]
    tris = _nonzero(np.concatenate([_fan(rng, 60, np.array([0.2, 0.1]), flip_every=4),
                                    rng.uniform(-1.5, 1.5, (80, 3, 2)), np.array(ring)]))
    monkeypatch.setattr(shadow, "RUN", 37)
    _same(tris)


def _sphere(cut_top: bool):
    """A UV sphere tilted about X (closed, consistently wound, with the two degenerate
    triangles a UV sphere has at each pole), or the same with its top cap cut off (open)."""
    import trimesh

    sphere = trimesh.creation.uv_sphere(radius=1.0, count=[12, 16])
    verts, faces = np.array(sphere.vertices), np.array(sphere.faces)
    a, b, c = faces[:, 0], faces[:, 1], faces[:, 2]
    faces = np.concatenate([faces, [[a[0], a[0], b[0]], [c[-1], c[-1], a[-1]]]])
    if cut_top:
        faces = faces[verts[faces][:, :, 2].min(1) < 0.6]
    tilt = np.array([[1, 0, 0], [0, math.cos(0.4), -math.sin(0.4)],
                     [0, math.sin(0.4), math.cos(0.4)]])
    return verts @ tilt.T, faces


@pytest.mark.parametrize("cut_top", [False, True])
def test_one_facing_half_only_for_closed_surfaces(cut_top: bool) -> None:
    """A closed surface projects as its up- (or down-) facing half; a surface with a hole
    must not (its up-facing half leaves the hole out of the shadow)."""
    from robrayc.analysis.footprints import _closed_surface, _mesh

    verts, faces = _sphere(cut_top)
    closed = _closed_surface(faces, verts)
    assert closed is not cut_top
    got, _, _ = _mesh(verts, faces, (-math.inf, math.inf), False, closed)
    tris = _nonzero(verts[faces][:, :, :2])
    want = shapely.union_all(shapely.polygons(tris))
    assert got.symmetric_difference(want).area <= 1e-9 * want.area


# --- 2D outputs: preconditions first, progress on a terminal ------------------------------------

BIG = "frame a { geometry { shape box; dimension [1, 1, 1]; } }\n"


def test_pysimiam_needs_a_robot_before_projecting(tmp_path: Path, monkeypatch, capsys) -> None:
    """It once projected every mesh (12 s on a UR5) before saying the scene has no robot."""
    scene = tmp_path / "s.robray"
    scene.write_text(BIG)

    def no_work(*args, **kwargs):
        raise AssertionError("projected before checking for a robot")

    monkeypatch.setattr(projection, "geometry_footprint", no_work)
    assert main([str(scene), "--format", "pysimiam", "-o", str(tmp_path / "w.xml")]) == 1
    err = capsys.readouterr().err
    assert "pySimiam needs a robot" in err and "--robot-frame a" in err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _slow_projection(monkeypatch, seconds: float) -> None:
    import time

    real = projection.geometry_footprint

    def slow(*args, **kwargs):
        time.sleep(seconds)
        return real(*args, **kwargs)

    monkeypatch.setattr(projection, "geometry_footprint", slow)


def test_long_projection_shows_progress_on_a_terminal(tmp_path: Path, monkeypatch) -> None:
    scene = tmp_path / "s.robray"
    scene.write_text(BIG * 1 + "".join(
        f"frame b{i} {{ geometry {{ shape sphere; radius 0.1; }} }}\n" for i in range(7)))
    _slow_projection(monkeypatch, 0.15)  # 8 geometries: 1.2 s, past the bar's delay
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main([str(scene), "-o", str(tmp_path / "s.svg")]) == 0
    shown = terminal.getvalue()
    assert "projecting" in shown and "/8" in shown
    quiet = io.StringIO()  # not a terminal: no bar
    monkeypatch.setattr("sys.stderr", quiet)
    assert main([str(scene), "-o", str(tmp_path / "s.svg")]) == 0
    assert "projecting" not in quiet.getvalue()


@pytest.mark.parametrize("fmt", ["cajunbot", "simmer"])
def test_simulators_project_only_what_they_write(tmp_path: Path, monkeypatch, fmt) -> None:
    """CajunBot and SimMeR write obstacles only: decorative geometry is not projected (a UR5's
    visual meshes were most of the time)."""
    scene = tmp_path / "s.robray"
    scene.write_text("frame wall { geometry { shape box; dimension [1, 1, 1]; } }\n"
                     "frame deco { geometry { collision 0; shape box; dimension [1, 1, 1]; } }\n")
    seen: list[str] = []
    real = projection.geometry_footprint

    def counting(g, *args, **kwargs):
        seen.append("deco" if not g.collision else "wall")
        return real(g, *args, **kwargs)

    monkeypatch.setattr(projection, "geometry_footprint", counting)
    assert main([str(scene), "--format", fmt, "-o", str(tmp_path / "out"), "-q"]) == 0
    assert seen == ["wall"]
    seen.clear()
    assert main([str(scene), "-o", str(tmp_path / "s.svg"), "-q"]) == 0
    assert seen == ["wall", "deco"]  # the preview draws both


def test_pysimiam_leaves_the_robot_unprojected(tmp_path: Path, monkeypatch) -> None:
    """pySimiam writes a robot as its pose, type and colour: its parts are not projected (a
    UR5 given as the robot was all of the time), and the colour is still its first part's."""
    scene = tmp_path / "s.robray"
    scene.write_text("frame wall { geometry { shape box; dimension [1, 1, 1]; } }\n"
                     "frame bot { translation [3, 0, 0]; }\n"
                     "frame arm { parent bot; geometry { shape box; dimension [0.2, 0.2, 0.2];"
                     " color [1, 0, 0]; } }\n"
                     "frame hand { parent arm; geometry { shape sphere; radius 0.1;"
                     " color [0, 0, 1]; } }\n")
    seen: list[str] = []
    real = projection.geometry_footprint

    def counting(g, *args, **kwargs):
        seen.append(type(g.shape).__name__)
        return real(g, *args, **kwargs)

    monkeypatch.setattr(projection, "geometry_footprint", counting)
    out = tmp_path / "w.xml"
    assert main([str(scene), "--format", "pysimiam", "--robot-frame", "bot", "-o", str(out),
                 "-q"]) == 0
    assert seen == ["Box"]  # the wall only
    assert '<robot type="Khepera3" color="#ff0000">' in out.read_text()


def test_a_2d_compile_does_not_import_numpy_ma(tmp_path: Path) -> None:
    """np.unique without return options imports numpy.ma (~30 ms of a 2D command's start)."""
    import trimesh

    trimesh.creation.icosphere(subdivisions=3).export(tmp_path / "ball.stl")
    scene = tmp_path / "s.robray"
    scene.write_text('frame m { geometry { shape mesh; mesh "ball.stl"; } }\n')
    assert "numpy.ma" not in modules_after([str(scene), "-o", str(tmp_path / "s.svg"), "-q"])
