"""Every example in README.md and docs/ runs, against the installed `robrayc` command.

One test per page. Each page gets a fresh folder holding a copy of the repository's
`examples/`; its examples run there in page order (a later one may use an earlier one's files):

- ```` ```console ````: each `$ COMMAND` line runs in bash; what the page shows under it
  (standard output and error together) must be exactly what it prints (a line `...` stands for
  any lines), and it must exit 0 (write `; echo "exit $?"` to show a failure's status);
- ```` ```sh ```` / ```` ```bash ````: the whole block runs in `bash -e -o pipefail` and must
  exit 0;
- ```` ```python ```` / ```` ```pycon ````: a doctest (`>>>` lines and their output), one
  namespace per page.

A comment line right before a block changes how it runs:
`<!-- example: needs TOOL -->` runs it only where TOOL is on PATH (in CI, TOOL must be there);
`<!-- example: install -->` is an install line: its `pip install` target must name extras
pyproject.toml has, a test command after it must be `.ci/run`'s TEST_CMD, and anything else
after the install runs (the package is installed already); `<!-- example: skip REASON -->`
does not run it (say why). Other fences (robray, C, make, ...) are not run here.
"""

from __future__ import annotations

import doctest
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = sorted([REPO / "README.md", *(p for p in (REPO / "docs").rglob("*.md")
                                      if "hooks" not in p.parts)])
SHELL, CONSOLE, PYTHON = ("sh", "bash", "shell"), ("console",), ("python", "pycon", "py")
FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w-]*)[^\n]*$")
DIRECTIVE = re.compile(r"^<!-- example: (?P<what>[a-z]+)(?: (?P<arg>.*?))? -->$")
INSTALL = re.compile(r"^python3 -m venv \.venv && \. \.venv/bin/activate && "
                     r"pip install (?P<target>\S+)(?: && (?P<rest>.*))?$")
TIMEOUT = 300


@dataclass
class Example:
    page: Path
    line: int  # of the opening fence, 1-based
    lang: str
    text: str
    directive: tuple[str, str] | None

    def where(self) -> str:
        page = self.page.relative_to(REPO) if self.page.is_relative_to(REPO) else self.page
        return f"{page}:{self.line}"


def examples(page: Path) -> list[Example]:
    """The fenced blocks of a page (with the directive on the line before each, if any)."""
    found: list[Example] = []
    lines = page.read_text(encoding="utf-8").split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, start = len(m.group("indent")), i
        i += 1
        body = []
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i][indent:])
            i += 1
        i += 1
        before = lines[start - 1].strip() if start else ""
        d = DIRECTIVE.match(before)
        found.append(Example(page, start + 1, m.group("lang"), "\n".join(body) + "\n",
                             (d.group("what"), d.group("arg") or "") if d else None))
    return found


def runnable(ex: Example) -> bool:
    return ex.lang in SHELL + CONSOLE + PYTHON


def ci_test_command() -> str:
    text = (REPO / ".ci" / "run").read_text()
    return re.search(r'^TEST_CMD="([^"]+)"', text, re.M).group(1)


# --- running ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bin_dir(tmp_path_factory) -> Path:
    """A folder for PATH's front: `python` is this interpreter; `robrayc` the installed command
    when this interpreter has one (CI installs the package), else this checkout's."""
    bin_ = tmp_path_factory.mktemp("bin")
    shims = {"python": "", "python3": ""}  # a venv's python must be run by its own path
    installed = Path(sys.executable).parent / "robrayc"
    if installed.exists():
        (bin_ / "robrayc").symlink_to(installed)
    else:
        shims["robrayc"] = "-m robrayc "
    for name, args in shims.items():
        (bin_ / name).write_text(f'#!/bin/sh\nexec "{sys.executable}" {args}"$@"\n')
        (bin_ / name).chmod(0o755)
    return bin_


