"""Required dependencies are what the commands import (issue 19.11): every third-party module
robrayc imports belongs to a required dependency or to the extra that its feature documents,
and every required dependency is imported (or named here with the reason it is needed)."""

from __future__ import annotations

import ast
import re
import sys
from importlib.metadata import packages_distributions

import pytest

from tests.corpus import REPO

tomllib = pytest.importorskip("tomllib")  # Python 3.11+ (CI's Debian Python)

# Modules imported only by a feature behind an extra, or by a developer tool (regenerating
# tables and templates: their libraries are in the test extra).
OPTIONAL = {
    "PIL": ("pictures", "robrayc/backends/png.py"),
    "xacro": ("formats", "robrayc/frontend/xacro_in.py"),
    "lark": ("test", "robrayc/frontend/tablegen.py"),
    # spheres' kd-tree; the lanes' hull points (qhull; without it every corner, slower)
    "scipy": ("fast", "robrayc/analysis/spheres.py robrayc/analysis/collision/triangles.py"),
    "jinja2": ("test", "robrayc/templating.py"),
    "ompl": ("plan", "robrayc/analysis/planning.py"),
}
# Required although no robrayc module imports them by name.
INDIRECT = {"pycollada": "trimesh's COLLADA loader, the fallback of robrayc's .dae reader"}


def _pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower()


def _imports() -> dict[str, set[str]]:
    """Top-level third-party module -> files importing it."""
    found: dict[str, set[str]] = {}
    for path in (REPO / "robrayc").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top != "robrayc" and top not in sys.stdlib_module_names:
                    found.setdefault(top, set()).add(str(path.relative_to(REPO)))
    return found


def test_imports_are_declared() -> None:
    project = _pyproject()["project"]
    required = {_name(r) for r in project["dependencies"]}
    extras = {k: {_name(r) for r in v} for k, v in project["optional-dependencies"].items()}
    dists = packages_distributions()
    for module, files in sorted(_imports().items()):
        names = {d.lower() for d in dists.get(module, [module])}
        if module in OPTIONAL:
            extra, where = OPTIONAL[module]
            assert files == set(where.split()), f"{module} is imported outside {where}: {files}"
            assert names & extras[extra], f"{module}: not in the {extra} extra"
        else:
            assert names & required, f"{module} (imported by {sorted(files)}) is not required"


def test_required_dependencies_are_used() -> None:
    dists = packages_distributions()
    imported = {d.lower() for m in _imports() for d in dists.get(m, [m])}
    for requirement in _pyproject()["project"]["dependencies"]:
        name = _name(requirement)
        assert name in imported or name in INDIRECT, f"{name} is required but never imported"
    assert "yourdfpy" not in {_name(r) for r in _pyproject()["project"]["dependencies"]}


def _installed_closure() -> dict[str, int]:
    """Every distribution a default install brings (the required ones and what they require,
    extras and markers not applying left out) -> its installed bytes, from the packages'
    own RECORD files in this environment."""
    from importlib.metadata import PackageNotFoundError, distribution

    from packaging.requirements import Requirement

    todo = [_name(r) for r in _pyproject()["project"]["dependencies"]]
    sizes: dict[str, int] = {}
    while todo:
        name = todo.pop()
        if name in sizes:
            continue
        try:
            dist = distribution(name)
        except PackageNotFoundError:
            pytest.skip(f"{name} is not installed here: the install cannot be measured")
        sizes[name] = sum(f.size or 0 for f in dist.files or ())
        for text in dist.requires or ():
            req = Requirement(text)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name.lower())
    return sizes


def test_default_install_stays_under_200_mb() -> None:
    """Issue 32: `pip install robrayc` was 317 MB, 143 of them scipy's for one kd-tree."""
    sizes = _installed_closure()
    assert "scipy" not in sizes
    total = sum(sizes.values()) / 1e6
    assert total <= 200, f"{total:.0f} MB: " + ", ".join(
        f"{k} {v / 1e6:.0f}" for k, v in sorted(sizes.items(), key=lambda kv: -kv[1]))
