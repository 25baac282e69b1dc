"""Helpers shared by the 2D backends' tests (cs2, pySimiam, SimMeR, CajunBot, SVG): the scenes,
the projection the outputs are compared with, matching within TOL."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from robrayc.analysis.projection import (
    options_from,
    project_scene,
)
from robrayc.cli.arguments import build_parser
from robrayc.cli.main import configuration
from robrayc.diagnostics import DiagnosticSink
from robrayc.frontend import load_scene
from tests.corpus import CORPUS, REPO, SHARED, require_corpus

MAZE = REPO / "examples" / "maze.robray"
SPECS = SHARED / "specs"
TOL = 1e-9


def blocks_scene() -> Path:
    require_corpus()
    return CORPUS / "amino" / "demo" / "simple-rx" / "scene" / "table_class.robray"


# name -> (scene file, options): the blocks scene has no robot, so block_b stands in for one,
# and the band starts above the table so that the blocks are not under a table-sized wall.
SCENES = {
    "maze": (lambda: MAZE, []),
    "blocks": (blocks_scene, ["--robot-frame", "block_b", "--z-min", "0.006"]),
}


def spec_text(name: str) -> str:
    path = SPECS / name
    if not path.is_file():
        require_corpus()  # skips (or fails in CI) when ../shared is missing
        pytest.skip(f"{path} missing")
    return path.read_text(encoding="utf-8")


def projection_of(path: Path, args: list[str]):
    ns = build_parser().parse_args([str(path), *args])
    ns.configuration = configuration(ns)
    sink = DiagnosticSink()
    opts = options_from(ns, sink)
    return project_scene(load_scene([str(path)]), opts, sink)


def match_within(expected: list, got: list, key, what: str) -> None:
    """Every expected item has a distinct counterpart within TOL, and nothing else is there."""
    assert len(expected) == len(got), f"{what}: {len(expected)} expected, {len(got)} written"
    left = list(got)
    for e in expected:
        for i, g in enumerate(left):
            if key(e, g) <= TOL:
                del left[i]
                break
        else:
            raise AssertionError(f"{what}: nothing written matches {e}")


def seg_distance(a, b) -> float:
    (p, q), (r, s) = a, b
    same = max(math.dist(p, r), math.dist(q, s))
    flipped = max(math.dist(p, s), math.dist(q, r))
    return min(same, flipped)
