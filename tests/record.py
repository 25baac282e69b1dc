"""Compile generated amino C with a recording implementation of the aa_rx_* API, run it, and
compare what it recorded with the IR exactly (names byte for byte, doubles bit for bit)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from robrayc import ir

HERE = Path(__file__).resolve().parent / "c"
CFLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-O0"]


def compile_and_run(c_file: Path, name: str, workdir: Path, root: str | None = None,
                    vertices: bool = False) -> list[str]:
    """The recorded lines; with `vertices`, also a `vertices FRAME x y z ...` line after each
    mesh geometry (its float vertices as the C holds them)."""
    exe = workdir / f"record_{name}"
    subprocess.run(["gcc", *CFLAGS, f"-I{HERE / 'include'}", f"-DSCENE_FN=aa_rx_dl_sg__{name}",
                    "-o", str(exe), str(HERE / "record.c"), str(c_file)],
                   check=True, capture_output=True, text=True)
    args = [str(exe)] + ([root] if root is not None else [])
    env = {**os.environ, "RECORD_VERTICES": "1"} if vertices else None
    return subprocess.run(args, check=True, capture_output=True, text=True,
                          env=env).stdout.splitlines()


def hexname(name: str | None) -> str:
    return "-" if name is None else "x" + name.encode("utf-8").hex()


def _nums(values) -> list[str]:
    return [repr(float(v)) for v in values]


def expected(scene: ir.Scene, root: str | None = None) -> list[str]:
    """The lines record.c prints for `scene`, computed from the IR alone."""
    lines = []
    for f in scene.frames:
        parent = hexname(f.parent if f.parent is not None else root)
        head = ["frame", f.kind, parent, hexname(f.name), *_nums(f.quaternion),
                *_nums(f.translation)]
        if f.is_joint:
            head += [hexname(f.variable), *_nums(f.axis), repr(float(f.offset))]
        lines.append(head)
        if f.is_joint:
            for kind, attr in (("pos", "position"), ("vel", "velocity"),
                               ("acc", "acceleration"), ("eff", "effort")):
                rng = getattr(f.limits, attr)
                if rng is not None:
                    lines.append(["limit", kind, hexname(f.variable), *_nums(rng)])
        if f.inertial is not None:
            lines.append(["inertial", hexname(f.name), repr(float(f.inertial.mass)),
                          *_nums(f.inertial.inertia)])
        for g in f.geometries:
            lines.append(["geom", hexname(f.name), *_shape(g.shape), *_nums(g.color),
                          repr(float(g.alpha)), *_nums(g.specular), repr(float(g.scale)),
                          str(int(g.visual)), str(int(g.collision)), str(int(g.no_shadow))])
    for a in scene.allowed:
        lines.append(["allow", hexname(a.a), hexname(a.b), "1"])
    lines.append(["end", str(len(scene.frames))])
    return [" ".join(x) for x in lines]


def _shape(s: ir.Shape) -> list[str]:
    if isinstance(s, ir.Box):
        return ["box", *_nums(s.dimension)]
    if isinstance(s, ir.Sphere):
        return ["sphere", repr(float(s.radius))]
    if isinstance(s, ir.Cylinder):
        return ["cylinder", *_nums((s.height, s.radius))]
    if isinstance(s, ir.Cone):
        return ["cone", *_nums((s.height, s.start_radius, s.end_radius))]
    if isinstance(s, ir.Grid):
        return ["grid", *_nums((*s.dimension, *s.delta, s.thickness))]
    return ["mesh", "n", "n", "n", "sum"]  # placeholders: mesh sizes are checked elsewhere


def normalise(lines: list[str]) -> list[str]:
    """%.17g and repr() spell the same double differently: compare as floats."""
    out = []
    for line in lines:
        parts = line.split()
        if parts[0] == "geom" and parts[2] == "mesh":
            parts = parts[:3] + parts[7:]  # keep options, drop recorded mesh sizes
        norm = []
        for p in parts:
            try:
                norm.append(repr(float(p)) if not p.startswith("x") and p != "-" else p)
            except ValueError:
                norm.append(p)
        out.append(" ".join(norm))
    return out
