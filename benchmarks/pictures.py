"""Picture formats: whole-command wall times, and the viewer page's frame rate in Chromium.

    python benchmarks/pictures.py [--repeat 5] [--robots ur5,fetch,pr2] [--fps-seconds 4]

For each corpus robot (../shared/corpus/urdf, meshes dropped where the corpus lacks them) the
median wall and CPU time of a fresh `robrayc ROBOT -o OUT` process for OUT = robot.png
(POV-Ray render at 640x480), robot.pov (the scene only), robot.glb and robot.html; the PNG
row also gives POV-Ray's own share (`povray` on the written scene). Goals (issue 17): PNG of a
UR5-sized robot with meshes <= 2 s, HTML <= 1 s to write.

Then the HTML page of every robot in headless Chromium (Debian's chromium and
chromium-driver, through selenium): the camera orbits for --fps-seconds while the page
renders every animation frame; frames per second = frames drawn / seconds (goal >= 30 for the
largest robot), after a page with one box (the browser's own cost per frame, for scale).
Chromium's WebGL here is SwiftShader (software): a machine with a GPU does better.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from urdf_compile import CORPUS, ROBOTS, ROOTS, timed  # noqa: E402  (the same robots)

ORBIT = """
const v = window.robraycViewer, c = v.controls, done = arguments[arguments.length - 1];
const start = performance.now(), first = v.stats.frames, seconds = arguments[0];
function step(now) {
  const t = (now - start) / 1000;
  c.object.position.applyAxisAngle(c.object.up, 0.02);
  c.update();
  v.render();
  if (t < seconds) requestAnimationFrame(step);
  else done((v.stats.frames - first) / t);
}
requestAnimationFrame(step);
"""


def median_run(cmd: list[str], env: dict, repeat: int) -> tuple[float, float]:
    runs = [timed(cmd, env) for _ in range(repeat)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def robrayc_cmd() -> list[str]:
    found = shutil.which("robrayc")
    return [found] if found else [sys.executable, "-m", "robrayc"]


def browser_fps(page: Path, seconds: float) -> float:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                "--window-size=1024,768", "--enable-unsafe-swiftshader",
                "--use-angle=swiftshader"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=opts)
    try:
        driver.set_script_timeout(seconds + 60)
        driver.get(page.as_uri())
        for _ in range(600):
            if driver.execute_script("return !!window.robraycViewer"):
                break
            time.sleep(0.05)
        return float(driver.execute_async_script(ORBIT, seconds))
    finally:
        driver.quit()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--robots", default="ur5,fetch,pr2")
    ap.add_argument("--fps-seconds", type=float, default=4.0)
    args = ap.parse_args()
    env = dict(os.environ, ROS_PACKAGE_PATH=os.pathsep.join(str(CORPUS / r) for r in ROOTS))
    tmp = Path(tempfile.mkdtemp(prefix="robrayc-pictures-bench-"))
    print("robot   format   wall s (median)   cpu s   size")
    pages = {}
    for key in args.robots.split(","):
        urdf = CORPUS / ROBOTS[key]
        for fmt in ("png", "pov", "glb", "html"):
            out = tmp / f"{key}.{fmt}"
            cmd = [*robrayc_cmd(), str(urdf), "-o", str(out), "--missing-mesh=drop"]
            wall, cpu = median_run(cmd, env, args.repeat)
            print(f"{key:7} {fmt:8} {wall:15.3f} {cpu:9.3f}   {out.stat().st_size / 1e6:.1f} MB")
        pov_wall, pov_cpu = median_run(
            ["povray", f"+I{tmp / (key + '.pov')}", f"+O{tmp / (key + '-p.png')}", "+W640",
             "+H480", "-D", "+Q9", "-V", "-GS", "-GR"], env, args.repeat)
        print(f"{key:7} {'povray':8} {pov_wall:15.3f} {pov_cpu:9.3f}   (POV-Ray's share of png)")
        pages[key] = tmp / f"{key}.html"
    box = tmp / "box.robray"
    box.write_text("frame box { geometry { shape box; dimension [1, 1, 1]; } }\n")
    subprocess.run([*robrayc_cmd(), str(box), "-o", str(tmp / "box.html")], env=env, check=True)
    pages = {"one box": tmp / "box.html", **pages}  # the page's own cost, for scale
    for key, page in pages.items():
        print(f"{key:7} browser  {browser_fps(page, args.fps_seconds):.1f} frames per second "
              "(headless Chromium, SwiftShader)")
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
