"""Corpus robray scenes that build on a robot's URDF: they compile against the robot, and their
allow_collision lists name its frames (as the original's URDF import names them)."""

from __future__ import annotations

import re

import pytest

from robrayc.diagnostics import DiagnosticSink
from tests.corpus import URDF_CORPUS, manifest, require_corpus
from tests.urdf_robots import (
    load,
    robot_path,
    ros_env,  # noqa: F401  (fixture)
)

pytestmark = pytest.mark.usefixtures("ros_env")


ROBOT_FOR = {"left_endpoint": "baxter", "right_endpoint": "baxter", "ee_fixed_joint": "ur5"}


def _needing_robot():
    out = []
    for e in manifest():
        cls = e.get("cls") or ""
        if "needs frames from robot URDF" not in cls or cls.startswith(("fragment",
                                                                        "NON-STANDARD")):
            continue
        needed = cls.split("(", 1)[1].split(")", 1)[0].split(",")
        robots = {ROBOT_FOR.get(n) for n in needed}
        if None in robots or len(robots) != 1:
            continue  # frames from other scene files of the same problem too
        out.append(pytest.param(e["dir"] + "/" + e["path"], robots.pop(),
                                id=e["dir"] + "/" + e["path"]))
    return out


@pytest.mark.parametrize("rel,robot", _needing_robot())
def test_corpus_scene_compiles_with_its_robot(rel, robot):
    require_corpus()
    path = URDF_CORPUS.parent / "public-robray" / rel
    sink = DiagnosticSink()
    scene = load([robot_path(robot), path], sink=sink)
    assert not [d for d in sink.items if d.severity == "error"]
    urdf_frames = {f.name for f in load([robot_path(robot)]).frames}
    assert urdf_frames < {f.name for f in scene.frames}


def _allow_lists():
    return [pytest.param(e["dir"] + "/" + e["path"], id=e["dir"] + "/" + e["path"])
            for e in manifest() if (e.get("cls") or "").startswith("allow_collision list")]


# Lists written for robots the corpus does not have (see its SOURCES.md): the UR5 with a Robotiq
# gripper, calamity's locally generated lwa4d_robot.urdf ("robot_" prefix); and one list that
# names URDF links (converted from a MoveIt SRDF), which amino's import has no frames for.
FOREIGN = ("robotiq", "calamity", "allowed_collision_parsing/ur5_allowed_collision.robray")


@pytest.mark.parametrize("rel", _allow_lists())
def test_allow_collision_lists_resolve_against_the_robot(rel):
    """Every name is a frame of the robot's URDF import (joint names and LINK-collision /
    LINK-inertial frames, exactly as the original names them) or an object that the problem's
    own scene files (beside the list) define."""
    require_corpus()
    path = URDF_CORPUS.parent / "public-robray" / rel
    text = path.read_text()
    pairs = [ln.split()[1:3] for ln in text.splitlines()
             if ln.strip().startswith("allow_collision")]
    names = {n.strip('";') for p in pairs for n in p}
    best = max(("baxter", "ur5", "lwa4d", "fetch"),
               key=lambda r: len(names & {f.name for f in load([robot_path(r)]).frames}))
    sink = DiagnosticSink()
    scene = load([robot_path(best), path], sink=sink)
    unknown = {d.message.split("'")[1] for d in sink.items if "unknown frame" in d.message}
    if any(k in rel for k in FOREIGN):
        assert unknown and len(scene.allowed) < len(pairs)
        return
    objects = set()
    for sibling in path.parent.glob("*.robray"):
        objects |= set(re.findall(r'frame\s+"?([A-Za-z0-9_-]+)', sibling.read_text()))
    assert unknown <= objects, sorted(unknown - objects)[:5]
    resolved = {tuple(sorted(n.strip('";') for n in p)) for p in pairs
                if not {n.strip('";') for n in p} & unknown}
    assert len(scene.allowed) == len(resolved) > 0
    assert best == ("ur5" if "ur5" in rel else "baxter")
