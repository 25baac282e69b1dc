"""The POV-Ray scene (the original's -p/-P): its conventions (Y and Z swapped, FRAME comments,
transmit for alpha) and that the real POV-Ray renders it as written."""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.backends.pictures import SEVEN_DOF, corpus_file, need, pixels, robrayc, write_boxes


def test_conventions_of_the_original(tmp_path):
    scene = tmp_path / "s.robray"
    scene.write_text("frame f { translation [1, 2, 3];\n"
                     "  geometry { shape box; dimension [0.1, 0.2, 0.4]; color [0.25, 0.5, 1];"
                     " alpha 0.25; specular [0.5, 0.5, 0.5]; } }\n"
                     'frame "odd name" { parent f; geometry { shape cylinder; radius 0.5;'
                     " height 2; } }\n")
    out = tmp_path / "s.pov"
    r = robrayc(str(scene), "-o", str(out), "--cam-eye", "5 6 7", "--cam-look", "1 2 3")
    assert r.status == 0, r.err
    text = out.read_text()
    assert "#version 3.7;" in text
    assert "location <5.0, 7.0, 6.0>" in text and "look_at <1.0, 3.0, 2.0>" in text
    assert "box { <-0.05, -0.2, -0.1>, <0.05, 0.2, 0.1>" in text  # Y and Z swapped
    assert "color rgb <0.25, 0.5, 1.0> transmit 0.75" in text
    assert "finish { specular 0.5 }" in text
    assert "cylinder { <0, 0, 0>, <0, 2.0, 0>, 0.5" in text  # along +Z = POV-Ray's +Y
    # the frame's transform: identity rotation, translation (1, 2, 3) written as <1, 3, 2>
    assert "matrix <1.0, 0, 0, 0, 1.0, 0, 0, 0, 1.0, 1.0, 3.0, 2.0>" in text
    assert re.findall(r"// FRAME: (.*)", text) == ["f", "odd name"]


