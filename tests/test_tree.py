"""`--tree` (the frame tree, as check_urdf prints a URDF's) and readable combined listings."""

from __future__ import annotations

import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

from robrayc.cli.main import main
from tests.corpus import URDF_CORPUS, require_corpus, ros_package_path
from tests.editors.conftest import require_program

SCENE = """frame base { }
frame arm { parent base; type revolute; axis [0, 0, 1]; variable q_arm; }
frame slide { parent arm; type prismatic; axis [1, 0, 0]; }
frame cam { parent arm; }
frame table { }
frame lamp { parent table; }
"""

TREE = """base
`-- arm [revolute q_arm]
    |-- slide [prismatic slide]
    `-- cam
table
`-- lamp
"""


def _scene(tmp_path: Path, text: str = SCENE) -> Path:
    path = tmp_path / "s.robray"
    path.write_text(text)
    return path


def test_tree(tmp_path: Path, capsys) -> None:
    assert main([str(_scene(tmp_path)), "--tree"]) == 0
    assert capsys.readouterr().out == TREE


def test_listings_together_stay_apart(tmp_path: Path, capsys) -> None:
    assert main([str(_scene(tmp_path)), "--list-frames", "--list-vars", "--tree"]) == 0
    out = capsys.readouterr().out
    frames = "".join(f"  {n}\n" for n in ("base", "arm", "slide", "cam", "table", "lamp"))
    tree = "".join("  " + line + "\n" for line in TREE.splitlines())
    assert out == f"frames:\n{frames}variables:\n  q_arm\n  slide\ntree:\n{tree}"
    assert main([str(_scene(tmp_path)), "--list-vars"]) == 0  # alone: bare lines, for scripts
    assert capsys.readouterr().out == "q_arm\nslide\n"


def test_a_deep_chain_stays_small(tmp_path: Path, capsys) -> None:
    chain = "frame f0 { }\n" + "".join(f"frame f{i} {{ parent f{i - 1}; }}\n"
                                       for i in range(1, 10_000))
    assert main([str(_scene(tmp_path, chain)), "--tree"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 10_000 and lines[-1] == "... (depth 9999) f9999"
    assert max(len(line) for line in lines) < 200


def _check_urdf_edges(urdf: Path) -> set[tuple[str, str]]:
    """(parent link, child link) pairs from check_urdf's printed tree (indented 4 per level)."""
    out = subprocess.run([require_program("check_urdf"), str(urdf)], capture_output=True,
                         text=True, timeout=60, check=True).stdout
    edges, stack = set(), []
    for line in out.splitlines():
        m = re.match(r"root Link: (\S+)", line)
        if m:
            stack = [m.group(1)]
            continue
        m = re.match(r"( *)child\(\d+\):  (\S+)", line)
        if m:
            depth = len(m.group(1)) // 4
            del stack[depth:]
            edges.add((stack[-1], m.group(2)))
            stack.append(m.group(2))
    return edges


def test_tree_matches_check_urdf(capfd) -> None:
    """Frames are named by joints (as aarxc names them): each joint frame's tree parent is the
    joint of its parent link, exactly the link tree check_urdf prints."""
    require_corpus()
    urdf = URDF_CORPUS / "ros-industrial+universal_robot/ur_description/urdf/ur5_robot.urdf"
    joint_of = {j.find("child").get("link"): j.get("name")
                for j in ET.parse(urdf).getroot().findall("joint")}
    want = {(joint_of.get(a), joint_of[b]) for a, b in _check_urdf_edges(urdf)}
    import os

    os.environ.setdefault("ROS_PACKAGE_PATH", ros_package_path())
    assert main([str(urdf), "--tree", "--missing-mesh", "drop"]) == 0
    got, stack = set(), []
    for line in capfd.readouterr().out.splitlines():
        m = re.match(r"((?:[|`]-- |[| ]   )*)(\S+)", line)
        depth = len(m.group(1)) // 4
        del stack[depth:]
        got.add((stack[-1] if stack else None, m.group(2)))
        stack.append(m.group(2))
    joints = set(joint_of.values())
    assert {(a, b) for a, b in got if b in joints} == want
