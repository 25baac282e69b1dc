"""The robray backend (`--format robray`, `-s`, robrayc/backends/robray.py): what it writes
reads back to the same scene, bit for bit, in robrayc and in the ORIGINAL aarxc (the real
tool: its C loaded in the real amino library), and what robray cannot say is reported
(tests/test_roundtrip.py does the corpus and generated scenes)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from robrayc import ir
from robrayc.backends import EmitContext
from robrayc.backends import robray as robray_backend
from robrayc.diagnostics import CompileError, DiagnosticSink
from robrayc.frontend import load_scene
from robrayc.kinematics import qnorm, rpy_to_quat
from tests import amino_real
from tests.run import SCENE, robrayc
from tests.urdf_robots import bits, canonical

TET = Path(__file__).resolve().parents[1] / "conformance" / "tet.obj"


def _written(scene: Path, tmp_path: Path) -> Path:
    out = tmp_path / "again.robray"
    run = robrayc(scene, "--format", "robray", "-o", out)
    assert run.status == 0, run.err
    return out


def test_scene_reads_back_the_same(scene: Path, tmp_path: Path) -> None:
    """Every fact, bit for bit (source positions aside: they name the new file)."""
    again = _written(scene, tmp_path)
    assert bits(canonical(load_scene([str(again)]), False)) == \
        bits(canonical(load_scene([str(scene)]), False))


def test_quaternions_a_bit_off_unit_still_read_back_exactly(tmp_path: Path) -> None:
    """rpy gives quaternions whose norm is 1 only to the last bit; the loader would normalise
    them; the writer picks the neighbour that normalises back onto them."""
    frames = []
    for i in range(400):
        q = rpy_to_quat(i * 0.37, -i * 0.11, i * 0.05)
        if qnorm(q) != 1.0 and robray_backend._preimage(q) is not None:
            frames.append(ir.Frame(f"f{len(frames)}", quaternion=q))
    assert len(frames) > 20
    (f,) = robray_backend.emit(ir.Scene(tuple(frames)), EmitContext(
        tmp_path / "q.robray", robray_backend.Options(), DiagnosticSink()))
    (tmp_path / "q.robray").write_bytes(f.data)
    back = load_scene([str(tmp_path / "q.robray")])
    assert [fr.quaternion for fr in back.frames] == [fr.quaternion for fr in frames]


def test_what_robray_cannot_say_is_reported() -> None:
    scene = ir.Scene((ir.Frame('say "hi"', geometries=(ir.Geometry(
        ir.Mesh(str(TET), "tet.obj", (1.0, 2.0, 3.0)), scale=2.0),)),))
    sink = DiagnosticSink()
    robray_backend.emit(scene, EmitContext(None, robray_backend.Options(), sink))
    messages = " ".join(d.message for d in sink.items)
    assert "double quote" in messages and "per-axis scale" in messages
    with pytest.raises(CompileError):
        robray_backend.emit(ir.Scene((ir.Frame("n", translation=(math.nan, 0.0, 0.0)),)),
                            EmitContext(None, robray_backend.Options(), DiagnosticSink()))


@pytest.mark.slow  # the original aarxc (a Lisp image) and a build against the real amino
def test_the_original_aarxc_reads_what_robrayc_writes(tmp_path: Path) -> None:
    """In the original's language (no joint limits, robrayc's extension), both compilers
    give the same scene in the real library."""
    amino_real.require_aarxc()
    scene = tmp_path / "plain.robray"
    scene.write_text(SCENE.replace("limit_position [-1, 1];", ""))
    again = _written(scene, tmp_path)
    theirs = amino_real.run_aarxc([again], "sc", tmp_path / "aarxc" / "sc.c")
    assert theirs.ok, theirs.output
    ours = amino_real.run_robrayc([scene], "sc", tmp_path / "robrayc" / "sc.c")
    assert ours.ok, ours.output
    (a,), (b,) = amino_real.load_c(ours.c_file, "sc"), amino_real.load_c(theirs.c_file, "sc")
    assert not amino_real.compare(amino_real.normalize(a), amino_real.normalize(b))
