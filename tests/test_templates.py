"""The templates compiled to Python (robrayc/_templates.py) are current and render exactly
what jinja2 renders from templates/, for every branch the C backends reach."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from robrayc import templating
from robrayc.cli.main import main
from robrayc.resources import resource_dir
from tests.corpus import amino_corpus_files

REPO = Path(__file__).resolve().parents[1]

# Joints with every limit, inertia, every shape, a mesh, an allowed pair, an include-free
# class: each {% if %} and {% for %} of the C templates taken at least once.
EVERY_BRANCH = """\
class red { color [1, 0, 0]; alpha 0.5; }
frame base { geometry { shape box; dimension [1, 2, 3]; isa red; } }
frame j1 { parent base; type revolute; axis [0, 0, 1]; offset 0.25;
  limit_position [-1, 1]; limit_velocity [-2, 2]; limit_acceleration [-3, 3];
  limit_effort [-4, 4]; mass 2; inertia [1, 0, 0, 1, 0, 1];
  geometry { shape sphere; radius 0.5; specular [.1, .2, .3]; scale 2; } }
frame j2 { parent j1; type prismatic; axis [1, 0, 0]; translation [1, 0, 0];
  geometry { shape cylinder; radius 0.1; height 1; visual 0; }
  geometry { shape cone; height 1; start_radius 0.2; end_radius 0.1; collision 0; }
  geometry { shape grid; dimension [1, 1]; delta [.1, .1]; thickness .01; no_shadow 1; }
  geometry { mesh "tri.obj"; } }
allow_collision base j1;
"""
TRIANGLE = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"


def _scenes(tmp: Path) -> list[Path]:
    (tmp / "tri.obj").write_text(TRIANGLE)
    scenes = {"every_branch": EVERY_BRANCH, "no_geometry": "frame lonely { }\n",
              # more frames than one FK part of the standalone C (its split branch)
              "many": "frame f0 { }\n" + "".join(
                  f"frame f{i} {{ parent f{i - 1}; type revolute; axis [0, 0, 1]; }}\n"
                  for i in range(1, 70))}
    paths = []
    for name, text in scenes.items():
        paths.append(tmp / f"{name}.robray")
        paths[-1].write_text(text)
    return paths + amino_corpus_files()[:3] + [REPO / "examples" / "blocks.robray"]


@pytest.mark.parametrize("fmt", ["c", "c-standalone"])
def test_compiled_equals_jinja(tmp_path: Path, fmt: str, monkeypatch) -> None:
    pytest.importorskip("jinja2")
    for scene in _scenes(tmp_path):
        outputs = {}
        for how in ("compiled", "jinja"):
            if how == "jinja":
                monkeypatch.setattr(templating, "_compiled", lambda name: None)
            out = tmp_path / how / f"{scene.stem}.c"
            out.parent.mkdir(exist_ok=True)
            assert main([str(scene), "--format", fmt, "-o", str(out)]) == 0
            outputs[how] = [p.read_bytes() for p in sorted(out.parent.glob(scene.stem + ".*"))]
            monkeypatch.undo()
        assert outputs["compiled"] == outputs["jinja"], scene


def test_edited_template_falls_back_to_jinja(monkeypatch) -> None:
    """A template changed since generation renders through jinja2, never stale code."""
    pytest.importorskip("jinja2")
    from robrayc import _templates

    crc, function = _templates.TEMPLATES["amino_c.h.j2"]
    monkeypatch.setitem(_templates.TEMPLATES, "amino_c.h.j2", (crc ^ 1, function))
    templating._compiled.cache_clear()
    try:
        assert templating._compiled("amino_c.h.j2") is None
    finally:
        templating._compiled.cache_clear()


def test_translator_refuses_unknown_constructs() -> None:
    pytest.importorskip("jinja2")
    with pytest.raises(NotImplementedError, match="Macro"):
        templating.translate("x", "{% macro m() %}{% endmacro %}")


@pytest.mark.slow  # the checker with its certified cells (a C compile)
def test_every_template_renders_as_jinja_renders_it(tmp_path: Path, monkeypatch) -> None:
    """Each template's generated function gives what jinja2 gives, for every template in
    templates/ (the collision checker's included), on the models the code really builds."""
    pytest.importorskip("jinja2")
    from robrayc.analysis.collision import CollisionChecker
    from robrayc.analysis.collision.compiled import c_source
    from robrayc.frontend import load_scene

    generated, seen = templating._compiled, set()

    def both(template: str):
        function = generated(template)
        assert function is not None, f"{template} is stale: run python -m robrayc.regen"

        def render(model: dict) -> str:
            # a model's generators (large lists never held in memory) read once each way
            model = {k: list(v) if isinstance(v, Iterator) else v for k, v in model.items()}
            text = function(model)
            assert text == templating.render_with_jinja(template, model), template
            seen.add(template)
            return text
        return render

    monkeypatch.setattr(templating, "_compiled", both)
    scenes = _scenes(tmp_path)
    for scene in scenes[:1] + scenes[-1:]:
        for fmt in ("c", "c-standalone"):
            assert main([str(scene), "--format", fmt, "-o", str(tmp_path / "out.c")]) == 0
        checker = CollisionChecker(load_scene([str(scene)]))
        for include in (None, "arm.h"):
            c_source(checker, "arm", include=include, cells=True, triangles=True)
    assert seen == {p.name for p in resource_dir("templates").glob("*.j2")}
