"""The dot backend, read back by the real Graphviz (`dot`, Debian graphviz): the frame tree's
nodes and edges, joint labels, allowed pairs with --dot-allowed, and names that DOT must escape
rendered exactly."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from lxml import etree

from tests.backends.validator import REPO
from tests.run import robrayc

SCENE = """\
frame base { geometry { shape box; dimension [1, 1, 0.1]; } }
frame shoulder { parent base; type revolute; axis [0, 0, 1]; variable q0; }
frame upper { parent shoulder; translation [0, 0, 0.3];
  geometry { shape cylinder; height 0.3; radius 0.05; } geometry { shape sphere; radius 0.1; } }
frame slide { parent upper; type prismatic; axis [1, 0, 0]; }
frame table { translation [2, 0, 0]; }
allow_collision base upper;
"""

# Names DOT must escape (quote, backslash, newline, a would-be \\N escape), held by JSON input.
HOSTILE = ['a"b\\c', "new\nline ü", "\\N and \\l"]


@pytest.fixture(scope="module")
def dot() -> str:
    exe = shutil.which("dot")
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("Graphviz is installed in CI (.ci/run EXTRA_DEBS)")
        pytest.skip("Graphviz (dot) not installed")
    return exe


def _compile(tmp_path: Path, source: Path, *args: str) -> Path:
    out = tmp_path / "scene.dot"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    r = robrayc(source, "-o", out, *args, env=env, process=True)
    assert r.status == 0, r.err
    return out


def _graph(dot: str, path: Path) -> tuple[dict[str, str], list[tuple[str, str, dict]]]:
    """(node name -> label, [(tail, head, attributes)]) as Graphviz read the file."""
    r = subprocess.run([dot, "-Tjson", str(path)], capture_output=True, text=True, check=True)
    doc = json.loads(r.stdout)
    nodes = [o["name"] for o in doc["objects"]]
    labels = {o["name"]: o.get("label", "") for o in doc["objects"]}
    edges = [(nodes[e["tail"]], nodes[e["head"]], e) for e in doc.get("edges", [])]
    return labels, edges


def test_frame_tree(tmp_path: Path, dot: str) -> None:
    src = tmp_path / "scene.robray"
    src.write_text(SCENE)
    labels, edges = _graph(dot, _compile(tmp_path, src))
    frames = ["base", "shoulder", "upper", "slide", "table"]
    assert set(labels) == {"(root)"} | {f"frame:{f}" for f in frames}
    tree = {(t, h) for t, h, e in edges if e.get("style") != "dashed"}
    assert tree == {("(root)", "frame:base"), ("frame:base", "frame:shoulder"),
                    ("frame:shoulder", "frame:upper"), ("frame:upper", "frame:slide"),
                    ("(root)", "frame:table")}
    joint_labels = {h: e.get("label") for t, h, e in edges if e.get("label")}
    assert joint_labels == {"frame:shoulder": "q0 (revolute)", "frame:slide": "slide (prismatic)"}
    assert "2 geometries: cylinder, sphere" in labels["frame:upper"]
    assert not any(e.get("style") == "dashed" for _, _, e in edges)  # allowed pairs: opt-in


def test_allowed_pairs(tmp_path: Path, dot: str) -> None:
    src = tmp_path / "scene.robray"
    src.write_text(SCENE)
    _, edges = _graph(dot, _compile(tmp_path, src, "--dot-allowed"))
    dashed = [(t, h) for t, h, e in edges if e.get("style") == "dashed"]
    assert dashed == [("frame:base", "frame:upper")]


def test_root_named(tmp_path: Path, dot: str) -> None:
    src = tmp_path / "scene.robray"
    src.write_text(SCENE)
    labels, _ = _graph(dot, _compile(tmp_path, src, "--root", "world"))
    assert labels["(root)"] == "world"


def test_hostile_names_render_exactly(tmp_path: Path, dot: str) -> None:
    frames = [{"name": HOSTILE[0], "parent": None}]
    frames += [{"name": n, "parent": HOSTILE[0]} for n in HOSTILE[1:]]
    src = tmp_path / "scene.json"
    src.write_text(json.dumps({"format": "robrayc-scene", "version": 1, "frames": frames}))
    out = _compile(tmp_path, src)
    svg = subprocess.run([dot, "-Tsvg", str(out)], capture_output=True, check=True).stdout
    ns = {"s": "http://www.w3.org/2000/svg"}
    texts = []
    for group in etree.fromstring(svg).iterfind(".//s:g[@class='node']", ns):
        texts.append("\n".join(t.text or "" for t in group.iterfind("s:text", ns)))
    for name in HOSTILE:
        assert name in texts, (name, texts)
    _, edges = _graph(dot, out)
    assert len({h for _, h, _ in edges}) == 3  # three distinct nodes, each under its parent
