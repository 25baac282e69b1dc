"""The robot zoo: every robot of the PyPI packages example-robot-data and rtb-data, and of a
local MuJoCo Menagerie copy, read by robrayc, written in every robot format, each output read
back by its real reader, link poses compared with Pinocchio's (URDF, xacro inputs) or
MuJoCo's (MJCF inputs) within 1e-9 at the rest pose and at seeded random configurations.

    pip install -e '.[zoo]'            # example-robot-data, rtb-data, pin (~180 MB of wheels)
    python benchmarks/zoo.py [--menagerie DIR] [--only TEXT,...] [--formats urdf,mjcf,...]
                             [--seed N] [--configs N] [--json OUT]

Robots: example-robot-data's robots/*/urdf/*.urdf; rtb-data's URDFs, and its xacro files that
the xacro library expands to a robot with links; every top-level .xml of each folder of the
Menagerie copy that MuJoCo loads. Inputs and outputs run with --missing-mesh=drop (a package
that does not ship a mesh it names changes no pose). Readers: benchmarks/_zoo_readers.py.

Each (robot, direction) is one of: pass; refused (robrayc exits 1 with a located error; its
first line is the reason); fail (robrayc wrote it, but the reader refuses it or a link is off:
the reason says which); skip (the reference reader refuses the input itself). A ball or
floating joint an output can only approximate (-Wball-joint, -Wfloating-joint: rpy joints, a
fixed frame; not SDF's free link, which is what SDF says) is made an error, so counted as
refused. The table
counts them per format and direction; every refusal and failure is listed with its reason.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import sys
import sysconfig
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _zoo_readers import (  # noqa: E402
    AminoFK,
    MujocoFK,
    PinocchioFK,
    ReaderError,
    RobraycFK,
    SdformatFK,
    Values,
    mujoco_joint_order,
    urdf_reader,
)

from robrayc import ir  # noqa: E402

FORMATS = ("urdf", "mjcf", "sdf", "json", "robray", "c")
SUFFIX = {"urdf": ".urdf", "mjcf": ".mjcf", "sdf": ".sdf", "json": ".json",
          "robray": ".robray", "c": ".c"}
TOLERANCE = 1e-9
C_NAME = "zoo"
# A ball or floating joint an output writes as its nearest thing (three rpy joints, a fixed
# frame) moves otherwise: counted as refused (the format pair's named limitation). SDF's free
# link (no joint) is a floating base as SDF says it: read with the input's variables.
STRICT = ("-Werror=ball-joint", "-Werror=floating-joint")
LENIENT = {"sdf": ("-Werror=ball-joint",)}
# An input robrayc can only approximate (a mimic factor other than 1 or -1: its own variable)
# is counted as refused, with the warning's location and text.
LOSSY_INPUT = ("urdf-mimic",)


class NotARobot(Exception):
    """A file of the package that holds no robot (xacro macros): not counted."""


@dataclass
class Robot:
    key: str  # SOURCE/NAME
    path: Path
    kind: str  # urdf | xacro | mjcf
    package_path: str = ""  # ROS_PACKAGE_PATH for it


@dataclass
class Result:
    key: str
    kind: str
    outcomes: dict[str, str] = field(default_factory=dict)  # direction -> outcome
    seconds: float = 0.0


# --- the robots --------------------------------------------------------------------------------
def site_packages() -> Path:
    return Path(sysconfig.get_paths()["purelib"])


def example_robot_data() -> list[Robot]:
    share = site_packages() / "cmeel.prefix" / "share"
    robots = share / "example-robot-data" / "robots"
    return [Robot(f"erd/{p.stem}", p, "urdf", str(share))
            for p in sorted(robots.glob("*/urdf/*.urdf"))]


def rtb_data() -> list[Robot]:
    root = site_packages() / "rtbdata"
    if not root.is_dir():
        return []
    packages = os.pathsep.join(str(p) for p in (root / "xacro", root, root / "armer_xarm"))
    out = [Robot(f"rtb/{p.stem}", p, "urdf", packages)
           for p in sorted(root.rglob("*.urdf")) if "data" not in p.relative_to(root).parts[:1]]
    for p in sorted(root.rglob("*.xacro")):
        if "macro" not in p.name and p.parent.name in ("urdf", "robots") and \
                "accessories" not in p.parts:
            out.append(Robot(f"rtb/{p.name}", p, "xacro", packages))
    return out


def menagerie(folder: Path | None) -> list[Robot]:
    if folder is None:
        return []
    return [Robot(f"menagerie/{p.parent.name}/{p.stem}", p, "mjcf")
            for p in sorted(folder.glob("*/*.xml")) if b"<mujoco" in p.read_bytes()[:4096]]


# --- one robot ---------------------------------------------------------------------------------
def expand_xacro(path: Path, out: Path, package_path: str) -> Path:
    """The URDF the xacro library expands `path` to, $(find PKG) searched by folder name
    in the package path (as ROS 1's rospack)."""
    import xacro
    from xacro import substitution_args

    def find(pkg: str) -> str:
        for root in package_path.split(os.pathsep):
            for folder, _dirs, _files in os.walk(root):
                if Path(folder).name == pkg:
                    return folder
        raise xacro.XacroException(f"package '{pkg}' not found")

    saved = substitution_args._eval_find
    substitution_args._eval_find = find
    try:
        doc = xacro.process_file(str(path))
    except Exception as exc:  # xacro raises its own and lxml/yaml errors
        first = (str(exc).splitlines() or [type(exc).__name__])[0].split(">: ", 1)[-1]
        half = len(first) // 2  # xacro repeats a substitution's message after it
        if first[:half].strip() == first[half:].strip():
            first = first[:half].strip()
        raise ReaderError("xacro: " + first) from None
    finally:
        substitution_args._eval_find = saved
    if not doc.getElementsByTagName("link"):
        raise NotARobot("a file of xacro macros, not a robot")
    out.write_text(doc.toprettyxml(indent="  "))
    return out


def robrayc(args: list[str]) -> tuple[int, str]:
    """robrayc's command line in this process: (status, standard error)."""
    from robrayc.cli.main import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(args)
    return status, err.getvalue()


def first_error(stderr: str) -> str:
    for line in stderr.splitlines():
        if ": error: " in line or line.startswith("robrayc:"):
            return line
    return stderr.strip().splitlines()[0] if stderr.strip() else "no message"


def configurations(scene: ir.Scene, n: int, seed: str) -> list[dict[str, float]]:
    rng = random.Random(seed)
    out = [{v: 0.0 for v in scene.variables}]
    for _ in range(n):
        cfg = {}
        for f in scene.frames:
            names = ir.joint_variables(f)
            for v in names:
                # a floating base's translation in metres, every angle in [-pi, pi]
                cfg[v] = rng.uniform(-1, 1) if f.kind == "floating" and v[-2:] in (
                    "_x", "_y", "_z") else rng.uniform(-math_pi(), math_pi())
        out.append({v: cfg[v] for v in scene.variables})
    return out


def math_pi() -> float:
    import math

    return math.pi


def link_frames(scene: ir.Scene) -> dict[str, str]:
    """Input link name -> the robrayc frame at its origin."""
    return {(f.link or f.name): f.name for f in scene.frames if f.link_role == "link"}


def compare(reference: list[dict], poses: list[dict], names: dict[str, str] | None,
            rest_only: bool) -> str | None:
    """The first link whose pose differs (a reason), else None. A reader names a link as the
    input does (`names` None: URDF, SDF), or after the robrayc frame at its origin (`names`:
    link -> frame; robrayc's own frames, MJCF bodies, amino frames)."""
    for k, (want, got) in enumerate(zip(reference, poses, strict=True)):
        if rest_only and k:
            break
        for link, pose in want.items():
            name = link if names is None else names.get(link)
            if name not in got:
                return f"link '{link}' missing from the output"
            err = float(np.max(np.abs(got[name] - pose)))
            if not err <= TOLERANCE:
                return f"link '{link}' off by {err:.3g} at configuration {k}"
    return None


class Run:
    """One robot through robrayc and every output format."""

    def __init__(self, robot: Robot, tmp: Path, formats, configs: int, seed: int,
                 sdf_exe: Path | None, meshes: bool = True) -> None:
        self.robot, self.tmp, self.formats = robot, tmp, formats
        self.n_configs, self.seed, self.sdf_exe = configs, seed, sdf_exe
        self.meshes = meshes
        self.result = Result(robot.key, robot.kind)

    def go(self) -> Result:
        start = time.perf_counter()
        # without meshes, a URDF's package:// meshes are not found (dropped): much faster
        keep = self.meshes or self.robot.kind == "xacro"  # xacro's $(find) needs the path
        os.environ["ROS_PACKAGE_PATH"] = self.robot.package_path if keep else ""
        try:
            self.steps()
        except Exception as exc:  # a zoo run reports every robot, whatever happens
            self.result.outcomes.setdefault("in", f"fail: {type(exc).__name__}: {exc}")
        self.result.seconds = round(time.perf_counter() - start, 2)
        return self.result

    def steps(self) -> None:
        from robrayc.diagnostics import CompileError, DiagnosticSink
        from robrayc.frontend import LoadOptions, load_scene

        r, out = self.robot, self.result.outcomes
        try:
            ref_reader, source = self.reference_reader()
        except NotARobot as exc:
            out["in"] = f"none: {exc}"
            return
        except ReaderError as exc:
            out["in"] = f"skip: {exc}"
            return
        sink = DiagnosticSink(quiet=True, as_errors=frozenset(LOSSY_INPUT))
        try:
            scene = load_scene([str(r.path)], LoadOptions(missing_mesh="drop"), sink)
        except CompileError:
            first = next(d for d in sink.items if d.severity == "error")
            named = f" [-Werror={first.name}]" if first.name else ""
            out["in"] = f"refused: {first.pos.file}:{first.pos.line}:{first.pos.col}: error: " \
                        f"{first.message}{named}"
            return
        self.scene, self.values = scene, Values(scene)
        self.configs = configurations(scene, self.n_configs, r.key + str(self.seed))
        order = mujoco_joint_order(ref_reader, scene) if r.kind == "mjcf" else None
        self.reference = [ref_reader.poses(self.values, c, order) if order is not None
                          else ref_reader.poses(self.values, c) for c in self.configs]
        if r.kind == "mjcf":  # MuJoCo's world body and unnamed bodies are not compared
            self.reference = [{k: v for k, v in p.items() if k != "world"}
                              for p in self.reference]
        ours = [{k: np.asarray(v) for k, v in fk_of(scene, c).items()} for c in self.configs]
        names = self.names = link_frames(scene)
        # a URDF's root link is robrayc's world (no frame): it must rest at the origin
        roots = [link for link in self.reference[0] if link not in names]
        moved = [link for link in roots
                 if np.max(np.abs(self.reference[0][link] - np.eye(4))) > TOLERANCE]
        self.reference = [{k: v for k, v in p.items() if k not in roots}
                          for p in self.reference]
        problem = f"root link '{moved[0]}' is not at the origin" if moved else \
            compare(self.reference, ours, names, False)
        out["in"] = self.outcome(problem, source)
        for fmt in self.formats:
            out[fmt] = self.output(fmt, source)

    def reference_reader(self):
        r = self.robot
        if r.kind == "mjcf":
            return MujocoFK(r.path), r.path
        path = r.path
        if r.kind == "xacro":
            path = expand_xacro(r.path, self.tmp / "expanded.urdf", r.package_path)
        return PinocchioFK(path), path

    def outcome(self, problem: str | None, source) -> str:
        return "pass" if problem is None else f"fail: {problem}"

    def output(self, fmt: str, source: Path) -> str:
        out = self.tmp / f"robot{SUFFIX[fmt]}"
        extra = ["-n", C_NAME] if fmt == "c" else []
        status, err = robrayc([str(self.robot.path), "--missing-mesh=drop",
                               *LENIENT.get(fmt, STRICT), "-o", str(out), *extra])
        if status != 0:
            return f"refused: {first_error(err)}"
        self.values.unmapped.clear()
        try:
            reader = self.reader(fmt, out)
            poses = [reader.poses(self.values, c) for c in self.configs]
        except ReaderError as exc:
            return f"fail: {exc}"
        names = None if fmt in ("urdf", "sdf") else self.names
        problem = compare(self.reference, poses, names, bool(self.values.unmapped))
        if problem is None and self.values.unmapped:
            return f"pass (rest pose only: joints {sorted(self.values.unmapped)[:3]} named " \
                   "after no input joint)"
        return self.outcome(problem, source)

    def reader(self, fmt: str, path: Path):
        if fmt == "urdf":
            return urdf_reader(path)
        if fmt == "mjcf":
            return MujocoFK(path)
        if fmt == "sdf":
            if self.sdf_exe is None:
                raise ReaderError("libsdformat-dev is not installed")
            return SdformatFK(self.sdf_exe, path)
        if fmt == "c":
            return AminoFK(path, C_NAME)
        return RobraycFK(path)


def fk_of(scene: ir.Scene, cfg: dict[str, float]):
    from robrayc.kinematics import fk

    return fk(scene, cfg)


def sdf_program(folder: Path) -> Path | None:
    """tests/sdf_input/sdf_poses.cc built against libsdformat (None when it cannot be)."""
    import pytest

    from tests.sdformat import compile_against_sdformat

    source = Path(__file__).resolve().parents[1] / "tests" / "sdf_input" / "sdf_poses.cc"
    try:
        return compile_against_sdformat(source, folder)
    except (pytest.skip.Exception, pytest.fail.Exception):
        return None


def run_robots(robots: list[Robot], formats=FORMATS, configs: int = 2, seed: int = 0,
               progress=None, meshes: bool = True) -> list[Result]:
    results = []
    here = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="robrayc-zoo-") as tmp:
        exe = sdf_program(Path(tmp)) if "sdf" in formats else None
        os.chdir(tmp)  # MuJoCo writes MUJOCO_LOG.TXT where it runs: not in the checkout
        try:
            for k, robot in enumerate(robots):
                folder = Path(tmp) / f"r{k}"
                folder.mkdir()
                result = Run(robot, folder, formats, configs, seed, exe, meshes).go()
                results.append(result)
                if progress is not None:
                    progress(result)
        finally:
            os.chdir(here)
    return results


