"""The viewer page in a real headless Chromium (selenium): it renders without console errors,
its forward kinematics equals robrayc's, dragging a slider moves the right link, hovering
names the frame, the geometry toggle switches, and colliding pairs are named."""

from __future__ import annotations

import io
import math
import time

import numpy as np
import pytest

from robrayc.frontend import load_scene
from robrayc.kinematics import fk
from tests.backends.pictures import (
    SEVEN_DOF,
    UR5,
    chromium,
    corpus_file,
    dominant,
    robrayc,
    write_boxes,
)

# A picture wider than the window: the page then keeps the horizontal field of view exactly.
FIXED = ("--cam-eye", "4 0 0", "--cam-look", "0 0 0", "--cam-up", "0 0 1", "--fov", "40",
         "--pov-x", "800", "--pov-y", "100")


@pytest.fixture(scope="module")
def browser():
    driver = chromium()
    yield driver
    driver.quit()


def _open(browser, page):
    browser.get(page.as_uri())
    for _ in range(100):
        if browser.execute_script("return window.robraycViewer && "
                                  "window.robraycViewer.stats.frames > 0"):
            return browser.find_element("css selector", "#viewer canvas")
        time.sleep(0.05)
    raise AssertionError("the viewer never drew a frame")


def _canvas_pixels(canvas):
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(canvas.screenshot_as_png)).convert("RGB"))


