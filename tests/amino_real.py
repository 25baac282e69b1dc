"""The REAL amino library and the ORIGINAL aarxc, for conformance tests.

`../shared/amino/` (beside the checkout) holds the amino source, `build.sh` (builds libamino
into a prefix, once per machine), `run-aarxc.sh` (the original Common Lisp compiler) and
`check_scene.c` + `Makefile` (link one generated scene with the real library and print what the
library loaded as JSON). This module wraps them:

- :func:`require_library` / :func:`require_aarxc`: build on first use (under a file lock, so
  pytest-xdist workers build once) and return; when that is impossible the test is SKIPPED
  outside CI and FAILS in CI (env ``CI=true``), so a CI machine can never go green without the
  real library.
- :func:`load_c`: compile a scene C file with check_scene (cached by content hash) and return
  the loaded scene as a dict per configuration.
- :func:`run_aarxc` / :func:`run_robrayc`: compile robray inputs to C with either compiler.
- :func:`normalize` / :func:`compare`: a name-keyed view of two loaded scenes and their
  differences, with the tolerance the original's single-float literals need.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import math
import os
import random
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.run import robrayc

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO / ".." / "shared"
AMINO_DIR = SHARED / "amino"
CORPUS = SHARED / "corpus"

PREFIX = Path(os.environ.get("AMINO_PREFIX", "/tmp/amino-prefix"))
BUILD_DIR = Path(os.environ.get("AMINO_BUILD_DIR", str(PREFIX).rstrip("/") + "-build"))
CACHE = Path(os.environ.get("ROBRAYC_AMINO_CACHE",
                            Path(tempfile.gettempdir()) / "robrayc-amino-cache"))

IN_CI = os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")

# Poses: the bound. The original reads literals as single floats (relative error up to
# 6e-8), so other numbers (dimensions, colours, offsets) compare with a relative tolerance.
POSE_TOL = 1e-6
REL_TOL = 1e-6

# Slow first builds: build.sh ~2 min, Lisp image ~30 s (more on a loaded machine).
BUILD_TIMEOUT = 1800


class AminoUnavailable(RuntimeError):
    """The real library or the original compiler cannot be built on this machine."""


class SceneInitError(RuntimeError):
    """check_scene exit 2: the real library's aa_rx_sg_init refused the scene."""


