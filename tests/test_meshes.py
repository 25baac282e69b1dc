"""Meshes: the own STL/COLLADA/OBJ readers against trimesh on every corpus mesh, axes, scale,
the C text of float arrays, and mesh robots compiled to C (gcc -Werror, the recording amino
stand-in, and the real amino library)."""

from __future__ import annotations

import math
import struct
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robrayc import ctext, ir, meshes
from robrayc.diagnostics import CompileError, DiagnosticSink, SourcePos
from tests import record
from tests.corpus import URDF_CORPUS, require_corpus, ros_package_path
from tests.run import robrayc
from tests.urdf_robots import load, robot_path, ros_env  # noqa: F401  (fixture)

pytestmark = pytest.mark.usefixtures("ros_env")
REPO = Path(__file__).resolve().parents[1]
TET = REPO / "tests" / "conformance" / "tet.obj"


def corpus_meshes() -> list[Path]:
    if not URDF_CORPUS.is_dir():
        return []
    return sorted(p for p in URDF_CORPUS.rglob("*")
                  if p.suffix.lower() in (".stl", ".dae") and p.is_file())


def _signature(tri: np.ndarray) -> np.ndarray:
    """Order-free description of a triangle soup: each corner coordinate column, each centroid
    coordinate and each triangle's area, sorted (triangle order differs between readers)."""
    corners = np.sort(tri.reshape(-1, 3), axis=0)
    centroids = np.sort(tri.mean(axis=1), axis=0)
    areas = np.sort(np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]),
                                   axis=1))[:, None] * np.ones((1, 3))
    return np.concatenate([corners, centroids, areas])


@pytest.mark.parametrize("path", corpus_meshes(),
                         ids=lambda p: str(p.relative_to(URDF_CORPUS)))
def test_own_reader_matches_trimesh(path):
    """Same triangles (as a set, node transforms applied, in the file's own axes) as trimesh
    reads; trimesh is the reference, robrayc's reader the fast path."""
    import logging

    import trimesh

    logging.getLogger("trimesh").setLevel(logging.CRITICAL)
    raw = meshes.read_raw(str(path))
    ours = raw.positions[raw.corner_pos].reshape(-1, 3, 3)
    tm = trimesh.load(str(path), force="mesh", process=False)
    theirs = np.asarray(tm.vertices)[np.asarray(tm.faces)]
    assert ours.shape == theirs.shape
    # trimesh composes node transforms with float32 rounding in places: 1e-7 apart at most
    np.testing.assert_allclose(_signature(ours), _signature(theirs), atol=1e-7)
    data = meshes.convert(raw)  # normals unit (or zero for a degenerate face), one per vertex
    n = np.linalg.norm(data.normals, axis=1)
    assert np.all((np.abs(n - 1) < 2e-6) | (n == 0)) and len(data.normals) == len(data.vertices)
    assert data.faces.shape == (len(ours), 3) and data.faces.max() < len(data.vertices)
    expected_up = {".dae": "Y" if "Y_UP" in path.read_text(errors="ignore")[:4000] else "Z",
                   ".stl": None}[path.suffix.lower()]
    assert raw.up == expected_up


def test_indexing_one_vertex_per_position_normal_pair_in_first_use_order():
    raw = meshes.read_raw(str(TET))
    data = meshes.convert(raw)
    # 4 faces with one normal each: 12 (position, normal) pairs, as the original's deindexing
    assert len(data.vertices) == 12 and data.faces.tolist() == [[0, 1, 2], [3, 4, 5],
                                                                 [6, 7, 8], [9, 10, 11]]
    np.testing.assert_array_equal(data.vertices[:3], [[0, 0, 0], [0, 2, 0], [1, 0, 0]])
    np.testing.assert_array_equal(data.normals[:3], [[0, 0, -1]] * 3)


def test_collada_up_axis_honoured_or_ignored():
    require_corpus()
    p = str(URDF_CORPUS / "ros+urdf_tutorial/urdf_tutorial/meshes/l_finger.dae")
    raw = meshes.read_raw(p)
    assert raw.up == "Y"
    file_lo, file_hi = raw.positions[raw.corner_pos].min(0), raw.positions[raw.corner_pos].max(0)
    lo, hi = meshes.bounds(meshes.convert(raw))  # Y-up -> Z-up: (x, y, z) -> (x, -z, y)
    np.testing.assert_allclose(lo, [file_lo[0], -file_hi[2], file_lo[1]], atol=1e-12)
    np.testing.assert_allclose(hi, [file_hi[0], -file_lo[2], file_hi[1]], atol=1e-12)
    lo, hi = meshes.bounds(meshes.convert(raw, collada_up="ignore"))
    np.testing.assert_allclose([lo, hi], [file_lo, file_hi], atol=1e-12)


