"""Command-line rules a new user trips over (issue 19): output suffixes, /dev/null, signed mesh
axes, unknown --var."""

from __future__ import annotations

from pathlib import Path

import pytest

from robrayc.cli.arguments import build_parser
from robrayc.cli.main import main

SCENE = "frame base { }\nframe arm { parent base; type revolute; axis [0, 0, 1]; variable q_arm; " \
        "geometry { shape box; dimension [0.1, 0.2, 0.3]; } }\n"


@pytest.fixture
def scene(tmp_path: Path) -> Path:
    path = tmp_path / "s.robray"
    path.write_text(SCENE)
    return path


def test_suffix_selecting_no_format_is_an_error(scene: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "x.yaml"
    assert main([str(scene), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "suffix '.yaml' selects no format" in err and "--format" in err
    for suffix, fmt in ((".c", "c"), (".urdf", "urdf"), (".svg", "svg"), (".gv", "dot")):
        assert f"{suffix} ({fmt})" in err
    assert not out.exists() and not (tmp_path / "x.yaml.h").exists()
    # --format forces one; no suffix at all is C, as with aarxc
    assert main([str(scene), "-o", str(out), "--format", "json"]) == 0
    assert out.read_text().lstrip().startswith("{")
    assert main([str(scene), "-o", str(tmp_path / "scene")]) == 0
    assert "aa_rx_sg" in (tmp_path / "scene").read_text()


def test_dev_null_output_with_depfile(scene: Path, tmp_path: Path, capfd) -> None:
    dep = tmp_path / "s.d"
    assert main([str(scene), "-o", "/dev/null", "-MD", "-MF", str(dep)]) == 0
    assert dep.read_text().split(":")[0] == "s.c"  # nothing written: INPUT's stem, as -M
    assert str(scene) in dep.read_text()
    capfd.readouterr()
    assert main([str(scene), "-o", "/dev/null", "-M"]) == 0
    assert capfd.readouterr().out.startswith("s.c: ")
    assert main([str(scene), "-o", "/dev/null"]) == 0  # compiles, keeps nothing
    assert Path("/dev/null").is_char_device()
    assert main([str(scene), "-o", "/dev/null", "-MD"]) == 2
    assert "needs -MF" in capfd.readouterr().err


def test_dev_null_still_reports_errors(tmp_path: Path, capfd) -> None:
    bad = tmp_path / "bad.robray"
    bad.write_text("frame a { parent nowhere; }\n")
    assert main([str(bad), "-o", "/dev/null"]) == 1
    assert "nowhere" in capfd.readouterr().err


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
        assert main([str(src), "-o", str(out), *axes]) == 0
        return out.read_text()

    assert c("-U", "Y", "-F", "-Z") == c("-U", "Y", "-F-Z") != c()


@pytest.mark.parametrize("argv, message", [
    (["-U", "W"], "-U/-F: 'W' is not an axis"),
    (["-U", "Y", "-F", "-Y"], "are parallel"),
])
def test_bad_axes_are_usage_errors(scene: Path, argv, message, capsys) -> None:
    assert main([str(scene), "--list-frames", *argv]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["c", "svg", "json", "urdf", "pysimiam", "robray"])
def test_unknown_var_is_an_error_everywhere(scene: Path, tmp_path: Path, fmt, capsys) -> None:
    out = tmp_path / "out"
    assert main([str(scene), "--format", fmt, "-o", str(out), "--var", "q_ram", "--val",
                 "1"]) == 1
    err = capsys.readouterr().err
    assert "error: unknown configuration variable 'q_ram' (--var)" in err
    assert "did you mean 'q_arm'?" in err
    assert not out.exists()
    assert main([str(scene), "--format", fmt, "-o", str(out), "--var", "q_arm", "--val",
                 "1"]) in (0, 1)  # a known one passes the check (pysimiam needs a robot)
    assert "unknown configuration variable" not in capsys.readouterr().err
