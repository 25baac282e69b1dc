"""Command-line rules a new user trips over (issue 19): output suffixes, /dev/null, signed mesh
axes, unknown --var."""

from __future__ import annotations

from pathlib import Path

import pytest

from robrayc.cli.arguments import build_parser
from tests.run import robrayc


def test_suffix_selecting_no_format_is_an_error(scene: Path, tmp_path: Path) -> None:
    out = tmp_path / "x.yaml"
    run = robrayc(scene, "-o", out)
    assert run.status == 2
    err = run.err
    assert "suffix '.yaml' selects no format" in err and "--format" in err
    for suffix, fmt in ((".c", "c"), (".urdf", "urdf"), (".svg", "svg"), (".gv", "dot")):
        assert f"{suffix} ({fmt})" in err
    assert not out.exists() and not (tmp_path / "x.yaml.h").exists()
    # --format forces one; no suffix at all is C, as with aarxc
    assert robrayc(scene, "-o", out, "--format", "json").status == 0
    assert out.read_text().lstrip().startswith("{")
    assert robrayc(scene, "-o", tmp_path / "plain").status == 0
    assert "aa_rx_sg" in (tmp_path / "plain").read_text()


def test_dev_null_output_with_depfile(scene: Path, tmp_path: Path) -> None:
    dep = tmp_path / "s.d"
    assert robrayc(scene, "-o", "/dev/null", "-MD", "-MF", dep).status == 0
    assert dep.read_text().split(":")[0] == "scene.c"  # nothing written: INPUT's stem, as -M
    assert str(scene) in dep.read_text()
    run = robrayc(scene, "-o", "/dev/null", "-M")
    assert run.status == 0 and run.out.startswith("scene.c: ")
    assert robrayc(scene, "-o", "/dev/null").status == 0  # compiles, keeps nothing
    assert Path("/dev/null").is_char_device()
    run = robrayc(scene, "-o", "/dev/null", "-MD")
    assert run.status == 2 and "needs -MF" in run.err


def test_dev_null_still_reports_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.robray"
    bad.write_text("frame a { parent nowhere; }\n")
    run = robrayc(bad, "-o", "/dev/null")
    assert run.status == 1 and "nowhere" in run.err


def test_documented_signed_axes(scene: Path) -> None:
    from robrayc.cli.main import _load_options

    for argv in (["-U", "Y", "-F", "-Z"], ["-U", "Y", "-F-Z"], ["--mesh-up-axis", "+Y",
                                                                 "--mesh-forward-axis", "-z"]):
        opts = _load_options(build_parser().parse_args([str(scene), *argv]))
        assert (opts.mesh_up, opts.mesh_forward) == ("Y", "-Z"), argv


def test_signed_axes_turn_meshes(tmp_path: Path) -> None:
    """A Y-up OBJ turned by `-U Y -F -Z` (the docs' form) as by `-F-Z`, unlike the default."""
    obj = tmp_path / "tall.obj"  # 0.1 x 2 x 0.1: tall along the file's Y
    corners = [(x, y, z) for x in (0, 0.1) for y in (0, 2) for z in (0, 0.1)]
    faces = [(1, 2, 4), (1, 4, 3), (5, 7, 8), (5, 8, 6), (1, 5, 6), (1, 6, 2),
             (3, 4, 8), (3, 8, 7), (1, 3, 7), (1, 7, 5), (2, 6, 8), (2, 8, 4)]
    obj.write_text("".join(f"v {x} {y} {z}\n" for x, y, z in corners)
                   + "".join(f"f {a} {b} {c}\n" for a, b, c in faces))
    src = tmp_path / "m.robray"
    src.write_text('frame m { geometry { mesh "tall.obj"; } }\n')

    def c(*axes: str) -> str:
        out = tmp_path / "m.c"
        assert robrayc(src, "-o", out, *axes).status == 0
        return out.read_text()

    assert c("-U", "Y", "-F", "-Z") == c("-U", "Y", "-F-Z") != c()


@pytest.mark.parametrize("argv, message", [
    (["-U", "W"], "-U/-F: 'W' is not an axis"),
    (["-U", "Y", "-F", "-Y"], "are parallel"),
])
def test_bad_axes_are_usage_errors(scene: Path, argv, message) -> None:
    run = robrayc(scene, "--list-frames", *argv)
    assert run.status == 2 and message in run.err


@pytest.mark.parametrize("fmt", ["c", "svg", "json", "urdf", "pysimiam", "robray"])
def test_unknown_var_is_an_error_everywhere(scene: Path, tmp_path: Path, fmt) -> None:
    out = tmp_path / "out"
    run = robrayc(scene, "--format", fmt, "-o", out, "--var", "shuolder", "--val", "1")
    assert run.status == 1
    assert "error: unknown configuration variable 'shuolder' (--var)" in run.err
    assert "did you mean 'shoulder'?" in run.err
    assert not out.exists()
    run = robrayc(scene, "--format", fmt, "-o", out, "--var", "shoulder", "--val", "1")
    assert run.status in (0, 1)  # a known one passes the check (pysimiam needs a robot)
    assert "unknown configuration variable" not in run.err
