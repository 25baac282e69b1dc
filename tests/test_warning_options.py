"""Warning names ([-Wname]), -Wno-NAME / -Werror=NAME / -W error, and --color / NO_COLOR (as gcc
and clang spell them)."""

from __future__ import annotations

import ast
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from robrayc.cli.main import main
from robrayc.diagnostics import WARNINGS
from tests.corpus import CORPUS, REPO, require_corpus

SCENE = "frame a { isa surface; }\nframe b { type revolute; axis [0, 0, 2]; }\n"
CLASS = "class 'surface' is not declared; kept as a tag only"


@pytest.fixture
def warns(tmp_path: Path) -> Path:
    """A scene whose compile gives two warnings (undeclared-class, non-unit axis)."""
    path = tmp_path / "s.robray"
    path.write_text(SCENE)
    return path


def _warning_calls() -> list[tuple[str, int, ast.Call]]:
    calls = []
    for path in sorted((REPO / "robrayc").rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        calls += [(str(path.relative_to(REPO)), node.lineno, node) for node in ast.walk(tree)
                  if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr == "warning"]
    return calls


def test_every_warning_is_named_at_its_call_site() -> None:
    used = set()
    for where, line, call in _warning_calls():
        name = next((k.value for k in call.keywords if k.arg == "name"), None)
        assert isinstance(name, ast.Constant), f"{where}:{line}: sink.warning(..., name=...)"
        assert name.value in WARNINGS, f"{where}:{line}: '{name.value}' is not in WARNINGS"
        used.add(name.value)
    assert used == set(WARNINGS), f"unused names: {set(WARNINGS) - used}"


def test_name_shown(warns: Path, capsys) -> None:
    assert main([str(warns), "--list-frames"]) == 0
    err = capsys.readouterr().err
    assert f"warning: {CLASS} [-Wundeclared-class]\n" in err
    assert "normalised [-Wunnormalized]\n" in err


def test_wno_silences_one_warning(warns: Path, capsys) -> None:
    assert main([str(warns), "--list-frames", "-Wno-undeclared-class"]) == 0
    err = capsys.readouterr().err
    assert "undeclared" not in err and "[-Wunnormalized]" in err
    # a later -WNAME turns it back on, as in gcc
    assert main([str(warns), "--list-frames", "-Wno-undeclared-class",
                 "-Wundeclared-class"]) == 0
    assert "[-Wundeclared-class]" in capsys.readouterr().err


def test_werror_for_one_warning(warns: Path, capsys) -> None:
    assert main([str(warns), "--list-frames", "-Werror=undeclared-class"]) == 1
    err = capsys.readouterr().err
    assert f"error: {CLASS} [-Werror=undeclared-class]\n" in err
    assert "warning: " in err and "[-Wunnormalized]" in err


@pytest.mark.parametrize("spelling", [["-W", "error"], ["-Werror"]])
def test_w_error_and_its_exceptions(warns: Path, spelling, capsys) -> None:
    assert main([str(warns), "--list-frames", *spelling]) == 1
    err = capsys.readouterr().err
    assert "[-Werror=undeclared-class]" in err and "[-Werror=unnormalized]" in err
    assert main([str(warns), "--list-frames", *spelling, "-Wno-error=undeclared-class",
                 "-Wno-unnormalized"]) == 0
    err = capsys.readouterr().err
    assert f"warning: {CLASS} [-Wundeclared-class]" in err and "normalised" not in err


def test_unknown_warning_option(warns: Path, capsys) -> None:
    assert main([str(warns), "--list-frames", "-Wno-undeclard-class"]) == 0
    err = capsys.readouterr().err
    assert ("warning: unknown warning option '-Wno-undeclard-class' "
            "[-Wunknown-warning-option]") in err
    assert "did you mean '-Wno-undeclared-class'?" in err
    assert main([str(warns), "--list-frames", "-Wall", "-Wextra"]) == 0  # on by default
    assert "unknown warning option" not in capsys.readouterr().err
    assert main([str(warns), "--list-frames", "-Werror=nonsense-at-all"]) == 0
    assert "unknown warning option '-Werror=nonsense-at-all'" in capsys.readouterr().err


def test_named_warnings_in_subcommands(tmp_path: Path, capsys) -> None:
    path = tmp_path / "c.robray"
    path.write_text("frame a { isa thing; geometry { shape box; dimension [1, 1, 1]; } }\n")
    assert main(["collide", str(path), "-Wno-undeclared-class"]) == 0
    assert "undeclared" not in capsys.readouterr().err


def test_tmkit_surface_warning_can_be_silenced(capfd) -> None:
    """The `isa surface` warning the TMKit-style scenes print on every build."""
    require_corpus()
    path = CORPUS / "public-robray" / "dyalab+calamity" / "schunk" / "table.robray"
    assert main([str(path), "--list-frames"]) == 0
    assert "[-Wundeclared-class]" in capfd.readouterr().err
    assert main([str(path), "--list-frames", "-Wno-undeclared-class"]) == 0
    assert capfd.readouterr().err == ""


# --- colour -------------------------------------------------------------------------------------


def _stderr_on_a_terminal(argv: list[str], env: dict[str, str]) -> bytes:
    """robrayc's stderr when it is a real pseudo-terminal (stdout a pipe)."""
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "robrayc", *argv], stderr=slave,
                                stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                                env={**os.environ, "PYTHONPATH": str(REPO), **env})
        os.close(slave)
        slave = -1
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        proc.wait(timeout=60)
        return b"".join(chunks)
    finally:
        if slave >= 0:
            os.close(slave)
        os.close(master)


def _clean_env() -> dict[str, str]:
    return {"NO_COLOR": "", "TERM": "xterm"}


def test_colour_on_a_terminal(warns: Path) -> None:
    err = _stderr_on_a_terminal([str(warns), "--list-frames"], _clean_env())
    assert b"\x1b[01;35m\x1b[Kwarning:\x1b[m\x1b[K" in err  # gcc's bold magenta
    assert b"\x1b[01;32m\x1b[K^~~\x1b[m\x1b[K" in err  # green caret
    assert b"\x1b[01;35m\x1b[K [-Wundeclared-class]\x1b[m\x1b[K" in err


@pytest.mark.parametrize("argv, env", [
    (["--color=never"], {}),
    ([], {"NO_COLOR": "1"}),
    ([], {"TERM": "dumb"}),
])
def test_no_colour_when_asked(warns: Path, argv, env) -> None:
    err = _stderr_on_a_terminal([str(warns), "--list-frames", *argv], {**_clean_env(), **env})
    assert b"[-Wundeclared-class]" in err and b"\x1b[" not in err


def test_colour_always_and_auto_off_a_terminal(warns: Path, capfd, monkeypatch) -> None:
    assert main([str(warns), "--list-frames"]) == 0
    assert "\x1b[" not in capfd.readouterr().err  # auto: stderr is not a terminal here
    monkeypatch.setenv("NO_COLOR", "1")
    assert main([str(warns), "--list-frames", "--color=always"]) == 0  # beats NO_COLOR
    assert "\x1b[01;35m\x1b[Kwarning:" in capfd.readouterr().err
