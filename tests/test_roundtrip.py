"""Lossless round trips: parse(emit(scene)) == scene for robray (-s) and JSON, bit for bit,
over every corpus scene and robot and over hypothesis-generated scenes (each backend's own
tests: tests/backends/test_robray.py, tests/backends/test_json.py)."""

from __future__ import annotations

import json
import math
import string
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from robrayc import ir
from robrayc.backends import EmitContext
from robrayc.backends import json_ as json_backend
from robrayc.backends import robray as robray_backend
from robrayc.diagnostics import DiagnosticSink, SourcePos
from robrayc.frontend import LoadOptions, load_scene
from robrayc.frontend.frames import stable_unit_quaternion
from robrayc.records import replace
from tests.corpus import amino_corpus_files, corpus_id, public_files, require_corpus
from tests.run import robrayc
from tests.urdf_robots import ROBOTS, bits, canonical, load, robot_path, ros_env  # noqa: F401

pytestmark = pytest.mark.usefixtures("ros_env")

REPO = Path(__file__).resolve().parents[1]
TET = REPO / "tests" / "conformance" / "tet.obj"


def emit_robray(scene: ir.Scene, out: Path, sink: DiagnosticSink | None = None) -> Path:
    (f,) = robray_backend.emit(scene, EmitContext(out, robray_backend.Options(),
                                                       sink or DiagnosticSink()))
    out.write_bytes(f.data)
    return out


def emit_json(scene: ir.Scene, out: Path) -> Path:
    (f,) = json_backend.emit(scene, EmitContext(out, json_backend.Options(), DiagnosticSink()))
    out.write_bytes(f.data)
    return out


def reload(path: Path, sink: DiagnosticSink | None = None) -> ir.Scene:
    return load_scene([str(path)], LoadOptions(missing_mesh="error"), sink or DiagnosticSink())


def check_robray(scene: ir.Scene, tmp_path: Path) -> None:
    sink = DiagnosticSink()
    back = reload(emit_robray(scene, tmp_path / "s.robray"), sink)
    assert not sink.items, [d.message for d in sink.items][:3]
    # positions and the file list say where a scene came from; mesh references are re-spelt
    # relative to the new file (package:// has no robray form): the files must be the same
    assert bits(canonical(back, False)) == bits(canonical(scene, False))


def check_json(scene: ir.Scene, tmp_path: Path) -> None:
    out = emit_json(scene, tmp_path / "s.json")
    doc = json.loads(out.read_text())
    jsonschema.validate(doc, json_backend.schema())
    sink = DiagnosticSink()
    back = reload(out, sink)
    assert not sink.items, [d.message for d in sink.items][:3]
    # everything, positions and mesh spellings included
    assert replace(back, sources=()) == replace(scene, sources=())
    assert bits(back) == bits(scene)
    assert json.loads(emit_json(back, tmp_path / "again.json").read_text())["frames"] == \
        doc["frames"]


# --- corpus -------------------------------------------------------------------------------


def corpus_scenes():
    out = [pytest.param([p], id=corpus_id(p)) for p in amino_corpus_files()]
    out += [pytest.param([p], id=corpus_id(p)) for p in public_files("standalone")]
    return out


def corpus_scene(paths):
    require_corpus()
    return load_scene([str(p) for p in paths], LoadOptions(missing_mesh="drop"),
                      DiagnosticSink(quiet=True))


@pytest.mark.parametrize("paths", corpus_scenes())
def test_corpus_robray_round_trip(paths, tmp_path):
    check_robray(corpus_scene(paths), tmp_path)


@pytest.mark.parametrize("paths", corpus_scenes())
def test_corpus_json_round_trip(paths, tmp_path):
    check_json(corpus_scene(paths), tmp_path)


@pytest.mark.parametrize("robot", ROBOTS, ids=lambda r: r.key)
def test_robot_round_trips(robot, tmp_path):
    scene = load([robot_path(robot)])
    check_robray(scene, tmp_path)
    check_json(scene, tmp_path)


def test_robot_with_scene_files_round_trip(tmp_path):
    require_corpus()
    demo = robot_path("baxter").parents[4] / "public-robray" / "KavrakiLab+tmkit" / "demo" \
        / "baxter-sussman"
    scene = load([robot_path("baxter"), demo / "sussman-0.robray",
                  demo / "allowed-collision.robray"])
    assert len(scene.allowed) == 31
    check_robray(scene, tmp_path)
    check_json(scene, tmp_path)


