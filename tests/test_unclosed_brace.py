"""An unclosed '{' is reported as the missing '}', with a note where the block opened (as
gcc: "expected '}' at end of input" / "note: to match this '{'")."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.run import robrayc

CASES = [
    # a class left open, then the next statement
    ("class c {\n  color [1, 0, 0];\n\nframe a {\n  parent b;\n}\n",
     "4:1: error: expected '}' before 'frame'", "1:9: note: to match this '{'"),
    # a frame left open, then statements that cannot be among its items (issue 32)
    ("frame table { }\nframe lamp {\n    parent table;\n"
     "    geometry { shape sphere; radius 0.05; }\n\nallow_collision table lamp;\n",
     "6:1: error: expected '}' before 'allow_collision'", "2:12: note: to match this '{'"),
    ("frame a {\n  parent b;\nclass c { color [1, 0, 0]; }\n",
     "3:1: error: expected '}' before 'class'", "1:9: note: to match this '{'"),
    ("frame a {\n  parent b;\ndef x 1;\nframe c { }\n",
     "3:1: error: expected '}' before 'def'", "1:9: note: to match this '{'"),
    ("frame a {\n  geometry { shape box;\nframe c { }\n",
     "3:1: error: expected '}' before 'frame'", "2:12: note: to match this '{'"),
    ('frame a {\n  parent b;\ninclude "x.robray" frame c { }\n',
     "3:1: error: expected '}' before 'include'", "1:9: note: to match this '{'"),
    # even where the statement would parse as an attribute
    ('frame a {\n  parent b;\ninclude "x.robray";\nframe c { }\n',
     "3:1: error: expected '}' before 'include'", "1:9: note: to match this '{'"),
    # the last frame left open
    ("frame a { }\nframe b {\n  translation [0, 0, 1];\n",
     "3:25: error: expected '}' at end of input", "2:9: note: to match this '{'"),
    # a nested block closed, the outer one not: the note names the outer one
    ("frame a {\n  geometry { shape box; dimension [1, 1, 1]; }\n  frame b { }\n",
     "3:14: error: expected '}' at end of input", "1:9: note: to match this '{'"),
    # braces inside comments and strings do not count
    ('frame a { /* } */\n  frame "}" { }\n',
     "2:16: error: expected '}' at end of input", "1:9: note: to match this '{'"),
]


@pytest.mark.parametrize("source, error, note", CASES)
def test_unclosed_brace(tmp_path: Path, source: str, error: str, note: str) -> None:
    scene = tmp_path / "s.robray"
    scene.write_text(source)
    run = robrayc(scene, "-o", tmp_path / "s.c")
    assert run.status == 1
    lines = run.err.splitlines()
    errors = [line for line in lines if ": error: " in line]
    notes = [line for line in lines if ": note: " in line]
    assert errors == [f"{scene}:{error}"]
    assert notes == [f"{scene}:{note}"]
    assert not (tmp_path / "s.c").exists()


def test_missing_semicolon_is_still_a_missing_semicolon(tmp_path: Path) -> None:
    scene = tmp_path / "s.robray"
    scene.write_text("frame a {\n  parent b\n  frame c { }\n}\n")
    run = robrayc(scene, "-o", tmp_path / "s.c")
    assert run.status == 1
    err = run.err
    assert f"{scene}:3:3: error: expected ';' before 'frame'" in err
    assert "note" not in err