def _environment(bin_dir: Path) -> dict[str, str]:
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
               COLUMNS="100", NO_COLOR="1", LC_ALL="C.UTF-8")
    if not (Path(sys.executable).parent / "robrayc").exists():
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return env


def _bash(script: str, cwd: Path, env: dict[str, str], *flags: str) -> tuple[int, str]:
    proc = subprocess.run(["bash", *flags, "-c", script], cwd=cwd, env=env, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT)
    return proc.returncode, proc.stdout


def console_steps(text: str) -> list[tuple[str, list[str]]]:
    """(command, expected output lines) of each `$ ` line of a console block."""
    steps: list[tuple[str, list[str]]] = []
    for line in text.rstrip("\n").split("\n"):
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line.rstrip())
        else:
            raise ValueError(f"console block starts with output, not '$ ': {line!r}")
    return steps


def matches(expected: list[str], actual: list[str]) -> bool:
    """Line for line, a `...` line standing for any run of lines and `...` in a line for any
    text (as doctest's ELLIPSIS)."""
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(matches(expected[1:], actual[k:]) for k in range(len(actual) + 1))
    return (bool(actual) and _line_matches(expected[0], actual[0])
            and matches(expected[1:], actual[1:]))


def _line_matches(expected: str, actual: str) -> bool:
    if "..." not in expected:
        return expected == actual
    pattern = ".*".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, actual) is not None


def run_console(ex: Example, cwd: Path, env: dict[str, str]) -> None:
    for command, expected in console_steps(ex.text):
        status, out = _bash(command, cwd, env)
        actual = [line.rstrip() for line in out.rstrip("\n").split("\n")] if out else []
        assert status == 0, f"{ex.where()}: `{command}` exited {status}:\n{out}"
        assert matches(expected, actual), (
            f"{ex.where()}: `{command}` printed\n{out}\nwhere the page shows\n"
            + "\n".join(expected))


def run_shell(ex: Example, cwd: Path, env: dict[str, str]) -> None:
    script = ex.text
    if ex.directive and ex.directive[0] == "install":
        script = _after_install(ex)
    status, out = _bash(script, cwd, env, "-e", "-o", "pipefail")
    assert status == 0, f"{ex.where()}: exited {status}:\n{script}\n{out}"


def _after_install(ex: Example) -> str:
    """An install block's commands after the install (checked against pyproject.toml and
    .ci/run), which run against the installed package."""
    extras = re.findall(r"^([\w-]+) = \[", (REPO / "pyproject.toml").read_text(), re.M)
    rest = []
    for line in ex.text.strip().split("\n"):
        if not line.strip() or line.startswith("#"):
            continue
        m = INSTALL.match(line.strip())
        assert m, f"{ex.where()}: not an install line: {line}"
        target = m.group("target").strip("'\"")
        named = re.fullmatch(r"\.(?:\[([\w,-]+)\])?", target)
        assert named, f"{ex.where()}: installs {target}, not this checkout"
        for extra in filter(None, (named.group(1) or "").split(",")):
            assert extra in extras, f"{ex.where()}: no extra '{extra}' in pyproject.toml"
        command = m.group("rest") or ""
        if "pytest" in command:
            assert command == ci_test_command(), (
                f"{ex.where()}: test command `{command}` is not .ci/run's `{ci_test_command()}`")
        elif command:
            rest.append(command)
    return "\n".join(rest) + "\n"


def run_python(ex: Example, cwd: Path, globs: dict) -> None:
    parser = doctest.DocTestParser()
    test = parser.get_doctest(ex.text, globs, ex.where(), str(ex.page), ex.line)
    assert test.examples, f"{ex.where()}: a Python example must be a doctest (>>> lines)"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    old = Path.cwd()
    os.chdir(cwd)
    try:
        out: list[str] = []
        runner.run(test, out=out.append, clear_globs=False)
    finally:
        os.chdir(old)
    assert not runner.failures, "".join(out)