def test_up_and_forward_options_for_files_that_declare_nothing():
    raw = meshes.read_raw(str(TET))
    base = meshes.convert(raw)
    same = meshes.convert(raw, up="Z", forward="Y")
    np.testing.assert_array_equal(base.vertices, same.vertices)
    # a Y-up, -Z-forward file (the OBJ convention): its +Y becomes +Z, its -Z becomes +Y
    turned = meshes.convert(raw, up="Y", forward="-Z")
    np.testing.assert_allclose(turned.vertices, base.vertices[:, [0, 2, 1]] * [1, -1, 1],
                               atol=0)
    rot = meshes.axis_rotation("X", "Z")
    np.testing.assert_allclose(rot @ [1, 0, 0], [0, 0, 1])
    np.testing.assert_allclose(rot @ [0, 0, 1], [0, 1, 0])
    assert np.isclose(np.linalg.det(rot), 1)
    with pytest.raises(ValueError, match="parallel"):
        meshes.axis_rotation("Y", "-Y")
    with pytest.raises(ValueError, match="not an axis"):
        meshes.axis_rotation("W", "Y")


def test_per_axis_scale_and_normals():
    raw = meshes.read_raw(str(TET))
    data = meshes.convert(raw, scale3=(2.0, -1.0, 0.5))
    base = meshes.convert(raw)
    np.testing.assert_allclose(data.vertices, base.vertices * [2.0, -1.0, 0.5])
    # normals stay unit and perpendicular to the scaled faces
    # (normals are kept to 6 decimals: unit and perpendicular to that precision)
    np.testing.assert_allclose(np.linalg.norm(data.normals, axis=1), 1.0, atol=2e-6)
    tri = data.vertices[data.faces]
    for k, face in enumerate(data.faces):
        e1, e2 = tri[k, 1] - tri[k, 0], tri[k, 2] - tri[k, 0]
        for v in face:
            assert abs(np.dot(data.normals[v], e1)) < 1e-5
            assert abs(np.dot(data.normals[v], e2)) < 1e-5


def test_stl_ascii_binary_and_obj_polygons(tmp_path):
    ascii_stl = tmp_path / "a.stl"
    ascii_stl.write_text("solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n"
                         "vertex 0 1 0\nendloop\nendfacet\nendsolid t\n")
    data = meshes.convert(meshes.read_raw(str(ascii_stl)))
    assert len(data.faces) == 1 and data.normals.tolist() == [[0, 0, 1]] * 3
    # a binary STL whose header starts with "solid" is still binary (its size says so)
    binary = tmp_path / "b.stl"
    tri = struct.pack("<12fH", 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0)
    binary.write_bytes(b"solid but binary".ljust(80) + struct.pack("<I", 1) + tri)
    assert len(meshes.read_raw(str(binary)).corner_pos) == 3
    obj = tmp_path / "q.obj"  # a quad (fan-triangulated), negative indices, no normals
    obj.write_text("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf -4 -3 -2 -1\n")
    data = meshes.convert(meshes.read_raw(str(obj)))
    assert data.faces.tolist() == [[0, 1, 2], [0, 2, 3]]
    np.testing.assert_array_equal(data.normals, [[0, 0, 1]] * 4)


def test_other_formats_through_trimesh(tmp_path):
    import trimesh

    box = trimesh.creation.box(extents=(1, 2, 3))
    box.export(tmp_path / "b.ply")
    box.export(tmp_path / "b.glb")
    ply = meshes.convert(meshes.read_raw(str(tmp_path / "b.ply")))
    assert len(ply.faces) == 12
    np.testing.assert_allclose(meshes.bounds(ply), [[-0.5, -1, -1.5], [0.5, 1, 1.5]])
    glb = meshes.convert(meshes.read_raw(str(tmp_path / "b.glb")))  # glTF is Y-up
    np.testing.assert_allclose(meshes.bounds(glb), [[-0.5, -1.5, -1], [0.5, 1.5, 1]],
                               atol=1e-7)


