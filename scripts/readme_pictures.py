"""Make the pictures of README and the docs (docs/img) again, with the robrayc of this checkout.

    python scripts/readme_pictures.py [--only NAME,...]

Needs what the picture tests need (POV-Ray; Debian's chromium and chromium-driver, selenium),
the corpus in ../shared, and, for the glTF picture, npm: three.js's GLTFLoader (the npm
package `three`, the version the viewer page bundles) is installed into a temporary folder
and bundled by esbuild, as scripts/vendor_three.sh does; the .glb robrayc wrote is then
loaded by that loader in headless Chromium and drawn, so the picture shows what a glTF viewer
makes of the file.
"""

from __future__ import annotations

import argparse
import base64
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
IMG = REPO / "docs" / "img"
CORPUS = REPO.parent / "shared" / "corpus"
URDF = CORPUS / "urdf"
ROOTS = ("ros-industrial+universal_robot", "fetchrobotics+fetch_ros")
SEVEN_DOF = CORPUS / "amino/demo/tutorial/plugin/7dof/7dof.robray"
UR5 = URDF / "ros-industrial+universal_robot/ur_description/urdf/ur5_robot.urdf"
FETCH = URDF / "fetchrobotics+fetch_ros/fetch_description/robots/fetch.urdf"
REACH = REPO / "examples" / "reach.robray"
UR5_POSE = ("--var", "shoulder_lift_joint", "--val", "-1.2", "--var", "elbow_joint", "--val",
            "1.0")
SMALL = ("--pov-x", "400", "--pov-y", "300")
THREE_VERSION = "0.187.0"  # scripts/vendor_three.sh's
ESBUILD_VERSION = "0.28.2"


def robrayc(*args: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO),
           "ROS_PACKAGE_PATH": os.pathsep.join(str(URDF / r) for r in ROOTS)}
    subprocess.run([sys.executable, "-m", "robrayc", *args], env=env, check=True)


def pose(**values: float) -> list[str]:
    return [a for name, value in values.items() for a in ("--var", name, "--val", str(value))]


def chromium(width: int, height: int):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                f"--window-size={width},{height}", "--force-device-scale-factor=1",
                "--enable-unsafe-swiftshader", "--use-angle=swiftshader"):
        opts.add_argument(arg)
    return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=opts)


def wait_for(driver, script: str) -> None:
    for _ in range(600):
        if driver.execute_script(script):
            return
        time.sleep(0.05)
    raise SystemExit(f"the page never got to: {script}")


def stills() -> None:
    """The POV-Ray pictures and the SVG preview."""
    robrayc(str(SEVEN_DOF), "-o", str(IMG / "7dof.png"), *SMALL, "--antialias",
            *pose(s1=0.7, e=1.2, w1=0.8))
    robrayc(str(FETCH), "-o", str(IMG / "fetch.png"), *SMALL, "--antialias",
            "--missing-mesh=drop", *pose(shoulder_lift_joint=-0.6, elbow_flex_joint=1.2,
                                         wrist_flex_joint=0.9))
    robrayc(str(REACH), "-o", str(IMG / "reach-collision.png"), *SMALL, "--antialias",
            "--var", "elbow", "--val", "1.2", "--highlight-collisions")
    robrayc(str(REACH), "-o", str(IMG / "reach-side.svg"), "--view", "side", "--var", "elbow",
            "--val", "1.2", "--highlight-collisions")


def viewer(tmp: Path) -> None:
    """The UR5's viewer page, the pointer over a link (its frame name showing)."""
    from selenium.webdriver.common.action_chains import ActionChains

    page = tmp / "ur5.html"
    robrayc(str(UR5), "-o", str(page), *UR5_POSE)
    driver = chromium(960, 480)
    try:
        driver.get(page.as_uri())
        wait_for(driver, "return window.robraycViewer && window.robraycViewer.stats.frames > 0")
        canvas = driver.find_element("css selector", "#viewer canvas")
        for dx in (120, 130):  # over the forearm
            ActionChains(driver).move_to_element_with_offset(canvas, dx, 0).perform()
            time.sleep(0.3)
        if not driver.find_element("id", "tooltip").is_displayed():
            raise SystemExit("the viewer shows no frame name under the pointer")
        driver.save_screenshot(str(IMG / "viewer.png"))
    finally:
        driver.quit()


