"""Test selection: `-m "not slow"` is the fast subset a contributor runs while working
(docs/development.md); CI runs everything.

Whole modules whose every test drives a heavy external program (the original aarxc, gcc with
the real amino library, CMake builds, editors, a browser, POV-Ray, npm, corpus-wide runs) are
marked slow here, in one place; single long tests carry @pytest.mark.slow themselves.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.corpus import CORPUS, IN_CI
from tests.run import SCENE

SLOW_MODULES = {
    "tests/test_conformance.py",  # the original aarxc (a Lisp image) and amino, per scene
    "tests/test_conformance_urdf_identity.py",
    "tests/test_compile_corpus.py",  # every corpus file through gcc and amino
    "tests/backends/test_c_standalone.py",
    "tests/backends/test_c_checker.py",
    "tests/test_buildsystems.py",  # make, CMake and Ninja builds
    "tests/test_urdf_import.py",  # every corpus robot with its meshes
    "tests/test_xacro.py",  # real xacro on the corpus
    "tests/test_output_safety.py",  # signals at random moments, full disks
    "tests/editors/test_vim.py",  # real vim, emacs, neovim, LSP clients, npm
    "tests/editors/test_emacs.py",
    "tests/editors/test_lsp_clients.py",
    "tests/editors/test_vscode.py",
    "tests/backends/test_html.py",  # headless chromium
    "tests/backends/test_png.py",  # POV-Ray renders
    "tests/fuzz/test_fuzz_robray.py",
    "tests/fuzz/test_atheris.py",
    "tests/test_pathological.py",  # 10,000-deep, 100,000-long inputs
    "tests/editors/test_lsp.py",  # a language server process per test
}
# Single long tests (node id prefixes: every parameter of them), measured with --durations.
SLOW_TESTS = (
    "tests/test_roundtrip.py::test_generated_scenes_round_trip",
    "tests/backends/test_sdf.py::test_corpus_robot_loads_in_libsdformat",
    "tests/backends/test_mjcf.py::test_corpus_robot_loads_in_mujoco",
    "tests/backends/test_urdf.py::test_urdf_through_robray_or_json_back_to_urdf",
    "tests/backends/test_glb.py::test_ur5_world_bounds_match_fk",
    "tests/backends/test_pov.py::test_povray_renders",
    "tests/test_acm.py::test_7dof_finds_what_a_brute_force_sampler_finds",
    "tests/test_meshes.py::test_mesh_robot_compiles_with_werror",
    "tests/test_collision.py::test_against_amino_fcl_checker",
    "tests/test_watch.py::test_watch_recompiles_on_input_include_and_mesh",
    "tests/test_identity.py::test_round_trip_keeps_names_tree_and_link_poses",
    "tests/test_srdf.py::test_corpus_srdf_names_only_links",
)


def pytest_sessionstart(session) -> None:
    """In CI the corpus must be there (its parametrised tests would otherwise collect
    nothing and pass); the lists above must name files and tests that exist."""
    if IN_CI and not CORPUS.is_dir():
        raise pytest.UsageError(f"CI: the corpus is missing at {CORPUS}")
    root = Path(session.config.rootpath)
    missing = [m for m in SLOW_MODULES if not (root / m).is_file()]
    for node in SLOW_TESTS:  # a prefix of a test function's name in its file
        path, _, name = node.partition("::")
        if not (root / path).is_file() or f"def {name}" not in (root / path).read_text():
            missing.append(node)
    if missing:
        raise pytest.UsageError(f"tests/conftest.py lists missing files or tests: {missing}")


# Where programs write by default: robrayc's cache (compiled collision checkers), and what the
# real tools the tests drive leave in a home folder (libsdformat's ~/.sdformat/sdformat.log,
# Chromium's profile, npm's logs).
PRIVATE = {"XDG_CACHE_HOME": "cache", "HOME": "home", "XDG_CONFIG_HOME": "home/.config",
           "XDG_DATA_HOME": "home/.local/share", "XDG_STATE_HOME": "home/.local/state"}


@pytest.fixture(scope="session", autouse=True)
def private_cache(tmp_path_factory) -> Iterator[Path]:
    """The folders in PRIVATE in one of the test session (its cache folder is returned),
    never the user's; subprocesses inherit them."""
    root = tmp_path_factory.mktemp("private")
    old = {key: os.environ.get(key) for key in PRIVATE}
    for key, folder in PRIVATE.items():
        (root / folder).mkdir(parents=True, exist_ok=True)
        os.environ[key] = str(root / folder)
    yield root / PRIVATE["XDG_CACHE_HOME"]
    for key, value in old.items():
        if value is None:
            del os.environ[key]
        else:
            os.environ[key] = value


@pytest.fixture
def scene(tmp_path: Path) -> Path:
    """tests/run.py's SCENE in a file of the test's own folder."""
    path = tmp_path / "scene.robray"
    path.write_text(SCENE, encoding="utf-8")
    return path


@pytest.hookimpl(tryfirst=True)  # before -m deselects
def pytest_collection_modifyitems(config, items) -> None:
    root = config.rootpath
    for item in items:
        path = item.path.relative_to(root).as_posix() if item.path.is_relative_to(root) else ""
        if path in SLOW_MODULES or item.nodeid.startswith(SLOW_TESTS):
            item.add_marker(pytest.mark.slow)
