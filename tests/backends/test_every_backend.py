"""Every registered backend (iterating over BACKENDS, so a new one is covered the day it
registers) on every shape of the IR: output its real reader accepts, or a located refusal.
An unknown shape class never passes silently (as a mesh): the backend raises."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from robrayc import ir, records
from robrayc.backends import BACKENDS, EmitContext, build_options, load
from robrayc.diagnostics import DiagnosticSink
from robrayc.frontend import load_scene
from tests.backends.validator import NAME, check_run, compile_to, every_backend, output_path
from tests.corpus import REPO

MESH = REPO / "tests" / "conformance" / "meshinc" / "tet_top.obj"

# One geometry statement per IR shape; the test below checks this covers ir.SHAPE_NAMES.
SHAPES = {
    "box": "shape box; dimension [0.4, 0.3, 0.2];",
    "sphere": "shape sphere; radius 0.25;",
    "cylinder": "shape cylinder; height 0.5; radius 0.1;",
    "cone": "shape cone; height 0.5; start_radius 0.2; end_radius 0.05;",
    "grid": "shape grid; dimension [2, 2]; delta [0.5, 0.5]; thickness 0.01;",
    "mesh": f'mesh "{MESH}"; scale 0.3;',
}


def scene_text(geometry: str) -> str:
    """A small robot (for the 2D formats) and a joint holding the geometry under test."""
    return (
        "class robot { }\n"
        "frame bot { translation [-2, 0, 0.05];\n"
        "  geometry { isa robot; shape box; dimension [0.2, 0.2, 0.1]; } }\n"
        "frame arm { type revolute; axis [0, 0, 1]; translation [0, 0, 0.5];\n"
        "  limit_position [-1, 1];\n"
        f"  geometry {{ {geometry} }} }}\n")


def test_every_ir_shape_is_exercised() -> None:
    assert set(SHAPES) == set(ir.SHAPE_NAMES.values())


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("fmt", every_backend())
def test_backend_handles_shape(tmp_path: Path, fmt: str, shape: str) -> None:
    scene = tmp_path / "scene.robray"
    scene.write_text(scene_text(SHAPES[shape]))
    check_run(compile_to(fmt, scene, tmp_path))


@dataclasses.dataclass(frozen=True)
class Torus:  # a shape no backend knows
    radius: float = 1.0


def _options(fmt: str, scene_path: Path, out: Path):
    """The backend's options as the command line builds them (defaults)."""
    from robrayc.cli.arguments import build_parser

    args = build_parser().parse_args([str(scene_path), "-o", str(out)])
    args.configuration = {}
    return build_options(fmt, args, DiagnosticSink())


@pytest.mark.parametrize("fmt", every_backend())
def test_unknown_shape_raises(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "scene.robray"
    path.write_text(scene_text(SHAPES["box"]))
    scene = load_scene([str(path)])
    arm = scene.frame("arm")
    torus = records.replace(arm.geometries[0], shape=Torus())
    frames = tuple(records.replace(f, geometries=(torus,)) if f is arm else f
                   for f in scene.frames)
    scene = records.replace(scene, frames=frames)
    out = output_path(fmt, tmp_path)
    ctx = EmitContext(out, _options(fmt, path, out), DiagnosticSink(), name=NAME)
    with pytest.raises(TypeError, match="shape Torus"):
        load(fmt).emit(scene, ctx)


@pytest.mark.parametrize("fmt", sorted(BACKENDS))
def test_options_are_typed(fmt: str) -> None:
    """Each backend declares its options as a frozen record built once from the command line
    (no namespace reads inside emit); its defaults are the command line's."""
    module = load(fmt)
    assert hasattr(module, "Options"), f"{fmt}: declare Options (backends.NoOptions if none)"
    options = _options(fmt, Path("x.robray"), Path("x.out"))
    assert records.is_record(options), f"{fmt}: Options must be a robrayc.records.record"
    fields = records.fields(options)
    if fields:
        with pytest.raises(records.FrozenInstanceError):
            setattr(options, fields[0].name, None)
    if all(f.default is not records.MISSING for f in fields):
        assert options == module.Options()


def test_every_backend_has_its_test_file() -> None:
    """ARCHITECTURE.md: the tests of backends/<module>.py are tests/backends/test_<module>.py."""
    here = Path(__file__).resolve().parent
    missing = [f"test_{module.rpartition('.')[2].rstrip('_')}.py"
               for module, *_ in BACKENDS.values()
               if not (here / f"test_{module.rpartition('.')[2].rstrip('_')}.py").is_file()]
    assert not missing, missing
