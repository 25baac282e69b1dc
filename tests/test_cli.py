"""The command line: listing, stdout output, formats, atomic outputs, imports kept light."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from robrayc.cli.main import main
from tests.run import robrayc


def test_list_frames_and_vars(scene: Path) -> None:
    run = robrayc(scene, "--list-frames", "--list-vars")
    assert run.status == 0
    assert run.out == ("frames:\n  base\n  shoulder\n  hand\n  tip\n"
                       "variables:\n  shoulder\n  hand\n")


def test_c_to_stdout_and_format_option(scene: Path) -> None:
    run = robrayc(scene, "-o", "-", "-n", "demo")
    assert run.status == 0
    assert "struct aa_rx_sg *aa_rx_dl_sg__demo(struct aa_rx_sg *sg, const char *root)" in run.out
    run = robrayc(scene, "--format", "c")
    assert run.status == 0 and "aa_rx_sg_add_frame_prismatic" in run.out


def test_header_beside_c(scene: Path, tmp_path: Path) -> None:
    out = tmp_path / "scene.c"
    assert robrayc(scene, "-o", out, "-n", "demo").status == 0
    header = (tmp_path / "scene.c.h").read_text()
    assert "struct aa_rx_sg *aa_rx_dl_sg__demo(struct aa_rx_sg *sg, const char *root);" in header
    assert '#include "scene.c.h"' in out.read_text()


def test_several_inputs_merge(tmp_path: Path) -> None:
    (tmp_path / "a.robray").write_text("frame a { parent b; }")
    (tmp_path / "b.robray").write_text("frame b { }")
    run = robrayc(tmp_path / "a.robray", tmp_path / "b.robray", "--list-frames")
    assert run.status == 0 and run.out == "b\na\n"


def test_failed_run_leaves_output_and_no_temporaries(tmp_path: Path) -> None:
    out = tmp_path / "scene.c"
    out.write_text("old")
    (tmp_path / "bad.robray").write_text("frame a { parent nowhere; }")
    assert robrayc(tmp_path / "bad.robray", "-o", out).status == 1
    assert out.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.robray", "scene.c"]


def test_output_mode_follows_umask(scene: Path, tmp_path: Path) -> None:
    out = tmp_path / "scene.c"
    old = os.umask(0o022)
    try:
        assert robrayc(scene, "-o", out).status == 0
    finally:
        os.umask(old)
    assert out.stat().st_mode & 0o777 == 0o644


def test_directory_output_mode_follows_umask(scene: Path, tmp_path: Path) -> None:
    """The SimMeR folder was created 0700 (mkdtemp's mode), unlike every other output."""
    out = tmp_path / "config"
    old = os.umask(0o027)
    try:
        assert robrayc(scene, "--format", "simmer", "-o", out, "-q").status == 0
        assert out.stat().st_mode & 0o777 == 0o750
        assert (out / "maze.csv").stat().st_mode & 0o777 == 0o640
        out.chmod(0o711)  # a replaced folder keeps its mode, as a replaced file does
        assert robrayc(scene, "--format", "simmer", "-o", out, "-q").status == 0
        assert out.stat().st_mode & 0o777 == 0o711
    finally:
        os.umask(old)


def test_c_compile_imports_no_heavy_modules(scene: Path, tmp_path: Path) -> None:
    probe = ("import sys; from robrayc.cli.main import main; "
             f"status = main([{str(scene)!r}, '-o', {str(tmp_path / 'x.c')!r}]); "
             "heavy = [m for m in ('numpy', 'lxml', 'trimesh', 'fcl', 'pygls', 'lark', 'scipy', "
             "'shapely', 'urllib.request') "
             "if m in sys.modules]; print(status, heavy)")
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True,
                         text=True).stdout
    assert out.strip() == "0 []"


def test_console_script_exit_codes(scene: Path, tmp_path: Path) -> None:
    ok = robrayc(scene, process=True)
    assert ok.status == 0 and ok.err == ""
    usage = robrayc(process=True)
    assert usage.status == 2 and "no input scene" in usage.err
    (tmp_path / "bad.robray").write_text("frame a {")
    bad = robrayc(tmp_path / "bad.robray", process=True)
    assert bad.status == 1 and ": error: " in bad.err and "Traceback" not in bad.err


def test_unusable_template_cache_is_ignored(scene: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    out = tmp_path / "x.c"
    run = robrayc(scene, "-o", out, env={"XDG_CACHE_HOME": str(blocker)}, process=True)
    assert run.status == 0, run.err
    assert "aa_rx_sg_add_frame_revolute" in out.read_text()


def test_piped_output_arrives_whole(tmp_path: Path) -> None:
    """The command ends its process without freeing the scene (os._exit after flushing):
    C written to a pipe (larger than any buffer) arrives whole, as the in-process run gives it."""
    scene = tmp_path / "big.robray"
    scene.write_text("".join(f"frame f{k} {{ translation [{k}, 0, 0]; }}\n" for k in range(3000)))
    piped = robrayc(scene, "-o", "-", "-n", "big", process=True)
    in_process = robrayc(scene, "-o", "-", "-n", "big")
    assert piped.status == in_process.status == 0
    assert piped.out == in_process.out
    assert piped.out.rstrip().endswith("}") and len(piped.out) > 200_000


def test_a_library_caller_keeps_its_garbage_collector(scene: Path, tmp_path: Path) -> None:
    """main(argv) compiles in the caller's process: the cyclic GC stays as the caller set
    it (only the console entry, a process that ends with the compile, turns it off)."""
    import gc

    assert gc.isenabled()
    assert main([str(scene), "-o", str(tmp_path / "s.c")]) == 0
    assert gc.isenabled()


def test_the_tests_write_no_cache_of_the_user(private_cache: Path) -> None:
    """tests/conftest.py points robrayc's cache (compiled checkers) and the home folder (what
    the real tools write there) into the test session."""
    import pwd

    from robrayc.analysis.collision.c_build import cache_dir

    user_home = Path(pwd.getpwuid(os.getuid()).pw_dir)
    assert cache_dir().is_relative_to(private_cache)
    assert not cache_dir().is_relative_to(user_home)
    assert Path.home().parent == private_cache.parent and Path.home() != user_home
