"""Bad inputs: each gives `file:line:col: error: message` (plus a caret), the right exit status,
never a traceback, and leaves an existing output untouched."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.run import robrayc

# (id, source, message regex, line, col, exit status, extra args)
CASES: list[tuple[str, bytes | str, str, int, int, int, tuple[str, ...]]] = [
    ("unterminated-comment", "frame a { }\n/* never closed", r"unterminated comment", 2, 1, 1, ()),
    ("unterminated-string", 'frame "abc { }', r"unterminated string", 1, 7, 1, ()),
    ("stray-brace", "frame a { }\n}", r"unexpected '\}'", 2, 1, 1, ()),
    ("missing-semicolon", "frame a { parent b }", r"expected ';' before '\}'", 1, 20, 1, ()),
    ("missing-semicolon-def", "def a 1\ndef b 2;", r"expected ';' before 'def'", 2, 1, 1, ()),
    ("nul-byte", b"frame a { \x00 }", r"unexpected character '\\x00'", 1, 11, 1, ()),
    ("garbage-char", "frame a { $ }", r"unexpected character '\$'", 1, 11, 1, ()),
    ("invalid-utf8", b"frame a { }\n\xff\xfe", r"invalid UTF-8 byte 0xff", 2, 1, 1, ()),
    ("unexpected-eof", "frame a {", r"expected '\}' at end of input", 1, 10, 1, ()),
    ("unknown-statement", 'scenegraph { file "x.urdf"; }', r"unknown statement 'scenegraph'",
     1, 1, 1, ()),
    ("misspelt-keyword", "fram a { }", r"unknown statement 'fram'", 1, 1, 1, ()),
    ("unknown-name", "def a b;", r"unknown name 'b'", 1, 7, 1, ()),
    ("unknown-name-in-frame", "frame a { translation [0, 0, hieght]; }", r"unknown name 'hieght'",
     1, 30, 1, ()),
    ("division-by-zero", "def a 1/0;", r"division by zero", 1, 7, 1, ()),
    ("zero-negative-power", "def a 0^-1;", r"division by zero", 1, 7, 1, ()),
    ("overflow-tower", "def a 9**9**9;", r"overflow", 1, 7, 1, ()),
    ("overflow-product", "def a 1e308*10;", r"overflow", 1, 7, 1, ()),
    ("complex-power", "def a (-8)^0.5;", r"complex result", 1, 7, 1, ()),
    ("redefinition-werror", "def a 1;\ndef a 2;", r"redefinition of 'a'", 2, 5, 1, ("-W", "error")),
    ("unknown-frame-attr", "frame a { transation [0,0,0]; }", r"unknown attribute 'transation'",
     1, 11, 1, ()),
    ("geometry-attr-in-frame", "frame a { shape box; }", r"'shape' is a geometry attribute",
     1, 11, 1, ()),
    ("frame-attr-in-geometry", "frame a { geometry { parent b; shape sphere; radius 1; } }",
     r"'parent' is a frame attribute", 1, 22, 1, ()),
    ("unknown-geometry-attr", "frame a { geometry { shape sphere; raduis 1; } }",
     r"unknown attribute 'raduis' in geometry", 1, 36, 1, ()),
    ("wrong-arity", "frame a { translation [1, 2]; }",
     r"expected 3 values for 'translation', got 2", 1, 23, 1, ()),
    ("scalar-for-array", "frame a { translation 1; }",
     r"expected an array of 3 numbers for 'translation'", 1, 23, 1, ()),
    ("array-for-scalar", "frame a { type revolute; axis [0,0,1]; offset [1]; }",
     r"expected a number for 'offset'", 1, 47, 1, ()),
    ("string-for-number", 'frame a { geometry { shape sphere; radius "x"; } }',
     r"expected a number for 'radius', got a string", 1, 43, 1, ()),
    ("number-for-name", "frame a { parent 1; }", r"expected a name for 'parent'", 1, 18, 1, ()),
    ("joint-without-axis", "frame a { type revolute; }", r"revolute frame 'a' has no 'axis'",
     1, 7, 1, ()),
    ("zero-axis", "frame a { type prismatic; axis [0, 0, 0]; }",
     r"axis of prismatic frame 'a' is zero", 1, 32, 1, ()),
    ("unknown-joint-type", "frame a { type revolut; axis [0,0,1]; }",
     r"unknown joint type 'revolut'", 1, 16, 1, ()),
    ("zero-quaternion", "frame a { quaternion [0, 0, 0, 0]; }", r"quaternion is zero", 1, 22, 1, ()),
    ("non-unit-quaternion-werror", "frame a { quaternion [0, 0, 0, 2]; }",
     r"quaternion has norm 2.0; normalised", 1, 22, 1, ("-W", "error")),
    ("duplicate-frame", "frame a { }\nframe a { }", r"duplicate frame 'a'", 2, 7, 1, ()),
    ("unknown-parent", "frame a { }\nframe b { parent c; }", r"unknown parent frame 'c'",
     2, 18, 1, ()),
    ("parent-cycle", "frame a { parent b; }\nframe b { parent a; }", r"parent cycle: a -> b -> a",
     1, 18, 1, ()),
    ("self-parent", "frame a { parent a; }", r"parent cycle: a -> a", 1, 18, 1, ()),
    ("nested-reparent", "frame a { frame b { parent c; } }", r"cannot reparent nested frame 'b'",
     1, 28, 1, ()),
    ("allow-unknown-werror", "frame a { }\nallow_collision a zz;",
     r"allow_collision names unknown frame 'zz'", 2, 17, 1, ("-W", "error")),
    ("no-shape", "frame a { geometry { color [1, 0, 0]; } }", r"no shape or mesh", 1, 11, 1, ()),
    ("unknown-shape", "frame a { geometry { shape bx; } }", r"unknown shape 'bx'", 1, 28, 1, ()),
    ("box-without-dimension", "frame a { geometry { shape box; } }",
     r"box geometry needs 'dimension'", 1, 11, 1, ()),
    ("shape-mesh-without-file", "frame a { geometry { shape mesh; } }",
     r"'shape mesh' needs a file", 1, 28, 1, ()),
    ("missing-mesh", 'frame a { geometry { mesh "nope.stl"; } }', r"mesh file 'nope.stl' not found",
     1, 27, 1, ()),
    ("negative-radius", "frame a { geometry { shape sphere; radius -1; } }",
     r"'radius' must not be negative", 1, 43, 1, ()),
    ("include-missing", 'include "nope.robray"\nframe a { }', r"cannot find include file 'nope.robray'",
     1, 9, 1, ()),
    ("include-self", 'include "scene.robray"\nframe a { }', r"include cycle", 1, 9, 1, ()),
    ("duplicate-class", "class c { }\nclass c { }", r"duplicate class 'c'", 2, 7, 1, ()),
    ("limit-min-above-max", "frame a { type revolute; axis [0,0,1]; limit_position [1, -1]; }",
     r"limit_position: minimum 1.0 is above maximum -1.0", 1, 55, 1, ()),
    ("asymmetric-inertia", "frame a { mass 1; inertia [1,2,0, 0,1,0, 0,0,1]; }",
     r"inertia matrix is not symmetric", 1, 27, 1, ()),
    ("undeclared-class-werror", "frame a { geometry { isa thing; shape sphere; radius 1; } }",
     r"class 'thing' is not declared", 1, 22, 1, ("-W", "error")),
    ("hyphen-subtraction-hint", "def a 1;\ndef b 2;\ndef c a-b;", r"unknown name 'a-b'", 3, 7, 1, ()),
]


def _files(tmp_path: Path, source: bytes | str, args: tuple[str, ...] = ()):
    """The scene (source) and an existing output ("precious"), and the extra arguments."""
    scene = tmp_path / "scene.robray"
    scene.write_bytes(source.encode() if isinstance(source, str) else source)
    out = tmp_path / "out.c"
    out.write_text("precious")
    return scene, out, list(args)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_input(case, tmp_path: Path) -> None:
    _, source, message, line, col, status, args = case
    scene, out, extra = _files(tmp_path, source, args)
    run = robrayc(scene, "-o", out, *extra)
    assert run.status == status, run.err
    err = run.err
    assert "Traceback" not in err
    first = next(ln for ln in err.splitlines() if ": error: " in ln)
    m = re.match(r"(.*):(\d+):(\d+): error: (.*)", first)
    assert m, first
    assert m.group(1) == str(scene)
    assert re.search(message, m.group(4)), first
    assert (int(m.group(2)), int(m.group(3))) == (line, col), first
    assert "^" in err  # the source line with a caret
    assert out.read_text() == "precious"  # a failed run leaves the output alone


def test_at_least_forty_cases() -> None:
    assert len(CASES) >= 40


def test_hints(tmp_path: Path) -> None:
    scene, out, _ = _files(tmp_path, "def length 1;\ndef b lenght;")
    run = robrayc(str(scene))
    assert run.status == 1, run.err
    assert "hint: did you mean 'length'?" in run.err
    scene.write_text("def a 1;\ndef b 2;\ndef c a-b;")
    run = robrayc(str(scene))
    assert run.status == 1, run.err
    assert "write 'a - b'" in run.err
    scene.write_text("frame a { transation [0,0,0]; }")
    run = robrayc(str(scene))
    assert run.status == 1, run.err
    assert "did you mean 'translation'?" in run.err


def test_include_cycle_prints_the_chain(tmp_path: Path) -> None:
    (tmp_path / "a.robray").write_text('include "b.robray"\nframe a { }')
    (tmp_path / "b.robray").write_text('include "a.robray"\n')
    run = robrayc(str(tmp_path / "a.robray"))
    assert run.status == 1, run.err
    err = run.err
    assert "include cycle: " in err and "a.robray -> " in err and "b.robray -> " in err
    assert f"{tmp_path / 'b.robray'}:1:9: error" in err


def test_include_directory(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "s.robray").write_text('include "d"\nframe a { }')
    run = robrayc(str(tmp_path / "s.robray"))
    assert run.status == 1, run.err
    assert "is a directory" in run.err


def test_duplicate_frame_across_files(tmp_path: Path) -> None:
    (tmp_path / "a.robray").write_text("frame x { }")
    (tmp_path / "b.robray").write_text("\nframe x { }")
    run = robrayc(str(tmp_path / "a.robray"), str(tmp_path / "b.robray"))
    assert run.status == 1, run.err
    err = run.err
    assert f"{tmp_path / 'b.robray'}:2:7: error: duplicate frame 'x'" in err
    assert f"{tmp_path / 'a.robray'}:1:7: note: first defined here" in err


def test_unknown_parent_resolved_across_files(tmp_path: Path) -> None:
    (tmp_path / "a.robray").write_text("frame child { parent base; }")
    (tmp_path / "b.robray").write_text("frame base { }")
    run = robrayc(str(tmp_path / "a.robray"), str(tmp_path / "b.robray"))
    assert run.status == 0, run.err


@pytest.mark.parametrize("args,message", [
    ([], "no input scene"),
    (["x.robray", "--var", "a"], "each --var needs a --val"),
    (["x.robray", "--var", "a", "--val", "abc"], "is not a number"),
    (["x.robray", "--bogus"], "unrecognized arguments"),
    (["x.robray", "--color=sometimes"], "invalid choice"),  # -W: test_warning_options.py
    (["x.robray", "--format", "nope"], "invalid choice"),
])
def test_usage_errors_exit_2(args, message) -> None:
    run = robrayc(*args)
    assert run.status == 2, run.err
    err = run.err
    assert message in err and "Traceback" not in err


def test_input_problems(tmp_path: Path) -> None:
    (tmp_path / "d.robray").mkdir()
    run = robrayc(str(tmp_path / "d.robray"))
    assert run.status == 1, run.err
    assert "is a directory" in run.err
    run = robrayc(str(tmp_path / "missing.robray"))
    assert run.status == 1, run.err
    assert "No such file or directory" in run.err
    (tmp_path / "f.robray").write_text("frame a { }")
    run = robrayc(str(tmp_path / "f.robray" / "x.robray"))
    assert run.status == 1, run.err
    assert "Not a directory" in run.err
    fifo = tmp_path / "p.robray"
    os.mkfifo(fifo)
    run = robrayc(str(fifo))
    assert run.status == 1, run.err
    assert "not a regular file" in run.err
    (tmp_path / "x.txt").write_text("frame a { }")
    run = robrayc(str(tmp_path / "x.txt"))
    assert run.status == 1, run.err
    assert "unrecognized scene file suffix '.txt'" in run.err


def test_bad_scene_name(tmp_path: Path) -> None:
    (tmp_path / "s.robray").write_text("frame a { }")
    run = robrayc(str(tmp_path / "s.robray"), "-n", "bad-name", "-o", str(tmp_path / "o.c"))
    assert run.status == 1, run.err
    assert "is not a C identifier" in run.err


def test_several_errors_in_one_run(tmp_path: Path) -> None:
    (tmp_path / "s.robray").write_text("def a b;\ndef c d;\nframe x { parent y; }")
    run = robrayc(str(tmp_path / "s.robray"))
    assert run.status == 1, run.err
    err = run.err
    assert "unknown name 'b'" in err and "unknown name 'd'" in err
