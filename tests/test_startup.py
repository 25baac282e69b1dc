"""Start-up: a run imports only what it uses (a compile is one short process per build step).

The budget is time, not a list of modules: what robrayc's imports add to bare Python's, as
`python -X importtime` measures it (benchmarks/startup.py, which names the costliest modules;
whole-process times are benchmarks/vs_aarxc.py's)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from robrayc.backends import BACKENDS, by_suffix, load, suffixes
from robrayc.cli.main import main
from tests.imports_probe import modules_after

# What robrayc's imports may add to bare Python's: a one-frame compile is to stay within 4x
# `python -c pass` (benchmarks/vs_aarxc.py), and the rest of the process needs its share.
BUDGET = 2.5


def _startup():
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "startup.py"
    spec = importlib.util.spec_from_file_location("startup_benchmark", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("kind", ["--version", "--help", "one-frame compile"])
def test_start_up_within_budget(tmp_path: Path, kind: str) -> None:
    """The time robrayc's imports add is within BUDGET times bare Python's; a failure names
    the modules that cost most."""
    scene = tmp_path / "a.robray"
    scene.write_text("frame a { geometry { shape box; dimension [1, 1, 1]; } }\n")
    args = [kind] if kind.startswith("--") else [str(scene), "-o", str(tmp_path / "a.c")]
    base, extra, text = _startup().report(["-m", "robrayc", *args])
    assert extra <= BUDGET * base, text


def test_help_loads_every_backend_for_its_options() -> None:
    """`--help` loads every backend for its options (their heavy imports wait for `emit`)."""
    modules = modules_after(["--help"])
    assert {load(name).__name__ for name in BACKENDS} <= modules


@pytest.mark.parametrize("suffix, fmt", [(".c", "c"), (".json", "json"), (".dot", "dot")])
def test_compile_imports_only_its_backend(tmp_path: Path, suffix: str, fmt: str) -> None:
    scene = tmp_path / "a.robray"
    scene.write_text("frame a { geometry { shape box; dimension [1, 1, 1]; } }\n")
    modules = modules_after([str(scene), "-o", str(tmp_path / f"a{suffix}")])
    backends = {m for m in modules if m.startswith("robrayc.backends.")}
    assert backends == {load(fmt).__name__}


def test_other_formats_options_still_accepted(tmp_path: Path) -> None:
    """An option of a backend the output does not select is accepted, as before (the full
    parser is built when the selected backends do not know an option)."""
    scene = tmp_path / "a.robray"
    scene.write_text("frame a { }\n")
    assert main([str(scene), "-o", str(tmp_path / "a.c"), "--svg-grid", "0.5"]) == 0
    assert main([str(scene), "-o", str(tmp_path / "a.c"), "--no-such-option"]) == 2


def test_shared_options_read_as_before(tmp_path: Path) -> None:
    """The SVG backend reads the 2D options the cs2 backend adds: given or default, they are
    what the full parser gives."""
    from robrayc.cli.arguments import build_parser, parse_arguments

    for extra in ([], ["--z-min", "0.5", "--segments", "16"]):
        argv = ["a.robray", "-o", "a.svg", *extra]
        fast, full = parse_arguments(argv), build_parser().parse_args(argv)
        for name, value in vars(full).items():
            assert getattr(fast, name) == value, name


def test_suffix_table_selects_as_the_longest_suffix() -> None:
    assert by_suffix("x.world.xml") == "pysimiam"
    assert by_suffix("X.C") == "c"
    assert by_suffix("x.objects.xml") == "cajunbot"
    assert all(s.startswith(".") for name in BACKENDS for s in suffixes(name))
