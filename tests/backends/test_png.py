"""PNG pictures rendered by the real POV-Ray, looked at as a person would: size, not blank,
colours where the camera puts them, the collision overlay, and the missing-renderer error."""

from __future__ import annotations

import os

import pytest

from tests.backends.pictures import (
    SEVEN_DOF,
    UR5,
    corpus_file,
    dominant,
    need,
    pixels,
    robrayc,
    write_boxes,
)

FIXED = ("--cam-eye", "4 0 0", "--cam-look", "0 0 0", "--cam-up", "0 0 1", "--fov", "40")


@pytest.fixture(autouse=True)
def _povray():
    need("povray")


def test_box_colours_land_where_the_fixed_camera_puts_them(tmp_path):
    out = tmp_path / "boxes.png"
    r = robrayc(str(write_boxes(tmp_path)), "-o", str(out), *FIXED, "--pov-x", "400",
                "--pov-y", "300")
    assert r.status == 0, r.err
    img = pixels(out)
    assert img.shape == (300, 400, 3)
    # Camera on +X looking at the origin, Z up: +Y is on the right of the picture. The boxes
    # sit at y = -0.6 (red) and +0.6 (blue); at 4 m with a 40 degree field of view the image
    # is 2 * 4 * tan(20 deg) = 2.91 m wide, so their centres are 0.6 / 2.91 * 400 = 82 px
    # from the middle column (the near faces, at x = 3.8 m, a little more).
    red, blue = dominant(img, 0), dominant(img, 2)
    assert red[150, 200 - 86] and not red[150, 200 + 86]
    assert blue[150, 200 + 86] and not blue[150, 200 - 86]
    cols_red = red.any(axis=0).nonzero()[0]
    assert 200 - 115 < cols_red.mean() < 200 - 55
    assert (img[5, 5] >= 250).all()  # white background in the corner


def test_7dof_demo_is_drawn_and_framed(tmp_path):
    out = tmp_path / "7dof.png"
    r = robrayc(str(corpus_file(SEVEN_DOF)), "-o", str(out), "--var", "e", "--val", "0.7")
    assert r.status == 0, r.err
    img = pixels(out)
    assert img.shape == (480, 640, 3)
    drawn = (img < 200).any(axis=2)
    assert drawn.mean() > 0.02  # not blank
    rows, cols = drawn.any(axis=1).nonzero()[0], drawn.any(axis=0).nonzero()[0]
    # the automatic camera frames the whole scene: drawn pixels reach near two opposite
    # edges and nothing is cut on all four sides
    assert rows.min() > 0 or rows.max() < 479 or cols.min() > 0 or cols.max() < 639
    assert (cols.max() - cols.min()) > 0.8 * 640 or (rows.max() - rows.min()) > 0.8 * 480


def test_ur5_with_meshes_and_a_configuration_file(tmp_path):
    config = tmp_path / "pose.cfg"
    config.write_text("shoulder_lift_joint = -1.2  # arm up\nelbow_joint=0.5\n")
    out = tmp_path / "ur5.png"
    r = robrayc(str(corpus_file(UR5)), "-o", str(out), "--config", str(config),
                "--pov-x", "320", "--pov-y", "240")
    assert r.status == 0, r.err
    img = pixels(out)
    assert img.shape == (240, 320, 3)
    drawn = (img < 230).any(axis=2)
    assert drawn.mean() > 0.05
    # grey metal: the drawn pixels are neutral, not tinted
    c = img[drawn].astype(int)
    assert (abs(c[:, 0] - c[:, 2]) < 40).mean() > 0.9


def test_highlight_colours_the_colliding_pair_red_with_a_legend(tmp_path):
    scene = write_boxes(tmp_path)
    plain, lit = tmp_path / "plain.png", tmp_path / "lit.png"
    args = [str(scene), *FIXED, "--var", "slide", "--val", "0.5", "--pov-x", "400",
            "--pov-y", "300"]
    assert robrayc(*args, "-o", str(plain)).status == 0
    r = robrayc(*args, "-o", str(lit), "--highlight-collisions")
    assert r.status == 0, r.err
    before, after = pixels(plain), pixels(lit)
    # the blue box collides with the green sphere at slide = 0.5: both turn red
    assert dominant(before, 2)[150, 200 + 86] and dominant(after, 0)[150, 200 + 86]
    assert not dominant(after, 2).any()
    assert not dominant(after, 1).any()
    # the red box collides with nothing: drawn the same
    assert (before[150, 200 - 86] == after[150, 200 - 86]).all()
    # the legend: a white box with red text in the top-left corner
    corner = after[:60, :200]
    assert dominant(corner, 0).sum() > 20
    assert not dominant(before[:60, :200], 0).any()


def test_missing_povray_names_the_package(tmp_path):
    out = tmp_path / "x.png"
    out.write_bytes(b"old")
    empty = tmp_path / "bin"
    empty.mkdir()
    r = robrayc(str(write_boxes(tmp_path)), "-o", str(out), env={"PATH": str(empty)})
    assert r.status == 1
    assert "POV-Ray" in r.err and "apt-get install povray" in r.err
    assert "Traceback" not in r.err
    assert out.read_bytes() == b"old"  # a failed run leaves existing outputs alone