def run_page(page: Path, cwd: Path, env: dict[str, str]) -> list[str]:
    """Run every example of a page in cwd; returns what was not run, and why."""
    shutil.copytree(REPO / "examples", cwd / "examples")
    globs: dict = {}
    not_run = []
    for ex in filter(runnable, examples(page)):
        what, arg = ex.directive or ("", "")
        if what == "skip":
            assert arg, f"{ex.where()}: say why an example is skipped"
            not_run.append(f"{ex.where()}: {arg}")
            continue
        if what == "needs" and shutil.which(arg) is None:
            assert not os.environ.get("CI"), f"{ex.where()}: {arg} is missing (CI has it)"
            not_run.append(f"{ex.where()}: needs {arg}")
            continue
        assert what in ("", "needs", "install"), f"{ex.where()}: unknown directive {what}"
        if ex.lang in CONSOLE:
            run_console(ex, cwd, env)
        elif ex.lang in SHELL:
            run_shell(ex, cwd, env)
        else:
            run_python(ex, cwd, globs)
    return not_run


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_page_examples_run(page: Path, tmp_path: Path, bin_dir: Path) -> None:
    not_run = run_page(page, tmp_path, _environment(bin_dir))
    if not_run:
        print("not run:", *not_run, sep="\n  ")


# --- the runner itself (fast) ------------------------------------------------------------------


def test_readme_test_command_is_ci_test_command() -> None:
    """README's second command installs the test extras and runs exactly .ci/run's TEST_CMD."""
    install = [ex for ex in examples(REPO / "README.md")
               if ex.directive and ex.directive[0] == "install"]
    assert install, "README has no install block"
    lines = [line for line in install[0].text.split("\n") if line.startswith("python3 ")]
    assert len(lines) == 2 and lines[1].endswith(" && " + ci_test_command()), lines


def test_console_output_must_match(tmp_path: Path, bin_dir: Path) -> None:
    """A page whose shown output differs from what the command prints fails."""
    page = tmp_path / "page.md"
    page.write_text("```console\n$ robrayc examples/blocks.robray --list-vars\nshoulder\n"
                    "elbow\n```\n")
    with pytest.raises(AssertionError, match="where the page shows"):
        run_page(page, tmp_path / "run", _environment(bin_dir))


def test_failing_shell_block_fails(tmp_path: Path, bin_dir: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("```sh\nrobrayc examples/no-such-file.robray -o x.c\n```\n")
    with pytest.raises(AssertionError, match="exited 1"):
        run_page(page, tmp_path / "run", _environment(bin_dir))


def test_ellipsis_matches_any_lines() -> None:
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert matches(["a", "...", "b"], ["a", "b"])
    assert not matches(["a", "...", "d"], ["a", "b"])
    assert not matches(["a"], ["a", "b"])
    assert matches(["x = ...;"], ["x = 1.5;"])
    assert not matches(["x = ...;"], ["y = 1.5;"])


def test_every_python_example_is_a_doctest() -> None:
    for page in PAGES:
        for ex in examples(page):
            if ex.lang in PYTHON and not (ex.directive and ex.directive[0] == "skip"):
                assert ">>> " in ex.text, f"{ex.where()}: write it as a doctest (>>> lines)"


def api_modules() -> list[str]:
    """The modules the Python API page renders (its `::: module` lines)."""
    page = (REPO / "docs" / "reference" / "python-api.md").read_text(encoding="utf-8")
    return re.findall(r"^::: ([\w.]+)$", page, re.M)


@pytest.mark.parametrize("module", api_modules())
def test_api_docstring_examples_run(module: str, tmp_path: Path) -> None:
    """A `>>>` example in a docstring the API page shows runs as a doctest (from a folder
    holding examples/, as the pages' examples)."""
    import importlib

    shutil.copytree(REPO / "examples", tmp_path / "examples")
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        out: list[str] = []
        for test in finder.find(importlib.import_module(module)):
            runner.run(test, out=out.append)
    finally:
        os.chdir(old)
    assert not runner.failures, "".join(out)
