"""editors/emacs/robray-mode.el in a real `emacs --batch`, through the ERT suite
tests/editors/robray-mode-tests.el. Each ERT test is reported as its own pytest test.

The face expectations come from the table the vim and TextMate tests use (conftest), mapped
to Emacs faces, so the three highlighters are held to the same classification.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.editors.conftest import (
    EDITORS,
    EXPECTED_GROUPS,
    SAMPLE,
    find_token,
    require_program,
    robrayc_executable,
)
from tests.run import robrayc

HERE = Path(__file__).resolve().parent
ERT_FILE = HERE / "robray-mode-tests.el"

COMMENT = "font-lock-comment-face,font-lock-comment-delimiter-face"
# vim group -> the Emacs face(s) the same token must have
EMACS_FACE = {
    "robrayInclude": "font-lock-preprocessor-face",
    "robrayDefine": "font-lock-keyword-face",
    "robrayKeyword": "font-lock-keyword-face",
    "robrayFrameAttr": "font-lock-builtin-face",
    "robrayGeomAttr": "font-lock-builtin-face",
    "robrayIsa": "font-lock-builtin-face",
    "robrayShape": "font-lock-constant-face",
    "robrayJointType": "font-lock-constant-face",
    "robrayConstant": "font-lock-constant-face",
    "robrayNumber": "robray-number-face",
    "robrayPath": "font-lock-string-face",
    "robrayIncludePath": "font-lock-string-face",
    "robrayLineComment": COMMENT,
    "robrayBlockComment": COMMENT,
    "robrayFrameName": "font-lock-function-name-face",
    "robrayFrameRef": "font-lock-function-name-face",
    "robrayAllowName": "font-lock-function-name-face",
    "robrayClassName": "font-lock-type-face",
    "robrayDefName": "font-lock-variable-name-face",
    "robrayName": "nil",
}

ERT_TESTS = [
    "robray-faces",
    "robray-hyphenated-names-are-symbols",
    "robray-syntax-table-comments-and-strings",
    "robray-indentation",
    "robray-indentation-defaults-use-spaces",
    "robray-indent-line-while-typing",
    "robray-imenu",
    "robray-comment-dwim",
    "robray-auto-mode",
    "robray-compile-error-regexp",
    "robray-compile-warning-and-note-types",
    "robray-flymake",
    "robray-eglot-registration",
]


def face_expectations() -> str:
    lines = []
    for token, occurrence, context, group in EXPECTED_GROUPS:
        line, col = find_token(token, occurrence, context)
        face = EMACS_FACE[group]
        if token.startswith('"') and "Comment" not in group:
            face = "font-lock-string-face"  # quoted names keep the string face in Emacs
        lines.append(f"{line + 1} {col} {len(token)} {face}")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def ert_results(tmp_path_factory) -> tuple[dict[str, str], str]:
    emacs = require_program("emacs")
    tmp = tmp_path_factory.mktemp("emacs")
    faces = tmp / "faces.txt"
    faces.write_text(face_expectations())
    broken_dir = tmp / "scene"
    broken_dir.mkdir()
    from tests.editors.conftest import BROKEN

    broken = broken_dir / "broken.robray"
    broken.write_text(BROKEN)
    run = robrayc(broken.name, cwd=broken_dir, process=True, timeout=120)
    assert run.status == 1 and "broken.robray:7:5: error:" in run.err, run.err
    errors = tmp / "errors.txt"
    errors.write_text(run.err)
    env = {**os.environ, "ROBRAY_FIXTURE": str(SAMPLE), "ROBRAY_FACES": str(faces),
           "ROBRAY_ERRORS": str(errors), "ROBRAY_BROKEN": str(broken),
           "ROBRAYC": robrayc_executable(tmp), "HOME": str(tmp)}
    run = subprocess.run(
        [emacs, "--batch", "-Q", "-L", str(EDITORS / "emacs"), "-l", "ert",
         "-l", str(ERT_FILE), "-f", "ert-run-tests-batch-and-exit"],
        capture_output=True, text=True, timeout=300, env=env, stdin=subprocess.DEVNULL)
    output = run.stdout + run.stderr
    results = {}
    for m in re.finditer(r"^\s*(passed|FAILED|skipped)\s+\d+/\d+\s+(\S+)", output, re.M):
        results[m.group(2)] = m.group(1)
    return results, output


@pytest.mark.parametrize("name", ERT_TESTS)
def test_ert(ert_results, name):
    results, output = ert_results
    assert name in results, f"ERT did not run {name}:\n{output[-4000:]}"
    if results[name] == "skipped":
        pytest.skip(f"{name} skipped by ERT (see its reason in the ERT output)")
    assert results[name] == "passed", output[-6000:]


def test_every_ert_test_is_listed(ert_results):
    results, _ = ert_results
    assert set(results) == set(ERT_TESTS)


def test_mode_file_byte_compiles_cleanly(tmp_path):
    """No warnings from the byte compiler (undefined functions, free variables, ...)."""
    emacs = require_program("emacs")
    src = tmp_path / "robray-mode.el"
    src.write_text((EDITORS / "emacs" / "robray-mode.el").read_text())
    run = subprocess.run(
        [emacs, "--batch", "-Q", "--eval", "(setq byte-compile-error-on-warn t)",
         "-f", "batch-byte-compile", str(src)],
        capture_output=True, text=True, timeout=120, env={**os.environ, "HOME": str(tmp_path)})
    assert run.returncode == 0, run.stdout + run.stderr
    assert (tmp_path / "robray-mode.elc").exists()
