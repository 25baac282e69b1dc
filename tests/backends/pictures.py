"""Helpers shared by the picture-format tests: running robrayc, reading PNGs, small scenes."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from tests import run
from tests.corpus import URDF_CORPUS, require_corpus, ros_package_path

SEVEN_DOF = "amino/demo/tutorial/plugin/7dof/7dof.robray"
UR5 = "ros-industrial+universal_robot/ur_description/urdf/ur5_robot.urdf"

# Two boxes of known colours side by side (they do not touch) and a third that overlaps the
# blue one when `slide` is 0.3: the collision overlay's test scene.
BOXES = textwrap.dedent("""\
    frame red_box {
        translation [0, -0.6, 0];
        geometry { shape box; dimension [0.4, 0.4, 0.4]; color [1, 0, 0]; }
    }
    frame blue_box {
        translation [0, 0.6, 0];
        geometry { shape box; dimension [0.4, 0.4, 0.4]; color [0, 0, 1]; }
    }
    frame slider {
        type prismatic;
        axis [0, 1, 0];
        variable slide;
        limit_position [-0.5, 0.5];
        geometry { shape sphere; radius 0.1; color [0, 0.8, 0]; }
    }
    """)


def robrayc(*args: str, env: dict | None = None, cwd: Path | None = None) -> run.Run:
    """tests/run.py's robrayc with the corpus's ROS packages (the URDF robots' meshes), in a
    process of its own (the picture writers run POV-Ray, headless browsers)."""
    return run.robrayc(*args, env={"ROS_PACKAGE_PATH": ros_package_path(), **(env or {})},
                       cwd=cwd, process=True)


def write_boxes(tmp_path: Path) -> Path:
    path = tmp_path / "boxes.robray"
    path.write_text(BOXES)
    return path


def corpus_file(rel: str) -> Path:
    corpus = require_corpus()
    path = corpus / rel if rel.startswith("amino/") else URDF_CORPUS / rel
    assert path.is_file(), path
    return path


def need(program: str) -> str:
    found = shutil.which(program)
    if found is None:
        pytest.skip(f"{program} is not installed (CI installs it)")
    return found


def pixels(path: Path):
    """(height, width, 3) uint8 array of a PNG, read by Pillow."""
    import numpy as np
    from PIL import Image

    with Image.open(path) as img:
        return np.asarray(img.convert("RGB"))


def dominant(rgb, channel: int, margin: int = 60):
    """Boolean mask of pixels where `channel` beats both others by `margin`."""
    import numpy as np

    c = rgb.astype(int)
    others = [c[..., i] for i in range(3) if i != channel]
    return (c[..., channel] - np.maximum(*others)) > margin


def chromium(width: int = 800, height: int = 600):
    """A headless Chromium driven by selenium (Debian's chromium and chromium-driver), with
    the browser console log kept."""
    need("chromium")
    driver_path = shutil.which("chromedriver") or need("chromium-driver")
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                f"--window-size={width},{height}", "--enable-unsafe-swiftshader",
                "--use-angle=swiftshader", "--force-device-scale-factor=1"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(driver_path), options=opts)