def test_povray_renders_the_written_scene(tmp_path):
    povray = need("povray")
    out = tmp_path / "7dof.pov"
    r = robrayc(str(corpus_file(SEVEN_DOF)), "-o", str(out), "--var", "s1", "--val", "0.5",
                "--highlight-collisions")
    assert r.status == 0, r.err
    png = tmp_path / "7dof.png"
    done = subprocess.run([povray, f"+I{out}", f"+O{png}", "+W160", "+H120", "-D", "-V"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert png.stat().st_size > 1000


def test_highlight_names_the_pairs(tmp_path):
    out = tmp_path / "b.pov"
    r = robrayc(str(write_boxes(tmp_path)), "-o", str(out), "--var", "slide", "--val", "0.5",
                "--highlight-collisions")
    assert r.status == 0, r.err
    text = out.read_text()
    assert "// COLLIDING (drawn red): blue_box <-> slider" in text
    assert text.count("color rgb <1.0, 0, 0>") == 3  # red box (its own colour), blue, slider


def _frame_matrices(text: str) -> dict[str, list[list[float]]]:
    """FRAME comment -> the matrix of the object after it (both writers' layouts)."""
    out: dict[str, list[list[float]]] = {}
    for m in re.finditer(r"// FRAME: (\S+)\s*\n(.*?)matrix\s*<([^>]*)>", text, re.S):
        numbers = [float(x) for x in re.split(r"[,\s]+", m.group(3).strip()) if x]
        out.setdefault(m.group(1), []).append(numbers)
    return out


def test_same_frames_and_matrices_as_the_original(tmp_path):
    from tests.amino_real import require_aarxc, run_aarxc

    require_aarxc()
    src = corpus_file(SEVEN_DOF)
    theirs = tmp_path / "orig.pov"
    done = run_aarxc([src], "s", tmp_path / "orig.c", extra=["--var=e", "--val=0.6", "-p",
                                                             str(theirs)])
    assert done.ok and theirs.is_file(), done.output[-2000:]
    ours = tmp_path / "ours.pov"
    r = robrayc(str(src), "-o", str(ours), "--var", "e", "--val", "0.6")
    assert r.status == 0, r.err
    a, b = _frame_matrices(ours.read_text()), _frame_matrices(theirs.read_text())
    assert sorted(a) == sorted(b)
    for name in a:
        for m, n in zip(sorted(a[name]), sorted(b[name]), strict=True):
            assert m == pytest.approx(n, abs=1e-6), name  # the original rounds to float32


def test_config_file_errors_are_located(tmp_path):
    config = tmp_path / "pose.cfg"
    config.write_text("# pose\nslide = 0.2\nslyde = 0.1\nslide = x\n")
    out = tmp_path / "b.pov"
    r = robrayc(str(write_boxes(tmp_path)), "-o", str(out), "--config", str(config))
    assert r.status == 1 and "Traceback" not in r.err
    assert f"{config}:4:9: error: 'x' is not a number" in r.err
    assert not out.exists()
    config.write_text("slide = 0.2\nslyde = 0.1\n")
    r = robrayc(str(write_boxes(tmp_path)), "-o", str(out), "--config", str(config))
    assert r.status == 1
    assert f"{config}:2:1: error: unknown configuration variable 'slyde'" in r.err
    assert "slide" in r.err.split("unknown configuration variable 'slyde'")[1]  # did you mean


def _cube_stl() -> str:
    """An ASCII STL cube of side 1 centred on the origin: 12 facets, hard edges."""
    import itertools

    facets = []
    for axis, sign in itertools.product(range(3), (-1, 1)):
        u, v = [(axis + 1) % 3, (axis + 2) % 3][:: sign]
        corners = []
        for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
            p = [0.0, 0.0, 0.0]
            p[axis], p[u], p[v] = 0.5 * sign, 0.5 * a, 0.5 * b
            corners.append(p)
        normal = [0, 0, 0]
        normal[axis] = sign
        for tri in ((0, 1, 2), (0, 2, 3)):
            facets.append(f"facet normal {normal[0]} {normal[1]} {normal[2]}\nouter loop\n"
                          + "".join(f"vertex {c[0]} {c[1]} {c[2]}\n"
                                    for c in (corners[i] for i in tri))
                          + "endloop\nendfacet\n")
    return "solid cube\n" + "".join(facets) + "endsolid cube\n"


def test_hard_edged_meshes_write_each_position_and_normal_once(tmp_path):
    """A mesh with hard edges (an STL cube: 8 corners, 6 face normals, 24 position-normal
    pairs) is written with normal_indices: 8 positions and 6 normals, not 24 of each; POV-Ray
    draws its three visible faces flat, in three different shades."""
    import numpy as np

    (tmp_path / "cube.stl").write_text(_cube_stl())
    scene = tmp_path / "c.robray"
    scene.write_text('frame c { geometry { shape mesh; mesh "cube.stl"; color [.8, .8, .8]; } }\n')
    out = tmp_path / "c.pov"
    view = ("--cam-eye", "3 2 1.5", "--cam-look", "0 0 0", "--pov-x", "200", "--pov-y", "150")
    r = robrayc(str(scene), "-o", str(out), *view)
    assert r.status == 0, r.err
    text = out.read_text()
    assert "vertex_vectors { 8," in text and "normal_vectors { 6," in text
    assert "face_indices { 12," in text and "normal_indices { 12," in text
    need("povray")
    png = tmp_path / "c.png"
    r = robrayc(str(scene), "-o", str(png), *view)
    assert r.status == 0, r.err
    shades = {tuple(int(c) // 8 for c in px)
              for px in pixels(png)[40:110, 60:140].reshape(-1, 3) if px.max() < 250}
    grey = {s for s in shades if max(s) - min(s) <= 1}
    assert len(grey) >= 3  # three flat faces (a smooth cube would blend them)
    assert np.asarray(pixels(png)).std() > 10