def _errors(browser) -> list:
    return [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def _column(y: float, x: float, width: int) -> int:
    """Image column of world point (x, y, 0) for the FIXED camera (on +X at 4 m, +Y right)."""
    return round(width / 2 + y / (4 - x) / math.tan(math.radians(20)) * width / 2)


def test_renders_moves_the_right_link_and_names_frames(browser, tmp_path):
    from selenium.webdriver.common.action_chains import ActionChains

    page = tmp_path / "boxes.html"
    r = robrayc(str(write_boxes(tmp_path)), "-o", str(page), *FIXED)
    assert r.status == 0, r.err
    canvas = _open(browser, page)
    before = _canvas_pixels(canvas)
    h, w, _ = before.shape
    assert (before < 200).any(axis=2).mean() > 0.02  # not blank
    red_col, mid = _column(-0.6, 0.2, w), h // 2
    assert dominant(before, 0)[mid, red_col] and dominant(before, 1)[mid, w // 2]
    assert not _errors(browser)

    # click the 'slide' slider three quarters along: the sphere moves right, to y ~ 0.25
    slider = browser.find_element("css selector", "input[data-variable='slide']")
    ActionChains(browser).move_to_element_with_offset(
        slider, slider.size["width"] // 4, 0).click().perform()
    time.sleep(0.3)
    after = _canvas_pixels(canvas)
    value = browser.execute_script("return window.robraycViewer.q[0]")
    assert 0.1 < value < 0.4
    assert not dominant(after, 1)[mid, w // 2]  # gone from the middle
    assert dominant(after, 1)[mid, _column(value, 0.1, w)]  # drawn where FK puts it
    box = (slice(mid - 60, mid + 60), slice(red_col - 60, red_col + 60))
    assert (before[box] == after[box]).all()  # the red box did not move

    # hover over the red box: its frame name shows
    ActionChains(browser).move_to_element_with_offset(canvas, red_col - w // 2, 0).perform()
    tooltip = browser.find_element("id", "tooltip")
    assert tooltip.is_displayed() and tooltip.text == "red_box"
    ActionChains(browser).move_to_element_with_offset(canvas, 0, h // 2 - 5).perform()
    assert not tooltip.is_displayed()
    assert not _errors(browser)


def _check_fk(browser, scene, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(5):
        q = rng.uniform(-3, 3, len(scene.variables))
        got = browser.execute_script("return window.robraycViewer.fk(arguments[0])", q.tolist())
        want = fk(scene, dict(zip(scene.variables, q.tolist(), strict=True)))
        for f, m in zip(scene.frames, got, strict=True):
            assert np.allclose(np.array(m).reshape(4, 4), want[f.name], atol=1e-12, rtol=0)


def _limits(browser) -> list:
    return browser.execute_script(
        "return [...document.querySelectorAll('#sliders input')].map("
        "i => [i.dataset.variable, Number(i.min), Number(i.max)])")


def test_fk_in_the_page_is_robraycs(browser, tmp_path):
    src = corpus_file(SEVEN_DOF)
    page = tmp_path / "7dof.html"
    assert robrayc(str(src), "-o", str(page)).status == 0
    _open(browser, page)
    scene = load_scene([str(src)])
    _check_fk(browser, scene, 7)
    limits = _limits(browser)
    assert [name for name, _, _ in limits] == list(scene.variables)
    assert all(lo == -math.pi and hi == math.pi for _, lo, hi in limits)  # 7dof: no limits


def test_fk_prismatic_offsets_and_fixed_chains(browser, tmp_path):
    src = tmp_path / "p.robray"
    src.write_text(
        "frame base { rpy [0.1, 0.2, 0.3]; translation [1, 2, 3]; }\n"
        "frame slide { parent base; type prismatic; axis [0, 0.6, 0.8]; offset 0.25;\n"
        "  limit_position [-0.5, 1.5]; rpy [0, 1.5707963267948966, 0]; }\n"
        "frame fixed1 { parent slide; translation [0.3, 0, 0]; rpy [1, 0, 0]; }\n"
        "frame turn { parent fixed1; type revolute; axis [1, 0, 0]; offset -0.5;\n"
        "  translation [0, 0.1, 0]; }\n"
        "frame tip { parent turn; translation [0, 0, 0.2];\n"
        "  geometry { shape box; dimension [0.1, 0.1, 0.1]; } }\n")
    page = tmp_path / "p.html"
    assert robrayc(str(src), "-o", str(page)).status == 0
    _open(browser, page)
    _check_fk(browser, load_scene([str(src)]), 11)
    assert _limits(browser) == [["slide", -0.5, 1.5], ["turn", -math.pi, math.pi]]


def test_geometry_toggle_and_collision_legend(browser, tmp_path):
    scene = tmp_path / "t.robray"
    scene.write_text(
        "frame a { geometry { shape box; dimension [1, 1, 1]; color [1, 0, 0]; collision 0; }\n"
        "          geometry { shape sphere; radius 0.3; color [0, 0, 1]; visual 0; } }\n"
        "frame b { translation [0, 0.2, 0];\n"
        "          geometry { shape sphere; radius 0.3; color [0, 0, 1]; } }\n")
    page = tmp_path / "t.html"
    r = robrayc(str(scene), "-o", str(page), *FIXED, "--highlight-collisions")
    assert r.status == 0, r.err
    canvas = _open(browser, page)
    assert "colliding (drawn red):\na <-> b" in browser.find_element("id", "legend").text
    visual = _canvas_pixels(canvas)
    browser.find_element("id", "collision").click()
    time.sleep(0.3)
    collision = _canvas_pixels(canvas)
    red_visual = dominant(visual, 0).sum()
    assert red_visual > dominant(collision, 0).sum() * 2  # the 1 m box is visual only
    assert not _errors(browser)


def test_the_overlay_is_shown_only_at_the_written_configuration(browser, tmp_path):
    """The red overlay is the checker's answer at the written configuration: a slider moved
    away takes it off (its own colours back, the legend says so), reset brings it back."""
    from selenium.webdriver.common.action_chains import ActionChains

    page = tmp_path / "b.html"
    r = robrayc(str(write_boxes(tmp_path)), "-o", str(page), *FIXED, "--var", "slide",
                "--val", "0.5", "--highlight-collisions")
    assert r.status == 0, r.err
    canvas = _open(browser, page)
    legend = browser.find_element("id", "legend")
    assert "colliding (drawn red):\nblue_box <-> slider" in legend.text

    def colours():
        shot = _canvas_pixels(canvas)
        h, w, _ = shot.shape
        blue_box = shot[h // 2 - 10:h // 2 + 10, _column(0.8, 0.2, w) - 5:_column(0.8, 0.2, w)]
        return dominant(blue_box, 0).mean(), dominant(blue_box, 2).mean()

    red, blue = colours()
    assert red > 0.9 and blue == 0  # the colliding blue box is drawn red
    slider = browser.find_element("css selector", "input[data-variable='slide']")
    ActionChains(browser).move_to_element_with_offset(
        slider, -slider.size["width"] // 4, 0).click().perform()
    time.sleep(0.3)
    assert browser.execute_script("return window.robraycViewer.q[0]") < 0
    red, blue = colours()
    assert red == 0 and blue > 0.9  # its own colour: no claim about this configuration
    assert "moved" in legend.get_attribute("class")
    assert "at the written configuration, not checked here" in legend.text
    browser.find_element("id", "reset").click()
    time.sleep(0.3)
    assert browser.execute_script("return window.robraycViewer.q[0]") == 0.5
    assert float(slider.get_attribute("value")) == 0.5
    red, blue = colours()
    assert red > 0.9 and blue == 0
    assert "moved" not in legend.get_attribute("class")
    assert not _errors(browser)


def test_hostile_frame_names_survive_byte_for_byte(browser, tmp_path):
    name = "</script><!-- é ✓ & <b>x</b>"
    scene = tmp_path / "h.robray"
    scene.write_text(f'frame "{name}" {{ geometry {{ shape box; dimension [1, 1, 1]; }} }}\n',
                     encoding="utf-8")
    page = tmp_path / "h.html"
    r = robrayc(str(scene), "-o", str(page), *FIXED)
    assert r.status == 0, r.err
    canvas = _open(browser, page)
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(browser).move_to_element(canvas).perform()
    assert browser.find_element("id", "tooltip").text == name
    assert browser.execute_script("return window.robraycViewer.frames[0]") == name
    assert not _errors(browser)


COARSE_STATE = """
const v = window.robraycViewer;
v.render();
return [v.renderer.info.render.triangles, v.renderer.getPixelRatio()];
"""


def test_a_big_scene_is_drawn_coarse_while_moving_and_in_full_at_rest(browser, tmp_path):
    """The UR5's 96,000 triangles: a slider's input draws the coarse meshes at half
    resolution, covering nearly the same pixels; a quarter second later the page draws the
    full meshes again by itself."""
    page = tmp_path / "ur5.html"
    r = robrayc(str(corpus_file(UR5)), "-o", str(page), "--var", "elbow_joint", "--val", "1")
    assert r.status == 0, r.err
    canvas = _open(browser, page)
    full, ratio = browser.execute_script(COARSE_STATE)
    assert full > 90_000 and ratio == 1
    fine = (_canvas_pixels(canvas) < 235).any(axis=2)
    moved, half = browser.execute_script(
        "const s = document.querySelector(\"input[data-variable='elbow_joint']\");"
        "s.value = 1.001; s.dispatchEvent(new Event('input'));" + COARSE_STATE)
    assert 5_000 < moved < full / 2 and half == 0.5
    coarse = (_canvas_pixels(canvas) < 235).any(axis=2)
    assert (fine & coarse).sum() / (fine | coarse).sum() > 0.85  # the same robot, coarser
    for _ in range(100):  # the page's own full frame after the quarter second
        time.sleep(0.05)
        if browser.execute_script("return window.robraycViewer.renderer.info.render"
                                  ".triangles") == full:
            break
    assert browser.execute_script("return window.robraycViewer.renderer.getPixelRatio()") == 1
    assert browser.execute_script("return window.robraycViewer.renderer.info.render"
                                  ".triangles") == full
    assert not _errors(browser)


def test_coarse_meshes_keep_their_shape_and_face_their_normals(monkeypatch):
    """Vertex clustering of a real mesh (the UR5's upper arm, frame shoulder_lift_joint):
    about the asked number of triangles, every vertex near the original vertices, and every
    kept triangle facing the way its vertices' normals point."""
    from scipy.spatial import cKDTree

    from robrayc import ir
    from robrayc.backends.html import coarse_mesh
    from robrayc.diagnostics import DiagnosticSink
    from robrayc.meshes import load_mesh
    from tests.corpus import ros_package_path

    monkeypatch.setenv("ROS_PACKAGE_PATH", ros_package_path())
    sink = DiagnosticSink()
    scene = load_scene([str(corpus_file(UR5))], None, sink)
    g = next(g for f in scene.frames if f.name == "shoulder_lift_joint" for g in f.geometries
             if g.visual and isinstance(g.shape, ir.Mesh))
    mesh = load_mesh(g.shape, sink, g.pos)
    verts, faces, normals = mesh.vertices, mesh.faces, mesh.normals
    target = len(faces) // 8
    pos, tri, nrm = coarse_mesh(verts, faces, normals, target)
    assert target / 4 < len(tri) < 1.5 * target
    size = (verts.max(axis=0) - verts.min(axis=0)).max()
    assert cKDTree(verts).query(pos)[0].max() < 0.1 * size  # a vertex is its cube's mean
    a, b, c = pos[tri[:, 0]], pos[tri[:, 1]], pos[tri[:, 2]]
    assert ((np.cross(b - a, c - a) * nrm[tri].sum(axis=1)).sum(axis=1) >= 0).all()


def test_fk_of_ball_and_floating_joints_and_their_sliders(browser, tmp_path):
    """One slider per scalar variable: a ball's rotation vector on [-pi, pi], a floating
    joint's translation on +-2 (it is never sampled) and rotation vector."""
    src = tmp_path / "m.robray"
    src.write_text(
        "frame base { type floating; translation [0.1, 0.2, 0.3]; rpy [0.3, -0.2, 0.9]; }\n"
        "frame wrist { parent base; type ball; variable w; translation [0.4, 0, 0];\n"
        "  rpy [-1.1, 0.4, 0.2]; }\n"
        "frame tip { parent wrist; translation [0, 0, 0.2];\n"
        "  geometry { shape box; dimension [0.1, 0.1, 0.1]; } }\n")
    page = tmp_path / "m.html"
    assert robrayc(str(src), "-o", str(page)).status == 0
    _open(browser, page)
    scene = load_scene([str(src)])
    _check_fk(browser, scene, 13)
    tiny = [1e-9] * 9  # near the identity: sin(a/2)/a by its series
    got = browser.execute_script("return window.robraycViewer.fk(arguments[0])[2]", tiny)
    want = fk(scene, dict(zip(scene.variables, tiny, strict=True)))["tip"]
    assert np.allclose(np.array(got).reshape(4, 4), want, atol=1e-15, rtol=0)
    pi = math.pi
    assert _limits(browser) == [[f"base_{a}", -2.0, 2.0] for a in "xyz"] + [
        [f"{v}_r{a}", -pi, pi] for v in ("base", "w") for a in "xyz"]
    assert not _errors(browser)
