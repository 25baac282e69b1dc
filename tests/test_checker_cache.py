"""The compiled checkers cached in the user cache ($XDG_CACHE_HOME/robrayc/checkers, here a
tmp folder) are verified before they are loaded: a truncated or overwritten library (which
would kill the process with SIGBUS, or fail to load) is compiled again, and `auto` falls
back to the exact checker with a warning when it cannot be."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.run import Run, robrayc

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                                 reason="no C compiler")]

SCENE = """\
frame base { geometry { shape box; dimension [0.4, 0.4, 0.2]; } }
frame arm { parent base; type revolute; axis [0, 0, 1]; variable q; translation [0, 0, 0.2];
  limit_position [-3, 3]; geometry { shape cylinder; radius 0.05; height 0.6; } }
frame hand { parent arm; type revolute; axis [0, 1, 0]; variable r; translation [0, 0, 0.6];
  limit_position [-3, 3]; geometry { shape sphere; radius 0.1; } }
frame post { translation [0.5, 0, 0]; geometry { shape box; dimension [0.1, 0.1, 2]; } }
"""
COLLIDING = ["--var", "q", "--val", "0", "--var", "r", "--val", "1.2"]


def _run(tmp: Path, *args: str, cc: str | None = None) -> Run:
    """robrayc with its cache in tmp (and CC when given), in a process of its own: a damaged
    library, loaded by mistake, would kill it (SIGBUS), not the test session."""
    env = {"XDG_CACHE_HOME": str(tmp / "cache"), **({"CC": cc} if cc is not None else {})}
    return robrayc(*args, env=env, process=True, timeout=300)


def _libraries(tmp: Path) -> list[Path]:
    return sorted((tmp / "cache" / "robrayc" / "checkers").glob("checker-*.so"))


def _damage(lib: Path, how: str) -> None:
    data = lib.read_bytes()
    lib.write_bytes(data[:len(data) // 2] if how == "truncated" else b"\x7fELF" + b"x" * 4000)


@pytest.mark.parametrize("how", ["truncated", "garbage"])
def test_damaged_cached_checker_is_rebuilt(tmp_path: Path, how: str) -> None:
    scene = tmp_path / "arm.robray"
    scene.write_text(SCENE)
    first = _run(tmp_path, "collide", str(scene), *COLLIDING, "--backend", "compiled")
    assert first.status == 1 and first.out, first.err
    libs = _libraries(tmp_path)
    # the kernel collide loads (the cells' prover, also cached, is not loaded again: the
    # proven cells are cached too)
    kernel = [lib for lib in libs if b"rc_solid_states" in lib.read_bytes()]
    assert len(kernel) == 1
    whole = kernel[0].read_bytes()
    for backend in ("compiled", "auto"):
        for lib in libs:
            _damage(lib, how)
        again = _run(tmp_path, "collide", str(scene), *COLLIDING, "--backend", backend)
        assert (again.status, again.out) == (1, first.out), again.err
        assert "warning" not in again.err
        assert kernel[0].read_bytes() == whole  # repaired
    for lib in libs:
        _damage(lib, how)
    acm = _run(tmp_path, "allowed-collisions", str(scene), "--samples", "200", "-j", "1")
    assert acm.status == 0 and "allow_collision" in acm.out, acm.err
    assert "warning" not in acm.err


def test_damaged_cache_without_a_compiler(tmp_path: Path) -> None:
    """A damaged library that cannot be compiled again is never loaded: `auto` warns and
    answers with the exact checker, `compiled` is a located error."""
    scene = tmp_path / "arm.robray"
    scene.write_text(SCENE)
    exact = _run(tmp_path, "collide", str(scene), *COLLIDING, "--backend", "exact")
    assert _run(tmp_path, "collide", str(scene), *COLLIDING, "--backend",
                "compiled").status == 1
    for lib in _libraries(tmp_path):
        _damage(lib, "truncated")
    broken_cc = tmp_path / "cc"
    broken_cc.write_text("#!/bin/sh\nexit 1\n")
    broken_cc.chmod(0o755)
    auto = _run(tmp_path, "collide", str(scene), *COLLIDING, "--backend", "auto",
                cc=str(broken_cc))
    assert (auto.status, auto.out) == (1, exact.out), auto.err
    assert "warning: exact checker used" in auto.err
    compiled = _run(tmp_path, "collide", str(scene), *COLLIDING, "--backend", "compiled",
                    cc=str(broken_cc))
    assert compiled.status == 2 and "compiled checker is not available" in compiled.err
