"""The JSON backend (`--format json`, robrayc/backends/json_.py): every output valid against
the shipped JSON Schema (checked by jsonschema, Draft 2020-12), values as written, and read
back by the `.json` front end to the same scene (tests/test_roundtrip.py does the corpus)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import jsonschema
import pytest

from robrayc import ir
from robrayc.backends import json_ as json_backend
from robrayc.frontend import load_scene
from robrayc.records import replace
from tests.run import robrayc


def _json(scene: Path, tmp_path: Path, *extra: str) -> tuple[Path, dict]:
    out = tmp_path / "scene.json"
    run = robrayc(scene, "-o", out, *extra)
    assert run.status == 0, run.err
    return out, json.loads(out.read_text(encoding="utf-8"))


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    schema = json_backend.schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    bad = {"format": "robrayc-scene", "version": 1, "frames": [{"name": "a"}], "allowed": [],
           "sources": []}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)


def test_scene_as_written_valid_and_read_back(scene: Path, tmp_path: Path) -> None:
    out, doc = _json(scene, tmp_path)
    jsonschema.validate(doc, json_backend.schema())
    assert (doc["format"], doc["version"]) == ("robrayc-scene", 1)
    frames = {f["name"]: f for f in doc["frames"]}
    assert list(frames) == ["base", "shoulder", "hand", "tip"]
    assert frames["shoulder"]["translation"] == [0.0, 0.0, 0.5]  # `l` folded
    assert frames["shoulder"]["limits"]["position"] == [-1.0, 1.0]
    assert frames["hand"]["type"] == "prismatic" and frames["hand"]["parent"] == "shoulder"
    half = math.sqrt(0.5)  # rpy [0, 0, pi / 2]: a quarter turn about z
    assert frames["tip"]["quaternion"] == pytest.approx([0, 0, half, half], abs=1e-15)  # x y z w
    assert [(a["a"], a["b"]) for a in doc["allowed"]] == [("base", "shoulder")]
    back, original = load_scene([str(out)]), load_scene([str(scene)])
    assert replace(back, sources=()) == replace(original, sources=())


def test_infinite_limits_are_strings(tmp_path: Path) -> None:
    """JSON has no infinity: an open limit is "Infinity", read back as the double."""
    source = tmp_path / "open.robray"
    source.write_text("frame j { type revolute; axis [0, 0, 1]; "
                      "limit_velocity [-1e999, 1e999]; }\n")
    out, doc = _json(source, tmp_path)
    jsonschema.validate(doc, json_backend.schema())
    assert doc["frames"][0]["limits"]["velocity"] == ["-Infinity", "Infinity"]
    limits = load_scene([str(out)]).frame("j").limits
    assert limits.velocity == (-math.inf, math.inf)
    assert isinstance(limits, ir.Limits)
