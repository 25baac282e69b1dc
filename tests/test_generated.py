"""The committed generated modules (parser tables, templates, records) are current, and a
compile and the language server execute no generated source (nothing `exec`-ed at run time).

`python -m robrayc.regen` rewrites them all; this is the one staleness test."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from robrayc import regen

# Every `compile` of a source text (an import compiles its .py file; an `exec` or `eval` of
# a generated string compiles a "<string>") is recorded while a compile and the language
# server's analysis run.
AUDITED = """
import sys
texts = []
sys.addaudithook(lambda event, args: texts.append(args[1]) if event == "compile" else None)
from robrayc.cli.main import main
from robrayc.lsp.analysis import Workspace, compile_diagnostics, completion_context
assert main([sys.argv[1], "-o", sys.argv[2]]) == 0
compile_diagnostics(Workspace(), sys.argv[1])
completion_context("frame a { par")
print([t for t in texts if not str(t).endswith(".py")])
"""


def test_generated_modules_are_current() -> None:
    assert [str(p) for p in regen.stale()] == [], "run: python -m robrayc.regen"


def test_generated_modules_are_readable() -> None:
    """Lines a person can read, and a first paragraph that says how to regenerate."""
    for path in regen.GENERATED:
        text = path.read_text(encoding="utf-8")
        assert regen.HEADER in text.split("\n\n")[1], path
        long = [n for n, line in enumerate(text.splitlines(), 1) if len(line) > 120]
        assert not long, f"{path}: lines {long[:5]} are longer than 120 characters"


def test_a_compile_and_the_language_server_exec_no_generated_source(tmp_path: Path) -> None:
    scene = tmp_path / "scene.robray"
    # many statements of one shape: the parser once compiled such shapes to Python
    scene.write_text("def a 1;\nclass c { color [1, 0, 0]; }\n" + "".join(
        f"frame x{i} {{ translation [a, 2 * a, {i}]; rpy [0, 0, a / 2];\n"
        f"  geometry {{ isa c; shape box; dimension [1, 1, 1]; }} }}\n" for i in range(80)))
    done = subprocess.run([sys.executable, "-c", AUDITED, str(scene), str(tmp_path / "s.c")],
                          capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout
