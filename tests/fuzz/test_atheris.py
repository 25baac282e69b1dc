"""A bounded, seeded slice of coverage-guided fuzzing (atheris) of the robray and URDF front
ends, seeded from ../shared/corpus. Long runs: benchmarks/fuzz_campaign.py --atheris."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RUNS = int(os.environ.get("ROBRAYC_ATHERIS_RUNS", "2000"))


@pytest.mark.parametrize("kind", ["robray", "urdf"])
def test_atheris_slice(kind, tmp_path):
    if importlib.util.find_spec("atheris") is None:
        pytest.skip("atheris is not installed (pip install '.[fuzz]')")
    corpus = tmp_path / "corpus"
    artifacts = tmp_path / "artifacts"
    artifacts.mkdir()
    r = subprocess.run(
        [sys.executable, "-m", "tests.fuzz.atheris_harness", kind, "--seed-from-shared",
         f"-runs={RUNS}", "-seed=1", "-timeout=30", "-rss_limit_mb=2048",
         f"-artifact_prefix={artifacts}/", str(corpus)],
        cwd=REPO, capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL)
    tail = r.stderr[-6000:]
    assert r.returncode == 0, tail
    assert f"Done {RUNS} runs" in r.stderr, tail
    assert list(artifacts.iterdir()) == [], tail
    assert any(corpus.iterdir())  # seeds (or at least libFuzzer's own finds) were run