# --- the table ---------------------------------------------------------------------------------
def status(outcome: str) -> str:
    return outcome.split(":", 1)[0].split(" (", 1)[0]


def table(results: list[Result], formats=FORMATS) -> str:
    results = [r for r in results if status(r.outcomes.get("in", "")) != "none"]
    rows = [("format", "direction", "robots", "pass", "refused", "fail", "skip")]
    for kind in ("urdf", "xacro", "mjcf"):
        mine = [r for r in results if r.kind == kind]
        if mine:
            rows.append((kind, "in", *counts([r.outcomes.get("in", "") for r in mine])))
    for fmt in formats:
        got = [r.outcomes[fmt] for r in results if fmt in r.outcomes]
        rows.append((fmt, "out", *counts(got)))
    width = [max(len(str(row[i])) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(row, width, strict=True))
             for row in rows]
    return "\n".join(lines)


def counts(outcomes: list[str]) -> tuple[int, ...]:
    s = [status(o) for o in outcomes]
    return (len(s), s.count("pass"), s.count("refused"), s.count("fail"), s.count("skip"))


def problems(results: list[Result]) -> str:
    lines = []
    for r in results:
        for direction, outcome in r.outcomes.items():
            if status(outcome) in ("refused", "fail", "skip"):
                lines.append(f"{r.key} [{direction}] {outcome}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--menagerie", type=Path, help="a local MuJoCo Menagerie copy")
    p.add_argument("--only", help="robots whose key holds one of these texts (comma-separated)")
    p.add_argument("--formats", default=",".join(FORMATS))
    p.add_argument("--configs", type=int, default=2, help="random configurations a robot")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", type=Path, help="write every outcome here")
    p.add_argument("--jsonl", type=Path,
                   help="append each robot's outcomes here as soon as it is done (a line each)")
    p.add_argument("--no-meshes", action="store_true",
                   help="leave URDF meshes out (not looked for): poses only, much faster")
    args = p.parse_args(argv)
    for name in ("menagerie", "json", "jsonl"):  # the run works in a folder of its own
        if getattr(args, name) is not None:
            setattr(args, name, getattr(args, name).resolve())
    robots = example_robot_data() + rtb_data() + menagerie(args.menagerie)
    if args.only:
        wanted = args.only.split(",")
        robots = [r for r in robots if any(w in r.key for w in wanted)]
    formats = tuple(f for f in args.formats.split(",") if f)

    def show(result: Result) -> None:
        summary = " ".join(f"{d}={status(o)}" for d, o in result.outcomes.items())
        print(f"{result.key:50s} {result.seconds:7.1f}s  {summary}", file=sys.stderr,
              flush=True)
        if args.jsonl:
            with open(args.jsonl, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(asdict(result)) + "\n")

    results = run_robots(robots, formats, args.configs, args.seed, show, not args.no_meshes)
    print(table(results, formats))
    print()
    print(problems(results))
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
