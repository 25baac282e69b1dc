"""One frame builder for every loader: the same bad pose read from robray, URDF and JSON gives
the same message and the same normalised value."""

from __future__ import annotations

import json
import math

import pytest

from robrayc.diagnostics import CompileError, DiagnosticSink
from robrayc.frontend import load_scene


def _robray(tmp_path, axis=None, quaternion=None) -> str:
    parts = ["type revolute;", f"axis [{', '.join(map(repr, axis or (0.0, 0.0, 1.0)))}];"]
    if quaternion is not None:
        parts.append(f"quaternion [{', '.join(map(repr, quaternion))}];")
    path = tmp_path / "a.robray"
    path.write_text("frame a { " + " ".join(parts) + " }\n")
    return str(path)


def _json(tmp_path, axis=None, quaternion=None) -> str:
    frame = {"name": "a", "parent": None, "type": "revolute",
             "axis": list(axis or (0.0, 0.0, 1.0)), "variable": "a"}
    if quaternion is not None:
        frame["quaternion"] = list(quaternion)
    path = tmp_path / "a.json"
    path.write_text(json.dumps({"format": "robrayc-scene", "version": 1, "frames": [frame]}))
    return str(path)


def _urdf(tmp_path, axis=None, quaternion=None) -> str:
    assert quaternion is None  # URDF writes rpy, never a quaternion
    xyz = " ".join(map(repr, axis or (0.0, 0.0, 1.0)))
    path = tmp_path / "a.urdf"
    path.write_text(f'<robot name="r"><link name="base"/><link name="a"/>'
                    f'<joint name="a" type="continuous"><parent link="base"/><child link="a"/>'
                    f'<axis xyz="{xyz}"/></joint></robot>')
    return str(path)


def _load(path: str) -> tuple[object, list[str]]:
    sink = DiagnosticSink()
    try:
        scene = load_scene([path], sink=sink)
    except CompileError:
        scene = None
    # JSON locates by path ("frames[0].axis: ..."): compare the message after it
    return scene, [f"{d.severity}: {d.message.split(': ', 1)[-1]}" for d in sink.items]


@pytest.mark.parametrize("write", [_robray, _json, _urdf], ids=["robray", "json", "urdf"])
def test_non_unit_revolute_axis_normalised_alike(tmp_path, write):
    scene, messages = _load(write(tmp_path, axis=(0.0, 0.0, 2.0)))
    assert scene.frame("a").axis == (0.0, 0.0, 1.0)
    assert any(m.startswith("warning: axis of ") and m.endswith("has length 2.0; normalised")
               for m in messages), messages


@pytest.mark.parametrize("write", [_robray, _json, _urdf], ids=["robray", "json", "urdf"])
def test_zero_axis_is_an_error_alike(tmp_path, write):
    scene, messages = _load(write(tmp_path, axis=(0.0, 0.0, 0.0)))
    assert scene is None
    assert any(m.startswith("error: axis of ") and m.endswith(" is zero") for m in messages)


@pytest.mark.parametrize("write", [_robray, _json], ids=["robray", "json"])
def test_quaternions_alike(tmp_path, write):
    scene, messages = _load(write(tmp_path, quaternion=(0.0, 0.0, 0.0, 2.0)))
    assert scene.frame("a").quaternion == (0.0, 0.0, 0.0, 1.0)
    assert messages == ["warning: quaternion has norm 2.0; normalised"]
    # unit to rounding: kept exactly as written (writers can spell any unit quaternion)
    s = math.sqrt(0.5)
    scene, messages = _load(write(tmp_path, quaternion=(s, 0.0, 0.0, s)))
    assert scene.frame("a").quaternion == (s, 0.0, 0.0, s) and messages == []
    scene, messages = _load(write(tmp_path, quaternion=(0.0, 0.0, 0.0, 0.0)))
    assert scene is None and messages == ["error: quaternion is zero"]
