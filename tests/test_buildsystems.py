"""examples/make and examples/cmake built for real in temporary folders.

Each build is checked through the tool's own output and file mtimes:
- a second build does nothing;
- touching an unrelated file rebuilds nothing;
- touching an included .robray file (same text) reruns robrayc, whose --if-changed keeps the C
  file's mtime, so nothing is recompiled;
- editing an included file so the scene changes rebuilds the scene and its library, and the
  program then prints the new result.
Instead of sleeping, mtimes in the tree are moved back before each touch (see `age`).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from robrayc.frontend import load_scene
from robrayc.kinematics import fk_batch, matrix_to_quat
from tests.corpus import CORPUS, require_corpus

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
SEVEN_DOF = CORPUS / "amino" / "demo" / "tutorial" / "plugin" / "7dof" / "7dof.robray"


def robrayc_program() -> str:
    """The robrayc command installed beside this Python (what a build would find on PATH)."""
    here = Path(sys.executable).parent / "robrayc"
    found = str(here) if here.exists() else shutil.which("robrayc")
    if found is None:
        pytest.skip("the robrayc program is not installed")
    return found


def age(tree: Path, seconds: float = 30.0) -> None:
    """Move every mtime in `tree` back, so a file touched now is strictly newer than all."""
    shift = int(seconds * 1e9)
    for p in tree.rglob("*"):
        if p.is_file() and not p.is_symlink():
            st = p.stat()
            os.utime(p, ns=(st.st_atime_ns - shift, st.st_mtime_ns - shift))


def sh(cmd: list[str], cwd: Path, env: dict | None = None) -> str:
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    assert r.returncode == 0, f"{cmd} failed:\n{r.stdout}\n{r.stderr}"
    return r.stdout + r.stderr


def mtime(path: Path) -> int:
    return path.stat().st_mtime_ns


# --- make --------------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("make") is None or shutil.which("cc") is None,
                    reason="make or cc not installed")
def test_make_example(tmp_path: Path) -> None:
    work = tmp_path / "make"
    shutil.copytree(EXAMPLES / "make", work)
    make = ["make", f"ROBRAYC={robrayc_program()}"]

    out = sh(make, work)
    assert "robrayc" in out and "-c -o cell.o cell.c" in out and "-c -o main.o main.c" in out
    report = sh([str(work / "cell_report"), "0.5"], work)
    assert re.search(r"^forearm\s", report, re.M)
    scene = load_scene([str(work / "scene" / "cell.robray")])
    assert "no_such" not in report and len(report.splitlines()) == len(scene.frames)
    deps = (work / "cell.c.d").read_text()
    for name in ("scene/parts/table.robray", "scene/parts/arm.robray",
                 "scene/parts/style.robray"):
        assert name in deps

    assert "Nothing to be done" in sh(make, work)

    age(work)
    (work / "scene" / "notes.txt").write_text("not part of the scene\n")
    assert "Nothing to be done" in sh(make, work)

    age(work)
    c_before = mtime(work / "cell.c")
    os.utime(work / "scene" / "parts" / "style.robray")  # nested include, same text
    out = sh(make, work)
    assert "robrayc" in out and " -c " not in out and "cell_report" not in out
    assert mtime(work / "cell.c") == c_before  # --if-changed

    age(work)
    table = work / "scene" / "parts" / "table.robray"
    table.write_text(table.read_text().replace("def table_height 0.75;", "def table_height 0.9;"))
    out = sh(make, work)
    assert "robrayc" in out and "-c -o cell.o cell.c" in out
    assert "main.c" not in out  # the header did not change
    assert "-o cell_report" in out
    assert "+0.900000]" in sh([str(work / "cell_report")], work)


# --- CMake ------------------------------------------------------------------------------------


GENERATORS = [pytest.param("Ninja", id="ninja"),
              pytest.param("Unix Makefiles", id="makefiles")]


@pytest.mark.parametrize("generator", GENERATORS)
def test_cmake_example(generator: str, tmp_path: Path) -> None:
    if shutil.which("cmake") is None:
        pytest.skip("cmake not installed")
    if generator == "Ninja" and shutil.which("ninja") is None:
        pytest.skip("ninja not installed")
    require_corpus()
    robrayc = robrayc_program()
    src = tmp_path / "src"
    build = tmp_path / "build"
    shutil.copytree(EXAMPLES / "cmake", src)
    installed = sh([robrayc, "--cmake-dir"], tmp_path).strip()
    assert (Path(installed) / "robrayc-config.cmake").is_file()
    # A copy inside tmp_path, so that age() moves its mtime with the build tree: a package
    # file newer than the aged build system (a fresh install, as in CI) makes CMake
    # regenerate, and a Makefiles regeneration forgets depfile dependencies for one build.
    package = tmp_path / "robrayc-package"
    shutil.copytree(installed, package / "cmake")
    init = next(p for p in (Path(installed).parent / "__init__.py",
                            Path(installed).parent / "robrayc" / "__init__.py") if p.is_file())
    shutil.copy(init, package / "__init__.py")  # the version file reads it
    cmake_dir = str(package / "cmake")
    # a PATH without robrayc's folder: the package must use ROBRAYC_EXECUTABLE as given
    sh(["cmake", "-S", str(src), "-B", str(build), "-G", generator,
        f"-DCMAKE_PREFIX_PATH={cmake_dir}", f"-DROBRAYC_EXECUTABLE={robrayc}",
        f"-DSEVEN_DOF={SEVEN_DOF}"], tmp_path)
    cmake_build = ["cmake", "--build", str(build), "--", "-j2"]

    out = sh(cmake_build, tmp_path)
    assert "robrayc: scene arm" in out
    gen = build / "robrayc" / "arm_scene"
    assert (gen / "arm.c").is_file() and (gen / "arm.h").is_file()

    # the program prints the hand and tool poses: compare with the IR's FK
    q = [0.3, -0.4, 0.5, 1.1, -0.2, 0.7, 0.1]
    printed = sh([str(build / "hand_pose"), *map(str, q)], tmp_path)
    scene = load_scene([str(SEVEN_DOF), str(src / "scene" / "tool.robray")])
    config = np.zeros(len(scene.variables))
    config[:len(q)] = q
    tfs = fk_batch(scene, config[None, :])[0]
    for frame in ("hand", "tool"):
        line = next(x for x in printed.splitlines() if x.startswith(frame + ":"))
        nums = [float(x) for x in re.findall(r"-?\d+\.\d+", line)]
        m = tfs[scene.index(frame)]
        assert np.allclose(nums[4:], m[:3, 3], atol=1e-8)
        ref_q = np.array(matrix_to_quat(m[:3, :3].tolist()))
        assert min(np.abs(np.array(nums[:4]) - ref_q).max(),
                   np.abs(np.array(nums[:4]) + ref_q).max()) < 1e-8

    def quiet() -> None:
        out = sh(cmake_build, tmp_path)
        assert "robrayc:" not in out and "Building C" not in out and "Linking" not in out, out

    quiet()  # nothing to do

    age(tmp_path)
    (src / "scene" / "notes.txt").write_text("unrelated\n")
    (src / "README.local").write_text("unrelated\n")
    quiet()

    age(tmp_path)
    c_before = mtime(gen / "arm.c")
    os.utime(src / "scene" / "parts" / "finish.robray")  # included, same text
    out = sh(cmake_build, tmp_path)
    assert "robrayc: scene arm" in out and "Building C" not in out, out
    assert mtime(gen / "arm.c") == c_before  # --if-changed kept it
    quiet()  # and the scene is up to date again (no rerun on every build)

    age(tmp_path)
    finish = src / "scene" / "parts" / "finish.robray"
    finish.write_text(finish.read_text().replace("color [0.9, 0.5, 0.1]",
                                                 "color [0.1, 0.5, 0.9]"))
    out = sh(cmake_build, tmp_path)
    assert "robrayc: scene arm" in out
    assert re.search(r"Building C object .*arm\.c\.o", out), out  # the scene's library
    assert "hand_pose.c.o" not in out  # the header did not change: the program is relinked only
    assert re.search(r"Linking C static library .*libarm_scene\.a", out), out
    assert "0.1, 0.5, 0.9" in (gen / "arm.c").read_text()
    quiet()
