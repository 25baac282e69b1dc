"""--watch recompiles when an input, an include or a mesh changes (a real, bounded subprocess);
the original's options robrayc does not take say what to use instead."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from robrayc.cli.arguments import AARXC_ONLY
from robrayc.cli.main import main
from tests.corpus import REPO
from tests.run import robrayc

TRIANGLE = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"


def _wait_for(predicate, what: str, proc: subprocess.Popen, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        assert proc.poll() is None, f"robrayc --watch ended early ({proc.returncode})"
        time.sleep(0.05)
    pytest.fail(f"timed out waiting for {what}")


def _touch_later(path: Path, text: str) -> None:
    """Rewrite `path` with a visibly later mtime (coarse file-system clocks)."""
    before = path.stat().st_mtime_ns
    path.write_text(text)
    if path.stat().st_mtime_ns == before:
        os.utime(path, ns=(before + 10_000_000, before + 10_000_000))


def test_watch_recompiles_on_input_include_and_mesh(tmp_path: Path) -> None:
    (tmp_path / "part.robray").write_text("frame included_a { }\n")
    (tmp_path / "tri.obj").write_text(TRIANGLE)
    scene = tmp_path / "s.robray"
    scene.write_text('include "part.robray"\nframe m { geometry { mesh "tri.obj"; } }\n')
    out = tmp_path / "s.c"
    stderr = tmp_path / "stderr.txt"
    with stderr.open("w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "robrayc", str(scene), "-o", str(out),
                                 "--watch"], stderr=err, stdout=subprocess.DEVNULL,
                                env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        def has(text: str):
            return lambda: out.exists() and text in out.read_text()

        _wait_for(has('"included_a"'), "the first compile", proc)
        _touch_later(tmp_path / "part.robray", "frame included_b { }\n")
        _wait_for(has('"included_b"'), "a recompile after the include changed", proc)
        _touch_later(tmp_path / "tri.obj", TRIANGLE.replace("v 0 1 0", "v 0 7.25 0"))
        _wait_for(has("7.25"), "a recompile after the mesh changed", proc)
        _touch_later(scene, "frame m { parent nowhere; }\n")  # an error: reported, still watching
        _wait_for(lambda: "unknown parent frame 'nowhere'" in stderr.read_text(),
                  "the error of a broken edit", proc)
        assert '"included_b"' in out.read_text()  # a failed run keeps the last output
        _touch_later(scene, "frame fixed_again { }\n")
        _wait_for(has('"fixed_again"'), "a recompile after the fix", proc)
        assert "watching" in stderr.read_text()
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            status = proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise
    assert status == 130  # stopped by Ctrl-C, as any interrupted command
    assert "Traceback" not in stderr.read_text()


def test_watch_stops_on_usage_errors(tmp_path: Path) -> None:
    run = robrayc("--watch", "--bogus", timeout=60, process=True)
    assert run.status == 2 and "unrecognized arguments: --bogus" in run.err


@pytest.mark.parametrize("argv", [["-g"], ["--gui"], ["-R"], ["--reload"], ["-p", "x.pov"],
                                  ["-P", "x.pov"], ["--render"], ["--end-effector=tool"],
                                  ["--version-man"]])
def test_original_only_options_say_what_to_use(tmp_path: Path, argv, capsys) -> None:
    scene = tmp_path / "s.robray"
    scene.write_text("frame a { }\n")
    assert main([str(scene), *argv]) == 2
    option = argv[0].partition("=")[0]
    err = capsys.readouterr().err
    assert f"option '{option}' of the original aarxc is not supported: " in err
    assert AARXC_ONLY[option] in err


def test_original_only_options_are_documented() -> None:
    page = (REPO / "docs" / "differences.md").read_text()
    section = page[page.index("## Options of aarxc robrayc does not take"):]
    for option in AARXC_ONLY:
        assert f"`{option}" in section, option
