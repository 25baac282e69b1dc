"""Binary glTF read back by trimesh: one node per frame named after it, each at robrayc's FK
world transform, world bounds equal to the posed geometry's, materials from the colours."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess

import numpy as np
import pytest

from robrayc.diagnostics import DiagnosticSink
from robrayc.frontend import load_scene
from robrayc.kinematics import fk
from robrayc.meshes import load_mesh
from tests.backends.pictures import SEVEN_DOF, UR5, corpus_file, robrayc, write_boxes
from tests.corpus import IN_CI, REPO, ros_package_path

trimesh = pytest.importorskip("trimesh")


def _load(path):
    return trimesh.load(str(path), force="scene")


def _check_nodes(glb, scene, config):
    world = fk(scene, config)
    for f in scene.frames:
        assert f.name in glb.graph.nodes, f.name
        got, _ = glb.graph.get(f.name)
        assert np.allclose(got, world[f.name], atol=1e-9), f.name


def test_boxes_nodes_bounds_and_materials(tmp_path):
    src = write_boxes(tmp_path)
    out = tmp_path / "b.glb"
    r = robrayc(str(src), "-o", str(out), "--var", "slide", "--val", "0.25")
    assert r.status == 0, r.err
    glb = _load(out)
    scene = load_scene([str(src)])
    _check_nodes(glb, scene, {"slide": 0.25})
    # red box centred at y = -0.6, blue at +0.6, both 0.4 wide; sphere (r 0.1) at y 0.25
    assert np.allclose(glb.bounds, [[-0.2, -0.8, -0.2], [0.2, 0.8, 0.2]], atol=1e-6)
    colours = {tuple(np.round(g.visual.material.baseColorFactor[:3] / 255, 2))
               for g in glb.geometry.values()}
    assert colours == {(1.0, 0.0, 0.0), (0.0, 0.0, 1.0), (0.0, 0.8, 0.0)}


def test_highlight_makes_colliding_frames_red(tmp_path):
    out = tmp_path / "b.glb"
    r = robrayc(str(write_boxes(tmp_path)), "-o", str(out), "--var", "slide", "--val", "0.5",
                "--highlight-collisions")
    assert r.status == 0, r.err
    glb = _load(out)
    names = {g.visual.material.name for g in glb.geometry.values()}
    assert "colliding" in names
    colours = [tuple(g.visual.material.baseColorFactor[:3]) for g in glb.geometry.values()]
    assert colours.count((255, 0, 0)) == 3  # the red box, and the colliding blue box + sphere
    header = json.loads(out.read_bytes()[20:20 + struct.unpack("<I", out.read_bytes()[12:16])[0]])
    assert header["scenes"][0]["extras"] == {"colliding_pairs": [["blue_box", "slider"]]}


def test_7dof_one_node_per_frame(tmp_path):
    src = corpus_file(SEVEN_DOF)
    out = tmp_path / "7dof.glb"
    config = {"s0": 0.3, "e": -0.8, "w1": 1.1}
    args = [a for k, v in config.items() for a in ("--var", k, "--val", repr(v))]
    r = robrayc(str(src), "-o", str(out), *args)
    assert r.status == 0, r.err
    glb = _load(out)
    scene = load_scene([str(src)])
    _check_nodes(glb, scene, config)
    assert set(glb.graph.nodes) - {glb.graph.base_frame} >= {f.name for f in scene.frames}


def test_ur5_world_bounds_match_fk(tmp_path, monkeypatch):
    monkeypatch.setenv("ROS_PACKAGE_PATH", ros_package_path())
    src = corpus_file(UR5)
    out = tmp_path / "ur5.glb"
    config = {"shoulder_lift_joint": -1.0, "elbow_joint": 0.7, "wrist_2_joint": 0.4}
    args = [a for k, v in config.items() for a in ("--var", k, "--val", repr(v))]
    r = robrayc(str(src), "-o", str(out), *args)
    assert r.status == 0, r.err
    glb = _load(out)
    sink = DiagnosticSink()
    scene = load_scene([str(src)], None, sink)
    _check_nodes(glb, scene, config)
    world = fk(scene, config)
    pts = []
    for f in scene.frames:
        for g in f.geometries:
            if g.visual:
                v = load_mesh(g.shape, sink, g.pos).vertices * g.scale
                pts.append(v @ world[f.name][:3, :3].T + world[f.name][:3, 3])
    pts = np.vstack(pts)
    expected = np.array([pts.min(axis=0), pts.max(axis=0)])
    assert np.allclose(glb.bounds, expected, atol=1e-6)


VALIDATE = """
const validator = require(process.argv[1]);
const data = new Uint8Array(require("fs").readFileSync(process.argv[2]));
validator.validateBytes(data).then((r) => console.log(JSON.stringify(r.issues)));
"""


def _validator() -> str:
    """The Khronos glTF validator's npm folder (.ci/run installs it)."""
    where = os.environ.get("GLTF_VALIDATOR_DIR") or str(
        REPO / ".ci" / "node" / "node_modules" / "gltf-validator")
    if shutil.which("node") is None or not os.path.isdir(where):
        if IN_CI:
            pytest.fail("node or the gltf-validator npm package is missing")
        pytest.skip("node and the gltf-validator npm package are not installed")
    return where


def test_khronos_validator_finds_no_errors_or_warnings(tmp_path):
    validator = _validator()
    empty = tmp_path / "empty.robray"
    empty.write_text("")
    for scene in (write_boxes(tmp_path), empty):
        out = tmp_path / "b.glb"
        r = robrayc(str(scene), "-o", str(out), "--highlight-collisions", "-q",
                    *(("--var", "slide", "--val", "0.5") if scene != empty else ()))
        assert r.status == 0, r.err
        done = subprocess.run(["node", "-e", VALIDATE, validator, str(out)],
                              capture_output=True, text=True, check=True)
        issues = json.loads(done.stdout)
        assert issues["numErrors"] == 0 and issues["numWarnings"] == 0, issues["messages"]


def test_hostile_frame_names_survive_byte_for_byte(tmp_path):
    name = "</script> é ✓ & <b>x</b> {[;]}"
    scene = tmp_path / "h.robray"
    scene.write_text(f'frame "{name}" {{ geometry {{ shape box; dimension [1, 1, 1]; }} }}\n',
                     encoding="utf-8")
    out = tmp_path / "h.glb"
    r = robrayc(str(scene), "-o", str(out))
    assert r.status == 0, r.err
    assert name in _load(out).graph.nodes
