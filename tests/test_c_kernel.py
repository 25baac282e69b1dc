"""The compiled checker's kernel as C of its own (robrayc/c/): it compiles and lints alone
(checker_example.c, a small robot laid out as a generated checker), and a generated checker
holds it verbatim, as one self-contained file."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from robrayc.resources import resource_dir
from tests.corpus import IN_CI

KERNEL = resource_dir("c")
STRICT = ["-Wall", "-Wextra", "-Werror", "-pedantic"]
VARIANTS = [["-DCHECKER_CERTIFY=0"], ["-DCHECKER_CERTIFY=1"],
            ["-DCHECKER_TRIANGLES=0"], ["-DCHECKER_TRIANGLES=1"]]
VARIANT_IDS = ["static-trees", "certify", "no-triangles", "static-triangles"]


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        if IN_CI:
            pytest.fail(f"{name} missing in CI (.ci/run installs it)")
        pytest.skip(f"no {name}")
    return path


@pytest.mark.parametrize("std", ["-std=c99", "-std=c11"])
@pytest.mark.parametrize("variant", VARIANTS, ids=VARIANT_IDS)
@pytest.mark.parametrize("simd", [[], ["-mavx2"]], ids=["scalar", "avx2"])
def test_kernel_compiles_alone_under_strict_gcc(tmp_path: Path, std: str, variant: list[str],
                                                 simd: list[str]) -> None:
    gcc = _tool("gcc")
    run = subprocess.run([gcc, std, *STRICT, "-O2", *simd, *variant, "-c",
                          str(KERNEL / "checker_example.c"), "-o", str(tmp_path / "k.o")],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize("variant", VARIANTS, ids=VARIANT_IDS)
def test_kernel_is_cppcheck_clean(variant: list[str]) -> None:
    cppcheck = _tool("cppcheck")
    run = subprocess.run([cppcheck, "--std=c99", "--enable=all", "--inline-suppr",
                          "--suppress=missingIncludeSystem", "--error-exitcode=1", "--quiet",
                          *variant, str(KERNEL / "checker_example.c")],
                         capture_output=True, text=True)
    assert run.returncode == 0 and not run.stderr.strip(), run.stderr


def test_generated_checker_holds_the_kernel_verbatim(tmp_path: Path) -> None:
    """`-o arm.c` writes arm.c (tables, the kernel pasted in, kinematics) and arm.h; arm.c
    needs nothing else, and compiles under strict gcc with -pedantic."""
    from robrayc.cli.main import main

    scene = tmp_path / "arm.robray"
    scene.write_text("frame base { geometry { shape box; dimension [1, 1, 1]; } }\n"
                     "frame arm { parent base; type revolute; axis [0, 0.6, 0.8]; "
                     "translation [1, 0, 0]; geometry { shape cylinder; radius 0.1; "
                     "height 1; } }\n")
    out = tmp_path / "arm.c"
    assert main([str(scene), "--format", "c-checker", "--no-cells", "-n", "arm", "-o",
                 str(out)]) == 0
    text = out.read_text()
    for part in ("checker_kernel.h", "checker_kernel.c", "configuration.c", "cells.c"):
        assert (KERNEL / part).read_text() in text, part
    assert "#include \"checker_kernel" not in text
    gcc = _tool("gcc")
    run = subprocess.run([gcc, "-std=c99", *STRICT, "-c", str(out), "-o",
                          str(tmp_path / "arm.o")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    symbols = subprocess.run(["nm", "-g", "--defined-only", str(tmp_path / "arm.o")],
                             capture_output=True, text=True).stdout
    for api in ("arm_check", "arm_check8", "arm_colliding_pairs", "arm_solid_states",
                "arm_group_poses", "arm_pair_names"):
        assert f" {api}\n" in symbols, api
    assert "checker_" not in symbols