def test_bad_camera_options_are_errors(tmp_path):
    scene = str(write_boxes(tmp_path))
    for args in (("--fov", "0"), ("--pov-x", "0"), ("--cam-up", "0 0 0"),
                 ("--cam-eye", "1 2 3", "--cam-look", "1 2 3")):
        r = robrayc(scene, "-o", str(tmp_path / "x.png"), *args)
        assert r.status != 0 and "error" in r.err and "Traceback" not in r.err, args
    assert not os.path.exists(tmp_path / "x.png")


def test_progress_on_a_terminal_only(tmp_path):
    """On a terminal (a pseudo-terminal here) the render reports its percentage on one line;
    into a pipe it stays silent."""
    import pty
    import subprocess
    import sys

    from tests.corpus import REPO

    scene = str(write_boxes(tmp_path))
    # its own runner: stderr a pseudo-terminal (tests/run.py captures it into a pipe). Large
    # enough to render for over a second: POV-Ray reports its pixels as it goes, but a picture
    # finished before the first report read shows none (800 x 600 took 0.7 s on a 2-core
    # machine, and under the suite's load it once showed nothing)
    cmd = [sys.executable, "-m", "robrayc", scene, "-o", str(tmp_path / "t.png"),
           "--pov-x", "2400", "--pov-y", "1800"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    leader, follower = pty.openpty()
    proc = subprocess.Popen(cmd, stderr=follower, stdout=subprocess.DEVNULL, env=env)
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed: the process ended
            break
        if not chunk:
            break
        seen += chunk
    assert proc.wait() == 0
    os.close(leader)
    assert b"robrayc: rendering" in seen and b"%" in seen
    piped = robrayc(scene, "-o", str(tmp_path / "u.png"))
    assert piped.status == 0 and "rendering" not in piped.err


def test_geometry_collision_draws_the_collision_geometry(tmp_path):
    scene = tmp_path / "g.robray"
    scene.write_text(
        "frame a { geometry { shape box; dimension [1, 1, 1]; color [1, 0, 0]; collision 0; }\n"
        "          geometry { shape sphere; radius 0.4; color [0, 0, 1]; visual 0; } }\n")
    shots = {}
    for kind in ("visual", "collision"):
        out = tmp_path / f"{kind}.png"
        r = robrayc(str(scene), "-o", str(out), *FIXED, "--geometry", kind, "--pov-x", "200",
                    "--pov-y", "150")
        assert r.status == 0, r.err
        shots[kind] = pixels(out)
    assert dominant(shots["visual"], 0)[75, 100] and not dominant(shots["visual"], 2).any()
    assert dominant(shots["collision"], 2)[75, 100] and not dominant(shots["collision"], 0).any()


@pytest.mark.parametrize("alpha", [1.0, 0.3])
def test_alpha_lets_what_is_behind_show_through(tmp_path, alpha):
    scene = tmp_path / "a.robray"
    scene.write_text(
        "frame back { geometry { shape box; dimension [0.5, 0.5, 0.5]; color [1, 0, 0]; } }\n"
        "frame front { translation [1, 0, 0];\n"
        f"  geometry {{ shape box; dimension [0.1, 1, 1]; color [0, 0, 1]; alpha {alpha}; }} }}\n")
    out = tmp_path / "a.png"
    r = robrayc(str(scene), "-o", str(out), *FIXED, "--pov-x", "200", "--pov-y", "150")
    assert r.status == 0, r.err
    r_, g, b = (int(c) for c in pixels(out)[75, 100])
    assert b > g + 60
    assert (r_ > g + 60) == (alpha < 1)  # the red box shows through only when translucent


def test_povray_failure_is_reported_with_its_message(tmp_path):
    missing = tmp_path / "missing.inc"
    r = robrayc(str(write_boxes(tmp_path)), "-o", str(tmp_path / "x.png"), "--pov-include",
                str(missing))
    assert r.status == 1 and "Traceback" not in r.err
    assert "error: POV-Ray failed" in r.err and "missing.inc" in r.err
    assert not (tmp_path / "x.png").exists()


def _pinhole(points, eye, look, up, fov_deg: float, width: int, height: int):
    """Pixel (column, row) of world points for a camera with square pixels and a horizontal
    field of view (POV-Ray's `angle`, `right x*W/H`, `sky`)."""
    import numpy as np

    eye, look, up = (np.asarray(v, dtype=float) for v in (eye, look, up))
    d = (look - eye) / np.linalg.norm(look - eye)
    right = np.cross(d, up)
    right /= np.linalg.norm(right)
    upv = np.cross(right, d)
    rel = points - eye
    z = rel @ d
    f = width / 2 / np.tan(np.radians(fov_deg) / 2)
    return width / 2 + (rel @ right) / z * f, height / 2 - (rel @ upv) / z * f


def test_ur5_meshes_cover_the_pixels_fk_puts_them_on(tmp_path, monkeypatch):
    """The drawn pixels' bounding box equals the projection of every visual mesh vertex, posed
    by robrayc's FK, through an independent pinhole camera (within 2 pixels)."""
    import numpy as np

    from robrayc.diagnostics import DiagnosticSink
    from robrayc.frontend import load_scene
    from robrayc.kinematics import fk
    from robrayc.meshes import load_mesh
    from tests.corpus import ros_package_path

    monkeypatch.setenv("ROS_PACKAGE_PATH", ros_package_path())
    src = corpus_file(UR5)
    config = {"shoulder_lift_joint": -1.0, "elbow_joint": 0.8, "wrist_1_joint": -0.5}
    eye, look, up, fov, w, h = (2.0, 1.2, 1.0), (0.2, 0.0, 0.35), (0, 0, 1), 40.0, 320, 240
    out = tmp_path / "ur5.png"
    args = [a for k, v in config.items() for a in ("--var", k, "--val", repr(v))]
    r = robrayc(str(src), "-o", str(out), *args, "--cam-eye", " ".join(map(str, eye)),
                "--cam-look", " ".join(map(str, look)), "--fov", str(fov), "--pov-x", str(w),
                "--pov-y", str(h))
    assert r.status == 0, r.err
    sink = DiagnosticSink()
    scene = load_scene([str(src)], None, sink)
    world = fk(scene, config)
    pts = np.vstack([load_mesh(g.shape, sink, g.pos).vertices * g.scale
                     @ world[f.name][:3, :3].T + world[f.name][:3, 3]
                     for f in scene.frames for g in f.geometries if g.visual])
    cols, rows = _pinhole(pts, eye, look, up, fov, w, h)
    drawn = (pixels(out) < 245).any(axis=2)
    ys, xs = drawn.nonzero()
    assert 0 < cols.min() and cols.max() < w and 0 < rows.min() and rows.max() < h
    assert abs(xs.min() - cols.min()) < 2 and abs(xs.max() + 1 - cols.max()) < 2
    assert abs(ys.min() - rows.min()) < 2 and abs(ys.max() + 1 - rows.max()) < 2


def test_a_failed_compile_leaves_no_povray_running(tmp_path):
    """POV-Ray starts before the scene is made; a compile that then fails (a missing mesh)
    must not leave it waiting: nothing of the command's process group outlives it. (The mesh
    file exists, so the front end accepts it; reading its triangles fails.)"""
    import subprocess
    import sys

    from tests.corpus import REPO

    scene = tmp_path / "m.robray"
    (tmp_path / "bad.stl").write_text("solid x\nfacet garbage\n")
    scene.write_text('frame m { geometry { shape mesh; mesh "bad.stl"; } }\n')
    # its own runner: a session of its own, to see no process of it is left
    proc = subprocess.Popen([sys.executable, "-m", "robrayc", str(scene), "-o",
                             str(tmp_path / "m.png")], stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(REPO)}, start_new_session=True)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1 and "cannot read mesh 'bad.stl'" in err and "Traceback" not in err
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)
    assert not (tmp_path / "m.png").exists()


