"""Picture formats: whole-command wall times, and the viewer page's frame time and rate in
Chromium.

    python benchmarks/pictures.py [--repeat 5] [--robots ur5,fetch,pr2,baxter] [--only ...]

For each corpus robot (../shared/corpus/urdf, meshes dropped where the corpus lacks them) the
median wall and CPU time of a fresh `robrayc ROBOT -o OUT` process for OUT = robot.png
(POV-Ray render at 640x480), robot.pov (the scene only), robot.glb and robot.html; the PNG
row also gives POV-Ray alone on the written scene. Goals (issue 17): PNG of a UR5-sized robot
with meshes <= 2 s, HTML <= 1 s to write.

Then each robot's page in headless Chromium (Debian's chromium and chromium-driver, through
selenium; WebGL is SwiftShader, software rendering on the CPU: a GPU does far better), in a
1280x800 window at device pixel ratio 1, vsync and the frame-rate limit off: the median time
over 30 frames of one slider change (every joint moves: forward kinematics in the page), the
render, and a 1-pixel readPixels that waits until the frame is drawn, as the page draws at
rest (full meshes, full resolution) and while the view moves (coarse meshes, half
resolution: see backends/html.py). Its inverse is the page's frame rate. A page with one box
comes first, for scale. Goal: >= 30 frames per second for the largest corpus robot (baxter
has the most triangles, pr2 the most frames).

Frame times, not requestAnimationFrame counts: headless Chromium's animation frames follow
its own compositor, not the page. For the one-box page they gave anything from 0.4 to 64 per
second depending on flags and on waiting for the GPU (readPixels, finish, or nothing).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from urdf_compile import CORPUS, ROBOTS, ROOTS, medians  # noqa: E402  (the same robots)

CHROMIUM_FLAGS = ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                  "--window-size=1280,800", "--force-device-scale-factor=1",
                  "--enable-unsafe-swiftshader", "--use-angle=swiftshader",
                  "--disable-gpu-vsync", "--disable-frame-rate-limit")

# One frame: every variable moved (slider change), drawn, and waited for (readPixels); drawn
# in full (as at rest) or coarse (as while the view moves).
FRAME_TIME = """
const v = window.robraycViewer, n = arguments[0];
const gl = v.renderer.getContext(), pixel = new Uint8Array(4), times = [];
v.setDetail(arguments[1]);
function frame(i) {
  const values = {};
  for (const x of v.variables) values[x.name] = x.lo + (x.hi - x.lo) * (0.5 + 0.4 * Math.sin(i));
  v.setConfiguration(values);
  v.render();
  gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
}
for (let i = 0; i < 3; i++) frame(i);
for (let i = 0; i < n; i++) {
  const t = performance.now();
  frame(i);
  times.push(performance.now() - t);
}
times.sort((a, b) => a - b);
v.setDetail(true);
return times[Math.floor(n / 2)];
"""

def robrayc_cmd() -> list[str]:
    found = shutil.which("robrayc")
    return [found] if found else [sys.executable, "-m", "robrayc"]


def browser_figures(page: Path) -> tuple[float, float]:
    """(median frame time in ms at rest, the same while moving) of a viewer page."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    for arg in CHROMIUM_FLAGS:
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=opts)
    try:
        driver.set_script_timeout(300)
        driver.get(page.as_uri())
        for _ in range(600):
            if driver.execute_script("return !!window.robraycViewer"):
                break
            time.sleep(0.05)
        rest, moving = (float(driver.execute_script(FRAME_TIME, 30, full))
                        for full in (True, False))
        return rest, moving
    finally:
        driver.quit()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--robots", default="ur5,fetch,pr2,baxter")
    ap.add_argument("--only", choices=("commands", "browser"),
                    help="time only the commands, or only the pages in the browser")
    args = ap.parse_args()
    env = dict(os.environ, ROS_PACKAGE_PATH=os.pathsep.join(str(CORPUS / r) for r in ROOTS))
    tmp = Path(tempfile.mkdtemp(prefix="robrayc-pictures-bench-"))
    if args.only != "browser":
        print("robot   format   wall s (median)   cpu s   size")
    pages = {}
    for key in args.robots.split(","):
        urdf = CORPUS / ROBOTS[key]
        pages[key] = tmp / f"{key}.html"
        if args.only == "browser":
            subprocess.run([*robrayc_cmd(), str(urdf), "-o", str(pages[key]),
                            "--missing-mesh=drop"], env=env, check=True, capture_output=True)
            continue
        for fmt in ("png", "pov", "glb", "html"):
            out = tmp / f"{key}.{fmt}"
            cmd = [*robrayc_cmd(), str(urdf), "-o", str(out), "--missing-mesh=drop"]
            wall, cpu = medians(cmd, env, args.repeat)
            print(f"{key:7} {fmt:8} {wall:15.3f} {cpu:9.3f}   {out.stat().st_size / 1e6:.1f} MB")
        pov_wall, pov_cpu = medians(
            ["povray", f"+I{tmp / (key + '.pov')}", f"+O{tmp / (key + '-p.png')}", "+W640",
             "+H480", "-D", "+Q9", "-V", "-GS", "-GR"], env, args.repeat)
        print(f"{key:7} {'povray':8} {pov_wall:15.3f} {pov_cpu:9.3f}   (POV-Ray alone)")
    if args.only == "commands":
        return
    box = tmp / "box.robray"
    box.write_text("frame box { geometry { shape box; dimension [1, 1, 1]; } }\n")
    subprocess.run([*robrayc_cmd(), str(box), "-o", str(tmp / "box.html")], env=env, check=True)
    pages = {"one box": tmp / "box.html", **pages}  # the page's own cost, for scale
    print(f"viewer page, headless Chromium, SwiftShader: {' '.join(CHROMIUM_FLAGS[3:])}")
    print("robot   frame ms at rest (per second)   frame ms moving (per second)")
    for key, page in pages.items():
        rest, moving = browser_figures(page)
        print(f"{key:7} {rest:16.1f} {1000 / rest:8.1f} {moving:18.1f} {1000 / moving:8.1f}")
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
