"""The command line's arguments: the parser (aarxc's options, robrayc's, and the selected
backends' own), parsing that imports only the backends the outputs select, and which outputs
(format, path) a command line asks for."""

from __future__ import annotations

import argparse
import functools
import os
import re
import sys
from pathlib import Path

from robrayc.cli.subcommands import SUBCOMMANDS


class UsageError(Exception):
    pass


_AXIS_OPTIONS = ("-U", "-F", "--mesh-up-axis", "--mesh-forward-axis")
_SIGNED_AXIS = re.compile(r"[+-][XYZxyz]")


# Options of the original aarxc (share/aarxc) that robrayc does not take, and what to use
# instead; docs/differences.md "Options of aarxc robrayc does not take" lists the same.
AARXC_ONLY = {
    "-p": "write POV-Ray with '-o FILE.pov' (or --format pov)",
    "-P": "render with '-o FILE.png' (POV-Ray; or -o FILE.pov for the scene only)",
    "--render": "render with '-o FILE.png' (POV-Ray)",
    "-R": "use --watch to recompile on changes (every run re-reads changed files and meshes)",
    "--reload": "use --watch to recompile on changes (every run re-reads changed files and "
                "meshes)",
    "-g": "robrayc has no GUI: '-o FILE.html' writes a viewer page with a slider per "
          "variable",
    "--gui": "robrayc has no GUI: '-o FILE.html' writes a viewer page with a slider per "
             "variable",
    "--end-effector": "robrayc has no GUI to drive one: pose the scene with --var/--val",
    "--version-man": "use --version",
}


class _Formatter(argparse.HelpFormatter):
    """argparse's formatter, the terminal width looked up once: argparse builds a formatter
    per add_argument, and its default asks shutil (imported for it) for the width each time."""

    def __init__(self, prog: str, **kwargs) -> None:
        kwargs.setdefault("width", _help_width())
        super().__init__(prog, **kwargs)


@functools.cache
def _help_width() -> int:
    """shutil.get_terminal_size().columns - 2, as argparse, without importing shutil."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 80
    return columns - 2


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):  # argparse would exit; we want our own status and text
        if message.startswith("unrecognized arguments: "):
            for word in message.removeprefix("unrecognized arguments: ").split():
                option = word.partition("=")[0]
                if option in AARXC_ONLY and option not in self._option_string_actions:
                    raise UsageError(f"option '{option}' of the original aarxc is not "
                                     f"supported: {AARXC_ONLY[option]}")
        raise UsageError(message)

    def parse_known_args(self, args=None, namespace=None):
        return super().parse_known_args(_join_signed_axes(args), namespace)


def _join_signed_axes(argv: list[str] | None) -> list[str] | None:
    """`-F -Z` as documented: argparse takes `-Z` for an option, so glue it to its flag."""
    if argv is None or not any(a in _AXIS_OPTIONS for a in argv):
        return argv
    out: list[str] = []
    for arg in argv:
        if out and out[-1] in _AXIS_OPTIONS and _SIGNED_AXIS.fullmatch(arg):
            flag = out.pop()
            out.append(f"{flag}={arg}" if flag.startswith("--") else f"{flag}{arg}")
        else:
            out.append(arg)
    return out


def build_parser(formats: tuple[str, ...] | None = None) -> argparse.ArgumentParser:
    """The command's parser with the options of `formats` (None: of every backend)."""
    from robrayc.backends import BACKENDS

    p = _Parser(
        prog="robrayc",
        description="Compile robray scene files (and URDF) to C for amino, and more.",
        epilog="Subcommands: " + (", ".join(sorted(SUBCOMMANDS)) or "none")
        + ". Formats: " + ", ".join(BACKENDS) + ".",
        add_help=False, allow_abbrev=False)
    p.add_argument("files", nargs="*", metavar="FILE", help="scene files (.robray, .urdf, ...)")
    p.add_argument("-h", "-?", "--help", action="store_true", help="show this help and exit")
    p.add_argument("--version", action="store_true", help="print the version and exit")
    p.add_argument("--cmake-dir", action="store_true",
                   help="print the folder of robrayc's CMake package (robrayc-config.cmake)")
    p.add_argument("-o", "--output", metavar="FILE", help="output file ('-': standard output)")
    p.add_argument("-n", "--name", default="scenegraph", metavar="NAME",
                   help="scene name for generated symbols (default: scenegraph)")
    p.add_argument("-s", "--scene-output", metavar="FILE", help="also write the scene as robray")
    p.add_argument("--format", metavar="FMT", choices=sorted(BACKENDS),
                   help="output format (default: from -o's suffix, else c)")
    p.add_argument("--list-frames", action="store_true", help="print the frame names")
    p.add_argument("--list-vars", action="store_true", help="print the configuration variables")
    p.add_argument("--tree", action="store_true",
                   help="print the frame tree with joint types and variables (as check_urdf)")
    add_configuration_arguments(p)
    add_load_arguments(p)
    p.add_argument("--watch", action="store_true",
                   help="compile, then again whenever an input, include, URDF or mesh "
                   "changes (until Ctrl-C)")
    p.add_argument("--if-changed", action="store_true",
                   help="leave outputs whose content is unchanged untouched (mtime kept)")
    from robrayc import depfile

    depfile.add_arguments(p)
    add_backend_arguments(p, tuple(BACKENDS) if formats is None else formats)
    return p


