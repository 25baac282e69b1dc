"""Where the shared corpus lives, and which of its files the tests compile.

The corpus is read in place from ../shared (beside the checkout); it is never copied here.
Outside CI a missing ../shared skips the corpus tests; in CI (CI=true) it fails them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = (REPO / ".." / "shared").resolve()
CORPUS = SHARED / "corpus"
URDF_CORPUS = CORPUS / "urdf"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

# Every package folder of the URDF corpus: what ROS_PACKAGE_PATH needs (see its SOURCES.md).
PACKAGE_ROOTS = ("RethinkRobotics+baxter_common", "ros-industrial+universal_robot",
                 "fetchrobotics+fetch_ros", "ipa320+schunk_robots",
                 "ipa320+schunk_modular_robotics", "ros+urdf_tutorial",
                 "ros-planning+moveit_resources")


def require_corpus() -> Path:
    if not CORPUS.is_dir():
        if IN_CI:
            pytest.fail(f"corpus not found at {CORPUS}")
        pytest.skip("../shared/corpus is not beside this checkout")
    return CORPUS


def ros_package_path() -> str:
    return os.pathsep.join(str(URDF_CORPUS / r) for r in PACKAGE_ROOTS)


def amino_corpus_files() -> list[Path]:
    return sorted((CORPUS / "amino").rglob("*.robray")) if CORPUS.is_dir() else []


def manifest() -> list[dict]:
    path = CORPUS / "public-robray" / "MANIFEST.json"
    return json.loads(path.read_text()) if path.is_file() else []


def public_files(cls_prefix: str) -> list[Path]:
    return [CORPUS / "public-robray" / e["dir"] / e["path"]
            for e in manifest() if (e.get("cls") or "").startswith(cls_prefix)]


def corpus_id(path: Path) -> str:
    return str(path.relative_to(CORPUS)) if path.is_relative_to(CORPUS) else path.name
