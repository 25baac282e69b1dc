"""The documentation: the site builds with warnings as errors, the generated reference covers
the code (every option has help text, every attribute a description), README stays a short
front door, and measured figures live on the performance page only.

The examples on the pages run in tests/test_docs_examples.py.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"


def _reference():
    spec = importlib.util.spec_from_file_location("docs_reference", DOCS / "hooks" / "reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


reference = _reference()


def options_without_help(parser: argparse.ArgumentParser) -> list[str]:
    """Arguments the reference would show without a meaning (hidden ones aside)."""
    return ["/".join(a.option_strings) or a.dest for a in parser._actions
            if a.help is not argparse.SUPPRESS and not (a.help or "").strip()]


@pytest.mark.parametrize("command", list(reference.parsers()))
def test_every_option_has_help_text(command: str) -> None:
    """The command reference is generated from the parsers: an option without help text would
    be an empty row there."""
    parser = reference.parsers()[command]
    assert not options_without_help(parser), (command, options_without_help(parser))


def test_an_option_without_help_is_caught() -> None:
    parser = argparse.ArgumentParser(prog="robrayc x")
    parser.add_argument("--documented", help="does a thing")
    parser.add_argument("--new-option")
    assert options_without_help(parser) == ["--new-option"]


def test_every_subcommand_is_in_the_reference() -> None:
    from robrayc.cli.subcommands import SUBCOMMANDS

    text = reference.commands_markdown()
    for name in ["robrayc", *(f"robrayc {s}" for s in SUBCOMMANDS)]:
        assert f"## `{name}`" in text, name
    assert "`--cajunbot-version {1,2}`" in text  # a backend's own option is there too


def test_every_attribute_and_warning_is_described() -> None:
    from robrayc.diagnostics import WARNINGS
    from robrayc.frontend import robray_attrs

    assert set(robray_attrs.ATTR_TYPES) == set(reference.ATTRIBUTE_DOCS)
    table = reference.warnings_markdown()
    assert all(f"`{name}`" in table for name in WARNINGS)
    assert all(f"`{name}`" in reference.formats_markdown()
               for name in __import__("robrayc.backends").backends.BACKENDS)


def test_unknown_generator_is_an_error() -> None:
    with pytest.raises(KeyError, match="no such generator"):
        reference.on_page_markdown("<!-- generated: nothing -->\n")


def test_every_extra_is_in_getting_started() -> None:
    """pyproject.toml's extras each have a row in getting started's table of extras."""
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    section = pyproject[pyproject.index("[project.optional-dependencies]"):]
    section = section[:section.index("\n[", 1)]
    extras = re.findall(r"^([\w-]+) = \[", section, re.M)
    page = (DOCS / "getting-started.md").read_text(encoding="utf-8")
    assert extras and all(f"| `{extra}` |" in page for extra in extras), extras


def test_readme_is_a_front_door() -> None:
    lines = (REPO / "README.md").read_text(encoding="utf-8").split("\n")
    assert len(lines) <= 200, len(lines)


# A measured time or ratio outside the performance page: a number followed by a time unit or
# an `x` ratio. Intervals robrayc uses (not measurements) are listed.
FIGURE = re.compile(r"(?<![\w.-])\d[\d,.]*\s?(?:s|ms|µs|minutes?|x)(?![\w-])")
NOT_MEASURED = ("every 0.2 s",)


# The one figure README states itself (issue 29): the suite's time, as the performance page has it.
SUITE_TIME = re.compile(r"The whole suite takes (\d+ s) on a 2-core machine")


def test_readme_states_the_suite_time_of_the_performance_page() -> None:
    stated = SUITE_TIME.search((REPO / "README.md").read_text(encoding="utf-8"))
    assert stated, "README no longer states the suite's time"
    row = next(line for line in (DOCS / "performance.md").read_text(encoding="utf-8").split("\n")
               if line.startswith("| whole test suite |"))
    assert f"| {stated.group(1)} for the tests" in row, row


def test_measured_figures_live_on_the_performance_page() -> None:
    pages = [REPO / "README.md", *DOCS.rglob("*.md")]
    found = []
    for page in pages:
        if page.name == "performance.md" or "hooks" in page.parts:
            continue
        text = SUITE_TIME.sub("", page.read_text(encoding="utf-8"))
        for allowed in NOT_MEASURED:
            text = text.replace(allowed, "")
        for m in FIGURE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            found.append(f"{page.relative_to(REPO)}:{line}: {m.group()}")
    assert not found, "figures outside docs/performance.md:\n" + "\n".join(found)


def test_every_benchmark_is_on_the_performance_page() -> None:
    """Each program in benchmarks/ has a row (what it measures, how to run it) there."""
    page = (DOCS / "performance.md").read_text(encoding="utf-8")
    for bench in sorted((REPO / "benchmarks").iterdir()):
        if bench.suffix in (".py", ".cc") and not bench.name.startswith("_"):
            assert f"| `{bench.name}` |" in page, f"{bench.name} is not on docs/performance.md"


# A repository path in backquotes (a test, a module, a benchmark...), with an optional
# `::test_name` after it; paths ending in "myformat.py" are the design page's placeholder.
REPO_PATH = re.compile(r"`((?:tests|benchmarks|robrayc|examples|scripts|editors|schemas|grammar|"
                       r"templates|cmake|docs)/[\w/.*-]+?)(?:::(\w+)[\w\[\]-]*)?`")


def test_paths_named_in_the_docs_exist() -> None:
    """Files and tests the pages name exist (a renamed module or test shows here)."""
    missing = []
    for page in [REPO / "README.md", REPO / "CHANGELOG.md", *DOCS.rglob("*.md")]:
        for m in REPO_PATH.finditer(page.read_text(encoding="utf-8")):
            path, test = m.group(1).rstrip("/."), m.group(2)
            if path.endswith("myformat.py"):
                continue
            found = list(REPO.glob(path)) if "*" in path else [REPO / path]
            if not all(f.exists() for f in found) or not found:
                missing.append(f"{page.relative_to(REPO)}: {path}")
            elif test and not re.search(rf"^def {test}\(", found[0].read_text(), re.M):
                missing.append(f"{page.relative_to(REPO)}: {path}::{test}")
    assert not missing, "\n".join(missing)


@pytest.mark.slow
def test_site_builds_strict(tmp_path: Path) -> None:
    """`mkdocs build --strict`: broken links, missing anchors, pages left out of the nav, a
    failed include or API reference all fail it."""
    try:
        import mkdocs  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip("mkdocs not installed (pip install '.[docs]')")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1",
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(tmp_path / "site")], cwd=REPO, env=env, text=True,
                          capture_output=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    commands = (tmp_path / "site" / "reference" / "commands" / "index.html").read_text()
    assert "--check-srdf" in commands and "generated:" not in commands
    api = (tmp_path / "site" / "reference" / "python-api" / "index.html").read_text()
    assert 'id="robrayc.analysis.collision.checker.CollisionChecker"' in api
