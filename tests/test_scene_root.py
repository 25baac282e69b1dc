"""Scene.root (--root) is an IR fact every backend and analysis handles, and listing frames or
variables never looks at mesh files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from robrayc.cli.main import main
from robrayc.frontend import LoadOptions, load_scene
from tests.imports_probe import modules_after
from tests.run import robrayc

# frames naming the root as parent, a top-level frame and a robot-like joint chain
ROOTED = """class robot { }
frame base { parent world; translation [1, 0, 0];
    geometry { isa robot; shape box; dimension [0.2, 0.2, 0.2]; } }
frame arm { parent base; type revolute; axis [0, 0, 1]; variable q;
    translation [0, 0, 0.5]; geometry { shape cylinder; height 0.4; radius 0.05; } }
frame side { translation [0, 0.5, 0]; geometry { shape sphere; radius 0.1; } }
frame fence { parent world; translation [0, -0.4, 0];
    geometry { shape box; dimension [1, 0.05, 0.3]; } }
"""


def test_root_frames_are_top_level_in_the_ir(tmp_path: Path) -> None:
    src = tmp_path / "rooted.robray"
    src.write_text(ROOTED)
    scene = load_scene([str(src)], LoadOptions(root="world"))
    assert scene.root == "world"
    assert [(f.name, f.parent) for f in scene.frames] == [
        ("base", None), ("arm", "base"), ("side", None), ("fence", None)]
    assert main([str(src), "--list-frames"]) == 1  # without --root: an unknown parent


def test_collide_takes_root(tmp_path: Path) -> None:
    src = tmp_path / "rooted.robray"
    src.write_text(ROOTED)
    r = robrayc("collide", str(src), "--root", "world", cwd=tmp_path, process=True)
    assert r.status == 0, r.err
    src.write_text(ROOTED + "frame hit { parent world; translation [1, 0, 0.05];\n"
                   "    geometry { shape sphere; radius 0.1; } }\n")
    r = robrayc("collide", str(src), "--root", "world", cwd=tmp_path, process=True)
    assert r.status == 1 and "base" in r.out and "hit" in r.out, r.out + r.err


def test_root_in_outputs(tmp_path: Path) -> None:
    """JSON keeps the root (and reads it back); DOT draws it; URDF names its root link after
    it; the robray writer names the option it needs."""
    src = tmp_path / "rooted.robray"
    src.write_text(ROOTED)
    assert main([str(src), "--root", "world", "-o", str(tmp_path / "s.json")]) == 0
    doc = json.loads((tmp_path / "s.json").read_text())
    assert doc["root"] == "world"
    assert load_scene([str(tmp_path / "s.json")]).root == "world"
    assert main([str(src), "--root", "world", "-o", str(tmp_path / "s.dot")]) == 0
    assert '"(root)" [label="world"' in (tmp_path / "s.dot").read_text()
    table = tmp_path / "table.robray"
    table.write_text(ROOTED.replace("parent world", "parent table"))
    assert main([str(table), "--root", "table", "-o", str(tmp_path / "s.urdf")]) == 0
    assert '<link name="table"/>' in (tmp_path / "s.urdf").read_text()
    assert main([str(src), "--root", "world", "-o", str(tmp_path / "s.robray")]) == 0
    text = (tmp_path / "s.robray").read_text()
    assert "// Compile with: --root world" in text
    again = load_scene([str(tmp_path / "s.robray")], LoadOptions(root="world"))
    first = load_scene([str(src)], LoadOptions(root="world"))
    assert [(f.name, f.parent, f.translation, [g.shape for g in f.geometries])
            for f in again.frames] == [(f.name, f.parent, f.translation,
                                        [g.shape for g in f.geometries]) for f in first.frames]


def test_conflicting_roots_and_a_defined_root_frame(tmp_path: Path, capsys) -> None:
    src = tmp_path / "rooted.robray"
    src.write_text(ROOTED)
    assert main([str(src), "--root", "world", "-o", str(tmp_path / "s.json")]) == 0
    assert main([str(tmp_path / "s.json"), "--root", "table", "--list-frames"]) == 1
    assert "root frame 'world' differs from 'table'" in capsys.readouterr().err
    src.write_text(ROOTED + "frame world { }\n")
    assert main([str(src), "--root", "world", "--list-frames"]) == 1
    err = capsys.readouterr().err
    assert f"{src}:9:7: error: frame 'world'" in err and "--root names it" in err


def test_listing_never_reads_meshes(tmp_path: Path, capsys) -> None:
    """--list-frames / --list-vars on scenes whose meshes are missing (a file, a package) or
    unreadable; compiling still reports them."""
    (tmp_path / "bad.stl").write_bytes(b"not a mesh")
    src = tmp_path / "m.robray"
    src.write_text('frame a { geometry { mesh "gone.stl"; } }\n'
                   'frame b { parent a; type revolute; axis [0, 0, 1];\n'
                   '    geometry { mesh "package://nopkg/meshes/x.dae"; } }\n'
                   'frame c { geometry { mesh "bad.stl"; } }\n')
    urdf = tmp_path / "r.urdf"
    urdf.write_text('<robot name="r"><link name="l0"><visual><geometry>'
                    '<mesh filename="package://nopkg/l0.stl"/></geometry></visual></link>'
                    '<link name="l1"><collision><geometry><mesh filename="l1.stl"/>'
                    '</geometry></collision></link>'
                    '<joint name="j" type="revolute"><parent link="l0"/><child link="l1"/>'
                    '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/>'
                    '</joint></robot>')
    assert main([str(src), "--list-frames"]) == 0
    assert capsys.readouterr().out == "a\nb\nc\n"
    assert main([str(src), "--tree"]) == 0
    assert "b" in capsys.readouterr().out
    assert main([str(urdf), "--list-vars"]) == 0
    assert capsys.readouterr().out == "j\n"
    assert main([str(src), "-o", str(tmp_path / "m.c")]) == 1
    err = capsys.readouterr().err
    assert "gone.stl" in err and "nopkg" in err
    assert main([str(urdf), "--list-frames", "-o", str(tmp_path / "r.c")]) == 1


def test_compile_without_meshes_loads_no_mesh_reader_nor_symbol_records(tmp_path: Path) -> None:
    """Mesh modules load only for what reads triangles, and the language server's records only
    for the language server: a plain compile pays for neither."""
    scene = tmp_path / "a.robray"
    scene.write_text("frame a { geometry { shape box; dimension [1, 1, 1]; } }\n")
    loaded = modules_after([str(scene), "-o", str(tmp_path / "a.c")])
    assert not {"robrayc.frontend.symbols", "robrayc.meshes.cache", "robrayc.meshes.dae",
                "robrayc.meshes.stl", "robrayc.meshes.obj", "numpy"} & loaded


@pytest.mark.parametrize("fmt", ["urdf", "sdf", "c-standalone"])
def test_formats_referencing_meshes_locate_an_unreadable_one(fmt: str, tmp_path: Path,
                                                             capsys) -> None:
    """URDF, SDF and the standalone C read a COLLADA file's declared axes: a broken file is a
    located error naming it, not a crash."""
    (tmp_path / "bad.dae").write_text("<COLLADA><asset>")
    src = tmp_path / "m.robray"
    src.write_text('frame a {\n    geometry { mesh "bad.dae"; } }\n')
    out = tmp_path / ("m.c" if fmt == "c-standalone" else f"m.{fmt}")
    assert main([str(src), "--format", fmt, "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"{src}:2:" in err and "cannot read mesh 'bad.dae'" in err, err
    assert not out.exists()


def test_mesh_conventions_travel_in_json_and_robray_names_them(tmp_path: Path, capsys) -> None:
    """JSON keeps each mesh's conventions (read back without options); the robray writer names
    the options under its header, and warns when meshes disagree (robray has one set)."""
    (tmp_path / "t.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    (tmp_path / "a.robray").write_text('frame a { geometry { mesh "t.obj"; } }\n')
    (tmp_path / "b.robray").write_text('frame b { geometry { mesh "t.obj"; } }\n')
    assert main([str(tmp_path / "a.robray"), "-U", "Y", "-F", "-Z", "--collada-up-axis",
                 "ignore", "-o", str(tmp_path / "a.json")]) == 0
    [mesh] = [g.shape for f in load_scene([str(tmp_path / "a.json")]).frames
              for g in f.geometries]
    assert (mesh.up, mesh.forward, mesh.collada_up) == ("Y", "-Z", "ignore")
    assert main([str(tmp_path / "a.json"), "-o", str(tmp_path / "a.robray.out.robray")]) == 0
    assert "// Compile with: -UY -F-Z --collada-up-axis=ignore\n" in \
        (tmp_path / "a.robray.out.robray").read_text()
    capsys.readouterr()
    assert main([str(tmp_path / "a.json"), str(tmp_path / "b.robray"),
                 "-o", str(tmp_path / "ab.robray")]) == 0
    assert "different axis conventions" in capsys.readouterr().err
