"""The command line: listing, stdout output, formats, atomic outputs, imports kept light."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from robrayc.cli.main import main

SCENE = """frame base { }
frame arm { parent base; type revolute; axis [0, 0, 1]; variable q_arm; }
frame slide { parent arm; type prismatic; axis [1, 0, 0]; }
"""


def _scene(tmp_path: Path) -> Path:
    path = tmp_path / "s.robray"
    path.write_text(SCENE)
    return path


def test_list_frames_and_vars(tmp_path: Path, capsys) -> None:
    assert main([str(_scene(tmp_path)), "--list-frames", "--list-vars"]) == 0
    assert capsys.readouterr().out == ("frames:\n  base\n  arm\n  slide\n"
                                       "variables:\n  q_arm\n  slide\n")


def test_c_to_stdout_and_format_option(tmp_path: Path, capfdbinary) -> None:
    assert main([str(_scene(tmp_path)), "-o", "-", "-n", "demo"]) == 0
    out = capfdbinary.readouterr().out.decode()
    assert "struct aa_rx_sg *aa_rx_dl_sg__demo(struct aa_rx_sg *sg, const char *root)" in out
    assert main([str(_scene(tmp_path)), "--format", "c"]) == 0
    assert "aa_rx_sg_add_frame_prismatic" in capfdbinary.readouterr().out.decode()


def test_header_beside_c(tmp_path: Path) -> None:
    out = tmp_path / "scene.c"
    assert main([str(_scene(tmp_path)), "-o", str(out), "-n", "demo"]) == 0
    header = (tmp_path / "scene.c.h").read_text()
    assert "struct aa_rx_sg *aa_rx_dl_sg__demo(struct aa_rx_sg *sg, const char *root);" in header
    assert '#include "scene.c.h"' in out.read_text()


def test_several_inputs_merge(tmp_path: Path, capsys) -> None:
    (tmp_path / "a.robray").write_text("frame a { parent b; }")
    (tmp_path / "b.robray").write_text("frame b { }")
    assert main([str(tmp_path / "a.robray"), str(tmp_path / "b.robray"), "--list-frames"]) == 0
    assert capsys.readouterr().out == "b\na\n"


def test_failed_run_leaves_output_and_no_temporaries(tmp_path: Path) -> None:
    out = tmp_path / "scene.c"
    out.write_text("old")
    (tmp_path / "bad.robray").write_text("frame a { parent nowhere; }")
    assert main([str(tmp_path / "bad.robray"), "-o", str(out)]) == 1
    assert out.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.robray", "scene.c"]


def test_output_mode_follows_umask(tmp_path: Path) -> None:
    out = tmp_path / "scene.c"
    old = os.umask(0o022)
    try:
        assert main([str(_scene(tmp_path)), "-o", str(out)]) == 0
    finally:
        os.umask(old)
    assert out.stat().st_mode & 0o777 == 0o644


def test_directory_output_mode_follows_umask(tmp_path: Path) -> None:
    """The SimMeR folder was created 0700 (mkdtemp's mode), unlike every other output."""
    out = tmp_path / "config"
    old = os.umask(0o027)
    try:
        assert main([str(_scene(tmp_path)), "--format", "simmer", "-o", str(out), "-q"]) == 0
        assert out.stat().st_mode & 0o777 == 0o750
        assert (out / "maze.csv").stat().st_mode & 0o777 == 0o640
        out.chmod(0o711)  # a replaced folder keeps its mode, as a replaced file does
        assert main([str(_scene(tmp_path)), "--format", "simmer", "-o", str(out), "-q"]) == 0
        assert out.stat().st_mode & 0o777 == 0o711
    finally:
        os.umask(old)


def test_c_compile_imports_no_heavy_modules(tmp_path: Path) -> None:
    probe = ("import sys; from robrayc.cli.main import main; "
             f"status = main([{str(_scene(tmp_path))!r}, '-o', {str(tmp_path / 'x.c')!r}]); "
             "heavy = [m for m in ('numpy', 'lxml', 'trimesh', 'fcl', 'pygls', 'lark', 'scipy', "
             "'shapely', 'urllib.request') "
             "if m in sys.modules]; print(status, heavy)")
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True,
                         text=True).stdout
    assert out.strip() == "0 []"


def test_console_script_exit_codes(tmp_path: Path) -> None:
    exe = [sys.executable, "-m", "robrayc"]
    ok = subprocess.run([*exe, str(_scene(tmp_path))], capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stderr == ""
    usage = subprocess.run(exe, capture_output=True, text=True)
    assert usage.returncode == 2 and "no input scene" in usage.stderr
    (tmp_path / "bad.robray").write_text("frame a {")
    bad = subprocess.run([*exe, str(tmp_path / "bad.robray")], capture_output=True, text=True)
    assert bad.returncode == 1 and ": error: " in bad.stderr and "Traceback" not in bad.stderr


def test_unusable_template_cache_is_ignored(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    env = {**os.environ, "XDG_CACHE_HOME": str(blocker)}
    out = tmp_path / "x.c"
    subprocess.run([sys.executable, "-m", "robrayc", str(_scene(tmp_path)), "-o", str(out)],
                   check=True, env=env)
    assert "aa_rx_sg_add_frame_revolute" in out.read_text()


def test_piped_output_arrives_whole(tmp_path: Path, capsys) -> None:
    """The command ends its process without freeing the scene (os._exit after flushing):
    C written to a pipe (larger than any buffer) arrives whole, as the in-process run gives it."""
    scene = tmp_path / "big.robray"
    scene.write_text("".join(f"frame f{k} {{ translation [{k}, 0, 0]; }}\n" for k in range(3000)))
    piped = subprocess.run([sys.executable, "-m", "robrayc", str(scene), "-o", "-", "-n", "big"],
                           capture_output=True, check=True)
    assert main([str(scene), "-o", "-", "-n", "big"]) == 0
    assert piped.stdout.decode() == capsys.readouterr().out
    assert piped.stdout.rstrip().endswith(b"}") and len(piped.stdout) > 200_000


def test_a_library_caller_keeps_its_garbage_collector(tmp_path: Path) -> None:
    """main(argv) compiles in the caller's process: the cyclic GC stays as the caller set
    it (only the console entry, a process that ends with the compile, turns it off)."""
    import gc

    scene = tmp_path / "s.robray"
    scene.write_text("frame a { }\n")
    assert gc.isenabled()
    assert main([str(scene), "-o", str(tmp_path / "s.c")]) == 0
    assert gc.isenabled()
