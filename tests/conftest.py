"""Test selection: `-m "not slow"` is the fast subset a contributor runs while working (under
2 minutes on 2 cores, README "Running the tests"); CI runs everything.

Whole modules whose every test drives a heavy external program (the original aarxc, gcc with
the real amino library, CMake builds, editors, a browser, POV-Ray, npm, corpus-wide runs) are
marked slow here, in one place; single long tests carry @pytest.mark.slow themselves.
"""

from __future__ import annotations

import pytest

SLOW_MODULES = {
    "tests/test_conformance.py",  # the original aarxc (a Lisp image) and amino, per scene
    "tests/test_compile_corpus.py",  # every corpus file through gcc and amino
    "tests/test_standalone_c.py",  # gcc per scene
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
}


@pytest.hookimpl(tryfirst=True)  # before -m deselects
def pytest_collection_modifyitems(config, items) -> None:
    root = config.rootpath
    for item in items:
        path = item.path.relative_to(root).as_posix() if item.path.is_relative_to(root) else ""
        if path in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
