"""Conformance: robrayc's C loads into the REAL amino library as the scene the ORIGINAL aarxc
builds (issue 8).

Every case compiles the same inputs with both compilers, loads both C files with amino's own
`check_scene` (real `aa_rx_sg_init`, real forward kinematics) at the zero configuration and two
seeded random ones, and compares frames, parents, types, variables, axes, frame/config order,
poses (1e-6), geometry with options, and allowed pairs. Where robrayc differs on purpose the
case names the difference (ids documented in docs/differences.md); a declared
difference must be observed, and every observed mismatch must be explained — nothing is
skipped silently.
"""

from __future__ import annotations

import json
import math
import random
import re
import subprocess
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests import amino_real as A
from tests.corpus import (
    PACKAGE_ROOTS,
    URDF_CORPUS,
    amino_corpus_files,
    corpus_id,
    public_files,
    require_corpus,
    ros_package_path,
)

HERE = Path(__file__).resolve().parent
DATA = HERE / "conformance"
SEEDS = (1, 2)

pytestmark = pytest.mark.skipif(not A.AMINO_DIR.is_dir(),
                                reason="../shared/amino absent (no shared/ beside the checkout)")


# --- differences (ids documented in docs/differences.md) ---------------------
# Each id maps to a predicate saying whether a mismatch is explained by that difference.

def _path_is(*patterns: str) -> Callable[[A.Mismatch], bool]:
    rx = [re.compile(p) for p in patterns]
    return lambda m: any(r.fullmatch(m.path) for r in rx)


DIFFERENCES: dict[str, Callable[[A.Mismatch], bool]] = {
    # `alpha 1/2;`: the original prints the exact rational as C `1/2` (= 0).
    "integer-division": _path_is(r"geometry/.*/opt"),
    # quaternions are normalized before emission; the original passes them raw and amino's FK
    # then scales every child translation by |q|^2.
    "unit-quaternion": _path_is(r"frames/.*/(abs_v|rel_v|abs_R)"),
    "unit-axis": _path_is(r"frames/.*/(axis|abs_v|rel_v|abs_R)"),
    # URDF inertia: the original sets it on joint frames only, with the tensor's sign bug.
    "inertia": _path_is(r"frames/.*/(mass|inertia)"),
    # a continuous joint's <limit lower upper>: the original passes it on, robrayc drops it
    "urdf-continuous-limits": _path_is(r"configs/.*"),
    # a material defined inline in one link, used by name in another: urdfdom's colour
    "urdf-material-by-name": _path_is(r"geometry/.*/opt"),
    # URDF mimic joints (multiplier +-1) share the mimicked joint's variable
    "urdf-mimic": _path_is(r"frames/.*/(config|abs_v|abs_R)", r"configs/.*", r"config_order"),
}


# --- the differential check -------------------------------------------------------------------


@dataclass
class Outcome:
    ours: list[dict]  # normalized, one per configuration
    theirs: list[dict]
    mismatches: list[A.Mismatch]
    robrayc: A.Compiled
    aarxc: A.Compiled


def differential(inputs: Sequence[Path], tmp: Path, *, name: str = "conf",
                 seeds: Sequence[int] = SEEDS, cwd: Path | None = None,
                 env: dict[str, str] | None = None) -> Outcome:
    A.require_aarxc()
    theirs_c = A.run_aarxc(inputs, name, tmp / "aarxc" / f"{name}.c", cwd=cwd, env=env)
    assert theirs_c.ok, f"the original rejects {inputs}:\n{theirs_c.output[-3000:]}"
    ours_c = A.run_robrayc(inputs, name, tmp / "robrayc" / f"{name}.c", cwd=cwd, env=env)
    assert ours_c.ok, f"robrayc rejects {inputs}:\n{ours_c.output[-3000:]}"
    zero_theirs = A.load_c(theirs_c.c_file, name)[0]
    variables = [c["name"] for c in zero_theirs["configs"]]
    configs = [None, *A.random_configs(variables, seeds)]
    theirs = [A.normalize(zero_theirs)] + [
        A.normalize(d) for d in A.load_c(theirs_c.c_file, name, configs[1:])]
    ours = [A.normalize(d) for d in A.load_c(ours_c.c_file, name, configs)]
    mismatches: list[A.Mismatch] = []
    for i, (o, t) in enumerate(zip(ours, theirs, strict=True)):
        for m in A.compare(o, t):
            mismatches.append(A.Mismatch(f"{m.path}@q{i}", m.ours, m.theirs))
    return Outcome(ours, theirs, mismatches, ours_c, theirs_c)


def assert_conforms(out: Outcome, differences: Sequence[str] = ()) -> None:
    """Every mismatch explained by a declared difference; every declared difference seen."""
    for d in differences:
        assert d in DIFFERENCES, f"undocumented difference id {d!r}"
    unexplained = []
    seen = {d: 0 for d in differences}
    for m in out.mismatches:
        base = A.Mismatch(m.path.rsplit("@", 1)[0], m.ours, m.theirs)
        hits = [d for d in differences if DIFFERENCES[d](base)]
        for d in hits:
            seen[d] += 1
        if not hits:
            unexplained.append(str(m))
    assert not unexplained, "robrayc and the original differ:\n" + "\n".join(unexplained[:40])
    stale = [d for d, n in seen.items() if n == 0]
    assert not stale, f"declared differences not observed (stale declaration): {stale}"


# --- the table of small scenes, one per language point ----------------------------------------


@dataclass(frozen=True)
class Case:
    id: str
    files: tuple[str, ...]
    point: str
    differences: tuple[str, ...] = ()