def test_s_option_writes_robray_beside_other_outputs(tmp_path):
    src = tmp_path / "in.robray"
    src.write_text("frame a { type revolute; axis [0, 0, 1]; limit_position [-1, 2]; "
                   "mass 2; inertia [1, 0, 0, 2, 0, 3]; rpy [0.1, 0.2, 0.3];\n"
                   "  geometry { shape cone; height 1; start_radius 0.5; end_radius 0.1; "
                   "specular [0.1, 0.2, 0.3]; no-shadow 1; isa thing; } }\n"
                   "class thing {}\nframe b { parent a; geometry { shape grid; "
                   "dimension [1, 1]; delta [0.1, 0.1]; thickness 0.01; } }\n"
                   "allow_collision a b;\n")
    r = robrayc(src, "-o", tmp_path / "o.c", "-s", tmp_path / "o.robray")
    assert r.status == 0, r.err
    text = (tmp_path / "o.robray").read_text()
    for piece in ("limit_position [-1.0, 2.0];", "mass 2.0;", "shape cone;", "no-shadow 1;",
                  "specular [0.1, 0.2, 0.3];", "delta [0.1, 0.1];", "allow_collision a b;",
                  "class thing {}", "isa thing;"):
        assert piece in text
    original = load_scene([str(src)])
    assert bits(canonical(reload(tmp_path / "o.robray"))) == bits(canonical(original))
    # and -o FILE.robray picks the robray backend by suffix
    r = robrayc(src, "-o", tmp_path / "p.robray")
    assert r.status == 0, r.err
    assert (tmp_path / "p.robray").read_text() == text


# --- JSON input errors ----------------------------------------------------------------------


@pytest.mark.parametrize("doc,message", [
    ('{"format": "robrayc-scene", "version": 2, "frames": [], "allowed": [], "sources": []}',
     "unsupported version 2"),
    ('{"format": "x"}', "not a robrayc scene"),
    ('{"format": "robrayc-scene", "version": 1, "frames": [{"name": "a", "translation": '
     '[1, 2]}]}', "frames[0].translation: expected 3 numbers, got 2"),
    ('{"format": "robrayc-scene", "version": 1, "frames": [{"name": "a", "type": '
     '"revolute"}]}', "frames[0].axis: a revolute frame needs an axis"),
    ('{"format": "robrayc-scene", "version": 1, "frames": [{"name": "a", "inertial": '
     '{"mass": 1, "inertia": [1, 2, 3, 4, 5, 6, 7, 8, 9]}}]}', "not symmetric"),
    ('{"format": "robrayc-scene", "version": 1, "frames": [{"name": "a", "geometries": '
     '[{"shape": {"type": "blob"}}]}]}', "expected one of box"),
    ('{"format": "robrayc-scene", "version": 1, "frames": [{"name": "a"}, {"name": "a"}]}',
     "duplicate frame 'a'"),
    ('{"format": "robrayc-scene", "version": 1, "frames": [{"name": "a", "parent": "b"}]}',
     "unknown parent frame 'b'"),
    ('{"format": "robrayc-scene", "version": 1, "frames": [{"name": "a", "bogus": 1}]}',
     "unknown key 'bogus'"),
    ('{"format": "robrayc-scene", "version": 1, "frames": [{"name": "a", "limits": {'
     '"position": [2, 1], "velocity": null, "acceleration": null, "effort": null}}]}',
     "minimum 2.0 is above maximum 1.0"),
    ('{"format": "robrayc-scene", "version": 1, "frames": [{"name": "a", "offset": NaN}]}',
     "'NaN' is not JSON"),
    ('{"format": "robrayc-scene",\n "version": 1,,}', ":2:15: error: JSON syntax error"),
])
def test_json_input_errors(tmp_path, doc, message):
    p = tmp_path / "bad.json"
    p.write_text(doc)
    r = robrayc(p, "--list-frames")
    assert r.status == 1 and "Traceback" not in r.err
    assert message in r.err, r.err
    assert r.err.startswith(str(p))