GLTF_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><style>html, body {{ margin: 0; background: #fff; }}</style>
</head><body><script>{bundle}</script><script>
const bytes = Uint8Array.from(atob("{glb}"), (c) => c.charCodeAt(0));
const renderer = new THREE.WebGLRenderer({{ antialias: true }});
renderer.setSize({width}, {height});
document.body.appendChild(renderer.domElement);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0xffffff);
scene.add(new THREE.HemisphereLight(0xffffff, 0x444444, 1.2));
const sun = new THREE.DirectionalLight(0xffffff, 1.5);
sun.position.set(10, -15, 20);
scene.add(sun);
new THREE.GLTFLoader().parse(bytes.buffer, "", (gltf) => {{
  scene.add(gltf.scene);
  // robrayc's glTF keeps robrayc's axes (Z up): frame it from the front right, above
  const ball = new THREE.Box3().setFromObject(gltf.scene).getBoundingSphere(new THREE.Sphere());
  const centre = ball.center, fov = 35;
  const camera = new THREE.PerspectiveCamera(fov, {width} / {height}, 0.01, 100);
  camera.up.set(0, 0, 1);
  camera.position.copy(centre).add(new THREE.Vector3(1, 0.6, 0.45).normalize()
                                   .multiplyScalar(ball.radius / Math.sin(fov * Math.PI / 360)));
  camera.lookAt(centre);
  renderer.render(scene, camera);
  window.drawn = gltf.scene.children.length;
}}, (error) => {{ window.failed = String(error); }});
</script></body></html>
"""


def gltf_loader_bundle(tmp: Path) -> str:
    """three.js with its GLTFLoader, from npm, bundled by esbuild into one script (THREE)."""
    work = tmp / "npm"
    work.mkdir()
    subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund",
                    f"three@{THREE_VERSION}", f"esbuild@{ESBUILD_VERSION}"], cwd=work, check=True)
    (work / "entry.js").write_text(
        'export * from "three";\n'
        'export { GLTFLoader } from "three/examples/jsm/loaders/GLTFLoader.js";\n')
    subprocess.run(["npx", "esbuild", "entry.js", "--bundle", "--minify", "--format=iife",
                    "--global-name=THREE", "--outfile=bundle.js"], cwd=work, check=True)
    return (work / "bundle.js").read_text(encoding="utf-8")


def gltf(tmp: Path) -> None:
    """The UR5's .glb as three.js's GLTFLoader loads and draws it."""
    glb = tmp / "ur5.glb"
    robrayc(str(UR5), "-o", str(glb), *UR5_POSE)
    page = tmp / "gltf.html"
    page.write_text(GLTF_PAGE.format(bundle=gltf_loader_bundle(tmp), width=400, height=300,
                                     glb=base64.b64encode(glb.read_bytes()).decode()),
                    encoding="utf-8")
    driver = chromium(600, 500)
    try:
        driver.get(page.as_uri())
        wait_for(driver, "return window.drawn !== undefined || window.failed !== undefined")
        failed = driver.execute_script("return window.failed")
        if failed:
            raise SystemExit(f"GLTFLoader could not load the .glb: {failed}")
        driver.find_element("css selector", "canvas").screenshot(str(IMG / "ur5-gltf.png"))
    finally:
        driver.quit()


def main() -> None:
    makers = {"stills": stills, "viewer": viewer, "gltf": gltf}
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default=",".join(makers), help="some of: " + ",".join(makers))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="robrayc-readme-") as tmp:
        for name in args.only.split(","):
            maker = makers[name]
            maker() if name == "stills" else maker(Path(tmp))
    print(f"pictures written to {IMG}")


if __name__ == "__main__":
    main()