@pytest.mark.parametrize("content,message", [
    (b"this is not a mesh at all", "not a binary STL"),
    (b"solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 nan\nvertex 1 0 0\nvertex 0 1 0\n"
     b"endloop\nendfacet\nendsolid\n", "not finite"),
    (b"solid empty\nendsolid empty\n", "no triangles"),
])
def test_unreadable_meshes_are_errors_naming_file_and_position(tmp_path, content, message):
    bad = tmp_path / "bad.stl"
    bad.write_bytes(content)
    scene = tmp_path / "s.robray"
    scene.write_text('frame f {\n  geometry { mesh "bad.stl"; }\n}\n')
    r = robrayc(scene, "-o", tmp_path / "s.c", process=True)
    assert r.status == 1 and "Traceback" not in r.err
    assert f"{scene}:2:" in r.err and "cannot read mesh 'bad.stl'" in r.err, r.err
    assert message in r.err
    sink = DiagnosticSink()
    with pytest.raises(CompileError):
        meshes.load_mesh(ir.Mesh(str(bad), "bad.stl"), sink, SourcePos("x.robray", 3, 4))
    assert str(sink.items[0].pos) == "x.robray:3:4"


# --- float text ----------------------------------------------------------------------------


def _nearest_float32(text: str) -> np.float32:
    """Correctly rounded decimal -> float32 (ties to even), independent of the code under test."""
    body = text[:-1]
    fr = Fraction(body)
    y = np.float32(float(fr))
    best = None
    with np.errstate(over="ignore"):
        for c in (np.nextafter(y, np.float32(-np.inf)), y, np.nextafter(y, np.float32(np.inf))):
            if not np.isfinite(c):
                continue
            key = (abs(Fraction(float(c)) - fr), int(np.float32(c).view(np.uint32)) & 1)
            if best is None or key < best[0]:
                best = (key, c)
    return best[1]


def _check_texts(values: np.ndarray) -> None:
    texts = ctext.float32_texts(values)
    assert len(texts) == len(values)
    for x, t in zip(values, texts, strict=True):
        assert t.endswith("f")
        body = t[:-1]
        assert repr(float(body)) == body  # exactly repr() of the decimal it spells
        if x == 0:
            assert body == ("-0.0" if np.signbit(x) else "0.0")
            continue
        assert _nearest_float32(t) == x, (x, t)  # the C literal is the same float
        if 1e-8 < abs(x) < 1e20:  # shortest: as many digits as numpy's Dragon4 needs
            ref = np.format_float_scientific(x, unique=True, trim="-")
            want = len(ref.split("e")[0].replace("-", "").replace(".", "").strip("0")) or 1
            got = len(body.lstrip("-").split("e")[0].replace(".", "").strip("0")) or 1
            assert got <= want, (x, t, ref)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=64))
def test_float_text_round_trips_any_float32(bit_patterns):
    values = np.array(bit_patterns, dtype=np.uint32).view(np.float32)
    _check_texts(values[np.isfinite(values)])


def test_float_text_edge_values():
    _check_texts(np.array([0.0, -0.0, 0.5, 1.0, 100.0, 1e16, 1e17, 123456789.0, 1e-4, 1e-5,
                           0.1, -0.1, 3.4028235e38, 1.17549435e-38, 1e-45, 2.5e-40, 1e7,
                           16777216.0, 125835344.0, -1.192093e-07], dtype=np.float32))
    rng = np.random.default_rng(7)
    for scale in (1e-12, 1e-6, 1e-3, 1.0, 1e3, 1e8, 1e30):
        _check_texts(rng.standard_normal(3000).astype(np.float32) * np.float32(scale))


def test_float_array_layout():
    values = np.array([0.5, -0.0, 0.5, 1.25, 0.0, 2.0, 0.5, 1e-05, 3.0, 1.25], dtype=np.float32)
    text = ctext.c_float_array(values, per_line=4)
    assert text == ("0.5f, -0.0f, 0.5f, 1.25f,\n0.0f, 2.0f, 0.5f, 1e-05f,\n3.0f, 1.25f")
    assert ctext.c_index_array(np.arange(5), per_line=2) == "0, 1,\n2, 3,\n4"
    with pytest.raises(ValueError):
        ctext.c_float_array(np.array([np.inf]))


def test_threads_give_the_same_text():
    scene = load([robot_path("pr2")])
    shapes = list({g.shape.path: g.shape for _, g in ir.walk_geometries(scene)
                   if isinstance(g.shape, ir.Mesh)}.values())[:8]
    assert ctext.c_mesh_texts(shapes, workers=1) == ctext.c_mesh_texts(shapes, workers=4)


# --- mesh robots to C ------------------------------------------------------------------------