def test_json_accepts_hand_written_minimal_scenes(tmp_path):
    p = tmp_path / "m.json"
    p.write_text(json.dumps({"format": "robrayc-scene", "version": 1, "frames": [
        {"name": "base", "geometries": [{"shape": {"type": "box", "dimension": [1, 2, 3]}}]},
        {"name": "arm", "parent": "base", "type": "revolute", "axis": [0, 0, 1],
         "limits": {"position": [-1, 1]}, "inertial": {"mass": 2,
                                                         "inertia": [1, 0, 0, 1, 0, 1]}}],
        "allowed": [{"a": "arm", "b": "base"}]}))
    scene = reload(p)
    arm = scene.frame("arm")
    assert arm.variable == "arm" and arm.limits.position == (-1.0, 1.0)
    assert arm.inertial.inertia == (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
    assert scene.frame("base").geometries[0].color == ir.DEFAULT_COLOR
    assert [(a.a, a.b) for a in scene.allowed] == [("arm", "base")]


def test_json_infinite_limits(tmp_path):
    scene = ir.Scene((ir.Frame("j", kind="revolute", axis=(0.0, 0.0, 1.0), variable="j",
                               limits=ir.Limits(velocity=(-math.inf, math.inf))),))
    check_json(scene, tmp_path)
    assert '"velocity": ["-Infinity", "Infinity"]' in (tmp_path / "s.json").read_text()
    check_robray(scene, tmp_path)


# --- generated scenes -----------------------------------------------------------------------

IDENT = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}(-[A-Za-z0-9_]{1,3})?", fullmatch=True)
ODD = st.text(alphabet=string.ascii_letters + string.digits + " _-.:/é∂+", min_size=1,
              max_size=8)
NAMES = st.one_of(IDENT, ODD, st.sampled_from(["frame", "class", "pi", "geometry", "1st"]))
FINITE = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.floats(min_value=-10, max_value=10),
    st.sampled_from([0.0, -0.0, 1.0, 0.1, 1e-300, -5e-324, 1.7976931348623157e308]),
)
SMALL = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)
# The robray loader reads `offset` and `mass` as `value or 0.0`, which turns -0.0 into 0.0
# (reported to the front end's owner); those two are drawn without -0.0.
NO_NEG_ZERO = FINITE.map(lambda x: x + 0.0)
NONNEG = st.one_of(st.floats(min_value=0, max_value=1e9), st.sampled_from([0.0, 5e-324]))
VEC3 = st.tuples(FINITE, FINITE, FINITE)


@st.composite
def ranges(draw, infinite: bool = True):
    a = draw(FINITE if not infinite else st.one_of(FINITE, st.just(-math.inf)))
    b = draw(FINITE if not infinite else st.one_of(FINITE, st.just(math.inf)))
    return (min(a, b), max(a, b))


@st.composite
def unit_quats(draw):
    q = draw(st.tuples(SMALL, SMALL, SMALL, SMALL).filter(lambda q: any(abs(c) > 1e-3
                                                                         for c in q)))
    return stable_unit_quaternion(q)


@st.composite
def unit_axes(draw):
    v = draw(st.tuples(SMALL, SMALL, SMALL).filter(lambda v: any(abs(c) > 1e-3 for c in v)))
    n = math.sqrt(sum(c * c for c in v))
    return tuple(c / n for c in v)


@st.composite
def shapes(draw):
    kind = draw(st.sampled_from(["box", "sphere", "cylinder", "cone", "grid", "mesh"]))
    if kind == "box":
        return ir.Box(draw(st.tuples(NONNEG, NONNEG, NONNEG)))
    if kind == "sphere":
        return ir.Sphere(draw(NONNEG))
    if kind == "cylinder":
        return ir.Cylinder(draw(FINITE), draw(NONNEG))
    if kind == "cone":
        return ir.Cone(draw(FINITE), draw(FINITE), draw(FINITE))
    if kind == "grid":
        return ir.Grid(draw(st.tuples(FINITE, FINITE)), draw(st.tuples(FINITE, FINITE)),
                       draw(FINITE))
    return ir.Mesh(str(TET), str(TET))


TAGS = st.lists(IDENT, max_size=3, unique=True).map(tuple)


@st.composite
def geometries(draw):
    return ir.Geometry(
        shape=draw(shapes()), color=draw(VEC3), alpha=draw(FINITE), specular=draw(VEC3),
        visual=draw(st.booleans()), collision=draw(st.booleans()),
        no_shadow=draw(st.booleans()), scale=draw(FINITE), tags=draw(TAGS))