def add_backend_arguments(p: argparse.ArgumentParser, formats: tuple[str, ...]) -> None:
    from robrayc.backends import load

    for name in formats:
        module = load(name)
        group = p.add_argument_group(f"{name} output", module.HELP)
        module.add_arguments(group)


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    """argv parsed importing only the backends the outputs select. When argv holds options
    those backends do not know, or asks for help, every backend's are added, as before."""
    parser = build_parser(())
    known, rest = parser.parse_known_args(argv)
    if not rest and not known.help:
        formats = tuple(dict.fromkeys(fmt for fmt, _ in selected_outputs(known)))
        add_backend_arguments(parser, formats)
        try:
            return _Arguments(argv, parser.parse_args(argv))
        except UsageError:
            pass  # e.g. another format's option: the full parser accepts it or says why
    return build_parser().parse_args(argv)


class _Arguments(argparse.Namespace):
    """Arguments parsed with the selected backends' options only. Some backends read options
    another one adds (the 2D and picture formats share theirs): the first read of a missing
    option parses argv again with every backend's, so every value is what it always was."""

    def __init__(self, argv: list[str], parsed: argparse.Namespace) -> None:
        super().__init__(**vars(parsed))
        self.__dict__["_full_argv"] = argv

    def __getattr__(self, name: str):
        argv = self.__dict__.pop("_full_argv", None)
        if argv is None or name.startswith("__"):
            raise AttributeError(name)
        for key, value in vars(build_parser().parse_args(argv)).items():
            self.__dict__.setdefault(key, value)
        return object.__getattribute__(self, name)


def add_configuration_arguments(p: argparse.ArgumentParser) -> None:
    """--var NAME --val VALUE pairs (read back with configuration(args))."""
    p.add_argument("--var", action="append", default=[], metavar="NAME",
                   help="configuration variable (pair with --val; repeatable)")
    p.add_argument("--val", action="append", default=[], metavar="VALUE",
                   help="value of the preceding --var")


def add_load_arguments(p: argparse.ArgumentParser) -> None:
    """Options of loading scenes (and of warnings), shared with the subcommands."""
    p.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR",
                   help="search DIR for include files (after the including file's folder) and "
                   "SDF model:// folders")
    p.add_argument("--package-path", action="append", default=[], metavar="NAME=DIR",
                   help="resolve package://NAME/ to DIR (besides ROS_PACKAGE_PATH); =DIR: "
                   "package:///PATH (no package name) to DIR/PATH")
    p.add_argument("--xacro-arg", action="append", default=[], metavar="NAME:=VALUE",
                   help="xacro input: set $(arg NAME) (repeatable)")
    p.add_argument("--input-format",
                   choices=("robray", "urdf", "mjcf", "xacro", "json", "board", "sdf"),
                   help="read every input as this format, whatever its suffix")
    p.add_argument("--missing-mesh", choices=("error", "drop", "bbox"), default="error",
                   help="what to do with a mesh file that cannot be found (default: error)")
    p.add_argument("-U", "--mesh-up-axis", default="Z", metavar="AXIS",
                   help="up axis of meshes that do not declare one (default Z)")
    p.add_argument("-F", "--mesh-forward-axis", default="Y", metavar="AXIS",
                   help="forward axis of meshes that do not declare one (default Y)")
    p.add_argument("--collada-up-axis", choices=("honour", "ignore"), default="honour",
                   help="honour a COLLADA mesh's <up_axis> (default, as the COLLADA spec and "
                        "the original) or ignore it (as rviz, MoveIt and Gazebo, which ROS "
                        "meshes are made for)")
    p.add_argument("--root", metavar="FRAME", help="parent frame of top-level frames")
    p.add_argument("-W", dest="warnings", action="append", default=[], metavar="OPTION",
                   help="-W error (or -Werror): warnings are errors; -Werror=NAME: one "
                   "warning is; -Wno-NAME: do not warn about NAME (each warning shows its "
                   "[-WNAME]; the docs' warnings reference lists them all)")
    p.add_argument("-q", "--quiet", action="store_true", help="do not print warnings")
    p.add_argument("--color", "--colour", choices=("auto", "always", "never"), default="auto",
                   help="colour diagnostics (default auto: on a terminal unless NO_COLOR "
                   "is set or TERM=dumb)")


def discarded(path: Path | None) -> bool:
    """-o /dev/null: compile (and write a depfile) but keep nothing, as with gcc."""
    return path is not None and os.path.realpath(path) == os.devnull


def _format_of(output: str) -> str:
    """The format an -o path selects: by suffix; no suffix (or /dev/null) is C, as in aarxc.
    A suffix that selects nothing is an error (gcc refuses what it cannot tell apart, too)."""
    from robrayc.backends import BACKENDS, by_suffix, suffixes

    fmt = by_suffix(output)
    suffix = Path(output).suffix
    if fmt is not None or not suffix or output == "-" or discarded(Path(output)):
        return fmt or "c"
    known = ", ".join(f"{s} ({name})" for name in BACKENDS for s in suffixes(name))
    raise UsageError(f"output '{output}': suffix '{suffix}' selects no format (suffixes: "
                     f"{known}); use --format FMT to choose one")


def selected_outputs(args: argparse.Namespace) -> list[tuple[str, Path | None]]:
    """(format, path) for each output requested; path None is standard output."""
    outs: list[tuple[str, Path | None]] = []
    if args.output is not None:
        path = None if args.output == "-" else Path(args.output)
        outs.append((args.format or _format_of(args.output), path))
    elif args.format:
        outs.append((args.format, None))
    if args.scene_output is not None:
        outs.append(("robray", None if args.scene_output == "-" else Path(args.scene_output)))
    return outs
