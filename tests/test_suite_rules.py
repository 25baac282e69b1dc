"""The rules tests/conftest.py holds the suite to: in CI a missing corpus stops the run (its
parametrised tests would otherwise collect nothing and pass), and the slow lists name files
and tests that exist."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from tests import conftest

REPO = Path(__file__).resolve().parents[1]
SESSION = SimpleNamespace(config=SimpleNamespace(rootpath=REPO))


def test_ci_stops_without_the_corpus(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setattr(conftest, "CORPUS", tmp_path / "no-corpus")
    monkeypatch.setattr(conftest, "IN_CI", False)
    conftest.pytest_sessionstart(SESSION)  # outside CI: the corpus tests skip
    monkeypatch.setattr(conftest, "IN_CI", True)
    with pytest.raises(pytest.UsageError, match="corpus is missing"):
        conftest.pytest_sessionstart(SESSION)


def test_slow_lists_name_only_existing_files_and_tests(monkeypatch) -> None:
    conftest.pytest_sessionstart(SESSION)
    monkeypatch.setattr(conftest, "SLOW_MODULES", {*conftest.SLOW_MODULES, "tests/gone.py"})
    with pytest.raises(pytest.UsageError, match="tests/gone.py"):
        conftest.pytest_sessionstart(SESSION)
    monkeypatch.undo()
    gone = "tests/test_acm.py::test_renamed_long_ago"
    monkeypatch.setattr(conftest, "SLOW_TESTS", (*conftest.SLOW_TESTS, gone))
    with pytest.raises(pytest.UsageError, match=gone):
        conftest.pytest_sessionstart(SESSION)