def _compile(urdf: Path, tmp_path: Path, name: str, *extra: str) -> Path:
    out = tmp_path / f"{name}.c"
    r = robrayc(urdf, "-n", name, "-o", out, "--missing-mesh=drop", "-q", *extra,
                env={"ROS_PACKAGE_PATH": ros_package_path()}, process=True)
    assert r.status == 0, r.err
    return out


def _expected_mesh_lines(scene: ir.Scene) -> list[tuple]:
    """What record.c reports for each mesh geometry: sizes and the sum of every float and
    index, accumulated in the same order as the C code does."""
    out = []
    for _, g in ir.walk_geometries(scene):
        if not isinstance(g.shape, ir.Mesh):
            continue
        d = meshes.load_mesh(g.shape, DiagnosticSink(), g.pos)
        seq = np.concatenate([d.vertices.astype(np.float32).astype(np.float64).reshape(-1),
                              d.faces.reshape(-1).astype(np.float64)])
        out.append((len(d.vertices), len(d.vertices), len(d.faces),
                    float(np.cumsum(seq)[-1])))
    return out


@pytest.mark.parametrize("robot", ["tutorial07", "pr2"])
def test_mesh_robot_compiles_with_werror_and_records_mesh_sizes(robot, tmp_path):
    urdf = robot_path(robot)
    c_file = _compile(urdf, tmp_path, "robot")
    lines = record.compile_and_run(c_file, "robot", tmp_path)  # gcc -Wall -Wextra -Werror
    got = [(int(p[3]), int(p[4]), int(p[5]), float(p[6]))
           for p in (ln.split() for ln in lines) if p[0] == "geom" and p[2] == "mesh"]
    scene = load([urdf])
    want = _expected_mesh_lines(scene)
    assert len(got) == len(want) > 0
    for g, w in zip(got, want, strict=True):
        assert g[:3] == w[:3]
        assert math.isclose(g[3], w[3], rel_tol=1e-12), (g, w)
    # and the rest of the scene is what the IR says, number for number
    assert record.normalise(lines) == record.normalise(record.expected(scene))


def test_mesh_robot_loads_in_real_amino(tmp_path):
    """UR5 (DAE visuals, STL collisions) through the real amino library: vertex and triangle
    counts and the bounds of every mesh as amino holds them."""
    from tests import amino_real

    urdf = robot_path("ur5")
    c_file = _compile(urdf, tmp_path, "ur5")
    (loaded,) = amino_real.load_c(c_file, "ur5")
    scene = load([urdf])
    ours = []
    for f, g in ir.walk_geometries(scene):
        if isinstance(g.shape, ir.Mesh):
            d = meshes.load_mesh(g.shape, DiagnosticSink(), g.pos)
            v32 = d.vertices.astype(np.float32)
            ours.append((f.name, len(d.vertices), len(d.faces), v32.min(0), v32.max(0)))
    theirs = [g for g in loaded["geometry"] if "n_vertices" in g]
    assert len(theirs) == len(ours) == 14
    key = lambda t: (t[0], t[1])  # noqa: E731
    for o, t in zip(sorted(ours, key=key),
                    sorted(((g["frame"], g["n_vertices"], g["n_indices"],
                             np.array(g["bbox_min"]), np.array(g["bbox_max"])) for g in theirs),
                           key=key), strict=True):
        assert o[:3] == t[:3]
        np.testing.assert_array_equal(o[3], t[3])
        np.testing.assert_array_equal(o[4], t[4])


def test_scene_sources_and_mesh_text_in_c(tmp_path):
    c_file = _compile(robot_path("tutorial05"), tmp_path, "t")
    text = c_file.read_text()
    assert "static struct aa_rx_mesh *aa_rx_dl_mesh__" in text
    assert "/* mesh package://urdf_tutorial/meshes/l_finger.dae:" in text
    # every float literal in the arrays is f-suffixed shortest text
    body = text[text.index("vertices["):text.index("normals[")]
    nums = [t.strip() for t in body.split("{", 1)[1].split("}", 1)[0].split(",")]
    assert all(n.endswith("f") and repr(float(n[:-1])) == n[:-1] for n in nums)


def test_collada_up_axis_option_reaches_the_c_output(tmp_path):
    urdf = robot_path("tutorial05")
    raw = meshes.read_raw(str(URDF_CORPUS / "ros+urdf_tutorial/urdf_tutorial/meshes/"
                              "l_finger.dae"))
    for option, mode in ((), "honour"), (("--collada-up-axis", "ignore"), "ignore"):
        text = _compile(urdf, tmp_path, "t", *option).read_text()
        want = ctext.c_float_array(meshes.convert(raw, collada_up=mode).vertices)
        assert want in text, mode
