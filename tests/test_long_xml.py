"""Diagnostics in XML files past 65,535 lines (issue 32): libxml2 keeps 16-bit line numbers
on some elements (lxml reports 65535 for them), so robrayc finds the line in the text, only
when a message needs it."""

from __future__ import annotations

from pathlib import Path

import pytest

from robrayc.frontend import xmlsource
from tests.run import robrayc


def _long_urdf(path: Path, bad: str) -> int:
    """A URDF of about 70,000 lines (comments holding '<' too) whose last link's origin is
    `bad`; returns that line's number."""
    lines = ['<?xml version="1.0"?>', '<robot name="r">', '  <link name="base"/>']
    for k in range(17600):
        parent = "base" if k == 0 else f"l{k - 1}"
        lines += [f'  <link name="l{k}">', "    <!-- not a <tag -->", "  </link>",
                  f'  <joint name="j{k}" type="fixed"><parent link="{parent}"/>'
                  f'<child link="l{k}"/></joint>']
    lines += [f'  <link name="late"><visual><origin xyz="{bad}"/><geometry><box size="1 1 1"/>'
              "</geometry></visual></link>",
              '  <joint name="jl" type="fixed"><parent link="base"/><child link="late"/></joint>',
              "</robot>"]
    path.write_text("\n".join(lines) + "\n")
    return len(lines) - 2


@pytest.mark.slow
def test_an_error_past_line_65535_points_at_its_line(tmp_path) -> None:
    path = tmp_path / "long.urdf"
    line = _long_urdf(path, "1 2 x")
    r = robrayc(path, "-o", tmp_path / "o.json", process=True)
    assert r.status == 1
    assert r.err.startswith(f"{path}:{line}:37: error: origin xyz: '1 2 x'"), r.err
    assert r.err.splitlines()[1].strip().startswith('<link name="late">'), r.err


@pytest.mark.slow
def test_lines_are_found_only_for_a_message(tmp_path, monkeypatch) -> None:
    from tests.urdf_robots import load

    path = tmp_path / "long.urdf"
    _long_urdf(path, "1 2 3")

    def refuse(*_args):
        raise AssertionError("the text was scanned without a message")

    monkeypatch.setattr(xmlsource, "start_tag_lines", refuse)
    scene = load([str(path)])
    assert scene.frame("late-visual").translation == (1.0, 2.0, 3.0)
