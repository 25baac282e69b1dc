"""Output formats: one module each, found through BACKENDS.

A backend module defines ``NAME``, ``SUFFIXES`` (output file endings that select it), ``HELP``,
``add_arguments(group)`` for its own command-line options, and
``emit(scene, ctx) -> list[OutputFile]``. Backends never import one another; heavy libraries
are imported inside ``emit`` so that loading the table stays cheap.
"""

from __future__ import annotations

import argparse
import importlib
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from robrayc.diagnostics import DiagnosticSink

# format name -> module. Add one line to register a backend.
BACKENDS: dict[str, str] = {
    "c": "robrayc.backends.amino_c",
    "c-standalone": "robrayc.backends.c_standalone",
    "cs2": "robrayc.backends.cs2",
    "pysimiam": "robrayc.backends.pysimiam",
    "simmer": "robrayc.backends.simmer",
    "cajunbot": "robrayc.backends.cajunbot",
    "svg": "robrayc.backends.svg",
    "robray": "robrayc.backends.robray",
    "json": "robrayc.backends.json_",
    "urdf": "robrayc.backends.urdf",
    "dot": "robrayc.backends.dot",
    "pov": "robrayc.backends.pov",
    "png": "robrayc.backends.png",
    "glb": "robrayc.backends.glb",
    "mjcf": "robrayc.backends.mjcf",
    "html": "robrayc.backends.html",
}


@dataclass(frozen=True, slots=True)
class OutputFile:
    path: Path
    data: bytes


@dataclass
class EmitContext:
    output: Path | None  # the main output path (None: standard output)
    options: argparse.Namespace
    sink: DiagnosticSink
    name: str = "scenegraph"  # scene name for generated symbols (-n)
    extra: dict = field(default_factory=dict)


def model_name(ctx: EmitContext, given: str | None, default: str) -> str:
    """A robot/model name for description formats: the format's own option, else -n NAME,
    else the output file's stem, else `default`."""
    if given:
        return given
    if ctx.name and ctx.name != "scenegraph":
        return ctx.name
    return ctx.output.stem if ctx.output is not None else default


def load(name: str) -> ModuleType:
    return importlib.import_module(BACKENDS[name])


def by_suffix(path: str) -> str | None:
    """The format whose SUFFIXES match the output path's ending, longest first."""
    best: tuple[int, str] | None = None
    lower = path.lower()
    for name in BACKENDS:
        for suffix in load(name).SUFFIXES:
            if lower.endswith(suffix) and (best is None or len(suffix) > best[0]):
                best = (len(suffix), name)
    return best[1] if best else None