@contextlib.contextmanager
def _locked(name: str) -> Iterator[None]:
    """Exclusive lock shared by every process on the machine (xdist workers, parallel runs)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"{name}.lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def library_built() -> bool:
    return (PREFIX / ".amino-built").is_file() and (PREFIX / "lib" / "libamino.so").exists()


def aarxc_built() -> bool:
    return (BUILD_DIR / "src" / "aarx.core").is_file()


_status: dict[str, str | None] = {}


def _ensure(what: str) -> str | None:
    """Build `what` ("library" or "aarxc") if needed; None when usable, else why not."""
    if what in _status:
        return _status[what]
    reason: str | None = None
    if not AMINO_DIR.is_dir():
        reason = f"{AMINO_DIR} is absent (shared/ not beside the checkout)"
    elif shutil.which("cc") is None and shutil.which("gcc") is None:
        reason = "no C compiler (run ../shared/amino/install-deps.sh)"
    else:
        with _locked("build"):
            if what == "library" and not library_built():
                reason = _run_build(["sh", str(AMINO_DIR / "build.sh"), str(AMINO_DIR /
                                     "amino-src.tar.gz"), str(PREFIX)], "build.sh")
            elif what == "aarxc" and not aarxc_built():
                reason = _ensure_unlocked_library() or _run_build(
                    ["sh", str(AMINO_DIR / "run-aarxc.sh"), "--version"], "run-aarxc.sh")
    _status[what] = reason
    return reason


def _ensure_unlocked_library() -> str | None:
    if library_built():
        return None
    return _run_build(["sh", str(AMINO_DIR / "build.sh"), str(AMINO_DIR / "amino-src.tar.gz"),
                       str(PREFIX)], "build.sh")


def _run_build(cmd: list[str], label: str) -> str | None:
    env = dict(os.environ, AMINO_PREFIX=str(PREFIX), AMINO_BUILD_DIR=str(BUILD_DIR))
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=BUILD_TIMEOUT,
                           stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{label} failed: {e}"
    if r.returncode != 0:
        tail = (r.stderr or r.stdout).strip().splitlines()[-15:]
        return f"{label} failed (exit {r.returncode}):\n" + "\n".join(tail)
    return None


def _require(what: str) -> None:
    import pytest  # only tests call this; the module stays importable from benchmarks

    reason = _ensure(what)
    if reason is None:
        return
    if IN_CI:
        pytest.fail(f"real amino {what} unavailable in CI (CI=true must not skip): {reason}",
                    pytrace=False)
    pytest.skip(f"real amino {what} unavailable: {reason}")


def require_library() -> None:
    """Skip (locally) or fail (CI) unless the real amino library is built."""
    _require("library")


def require_aarxc() -> None:
    """Skip (locally) or fail (CI) unless the original aarxc runs."""
    _require("library")
    _require("aarxc")


# --- compilers ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Compiled:
    ok: bool
    returncode: int
    stdout: str
    stderr: str
    c_file: Path

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def run_aarxc(inputs: Sequence[Path | str], name: str, out_c: Path, *,
              cwd: Path | None = None, env: Mapping[str, str] | None = None,
              extra: Sequence[str] = (), timeout: float = 60, tries: int = 2) -> Compiled:
    """The original compiler: `run-aarxc.sh INPUTS -n NAME -o OUT` (it reports errors as a Lisp
    backtrace, on stdout or stderr, and exits 1). When a mesh is missing its worker threads
    sometimes deadlock instead of exiting (about one run in six): a run past `timeout` is
    killed and tried again, up to `tries` runs; if all time out the result is a failure with
    returncode -1."""
    out_c.parent.mkdir(parents=True, exist_ok=True)
    full_env = dict(os.environ, AMINO_PREFIX=str(PREFIX), AMINO_BUILD_DIR=str(BUILD_DIR))
    if env:
        full_env.update(env)
    cmd = ["sh", str(AMINO_DIR / "run-aarxc.sh"), *map(str, inputs), *extra,
           "-n", name, "-o", str(out_c)]
    for _ in range(tries):
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=full_env,
                               timeout=timeout, stdin=subprocess.DEVNULL)
            break
        except subprocess.TimeoutExpired:
            continue
    else:
        return Compiled(False, -1, "", f"aarxc timed out after {timeout} s ({tries} runs)",
                        out_c)
    return Compiled(r.returncode == 0 and out_c.is_file(), r.returncode, r.stdout, r.stderr,
                    out_c)


def run_robrayc(inputs: Sequence[Path | str], name: str, out_c: Path, *,
                cwd: Path | None = None, env: Mapping[str, str] | None = None,
                extra: Sequence[str] = ()) -> Compiled:
    """robrayc as a user runs it: `robrayc INPUTS -n NAME -o OUT` in a separate process."""
    out_c.parent.mkdir(parents=True, exist_ok=True)
    if cwd is None:
        inputs = [Path(p).resolve() if Path(p).exists() else p for p in inputs]
    # Started outside the checkout (unless told otherwise), `-m robrayc` imports the INSTALLED
    # package, as a user gets it, not the source tree on the current directory.
    r = robrayc(*inputs, *extra, "-n", name, "-o", out_c, cwd=cwd or out_c.parent,
                env=dict(env or {}), process=True)
    return Compiled(r.status == 0 and out_c.is_file(), r.status, r.out, r.err, out_c)


# --- check_scene ----------------------------------------------------------------------------


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(len(p).to_bytes(8, "little"))
        h.update(p)
    return h.hexdigest()[:32]


def check_binary(c_file: Path, name: str) -> Path:
    """Link `c_file` (defining aa_rx_dl_sg__NAME) with check_scene and the real library, once
    per content: the executable is cached under CACHE by a hash of everything it depends on."""
    require_library()
    # Both compilers write OUT.c.h beside OUT.c; robrayc's C includes it by that name.
    header = c_file.with_name(c_file.name + ".h")
    header_bytes = header.read_bytes() if header.is_file() else b""
    key = _digest(c_file.read_bytes(), header_bytes, c_file.name.encode(), name.encode(),
                  (AMINO_DIR / "check_scene.c").read_bytes(),
                  (AMINO_DIR / "Makefile").read_bytes(), str(PREFIX).encode())
    out = CACHE / "check" / key / "check"
    if out.is_file():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp_dir = Path(tempfile.mkdtemp(dir=out.parent))
    try:
        # Copy the scene beside the binary so the compile never sees a file changing under it.
        scene = tmp_dir / c_file.name
        shutil.copyfile(c_file, scene)
        if header.is_file():
            shutil.copyfile(header, tmp_dir / header.name)
        r = subprocess.run(
            ["make", "-s", "-f", str(AMINO_DIR / "Makefile"), f"PREFIX={PREFIX}",
             f"SCENE={scene}", f"SCENE_NAME={name}", f"OUT={tmp_dir / 'check'}"],
            capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=600)
        if r.returncode != 0:
            raise AssertionError(f"check_scene does not compile with {c_file}:\n{r.stderr}")
        os.replace(tmp_dir / "check", out)  # atomic: parallel workers may race here
    finally:
        shutil.rmtree(tmp_dir, ignore_errors=True)
    return out


def run_check(binary: Path, config: Mapping[str, float] | None = None, *,
              collide: bool = False) -> dict:
    args = [str(binary)]
    if collide:
        args.append("--collide")
    args += [f"{k}={float(v)!r}" for k, v in (config or {}).items()]
    r = subprocess.run(args, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                       timeout=120)
    if r.returncode == 2:
        raise SceneInitError(r.stdout.strip())
    if r.returncode != 0:
        raise AssertionError(f"check_scene exit {r.returncode}: {r.stderr[-2000:]}")
    return json.loads(r.stdout)


def load_c(c_file: Path, name: str,
           configs: Sequence[Mapping[str, float] | None] = (None,)) -> list[dict]:
    """Load a generated scene in the real library; one JSON dict per configuration."""
    binary = check_binary(c_file, name)
    return [run_check(binary, cfg) for cfg in configs]


def random_configs(variables: Sequence[str], seeds: Sequence[int]) -> list[dict[str, float]]:
    """Seeded configurations, each variable uniform in [-pi, pi]."""
    out = []
    for seed in seeds:
        rng = random.Random(seed)
        out.append({v: rng.uniform(-math.pi, math.pi) for v in sorted(variables)})
    return out


# --- comparison -----------------------------------------------------------------------------


def normalize(d: dict) -> dict:
    """Name-keyed view of check_scene's JSON: ids and the library's frame order dropped."""
    frames = {}
    for f in d["frames"]:
        frames[f["name"]] = {
            "parent": f["parent"], "type": f["type"], "config": f["config"],
            "axis": f.get("axis"), "abs_v": f["abs"]["v"], "abs_R": f["abs"]["R"],
            "rel_v": f["rel"]["v"], "mass": f.get("mass"), "inertia": f.get("inertia"),
        }
    configs = {c["name"]: c["limits"] for c in d["configs"]}
    geometry: dict[str, list[dict]] = {}
    for g in d["geometry"]:
        g = dict(g)
        geometry.setdefault(g.pop("frame"), []).append(g)
    allowed = sorted(tuple(sorted(p)) for p in d.get("allowed_collision", []))
    # amino orders frames and variables itself (parents first over a name-sorted map), so the
    # orders are part of the loaded scene users index into: they must match too.
    return {"frames": frames, "configs": configs, "geometry": geometry, "allowed": allowed,
            "frame_order": [f["name"] for f in d["frames"]],
            "config_order": [c["name"] for c in d["configs"]]}


@dataclass(frozen=True)
class Mismatch:
    path: str  # e.g. "frames/block_a/abs_v"
    ours: object
    theirs: object

    def __str__(self) -> str:
        return f"{self.path}: robrayc={self.ours!r} aarxc={self.theirs!r}"


def _close(a: object, b: object, rel: float, abs_: float) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=rel, abs_tol=abs_)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y, rel, abs_) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k], rel, abs_) for k in a)
    return a == b


def compare(ours: dict, theirs: dict, *, pose_tol: float = POSE_TOL,
            rel_tol: float = REL_TOL) -> list[Mismatch]:
    """Differences between two normalized loaded scenes (robrayc's first)."""
    out: list[Mismatch] = []
    fa, fb = ours["frames"], theirs["frames"]
    for name in sorted(fa.keys() | fb.keys()):
        if name not in fa or name not in fb:
            out.append(Mismatch(f"frames/{name}", name in fa, name in fb))
            continue
        a, b = fa[name], fb[name]
        for key in a:
            pose = key in ("abs_v", "abs_R", "rel_v")
            if not _close(a[key], b[key], 0.0 if pose else rel_tol, pose_tol if pose else 0.0):
                out.append(Mismatch(f"frames/{name}/{key}", a[key], b[key]))
    ca, cb = ours["configs"], theirs["configs"]
    for name in sorted(ca.keys() | cb.keys()):
        if not _close(ca.get(name), cb.get(name), rel_tol, 0.0):
            out.append(Mismatch(f"configs/{name}", ca.get(name), cb.get(name)))
    ga, gb = ours["geometry"], theirs["geometry"]
    for name in sorted(ga.keys() | gb.keys()):
        la, lb = ga.get(name, []), gb.get(name, [])
        if len(la) != len(lb):
            out.append(Mismatch(f"geometry/{name}", la, lb))
            continue
        # Geometry order within a frame is the attach order; compare as sorted multisets so a
        # different (legal) emission order is not a difference.
        la, lb = _sorted_geoms(la), _sorted_geoms(lb)
        for i, (x, y) in enumerate(zip(la, lb, strict=True)):
            for key in sorted(x.keys() | y.keys()):
                if not _close(x.get(key), y.get(key), rel_tol, 1e-12):
                    out.append(Mismatch(f"geometry/{name}/{i}/{key}", x.get(key), y.get(key)))
    for key in ("allowed", "frame_order", "config_order"):
        if ours[key] != theirs[key]:
            out.append(Mismatch(key, ours[key], theirs[key]))
    return out


def _sorted_geoms(gs: list[dict]) -> list[dict]:
    def key(g: dict) -> str:
        return json.dumps({k: (round(v, 5) if isinstance(v, float) else v) for k, v in g.items()
                           if k != "opt"}, sort_keys=True)
    return sorted(gs, key=key)