def test_a_png_is_taken_only_when_whole(tmp_path):
    """robrayc takes POV-Ray's picture as soon as the file is a whole PNG: never a cut one."""
    import io

    from PIL import Image
    from PIL.PngImagePlugin import PngInfo

    from robrayc.backends.png import finished_png

    buf = io.BytesIO()
    text = PngInfo()
    text.add_text("note", "ends like the last chunk: IEND")  # a chunk's data is not a type
    Image.new("RGB", (64, 48), (10, 200, 30)).save(buf, format="PNG", pnginfo=text)
    whole = buf.getvalue()
    path = tmp_path / "p.png"
    assert finished_png(path) is None  # not there yet
    for cut in (0, 8, 20, len(whole) // 2, len(whole) - 1):
        path.write_bytes(whole[:cut])
        assert finished_png(path) is None, cut
    path.write_bytes(whole[:20] + whole[-12:])  # IEND at the end, but the chunks do not lead there
    assert finished_png(path) is None
    path.write_bytes(whole)
    assert finished_png(path) == whole


def test_where_no_fifo_can_be_made_povray_starts_after_the_scene(tmp_path, monkeypatch):
    """The fall-back path (a file system without FIFOs): the same picture, POV-Ray started
    once the scene is written. Run in-process with os.mkfifo failing."""
    from robrayc.cli.main import main

    def no_fifo(path, *args, **kwargs):
        raise OSError(95, "Operation not supported", str(path))

    monkeypatch.setattr(os, "mkfifo", no_fifo)
    shots = {}
    for name in ("fallback", "usual"):
        out = tmp_path / f"{name}.png"
        try:
            code = main([str(write_boxes(tmp_path)), "-o", str(out), *FIXED, "--pov-x", "200",
                         "--pov-y", "150"])
        except SystemExit as done:
            code = done.code
        assert code in (0, None)
        shots[name] = pixels(out)
        monkeypatch.undo()
    assert (shots["fallback"] == shots["usual"]).all()
    assert dominant(shots["usual"], 0).any() and dominant(shots["usual"], 2).any()