CASES = [
    Case("precedence", ("precedence.robray",), "+ - * / precedence, associativity, parens"),
    Case("power", ("power.robray",), "^ and **, right-assoc, unary minus binds tighter"),
    Case("deg_pi", ("deg_pi.robray",), "constants pi, π, deg"),
    Case("rpy_quat", ("rpy_quat.robray",), "rpy vs quaternion, quaternion wins"),
    Case("nested", ("nested.robray",), "nested frames"),
    Case("multi_geometry", ("multi_geometry.robray",), "several geometry blocks on a frame"),
    Case("shapes", ("shapes.robray",), "every primitive shape"),
    Case("mesh", ("mesh.robray",), "mesh from .obj, scale"),
    Case("isa_geometry", ("isa_geometry.robray",), "several isa on geometry: last wins"),
    Case("isa_frame", ("isa_frame.robray",), "several isa on a frame: first wins"),
    Case("isa_undeclared", ("isa_undeclared.robray",), "isa of an undeclared class"),
    Case("class_chain", ("class_chain.robray",), "class isa class, empty class, frozen values"),
    Case("joint_offset_variable", ("joint_offset_variable.robray",),
         "revolute/prismatic joints with offset and variable"),
    Case("shared_variable", ("shared_variable.robray",), "two joints on one variable"),
    Case("chain", ("chain.robray",), "serial chain of mixed joints"),
    Case("names", ("names.robray",), "hyphenated identifiers and quoted names"),
    Case("options_default", ("options_default.robray",), "every option at its default"),
    Case("options_all", ("options_all.robray",), "every option set, booleans non-zero"),
    Case("repeated_attr", ("repeated_attr.robray",), "a repeated attribute: last wins"),
    Case("numbers", ("numbers.robray",), "number syntax incl. d exponents"),
    Case("comments", ("comments.robray",), "the three comment styles"),
    Case("include_dirs", ("inc/main.robray",), "includes across directories, no extension"),
    Case("allow", ("allow.robray",), "allow_collision: names, strings, order, repeats"),
    Case("forward_parent", ("forward_parent.robray",), "parent defined later"),
    Case("def_shadow", ("def_shadow.robray",), "def in file order, shadowing"),
    Case("pose_parts", ("pose_parts.robray",), "translation only / rotation only / none"),
    Case("negatives", ("negatives.robray",), "unary minus in arrays and expressions"),
    Case("cylinder_cone", ("cylinder_cone.robray",), "cylinder and cone under rotation"),
    Case("joint_geometry", ("joint_geometry.robray",), "geometry on moving frames"),
    Case("def_in_class", ("def_in_class.robray",), "defs in class and geometry values"),
    Case("frame_geom_mix", ("frame_geom_mix.robray",), "nested frames and geometry interleaved"),
    Case("curly_suffix", ("scene.curly",), "the .curly suffix"),
    Case("multi_input", ("multi_a.robray", "multi_b.robray"), "two input files merged"),
    Case("quat_nonunit", ("quat_nonunit.robray",), "non-unit quaternions", ("unit-quaternion",)),
    Case("axis_nonunit", ("axis_nonunit.robray",), "non-unit joint axes", ("unit-axis",)),
    Case("mesh_include_toplevel", ("meshinc/main.robray",),
         "mesh in an included file, relative to the top-level file (original rule)"),
    Case("integer_division", ("intdiv.robray",), "1/2 in a value", ("integer-division",)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_small_scene(case: Case, tmp_path: Path) -> None:
    out = differential([DATA / f for f in case.files], tmp_path)
    assert_conforms(out, case.differences)
    # Not vacuous: the scene loaded with frames in both.
    assert out.ours[0]["frames"] and out.theirs[0]["frames"]


def random_scene(seed: int, n_frames: int = 30) -> str:
    """A seeded random scene using only syntax the original accepts: defs and expressions,
    classes (some built on classes), nested and parent-named frames, every joint kind with
    offsets and shared variables, rpy or quaternion (unit), every primitive shape and option."""
    rng = random.Random(seed)

    def num(lo: float, hi: float) -> str:
        return repr(round(rng.uniform(lo, hi), 4))

    def expr(lo: float, hi: float) -> str:
        k = rng.random()
        if k < 0.15:
            return f"{num(lo / 2, hi / 2)} * 2"
        if k < 0.3:
            return f"u + {num(lo, hi)}"
        if k < 0.4:
            return f"{num(lo * 180 / math.pi, hi * 180 / math.pi)} * deg"
        return num(lo, hi)

    out = ["def u 0.0625;\ndef half pi / 2;\n"]
    classes = []
    for i in range(4):
        attrs = [f"color [{num(0, 1)}, {num(0, 1)}, {num(0, 1)}];"]
        if rng.random() < 0.5:
            attrs.append(f"alpha {num(0.2, 1)};")
        if classes and rng.random() < 0.5:
            attrs.append(f"isa {rng.choice(classes)};")
        if rng.random() < 0.4:
            attrs.append("shape box; dimension [u, u * 2, 0.1];")
        out.append(f"class k{i} {{ {' '.join(attrs)} }}\n")
        classes.append(f"k{i}")

    def geometry() -> str:
        shape = rng.choice(["box", "sphere", "cylinder", "cone", "grid", "class"])
        parts = []
        if shape == "box":
            parts.append(f"shape box; dimension [{num(.01, 1)}, {expr(.01, 1)}, {num(.01, 1)}];")
        elif shape == "sphere":
            parts.append(f"shape sphere; radius {expr(.01, .5)};")
        elif shape == "cylinder":
            parts.append(f"shape cylinder; radius {num(.01, .3)}; height {num(.05, 1)};")
        elif shape == "cone":
            parts.append(f"shape cone; height {num(.05, 1)}; start_radius {num(0, .3)}; "
                         f"end_radius {num(0, .3)};")
        elif shape == "grid":
            parts.append(f"shape grid; dimension [{num(.5, 2)}, {num(.5, 2)}]; "
                         f"delta [{num(.05, .2)}, {num(.05, .2)}]; thickness {num(.001, .01)};")
        else:
            parts.append("shape box; dimension [0.1, 0.2, 0.3];")
        for _ in range(rng.randrange(3)):
            parts.append(f"isa {rng.choice(classes + ['undeclared_tag'])};")
        for opt, val in (("color", f"[{num(0, 1)}, {num(0, 1)}, {num(0, 1)}]"),
                         ("alpha", num(0, 1)), ("specular", f"[{num(0, 1)}, 0.5, 0.25]"),
                         ("visual", str(rng.randrange(2))), ("collision", str(rng.randrange(2))),
                         ("no-shadow", str(rng.randrange(2)))):
            if rng.random() < 0.3:
                parts.append(f"{opt} {val};")
        return "geometry { " + " ".join(parts) + " }"

    names: list[str] = []
    variables = ["shared_a", "shared_b"]

    def frame(i: int, depth: int) -> str:
        name = f"f{i}" if rng.random() < 0.8 else f"f{i}-x"
        body = []
        if names and depth == 0 and rng.random() < 0.6:
            body.append(f"parent {rng.choice(names)};")
        names.append(name)
        if rng.random() < 0.8:
            body.append(f"translation [{expr(-1, 1)}, {num(-1, 1)}, {expr(-1, 1)}];")
        r = rng.random()
        if r < 0.4:
            body.append(f"rpy [{expr(-3, 3)}, {num(-1.5, 1.5)}, half];")
        elif r < 0.6:
            q = [rng.gauss(0, 1) for _ in range(4)]
            n = math.sqrt(sum(c * c for c in q))
            body.append("quaternion [" + ", ".join(repr(c / n) for c in q) + "];")
        kind = rng.choice(["fixed", "fixed", "revolute", "prismatic"])
        if kind != "fixed":
            axis = rng.choice(["[1, 0, 0]", "[0, 1, 0]", "[0, 0, 1]", "[0, 0, -1]"])
            body.append(f"type {kind}; axis {axis};")
            if rng.random() < 0.4:
                body.append(f"offset {num(-1, 1)};")
            if rng.random() < 0.3:
                body.append(f"variable {rng.choice(variables)};")
        for _ in range(rng.randrange(3)):
            body.append(geometry())
        return name, body

    i = 0
    while i < n_frames:
        name, body = frame(i, 0)
        i += 1
        nested = []
        while i < n_frames and rng.random() < 0.3:
            cname, cbody = frame(i, 1)
            i += 1
            nested.append(f"    frame {cname} {{ " + " ".join(cbody) + " }")
        out.append(f"frame {name} {{\n    " + "\n    ".join(body + nested) + "\n}\n")
    for _ in range(3):
        a, b = rng.sample(names, 2)
        out.append(f'allow_collision {a} "{b}";\n')
    return "".join(out)


@pytest.mark.parametrize("seed", range(8))
def test_random_scene(seed: int, tmp_path: Path) -> None:
    """Seeded random scenes: every mix of the language points above at once."""
    src = tmp_path / f"random{seed}.robray"
    src.write_text(random_scene(seed))
    out = differential([src], tmp_path)
    assert_conforms(out)
    assert len(out.ours[0]["frames"]) == 30


@pytest.mark.parametrize("seed", range(3))
def test_robrayc_fk_equals_amino_fk(seed: int, tmp_path: Path) -> None:
    """robrayc's own kinematics (robrayc.kinematics, used by its analyses) agree with the real
    library's forward kinematics on robrayc's C, within 1e-9, at random configurations."""
    import numpy as np

    from robrayc.frontend import load_scene
    from robrayc.kinematics import fk

    A.require_library()
    src = tmp_path / "s.robray"
    src.write_text(random_scene(100 + seed))
    scene = load_scene([str(src)])
    ours = A.run_robrayc([src], "fk", tmp_path / "fk.c")
    assert ours.ok, ours.output
    for cfg in A.random_configs(scene.variables, [seed, seed + 50]):
        (d,) = A.load_c(ours.c_file, "fk", [cfg])
        mine = fk(scene, cfg)
        for f in d["frames"]:
            T = mine[f["name"]]
            assert np.abs(np.array(f["abs"]["R"]).reshape(3, 3) - T[:3, :3]).max() <= 1e-9
            assert np.abs(np.array(f["abs"]["v"]) - T[:3, 3]).max() <= 1e-9


def test_table_covers_enough_points() -> None:
    assert len(CASES) >= 30
    assert len({c.id for c in CASES}) == len(CASES)
    for c in CASES:
        for f in c.files:
            assert (DATA / f).is_file(), f


# --- inputs the original gets wrong (issue 8 item 3) -----------------------------------------


@dataclass(frozen=True)
class Wrong:
    id: str
    files: dict[str, str]  # name -> text; the first is the input (others: further inputs)
    original: str  # what the original's output does in the real library
    error: str = ""  # regex robrayc's located error must match ("" = robrayc compiles it)
    inputs: int = 1  # how many of `files` are command-line inputs


WRONG = [
    Wrong("unknown_parent", {"s.robray": "frame a { parent nowhere; }\n"
                             "frame b { geometry { shape sphere; radius 1; } }\n"},
          original="init-fails", error=r"s\.robray:1:18: error: unknown parent frame 'nowhere'"),
    Wrong("parent_cycle", {"s.robray": "frame a { parent b; }\nframe b { parent a; }\n"
                           "frame c { geometry { shape sphere; radius 1; } }\n"},
          original="nan-poses", error=r"s\.robray:\d+:\d+: error: parent cycle"),
    Wrong("duplicate_frame", {"s.robray": "frame a { translation [1, 0, 0]; }\n"
                              "frame a { translation [2, 0, 0]; }\n"},
          original="keeps-one", error=r"s\.robray:2:7: error: duplicate frame 'a'"),
    Wrong("duplicate_frame_across_files", {"s.robray": "frame a { translation [1, 0, 0]; }\n",
                                           "t.robray": "frame a { translation [2, 0, 0]; }\n"},
          original="rejects", error=r"t\.robray:1:7: error: duplicate frame 'a'", inputs=2),
    Wrong("unescaped_names", {"s.robray": 'frame "back\\slash" { translation [1, 0, 0]; }\n'
                              'frame "tab\\there" { parent "back\\slash"; }\n'
                              'frame "caf\u00e9 \u00fc" { parent "tab\\there"; }\n'},
          original="mangles-names"),
    Wrong("unknown_allow_collision", {"s.robray": "frame a { geometry { shape sphere; radius 1; "
                                      "} }\nframe b { geometry { shape sphere; radius 1; } }\n"
                                      "allow_collision a b;\nallow_collision a ghost;\n"},
          original="crashes"),
    Wrong("integer_division", {"s.robray": "frame f { geometry { shape sphere; radius 1; "
                               "alpha 1/2; } }\n"}, original="alpha-zero"),
]


@pytest.mark.parametrize("case", WRONG, ids=[w.id for w in WRONG])
def test_original_gets_wrong(case: Wrong, tmp_path: Path) -> None:
    A.require_aarxc()
    for fname, text in case.files.items():
        (tmp_path / fname).write_text(text, encoding="utf-8")
    inputs = [tmp_path / f for f in list(case.files)[:case.inputs]]
    theirs = A.run_aarxc(inputs, "w", tmp_path / "aarxc" / "w.c")
    ours = A.run_robrayc(inputs, "w", tmp_path / "robrayc" / "w.c")
    assert "Traceback" not in ours.output

    # What the original really does with it.
    if case.original == "rejects":
        assert not theirs.ok
        assert "Duplicate frames in merged trees" in theirs.output
    else:
        assert theirs.ok, theirs.output
        binary = A.check_binary(theirs.c_file, "w")
        if case.original == "init-fails":
            with pytest.raises(A.SceneInitError):
                A.run_check(binary)
        elif case.original == "crashes":
            r = subprocess.run([str(binary)], capture_output=True)
            assert r.returncode < 0, "aa_rx_sg_allow_collision_name no longer crashes?"
        else:
            d = A.run_check(binary)
            frames = {f["name"]: f for f in d["frames"]}
            if case.original == "nan-poses":
                assert any(x is None for x in frames["a"]["abs"]["R"])
            elif case.original == "keeps-one":
                assert d["frame_count"] == 1
            elif case.original == "mangles-names":
                assert "back\\slash" not in frames and "backslash" in frames
                assert "tab\there" in frames  # the C escape \t became a TAB
            elif case.original == "alpha-zero":
                assert d["geometry"][0]["opt"]["alpha"] == 0

    # What robrayc does instead.
    if case.error:
        assert ours.returncode == 1, ours.output
        assert re.search(case.error, ours.stderr), ours.stderr
        assert "^" in ours.stderr  # the caret line under the culprit
        return
    assert ours.ok, ours.output
    d = A.load_c(ours.c_file, "w")[0]
    frames = {f["name"]: f for f in d["frames"]}
    if case.id == "unescaped_names":
        assert set(frames) == {"back\\slash", "tab\\there", "caf\u00e9 \u00fc"}
        assert frames["caf\u00e9 \u00fc"]["parent"] == "tab\\there"
        assert frames["caf\u00e9 \u00fc"]["abs"]["v"] == [1, 0, 0]
    elif case.id == "unknown_allow_collision":
        assert d["allowed_collision"] == [["a", "b"]]
        assert re.search(r"s\.robray:4:\d+: warning: .*ghost", ours.stderr), ours.stderr
    elif case.id == "integer_division":
        assert d["geometry"][0]["opt"]["alpha"] == 0.5


def test_literals_are_exact_doubles(tmp_path: Path) -> None:
    """The original reads `0.1` as a single float; robrayc's value loads as the exact double."""
    A.require_aarxc()
    src = tmp_path / "s.robray"
    src.write_text("frame f { translation [0.1, 0.2, 1e-3]; "
                   "geometry { shape sphere; radius 0.3; } }\n")
    ours = A.run_robrayc([src], "p", tmp_path / "r" / "p.c")
    theirs = A.run_aarxc([src], "p", tmp_path / "a" / "p.c")
    assert ours.ok and theirs.ok, ours.output + theirs.output
    (o,) = A.load_c(ours.c_file, "p")
    (t,) = A.load_c(theirs.c_file, "p")
    assert o["frames"][0]["abs"]["v"] == [0.1, 0.2, 1e-3]
    assert o["geometry"][0]["radius"] == 0.3
    assert t["frames"][0]["abs"]["v"][0] == 0.10000000149011612  # float32(0.1)
    assert t["geometry"][0]["radius"] != 0.3


# --- extensions: inputs the original rejects and robrayc accepts on purpose ------------------

EXTENSIONS = [
    # id, files (first is the input), check(loaded scene) -> None
    ("object_block", {"s.robray": "object o1 { translation [1, 0, 0]; "
                      "geometry { shape sphere; radius 0.5; } }\n"},
     lambda d: _frame(d, "o1")["abs"]["v"] == [1, 0, 0] and d["geometry"][0]["radius"] == 0.5),
    ("include_twice", {"k.robray": "class k { shape sphere; radius 0.125; }\n",
                       "s.robray": 'include "k.robray"\ninclude "k.robray"\n'
                       "frame f { geometry { isa k; } }\n"},
     lambda d: d["geometry"][0]["radius"] == 0.125),
    ("include_semicolon", {"k.robray": "class k { shape sphere; radius 0.125; }\n",
                           "s.robray": 'include "k.robray";\nframe f { geometry { isa k; } }\n'},
     lambda d: d["geometry"][0]["radius"] == 0.125),
    ("exponent_forms", {"s.robray": "frame f { translation [1e+3, 1s2, 2.5E-1]; }\n"},
     lambda d: _frame(d, "f")["abs"]["v"] == [1000, 100, 0.25]),
    ("binary_minus", {"s.robray": "def a 2;\nframe f { translation [2-1, a -1, a - 0.5]; }\n"},
     lambda d: _frame(d, "f")["abs"]["v"] == [1, 1, 1.5]),
    ("keyword_prefixed_names", {"s.robray": "frame frame-x { translation [1, 0, 0]; }\n"
                                "frame pi-x { parent frame-x; translation [0, 1, 0]; }\n"},
     lambda d: _frame(d, "pi-x")["parent"] == "frame-x" and _frame(d, "pi-x")["abs"]["v"]
     == [1, 1, 0]),
    ("attribute_expressions", {"s.robray": "def r 0.5;\nframe f { geometry { shape cylinder; "
                               "radius r - 0.25; height (r + 0.25) * 2; } }\n"},
     lambda d: d["geometry"][0]["radius"] == 0.25 and d["geometry"][0]["height"] == 1.5),
    ("obj_plain_faces", {"plain.obj": "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n"
                         "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n",
                         "s.robray": 'frame f { geometry { mesh "plain.obj"; } }\n'},
     lambda d: d["geometry"][0]["n_indices"] == 4 and d["geometry"][0]["bbox_max"] == [1, 1, 1]),
    ("mesh_beside_included_file", {"sub/tet.obj": (DATA / "tet.obj").read_text(),
                                   "sub/part.robray": 'frame p { geometry { mesh "tet.obj"; } }\n',
                                   "s.robray": 'include "sub/part.robray"\n'},
     lambda d: d["geometry"][0]["bbox_max"] == [1, 2, 3]),
]


def _frame(d: dict, name: str) -> dict:
    return next(f for f in d["frames"] if f["name"] == name)


@pytest.mark.parametrize("ext", EXTENSIONS, ids=[e[0] for e in EXTENSIONS])
def test_extension(ext: tuple, tmp_path: Path) -> None:
    """The original rejects these inputs; robrayc compiles them and the real library loads the
    intended scene."""
    A.require_aarxc()
    _id, files, check = ext
    for fname, text in files.items():
        (tmp_path / fname).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / fname).write_text(text)
    src = tmp_path / "s.robray"
    theirs = A.run_aarxc([src], "e", tmp_path / "a" / "e.c", timeout=15, tries=1)
    assert not theirs.ok, "the original accepts it now: move it to the differential table"
    ours = A.run_robrayc([src], "e", tmp_path / "r" / "e.c")
    assert ours.ok, ours.output
    (d,) = A.load_c(ours.c_file, "e")
    assert check(d), json.dumps(d)[:3000]


# --- the corpus: every amino file and every standalone public file ---------------------------

# Standalone public files the ORIGINAL rejects, with why; for these robrayc must reject too,
# with a located error instead of a backtrace (they are not in the differential set).
ORIGINAL_REJECTS = {
    # mesh "/home/mschack/Git/..." absolute paths to files no corpus holds
    "dyalab+calamity/schunk/lwa4d.robray": "mesh",
    "dyalab+calamity/schunk/schunk_mounted.robray": "mesh",
    "dyalab+calamity/schunk/schunk_on_table.robray": "mesh",
    "dyalab+calamity/schunk/schunk_with_table.robray": "mesh",
}

CORPUS_FILES = amino_corpus_files() + public_files("standalone")
_DIFFERENTIAL = [p for p in CORPUS_FILES
                 if not any(str(p).endswith(k) for k in ORIGINAL_REJECTS)]
_REJECTED = [p for p in CORPUS_FILES if any(str(p).endswith(k) for k in ORIGINAL_REJECTS)]


@pytest.mark.parametrize("path", _DIFFERENTIAL, ids=[corpus_id(p) for p in _DIFFERENTIAL])
def test_corpus_scene(path: Path, tmp_path: Path) -> None:
    require_corpus()
    out = differential([path], tmp_path)
    assert_conforms(out)
    # Class-only files load as empty scenes in both; the others must really hold frames.
    if re.search(r"^\s*frame\b", path.read_text(errors="replace"), re.M):
        assert out.ours[0]["frames"]


@pytest.mark.parametrize("path", _REJECTED, ids=[corpus_id(p) for p in _REJECTED])
def test_corpus_scene_both_reject(path: Path, tmp_path: Path) -> None:
    require_corpus()
    A.require_aarxc()
    what = next(v for k, v in ORIGINAL_REJECTS.items() if str(path).endswith(k))
    # (the original fails on the missing meshes, or deadlocks: a timeout counts as failing)
    theirs = A.run_aarxc([path], "conf", tmp_path / "a.c", timeout=15, tries=1)
    assert not theirs.ok
    ours = A.run_robrayc([path], "conf", tmp_path / "r.c")
    assert ours.returncode == 1, ours.output
    assert "Traceback" not in ours.output
    assert re.search(r":\d+:\d+: error: .*" + what, ours.stderr), ours.stderr


def test_corpus_lists_are_complete() -> None:
    """The corpus was found and every standalone file is either compared or known-rejected."""
    require_corpus()
    assert len(amino_corpus_files()) >= 7
    assert len(public_files("standalone")) >= 20
    assert len(_REJECTED) == len(ORIGINAL_REJECTS)


# --- URDF -------------------------------------------------------------------------------------

URDF_DATA = DATA / "urdf"
ALL_URDFS = (sorted(URDF_CORPUS.rglob("*.urdf")) + sorted(URDF_CORPUS.rglob("robot.xml"))
             if URDF_CORPUS.is_dir() else [])


def _urdf_meshes(path: Path) -> list[str]:
    return re.findall(r"<mesh\s[^>]*filename\s*=\s*\"([^\"]+)\"", path.read_text())


# The URDFs the original compiles without Blender: primitive shapes or .obj meshes only.
URDF_NO_BLENDER = [p for p in ALL_URDFS
                   if all(m.lower().endswith(".obj") for m in _urdf_meshes(p))]


@pytest.mark.parametrize("path", URDF_NO_BLENDER, ids=[p.name for p in URDF_NO_BLENDER])
def test_corpus_urdf(path: Path, tmp_path: Path) -> None:
    """Corpus URDFs the original compiles: the same scene in the real library."""
    require_corpus()
    out = differential([path], tmp_path, env={"ROS_PACKAGE_PATH": ros_package_path()})
    assert_conforms(out)
    assert out.ours[0]["frames"]


def test_corpus_urdf_selection() -> None:
    require_corpus()
    assert len(ALL_URDFS) >= 14
    # 01-04 of urdf_tutorial; every other corpus robot has .dae/.stl meshes (Blender)
    assert {p.name for p in URDF_NO_BLENDER} >= {"01-myfirst.urdf", "02-multipleshapes.urdf",
                                                  "03-origins.urdf", "04-materials.urdf"}


def test_urdf_inertia(tmp_path: Path) -> None:
    """The original writes inertia only for joint frames, as {ixx,-ixy,-ixz,ixy,iyy,-iyz,ixz,
    iyz,izz}; robrayc writes the true symmetric tensor on every frame holding an inertial."""
    out = differential([URDF_DATA / "inertia.urdf"], tmp_path)
    assert_conforms(out, ("inertia",))
    ours, theirs = out.ours[0]["frames"], out.theirs[0]["frames"]
    ixx, ixy, ixz, iyy, iyz, izz = 0.1, 0.002, -0.003, 0.2, 0.004, 0.3
    assert ours["shoulder"]["inertia"] == [ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz]
    assert ours["shoulder"]["mass"] == 1.5
    bug = [ixx, -ixy, -ixz, ixy, iyy, -iyz, ixz, iyz, izz]
    assert theirs["shoulder"]["inertia"] == pytest.approx(bug, rel=1e-6)
    assert ours["base-inertial"]["mass"] == 3 and theirs["base-inertial"]["mass"] is None
    assert ours["hand-inertial"]["mass"] == 0.5 and theirs["hand-inertial"]["mass"] is None
    assert ours["hand-inertial"]["inertia"][1] == ours["hand-inertial"]["inertia"][3] == -0.001


def test_urdf_materials_and_shape_frames(tmp_path: Path) -> None:
    """Two visuals needing their own frame on one link: the original names both `base-visual`
    (amino keeps the last, the box is LOST) and paints every shape with the first visual's
    material; robrayc keeps both (`base-visual-2`), each with its own material."""
    A.require_aarxc()
    src = URDF_DATA / "materials.urdf"
    theirs = A.run_aarxc([src], "u", tmp_path / "a" / "u.c")
    ours = A.run_robrayc([src], "u", tmp_path / "r" / "u.c")
    assert theirs.ok and ours.ok, theirs.output + ours.output
    t = A.normalize(A.load_c(theirs.c_file, "u")[0])
    o = A.normalize(A.load_c(ours.c_file, "u")[0])
    assert [g["shape"] for g in t["geometry"]["base-visual"]] == ["sphere"]  # box lost
    assert t["geometry"]["base-visual"][0]["opt"]["color"] == [1, 0, 0]  # red, not blue
    assert "base-visual-2" not in t["frames"]
    assert [g["shape"] for g in o["geometry"]["base-visual"]] == ["box"]
    assert o["geometry"]["base-visual"][0]["opt"]["color"] == [1, 0, 0]
    sphere = o["geometry"]["base-visual-2"][0]
    assert sphere["shape"] == "sphere" and sphere["opt"]["color"] == [0, 0, 1]
    assert sphere["opt"]["alpha"] == 0.5
    assert o["frames"]["base-visual-2"]["abs_v"] == [0, 0, 0.2]
    # collision shapes take the first visual's colour, as in the original
    assert o["geometry"]["base-collision"] == t["geometry"]["base-collision"] or \
        o["geometry"]["base-collision"][0]["opt"] == t["geometry"]["base-collision"][0]["opt"]


def test_urdf_mesh_scale(tmp_path: Path) -> None:
    """`scale="1 2 3"`: the original keeps only x; robrayc scales the embedded vertices."""
    out = differential([URDF_DATA / "mesh_scale.urdf"], tmp_path, cwd=URDF_DATA)
    assert [str(m) for m in out.mismatches if "bbox_max" not in m.path] == []
    assert out.ours[0]["geometry"]["base-visual"][0]["bbox_max"] == [1, 4, 9]
    assert out.theirs[0]["geometry"]["base-visual"][0]["bbox_max"] == [1, 2, 3]


def test_urdf_relative_mesh_path(tmp_path: Path) -> None:
    """A relative mesh filename: the original opens it relative to its working directory;
    robrayc relative to the URDF file."""
    A.require_aarxc()
    src = URDF_DATA / "mesh_scale.urdf"
    theirs = A.run_aarxc([src], "u", tmp_path / "a" / "u.c", cwd=tmp_path, timeout=15, tries=3)
    assert not theirs.ok and "tet.obj" in theirs.output
    ours = A.run_robrayc([src], "u", tmp_path / "r" / "u.c", cwd=tmp_path)
    assert ours.ok, ours.output
    assert A.load_c(ours.c_file, "u")[0]["geometry"][0]["n_indices"] == 4


@pytest.mark.parametrize("name,needle", [("no_axis.urdf", "AXIS"),
                                         ("half_limit.urdf", "invalid joint-limit")])
def test_urdf_original_fails(name: str, needle: str, tmp_path: Path) -> None:
    """A joint without <axis> (URDF default 1 0 0) and a limit with one bound (the other is 0):
    the original fails; robrayc follows the URDF spec and the real library loads it."""
    A.require_aarxc()
    theirs = A.run_aarxc([URDF_DATA / name], "u", tmp_path / "a" / "u.c")
    assert not theirs.ok and needle in theirs.output
    ours = A.run_robrayc([URDF_DATA / name], "u", tmp_path / "r" / "u.c")
    assert ours.ok, ours.output
    (d,) = A.load_c(ours.c_file, "u", [{"j": math.pi / 2}])
    frames = {f["name"]: f for f in d["frames"]}
    limits = {c["name"]: c["limits"] for c in d["configs"]}
    if name == "no_axis.urdf":
        assert frames["j"]["axis"] == [1, 0, 0]
        # (0, 0.3, 0.1) turned a quarter about +X
        assert frames["t"]["abs"]["v"] == pytest.approx([0, -0.1, 0.3], abs=1e-12)
    else:
        assert limits["lo_only"]["pos"] == [-1.5, 0]
        assert limits["hi_only"]["pos"] == [0, 0.25]


# --- robots through the real library (issue 8 item 4) -----------------------------------------

# Mesh files the corpus lacks (see corpus/urdf/SOURCES.md): compiled with --missing-mesh=drop.
MISSING_MESHES = {"baxter.urdf": 2, "fetch.urdf": 1, "freight.urdf": 1}


def _package_file(uri: str, urdf: Path) -> Path | None:
    """An independent package:// resolver over the corpus package roots."""
    if uri.startswith("package://"):
        pkg, _, rest = uri[len("package://"):].partition("/")
        for root in PACKAGE_ROOTS:
            cand = URDF_CORPUS / root / pkg / rest
            if cand.is_file():
                return cand
        return None
    path = Path(uri[len("file://"):] if uri.startswith("file://") else uri)
    path = path if path.is_absolute() else urdf.parent / path
    return path if path.is_file() else None


def _reference_mesh(path: Path, scale) -> tuple[int, int, list, list]:
    """(triangles, unique vertices, bbox min, bbox max) by trimesh, in amino's Z-up frame."""
    import numpy as np
    import trimesh

    mesh = trimesh.load(str(path), force="mesh")
    if path.suffix.lower() == ".dae" and "<up_axis>Y_UP" in path.read_text(errors="replace"):
        # COLLADA Y-up files are turned to Z-up (as Blender does for the original, and ROS)
        mesh.apply_transform(trimesh.transformations.rotation_matrix(math.pi / 2, [1, 0, 0]))
    s = np.ones(3) * (np.asarray(scale, float) if scale is not None else 1.0)
    unique = len(np.unique(np.asarray(mesh.vertices, dtype=np.float32), axis=0))
    return len(mesh.faces), unique, list(mesh.bounds[0] * s), list(mesh.bounds[1] * s)


@pytest.mark.parametrize("path", ALL_URDFS, ids=[p.name for p in ALL_URDFS])
def test_urdf_robot_real_library(path: Path, tmp_path: Path) -> None:
    """Every corpus robot: robrayc's C loads in the real amino with one frame per joint, the
    URDF's joint limits, every mesh with the file's triangle count and bounds, and the
    end-effector poses of amino's FK equal to yourdfpy's FK within 1e-9 at a random
    configuration."""
    import numpy as np
    import yourdfpy

    require_corpus()
    A.require_library()
    extra = ["--missing-mesh=drop"] if path.name in MISSING_MESHES else []
    ours = A.run_robrayc([path], "robot", tmp_path / "robot.c",
                         env={"ROS_PACKAGE_PATH": ros_package_path()}, extra=extra)
    assert ours.ok, ours.output[-3000:]
    assert ours.stderr.count("warning:") >= MISSING_MESHES.get(path.name, 0)

    urdf = yourdfpy.URDF.load(str(path), build_scene_graph=True, load_meshes=False,
                              build_collision_scene_graph=False, load_collision_meshes=False)
    rng = random.Random(zlib.crc32(path.name.encode()))  # seeded per robot, stable across runs
    cfg: dict[str, float] = {}
    for name in urdf.actuated_joint_names:
        j = urdf.joint_map[name]
        lim = j.limit
        if (j.type != "continuous" and lim is not None and lim.lower is not None
                and lim.upper is not None and lim.lower < lim.upper):
            cfg[name] = rng.uniform(lim.lower, lim.upper)
        else:
            cfg[name] = rng.uniform(-math.pi, math.pi)
    urdf.update_cfg(cfg)
    (d,) = A.load_c(ours.c_file, "robot", [cfg])
    assert d["unknown_configs"] == []
    frames = {f["name"]: f for f in d["frames"]}

    # frames: one per joint, named after it, with its type; the rest are shape frames
    joints = urdf.robot.joints
    kinds = {"continuous": "revolute", "revolute": "revolute", "prismatic": "prismatic",
             "fixed": "fixed"}
    for j in joints:
        assert frames[j.name]["type"] == kinds[j.type], j.name
    links = {link.name for link in urdf.robot.links}
    extra_frames = set(frames) - {j.name for j in joints}
    for name in extra_frames:
        m = re.fullmatch(r"(.+)-(visual|collision|inertial)(-\d+)?", name)
        assert m and m.group(1) in links and frames[name]["type"] == "fixed", name
    assert d["frame_count"] == len(joints) + len(extra_frames)

    # joint limits
    configs = {c["name"]: c["limits"] for c in d["configs"]}
    for name in urdf.actuated_joint_names:
        j = urdf.joint_map[name]
        if j.mimic is not None:
            continue
        lim = configs[name]
        if j.limit is not None:
            if j.type != "continuous":
                assert lim["pos"] == [j.limit.lower or 0.0, j.limit.upper or 0.0], name
            if j.limit.velocity is not None:
                assert lim["vel"] == [-j.limit.velocity, j.limit.velocity], name
            if j.limit.effort is not None:
                assert lim["eff"] == [-j.limit.effort, j.limit.effort], name

    # end-effector poses: leaf links, held by the frame of their joint
    child_joint = {j.child: j.name for j in joints}
    parents = {j.parent for j in joints}
    leaves = [n for n in child_joint if n not in parents]
    for link in leaves:
        T = urdf.get_transform(link, urdf.base_link)
        f = frames[child_joint[link]]
        R = np.array(f["abs"]["R"]).reshape(3, 3)
        assert np.abs(R - T[:3, :3]).max() <= 1e-9, link
        assert np.abs(np.array(f["abs"]["v"]) - T[:3, 3]).max() <= 1e-9, link

    # meshes: triangle count and bounds per mesh file, as multisets over the robot
    ref = []
    for link in urdf.robot.links:
        for el in [*link.visuals, *link.collisions]:
            if el.geometry is None or el.geometry.mesh is None:
                continue
            file = _package_file(el.geometry.mesh.filename, path)
            if file is not None:
                ref.append(_reference_mesh(file, el.geometry.mesh.scale))
    got = [g for g in d["geometry"] if g["shape"] == "mesh"]
    assert len(got) == len(ref)
    for g in got:
        s = g["opt"]["scale"]
        box = np.array(g["bbox_min"] + g["bbox_max"]) * s
        # pair with the closest unmatched reference mesh of the same triangle count
        cands = [r for r in ref if r[0] == g["n_indices"]]
        assert cands, f"no mesh of {g['n_indices']} triangles in the URDF ({g['frame']})"
        best = min(cands, key=lambda r: float(np.abs(np.array(r[2] + r[3]) - box).max()))
        ref.remove(best)
        tris, unique, lo, hi = best
        assert np.allclose(box, lo + hi, rtol=1e-6, atol=1e-7), (g["frame"], box, lo + hi)
        # every distinct position is there; at most one vertex per triangle corner
        assert unique <= g["n_vertices"] <= 3 * tris, (g["frame"], unique, g["n_vertices"])


# --- the documented list of differences -------------------------------------------------------


def _doc_entries() -> dict[str, str]:
    text = (HERE.parent / "docs" / "differences.md").read_text()
    parts = re.split(r"^### `([a-z0-9-]+)`.*$", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_differences_are_documented_and_pinned() -> None:
    """Every difference id a test uses is in docs/differences.md, and every
    documented difference names tests that exist (function and parameter id)."""
    entries = _doc_entries()
    assert set(DIFFERENCES) <= set(entries), set(DIFFERENCES) - set(entries)
    for c in CASES:
        assert set(c.differences) <= set(entries), c
    params = {"test_small_scene": {c.id for c in CASES},
              "test_original_gets_wrong": {w.id for w in WRONG},
              "test_extension": {e[0] for e in EXTENSIONS}}
    for ident, body in entries.items():
        pins = re.findall(r"\*\*Pinned by:\*\*(.*?)(?:\n\n|\n###|\Z)", body, re.S)
        assert pins, f"{ident}: no 'Pinned by' line"
        nodes = re.findall(r"`(tests/[\w/]+\.py)::(\w+)(?:\[([\w-]+)\])?`", pins[0])
        assert nodes, f"{ident}: 'Pinned by' names no test"
        for file, func, param in nodes:
            src = (HERE.parent / file).read_text()
            assert re.search(rf"^def {func}\(", src, re.M), f"{ident}: {file}::{func} missing"
            if param:
                assert param in params.get(func, {param}), f"{ident}: {func}[{param}] missing"
    # the extension table in the doc lists exactly the extension tests
    rows = set(re.findall(r"\| `([\w-]+)` \|$", entries["extensions"], re.M))
    assert rows == params["test_extension"], rows ^ params["test_extension"]


# --- the infrastructure itself: it must see differences and agree with itself ---------------


def test_original_agrees_with_itself(tmp_path: Path) -> None:
    """Loading the original's output twice gives no mismatch (the comparison is deterministic)."""
    A.require_aarxc()
    c = A.run_aarxc([DATA / "chain.robray"], "conf", tmp_path / "a.c")
    assert c.ok, c.output
    cfg = A.random_configs([f"l{i}" for i in range(6)], [7])[0]
    a, b = (A.normalize(d) for d in A.load_c(c.c_file, "conf", [cfg, dict(cfg)]))
    assert A.compare(a, b) == []
    assert a["frames"]["ee"]["parent"] == "l6"
    assert a["geometry"]["ee"][0]["shape"] == "cone"


def test_comparison_sees_a_perturbed_scene(tmp_path: Path) -> None:
    """A 2e-6 change of one translation, a colour change and a dropped allowed pair are all
    reported (the check is not vacuous)."""
    A.require_aarxc()
    c = A.run_aarxc([DATA / "joint_geometry.robray"], "conf", tmp_path / "a.c")
    assert c.ok, c.output
    text = c.c_file.read_text()
    pert = text.replace("{1.0, 0.0, 0.0}", "{1.000002, 0.0, 0.0}", 1)
    pert = pert.replace("set_color3(opt, 0.8, 0.8, 0.8)", "set_color3(opt, 0.8, 0.7, 0.8)", 1)
    pert = re.sub(r"\s*aa_rx_sg_allow_collision_name\([^;]*;", "", pert)
    assert pert != text
    (tmp_path / "b.c").write_text(pert)
    a = A.normalize(A.load_c(c.c_file, "conf")[0])
    b = A.normalize(A.load_c(tmp_path / "b.c", "conf")[0])
    paths = {m.path for m in A.compare(b, a)}
    assert "frames/hand/abs_v" in paths
    assert "geometry/arm/0/opt" in paths or "geometry/hand/0/opt" in paths
    assert "allowed" in paths


def test_loaded_scene_has_amino_fk(tmp_path: Path) -> None:
    """check_scene reports amino's own FK: a revolute joint about Z at q=pi/2 turns the child's
    offset (1,0,0) into (0,1,0)."""
    A.require_aarxc()
    c = A.run_aarxc([DATA / "joint_geometry.robray"], "conf", tmp_path / "a.c")
    assert c.ok, c.output
    (d,) = A.load_c(c.c_file, "conf", [{"arm": math.pi / 2, "hand": 0.25}])
    hand = {f["name"]: f for f in d["frames"]}["hand"]
    assert hand["abs"]["v"] == pytest.approx([0, 1.25, 0], abs=1e-12)


def test_ci_never_skips(monkeypatch: pytest.MonkeyPatch) -> None:
    """With CI=true a missing library fails the test instead of skipping it."""
    monkeypatch.setitem(A._status, "library", "pretend it is missing")
    monkeypatch.setattr(A, "IN_CI", True)
    with pytest.raises(pytest.fail.Exception, match="must not skip"):
        A.require_library()
    monkeypatch.setattr(A, "IN_CI", False)
    with pytest.raises(pytest.skip.Exception):
        A.require_library()


def test_check_binary_is_cached(tmp_path: Path) -> None:
    A.require_aarxc()
    c = A.run_aarxc([DATA / "shapes.robray"], "conf", tmp_path / "a.c")
    assert c.ok, c.output
    b1 = A.check_binary(c.c_file, "conf")
    mtime = b1.stat().st_mtime_ns
    (tmp_path / "again").mkdir()
    copy = tmp_path / "again" / "a.c"
    copy.write_bytes(c.c_file.read_bytes())
    copy.with_name("a.c.h").write_bytes(c.c_file.with_name("a.c.h").read_bytes())
    b2 = A.check_binary(copy, "conf")
    assert b1 == b2 and b2.stat().st_mtime_ns == mtime
    assert json.loads(json.dumps(A.run_check(b2)))["frame_count"] == 5
