"""Output formats: one module each, found through BACKENDS.

A backend module defines ``NAME``, ``HELP``, ``add_arguments(group)`` for its own command-line
options, ``Options`` (a frozen dataclass of them with ``from_args(namespace, sink)``, or
``NoOptions``), and ``emit(scene, ctx) -> list[OutputFile]``; ``ctx.options`` is its
``Options``. Backends never import one another; heavy
libraries are imported inside ``emit`` so that loading the table stays cheap.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from robrayc.diagnostics import DiagnosticSink
from robrayc.records import field, record

if TYPE_CHECKING:
    from typing import Any

# format name -> (module, output suffixes that select it...). Add one line to register a
# backend. The suffixes live here, not in the module, so that choosing the format of `-o x.c`
# imports no other backend (start-up: a compile is one short process per build step).
BACKENDS: dict[str, tuple[str, ...]] = {
    "c": ("robrayc.backends.amino_c", ".c"),
    "c-standalone": ("robrayc.backends.c_standalone",),  # no suffix: ".c" stays amino's
    "cs2": ("robrayc.backends.cs2", ".board"),
    "pysimiam": ("robrayc.backends.pysimiam", ".xml", ".world.xml"),
    "simmer": ("robrayc.backends.simmer",),  # a directory: chosen with --format simmer
    "cajunbot": ("robrayc.backends.cajunbot", ".objects.xml"),
    "svg": ("robrayc.backends.svg", ".svg"),
    "robray": ("robrayc.backends.robray", ".robray"),
    "json": ("robrayc.backends.json_", ".json"),
    "urdf": ("robrayc.backends.urdf", ".urdf"),
    "dot": ("robrayc.backends.dot", ".dot", ".gv"),
    "pov": ("robrayc.backends.pov", ".pov"),
    "png": ("robrayc.backends.png", ".png"),
    "glb": ("robrayc.backends.glb", ".glb"),
    "mjcf": ("robrayc.backends.mjcf", ".mjcf"),
    "sdf": ("robrayc.backends.sdf", ".sdf"),
    "html": ("robrayc.backends.html", ".html", ".htm"),
    "c-checker": ("robrayc.backends.c_checker",),  # no suffix: ".c" stays amino's
}


@record(frozen=True, slots=True)
class OutputFile:
    """One file a backend writes: its path and bytes."""

    path: Path
    data: bytes


@record(frozen=True, slots=True)
class NoOptions:
    """The options of a backend that has none of its own."""

    @classmethod
    def from_args(cls, ns: argparse.Namespace, sink: DiagnosticSink) -> NoOptions:
        return cls()


def model_option(fmt: str, label: str) -> tuple[Callable[[argparse._ArgumentGroup], None], type]:
    """(add_arguments, Options) of a description format whose one option is its model name,
    ``--FMT-model NAME`` (``Options.model``; see :func:`model_name` for the default)."""
    dest = f"{fmt}_model"

    def add_arguments(group: argparse._ArgumentGroup) -> None:
        group.add_argument(f"--{fmt}-model", metavar="NAME",
                           help=f"{label}: model name (default: -n NAME, else the output's stem)")

    @record(frozen=True, slots=True)
    class Options:
        """The format's one option: its model name (--FMT-model NAME)."""

        model: str | None = None

        @classmethod
        def from_args(cls, ns: argparse.Namespace, sink: DiagnosticSink) -> Options:
            return cls(model=vars(ns)[dest])

    return add_arguments, Options


def build_options(name: str, ns: argparse.Namespace, sink: DiagnosticSink) -> Any:
    """Backend `name`'s typed options (its module-level frozen dataclass ``Options``, built by
    ``Options.from_args``), once per output from the command line. A backend that declares
    no ``Options`` yet still gets the namespace."""
    options = getattr(load(name), "Options", None)
    return ns if options is None else options.from_args(ns, sink)


@record
class EmitContext:
    """What a backend's emit receives beside the scene."""

    output: Path | None  # the main output path (None: standard output)
    options: Any  # the backend's Options (see build_options)
    sink: DiagnosticSink
    name: str = "scenegraph"  # scene name for generated symbols (-n)
    extra: dict = field(default_factory=dict)


def model_name(ctx: EmitContext, given: str | None, default: str,
               robot: str | None = None) -> str:
    """A robot/model name for description formats: the format's own option, else -n NAME,
    else the scene's robot name (`Scene.robot_name`, e.g. the URDF's), else the output
    file's stem, else `default`."""
    if given:
        return given
    if ctx.name and ctx.name != "scenegraph":
        return ctx.name
    if robot:
        return robot
    return ctx.output.stem if ctx.output is not None else default


def xml_bytes(build, sink: DiagnosticSink, what: str) -> bytes:
    """The UTF-8 document of the lxml tree `build()` returns; a name holding characters XML
    cannot carry (lxml raises ValueError) is an error naming the format."""
    from lxml import etree

    try:
        return etree.tostring(build(), pretty_print=True, xml_declaration=True,
                              encoding="UTF-8")
    except ValueError as exc:
        raise sink.fatal(f"cannot write {what}: {exc}") from None


def model_outputs(writer, scene, ctx: EmitContext, what: str) -> list[OutputFile]:
    """The outputs of a model format (SDF, MJCF) whose `writer.run(name)` builds the lxml tree
    and whose `writer.files` are the files written beside it (meshes)."""
    name = model_name(ctx, ctx.options.model, "model", scene.robot_name)
    text = xml_bytes(lambda: writer.run(name), ctx.sink, what)
    return [OutputFile(ctx.output, text), *writer.files]


def load(name: str) -> ModuleType:
    return importlib.import_module(BACKENDS[name][0])


def suffixes(name: str) -> tuple[str, ...]:
    """The output file endings that select format `name`."""
    return BACKENDS[name][1:]


def by_suffix(path: str) -> str | None:
    """The format whose suffixes match the output path's ending, longest first."""
    best: tuple[int, str] | None = None
    lower = path.lower()
    for name in BACKENDS:
        for suffix in suffixes(name):
            if lower.endswith(suffix) and (best is None or len(suffix) > best[0]):
                best = (len(suffix), name)
    return best[1] if best else None
