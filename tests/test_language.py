"""Language semantics: folding, classes and isa precedence, includes, frames, the 7dof demo."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robrayc import ir
from robrayc.diagnostics import CompileError, DiagnosticSink
from robrayc.frontend import LoadOptions, load_scene
from robrayc.kinematics import absolute_poses, fk
from tests.corpus import CORPUS, require_corpus


def scene_of(tmp_path: Path, text: str, name: str = "s.robray", **opts) -> ir.Scene:
    path = tmp_path / name
    path.write_text(text)
    return load_scene([str(path)], LoadOptions(**opts))


def value_of(tmp_path: Path, expr: str) -> float:
    scene = scene_of(tmp_path, f"def v {expr};\nframe f {{ translation [v, 0, 0]; }}")
    return scene.frame("f").translation[0]


# --- numbers and expressions -------------------------------------------------------------
@pytest.mark.parametrize("expr,value", [
    ("1", 1.0), ("1.", 1.0), (".5", 0.5), ("1.5", 1.5), ("1e-2", 0.01), ("2.5D2", 250.0),
    ("1d-3", 0.001), ("1s2", 100.0), ("1e+3", 1000.0), ("0.1", 0.1),
    ("2-1", 1.0), ("2 - 1", 1.0), ("2*3+4", 10.0), ("2+3*4", 14.0), ("2^3^2", 512.0),
    ("2**3**2", 512.0), ("-2^2", 4.0), ("-(2^2)", -4.0), ("(1+2)*3", 9.0), ("1/2", 0.5),
    ("2/3*pi", 2 / 3 * math.pi), ("90*deg", math.pi / 2), ("π", math.pi), ("--1", 1.0),
    ("+1", 1.0), ("2*-3", -6.0), ("2^-1", 0.5), ("8/2/2", 2.0), ("8-2-2", 4.0),
])
def test_expression_values(tmp_path: Path, expr: str, value: float) -> None:
    assert value_of(tmp_path, expr) == value


def test_hyphen_belongs_to_identifier(tmp_path: Path) -> None:
    scene = scene_of(tmp_path, "def shelf-length 2; def move 1;\n"
                               "frame upper-link { translation [shelf-length+move, "
                               "-shelf-length/2, shelf-length - move]; }")
    assert scene.frame("upper-link").translation == (3.0, -1.0, 1.0)


def test_keyword_prefix_names_are_identifiers(tmp_path: Path) -> None:
    scene = scene_of(tmp_path, "def pi-x 2; frame frame-x { translation [pi-x, 0, 0]; }")
    assert scene.frame("frame-x").translation == (2.0, 0.0, 0.0)


def test_def_shadowing_is_in_order(tmp_path: Path) -> None:
    scene = scene_of(tmp_path, "def a 1; frame f { translation [a, 0, 0]; }\n"
                               "def a 2; frame g { translation [a, 0, 0]; }")
    assert scene.frame("f").translation[0] == 1.0 and scene.frame("g").translation[0] == 2.0


def test_unary_minus_power_warns(tmp_path: Path) -> None:
    sink = DiagnosticSink()
    (tmp_path / "w.robray").write_text("def x 3; def y -x^2; frame f { }")
    load_scene([str(tmp_path / "w.robray")], sink=sink)
    assert any("unary minus binds tighter" in d.message for d in sink.items)


finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


@settings(max_examples=200, deadline=None)
@given(a=finite, b=finite, c=finite, op1=st.sampled_from("+-*/"), op2=st.sampled_from("+-*/"))
def test_folding_matches_python(tmp_path_factory, a, b, c, op1, op2) -> None:
    tmp = tmp_path_factory.mktemp("fold")
    expr = f"({a!r}) {op1} ({b!r}) {op2} ({c!r})"
    try:
        expected = eval(expr)  # Python's own arithmetic, same precedence
    except ZeroDivisionError:
        with pytest.raises(CompileError):
            value_of(tmp, expr)
        return
    if math.isinf(expected) or math.isnan(expected):
        return
    assert value_of(tmp, expr) == expected


@settings(max_examples=100, deadline=None)
@given(a=st.floats(min_value=0.1, max_value=4), b=st.floats(min_value=-3, max_value=3),
       c=st.floats(min_value=-2, max_value=2))
def test_power_is_right_associative_and_tighter(tmp_path_factory, a, b, c) -> None:
    tmp = tmp_path_factory.mktemp("pow")
    expected = 2.0 * a ** (b ** 2)
    assert value_of(tmp, f"2 * {a!r} ^ ({b!r}) ^ 2") == expected
    assert value_of(tmp, f"{a!r} ** 2 + ({c!r})") == a ** 2 + c


# --- classes --------------------------------------------------------------------------------
def test_own_attributes_override_classes_and_last_isa_wins(tmp_path: Path) -> None:
    scene = scene_of(tmp_path, """
        class red { color [1, 0, 0]; shape sphere; radius 1; }
        class blue { color [0, 0, 1]; alpha 0.5; }
        frame f {
            geometry { isa red; isa blue; }
            geometry { isa blue; isa red; }
            geometry { isa red; color [0, 1, 0]; }
        }""")
    g1, g2, g3 = scene.frame("f").geometries
    assert g1.color == (0, 0, 1) and g1.alpha == 0.5 and g1.tags == ("red", "blue")
    assert g2.color == (1, 0, 0)
    assert g3.color == (0, 1, 0) and g3.shape == ir.Sphere(1.0)


def test_class_inheritance_is_transitive_and_frozen(tmp_path: Path) -> None:
    scene = scene_of(tmp_path, """
        def size 1;
        class base { shape box; dimension [size, size, size]; }
        class child { isa base; color [1, 0, 0]; }
        def size 2;
        frame f { geometry { isa child; } }""")
    g = scene.frame("f").geometries[0]
    assert g.shape == ir.Box((1.0, 1.0, 1.0)) and g.tags == ("child", "base")


def test_frame_level_isa_first_wins(tmp_path: Path) -> None:
    scene = scene_of(tmp_path, """
        class up { translation [0, 0, 1]; }
        class side { translation [1, 0, 0]; type revolute; axis [0, 0, 1]; }
        frame f { isa up; isa side; }""")
    f = scene.frame("f")
    assert f.translation == (0, 0, 1) and f.kind == "revolute" and f.tags == ("up", "side")


def test_undeclared_isa_is_a_tag(tmp_path: Path) -> None:
    scene = scene_of(tmp_path, "frame t { geometry { isa surface; shape box; "
                               "dimension [1, 1, 1]; } }")
    assert scene.frame("t").geometries[0].tags == ("surface",)


# --- frames -----------------------------------------------------------------------------------
def test_defaults_and_options(tmp_path: Path) -> None:
    scene = scene_of(tmp_path, """frame f { geometry { shape cylinder; radius 1; height 2; } }
        frame g { geometry { shape cone; height 1; start_radius 2; end_radius 1; visual 0;
                             collision 0; no-shadow 1; specular [.1, .2, .3]; scale 2; } }""")
    g = scene.frame("f").geometries[0]
    assert (g.color, g.alpha, g.specular, g.visual, g.collision, g.no_shadow, g.scale) == (
        (0.8, 0.8, 0.8), 1.0, (0, 0, 0), True, True, False, 1.0)
    h = scene.frame("g").geometries[0]
    assert (h.visual, h.collision, h.no_shadow, h.specular, h.scale) == (
        False, False, True, (0.1, 0.2, 0.3), 2.0)
    assert h.shape == ir.Cone(1.0, 2.0, 1.0)


def test_nested_frames_object_synonym_string_names_and_order(tmp_path: Path) -> None:
    scene = scene_of(tmp_path, """
        frame "child of b" { parent b; }
        object a { frame b { frame c { } } }
        frame d { parent a; }""")
    names = [f.name for f in scene.frames]
    assert names.index("a") < names.index("b") < names.index("child of b")
    assert scene.frame("c").parent == "b" and scene.frame("child of b").parent == "b"
    assert names == ["a", "b", "child of b", "c", "d"]


def test_quaternion_wins_over_rpy_and_normalises(tmp_path: Path) -> None:
    scene = scene_of(tmp_path, "frame f { rpy [1, 2, 3]; quaternion [0, 0, 0, 2]; }\n"
                               "frame g { rpy [0, 0, pi/2]; }")
    assert scene.frame("f").quaternion == (0, 0, 0, 1)
    q = scene.frame("g").quaternion
    assert q == pytest.approx((0, 0, math.sqrt(0.5), math.sqrt(0.5)), abs=1e-15)


def test_joint_variable_offset_limits_inertia(tmp_path: Path) -> None:
    scene = scene_of(tmp_path, """frame j { type prismatic; axis [0, 0, 2]; offset 0.5;
        variable q0; limit_position [-1, 1]; limit_velocity 2; limit_effort [-3, 4];
        mass 2; inertia [1, 0.1, 0.2, 2, 0.3, 3]; }""")
    j = scene.frame("j")
    assert (j.kind, j.axis, j.offset, j.variable) == ("prismatic", (0, 0, 2), 0.5, "q0")
    assert j.limits == ir.Limits(position=(-1, 1), velocity=(-2, 2), effort=(-3, 4))
    assert j.inertial == ir.Inertial(2.0, (1, 0.1, 0.2, 0.1, 2, 0.3, 0.2, 0.3, 3))
    assert scene.variables == ("q0",)


def test_allowed_pairs_sorted_deduplicated(tmp_path: Path) -> None:
    scene = scene_of(tmp_path, 'frame b { } frame a { } frame "c d" { }\n'
                               'allow_collision b a; allow_collision a b; allow_collision "c d" a;')
    assert [(p.a, p.b) for p in scene.allowed] == [("a", "b"), ("a", "c d")]


# --- includes -------------------------------------------------------------------------------
def test_includes_once_relative_then_I_then_ROBRAY_PATH(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "inc").mkdir()
    (tmp_path / "env").mkdir()
    (tmp_path / "sub" / "classes.robray").write_text("class c { shape sphere; radius 1; }")
    (tmp_path / "inc" / "defs.robray").write_text("def k 3;")
    (tmp_path / "env" / "more.robray").write_text("def m 4;")
    (tmp_path / "sub" / "main.robray").write_text(
        'include "classes.robray"\ninclude "classes"\ninclude "defs.robray";\ninclude "more"\n'
        "frame f { translation [k, m, 0]; geometry { isa c; } }")
    monkeypatch.setenv("ROBRAY_PATH", str(tmp_path / "env"))
    scene = load_scene([str(tmp_path / "sub" / "main.robray")],
                       LoadOptions(include_dirs=(str(tmp_path / "inc"),)))
    assert scene.frame("f").translation == (3.0, 4.0, 0.0)
    assert scene.frame("f").geometries[0].shape == ir.Sphere(1.0)
    assert len(scene.sources) == 4


def test_same_include_from_two_inputs_is_one_definition(tmp_path: Path) -> None:
    (tmp_path / "common.robray").write_text("class c { shape sphere; radius 1; } frame base { }")
    (tmp_path / "a.robray").write_text('include "common.robray"\nframe a { parent base; '
                                       "geometry { isa c; } }")
    (tmp_path / "b.robray").write_text('include "common.robray"\nframe b { parent base; '
                                       "geometry { isa c; } }")
    scene = load_scene([str(tmp_path / "a.robray"), str(tmp_path / "b.robray")])
    assert [f.name for f in scene.frames] == ["base", "a", "b"]


# --- the 7dof demo ----------------------------------------------------------------------------
def _rot(axis: str, angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    m = {"x": [[1, 0, 0], [0, c, -s], [0, s, c]], "y": [[c, 0, s], [0, 1, 0], [-s, 0, c]],
         "z": [[c, -s, 0], [s, c, 0], [0, 0, 1]]}[axis]
    t = np.eye(4)
    t[:3, :3] = m
    return t


def _trans(x: float, y: float = 0.0, z: float = 0.0) -> np.ndarray:
    t = np.eye(4)
    t[:3, 3] = (x, y, z)
    return t


def _hand(q: dict[str, float]) -> np.ndarray:
    """The 7dof hand pose written out by hand from the scene file (not from robrayc)."""
    hand_height = 1.618 * 0.05
    return (_rot("x", q["s0"]) @ _rot("y", q["s1"]) @ _rot("x", q["s2"])
            @ _trans(1) @ _rot("y", q["e"]) @ _trans(1) @ _rot("x", q["w0"])
            @ _rot("y", q["w1"]) @ _rot("z", q["w2"]) @ _trans(hand_height)
            @ _rot("y", math.pi / 2))


def test_7dof_facts() -> None:
    require_corpus()
    path = CORPUS / "amino/demo/tutorial/plugin/7dof/7dof.robray"
    scene = load_scene([str(path)])
    assert len(scene.frames) == 20
    joints = {f.name: f.axis for f in scene.frames if f.is_joint}
    assert joints == {"s0": (1, 0, 0), "s1": (0, 1, 0), "s2": (1, 0, 0), "e": (0, 1, 0),
                      "w0": (1, 0, 0), "w1": (0, 1, 0), "w2": (0, 0, 1), "f0": (0, -1, 0),
                      "f1": (0, -1, 0), "f2": (0, -1, 0)}
    assert scene.frame("hand").geometries[0].shape == ir.Cone(
        -1.618 * 0.05, 1.618 ** 2 * 0.05, 1.618 * 0.05)
    zero = {n: 0.0 for n in joints}
    np.testing.assert_allclose(fk(scene)["hand"], _hand(zero), atol=1e-12)
    np.testing.assert_allclose(fk(scene)["hand"][:3, 3], (2.0809, 0, 0), atol=1e-12)
    q = {"s0": 0.3, "s1": -0.7, "s2": 1.1, "e": 0.9, "w0": -0.4, "w1": 0.25, "w2": 2.0}
    q_all = {**zero, **q}
    np.testing.assert_allclose(fk(scene, q_all)["hand"], _hand(q_all), atol=1e-12)
    pose = absolute_poses(scene, q_all)["hand"]
    np.testing.assert_allclose(pose[1], _hand(q_all)[:3, 3], atol=1e-12)


def test_lone_carriage_returns_end_line_comments(tmp_path: Path) -> None:
    path = tmp_path / "mac.robray"
    path.write_bytes(b"frame a { }\r// a comment\rframe b { } # another\rframe c { }\r")
    assert [f.name for f in load_scene([str(path)]).frames] == ["a", "b", "c"]