@st.composite
def scenes(draw):
    names = draw(st.lists(NAMES, min_size=1, max_size=8, unique=True))
    frames: list[ir.Frame] = []
    for i, name in enumerate(names):
        parent = draw(st.one_of(st.none(), st.sampled_from(names[:i]))) if i else None
        kind = draw(st.sampled_from(["fixed", "revolute", "prismatic"]))
        joint = kind != "fixed"
        limits = ir.NO_LIMITS
        if joint and draw(st.booleans()):
            limits = ir.Limits(*(draw(st.one_of(st.none(), ranges())) for _ in range(4)))
        inertial = None
        if draw(st.booleans()):
            a, b, c, d, e, f = (draw(FINITE) for _ in range(6))
            inertial = ir.Inertial(draw(NO_NEG_ZERO), (a, b, c, b, d, e, c, e, f))
        variable = None
        if joint:
            variable = draw(st.one_of(st.just(name), NAMES))
        frames.append(ir.Frame(
            name=name, parent=parent, kind=kind, translation=draw(VEC3),
            quaternion=draw(st.one_of(st.just(ir.IDENTITY_Q), unit_quats())),
            axis=(draw(unit_axes()) if kind == "revolute" else
                  draw(VEC3.filter(lambda v: sum(c * c for c in v) > 0))) if joint else None,
            offset=draw(NO_NEG_ZERO) if joint else 0.0, variable=variable, limits=limits,
            inertial=inertial, geometries=tuple(draw(st.lists(geometries(), max_size=3))),
            tags=draw(TAGS)))
    # the loader's order: parents first, siblings in order of appearance
    kids: dict = {}
    for f in frames:
        kids.setdefault(f.parent, []).append(f)
    ordered: list[ir.Frame] = []
    stack = list(reversed(kids.get(None, [])))
    while stack:
        f = stack.pop()
        ordered.append(f)
        stack.extend(reversed(kids.get(f.name, [])))
    pairs = draw(st.lists(st.tuples(st.sampled_from(names), st.sampled_from(names)),
                          max_size=4))
    allowed = sorted({tuple(sorted(p)) for p in pairs})
    return ir.Scene(tuple(ordered), tuple(ir.AllowedCollision(a, b) for a, b in allowed))


def _with_positions(scene: ir.Scene, file: str) -> ir.Scene:
    """Distinct positions, as a loader gives (the JSON round trip keeps them)."""
    frames = []
    for i, f in enumerate(scene.frames):
        geoms = tuple(replace(g, pos=SourcePos(file, i + 1, k + 2)) for k, g in
                      enumerate(f.geometries))
        frames.append(replace(f, pos=SourcePos(file, i + 1, 1, i + 1, 5), geometries=geoms))
    return ir.Scene(tuple(frames), tuple(replace(a, pos=SourcePos(file, 99, 1))
                                         for a in scene.allowed))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.data_too_large])
@given(scenes())
def test_generated_scenes_round_trip(tmp_path_factory, scene):
    tmp = tmp_path_factory.mktemp("rt")
    scene = _with_positions(scene, str(tmp / "orig.robray"))
    check_robray(scene, tmp)
    check_json(scene, tmp)


def test_per_axis_mesh_scale_and_package_uri_round_trip(tmp_path, monkeypatch):
    pkg = tmp_path / "pkgs" / "demo_pkg" / "meshes"
    pkg.mkdir(parents=True)
    (pkg / "tet.obj").write_bytes(TET.read_bytes())
    monkeypatch.setenv("ROS_PACKAGE_PATH", str(tmp_path / "pkgs"))
    src = tmp_path / "s.robray"
    src.write_text('frame f { geometry { mesh "package://demo_pkg/meshes/tet.obj"; '
                   "scale [1, 2, 3]; } }")
    scene = load_scene([str(src)])
    mesh = scene.frame("f").geometries[0].shape
    assert mesh.scale3 == (1.0, 2.0, 3.0) and mesh.source.startswith("package://")
    out = tmp_path / "again.robray"
    emit_robray(scene, out, DiagnosticSink())
    text = out.read_text()
    assert 'mesh "package://demo_pkg/meshes/tet.obj";' in text and "scale [1.0, 2.0, 3.0];" in text
    again = load_scene([str(out)]).frame("f").geometries[0].shape
    assert again == mesh

