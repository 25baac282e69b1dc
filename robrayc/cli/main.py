"""The `robrayc` command: aarxc's options plus -I, --format, -W error, -q and backends' own.

Exit status: 0 success, 1 errors in the inputs or outputs, 2 usage errors. Never a traceback:
an unexpected exception is reported as an internal error with exit status 3.
"""

from __future__ import annotations

import argparse
import functools
import gc
import importlib
import os
import re
import signal
import sys
from pathlib import Path

from robrayc import __version__
from robrayc.cli import SUBCOMMANDS

# robrayc.diagnostics and the rest are imported where used: `robrayc --version` must not pay
# for them. (TYPE_CHECKING as the standard library spells it without importing typing.)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from robrayc.diagnostics import DiagnosticSink, SourcePos

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
# A run stops after this many errors and shows at most this many warnings (pathological inputs
# with 100,000 problems must still end in well under a second or two).
MAX_ERRORS, MAX_WARNINGS = 100, 1000


class UsageError(Exception):
    pass


_AXIS_OPTIONS = ("-U", "-F", "--mesh-up-axis", "--mesh-forward-axis")
_SIGNED_AXIS = re.compile(r"[+-][XYZxyz]")


# Options of the original aarxc (share/aarxc) that robrayc does not take, and what to use
# instead; README "Options of aarxc robrayc does not take" lists the same.
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
        add_backend_arguments(parser, tuple(dict.fromkeys(fmt for fmt, _ in _outputs(known))))
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
                   help="search DIR for include files (after the including file's folder)")
    p.add_argument("--package-path", action="append", default=[], metavar="NAME=DIR",
                   help="resolve package://NAME/ to DIR (besides ROS_PACKAGE_PATH)")
    p.add_argument("--xacro-arg", action="append", default=[], metavar="NAME:=VALUE",
                   help="xacro input: set $(arg NAME) (repeatable)")
    p.add_argument("--input-format", choices=("robray", "urdf", "mjcf", "xacro", "json", "board"),
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
                   "warning is; -Wno-NAME: do not warn about NAME (names: README, and "
                   "shown as [-WNAME] in each warning)")
    p.add_argument("-q", "--quiet", action="store_true", help="do not print warnings")
    p.add_argument("--color", "--colour", choices=("auto", "always", "never"), default="auto",
                   help="colour diagnostics (default auto: on a terminal unless NO_COLOR "
                   "is set or TERM=dumb)")


def apply_warning_options(args: argparse.Namespace, sink: DiagnosticSink) -> None:
    """-W as gcc spells it: error, no-error, error=NAME, no-error=NAME, NAME, no-NAME."""
    from robrayc.diagnostics import NOWHERE, WARNINGS, suggest

    unknown: list[tuple[str, str]] = []
    disabled: set[str] = set()
    errors: set[str] = set()
    not_errors: set[str] = set()
    for option in args.warnings:
        negated = option.startswith("no-")
        value = option[3:] if negated else option
        if value == "error":
            sink.werror = not negated
            continue
        if value in ("all", "extra") and not negated:  # every warning is on by default
            continue
        if value.startswith("error="):
            name = value[len("error="):]
            (not_errors if negated else errors).add(name)
        else:
            name = value
            (disabled.add if negated else disabled.discard)(name)
        if name not in WARNINGS:
            unknown.append((option, name))
    sink.disabled = frozenset(disabled)
    sink.as_errors = frozenset(errors)
    sink.not_errors = frozenset(not_errors)
    sink.quiet = args.quiet
    sink.color = use_color(getattr(args, "color", "never"), sys.stderr)
    for option, name in unknown:  # as clang: a warning, with did-you-mean
        close = suggest(name, WARNINGS)
        hint = None
        if close:
            fixed = option[: len(option) - len(name)] + close.split("'")[1]
            hint = f"did you mean '-W{fixed}'?"
        sink.warning(f"unknown warning option '-W{option}'", NOWHERE, hint,
                     name="unknown-warning-option")


def use_color(mode: str, stream) -> bool:
    """--color: `auto` colours a terminal unless NO_COLOR is set (no-color.org) or TERM is
    dumb; `always` and `never` win over both, as gcc's -fdiagnostics-color does."""
    if mode != "auto":
        return mode == "always"
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def load_from_args(args: argparse.Namespace, sink: DiagnosticSink):
    """The Scene of args.files with add_load_arguments' options (raises CompileError)."""
    from robrayc.frontend import LoadContext, load_with_context

    apply_warning_options(args, sink)
    return load_with_context(args.files, LoadContext(_load_options(args), sink,
                                                     sources=_SOURCES))


def configuration(args: argparse.Namespace) -> dict[str, float]:
    if len(args.var) != len(args.val):
        raise UsageError("each --var needs a --val")
    config = {}
    for name, text in zip(args.var, args.val, strict=True):
        try:
            config[name] = float(text)
        except ValueError:
            raise UsageError(f"--val {text!r} for --var {name} is not a number") from None
    return config


def check_variables(given: dict[str, SourcePos], variables: tuple[str, ...],
                    sink: DiagnosticSink) -> None:
    """One rule for every command and format: a configuration value for a variable the scene
    does not have is an error with did-you-mean (a typo must not silently pose at zero)."""
    from robrayc.diagnostics import NOWHERE, suggest

    for name, pos in given.items():
        if name not in variables:
            where = " (--var)" if pos is NOWHERE else ""
            sink.error(f"unknown configuration variable '{name}'{where}", pos,
                       suggest(name, variables))


def _load_options(args: argparse.Namespace, need_meshes: bool = True):
    """LoadOptions from the command line; need_meshes False when no output reads triangles."""
    from robrayc.frontend import LoadOptions
    from robrayc.meshes.axes import check_axes

    packages = {}
    for item in args.package_path:
        name, sep, folder = item.partition("=")
        if not sep or not name:
            raise UsageError(f"--package-path expects NAME=DIR, got {item!r}")
        packages[name] = folder
    try:  # canonical spelling: "Y", "-Z"
        up, forward = check_axes(args.mesh_up_axis.strip(), args.mesh_forward_axis.strip())
    except ValueError as exc:
        raise UsageError(f"-U/-F: {exc}") from None
    xacro_args = {}
    for item in args.xacro_arg:
        name, sep, value = item.partition(":=")
        if not sep or not name:
            raise UsageError(f"--xacro-arg expects NAME:=VALUE, got {item!r}")
        xacro_args[name] = value
    return LoadOptions(include_dirs=tuple(args.include_dirs), package_paths=packages,
                       xacro_args=xacro_args, missing_mesh=args.missing_mesh, mesh_up=up,
                       mesh_forward=forward, collada_up=args.collada_up_axis, root=args.root,
                       need_meshes=need_meshes, input_format=args.input_format)


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


def _outputs(args: argparse.Namespace) -> list[tuple[str, Path | None]]:
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


def run(argv: list[str], sink: DiagnosticSink, watched: list[list[str]] | None = None) -> int:
    """One compile. `watched` (--watch) receives the lists of files the run reads."""
    from robrayc import depfile
    from robrayc.diagnostics import NOWHERE
    from robrayc.frontend import LoadContext, load_with_context
    from robrayc.outputs import write_files

    args = parse_arguments(argv)
    done = _informational(args)
    if done is not None:
        return done
    if not args.files:
        raise UsageError("no input scene")
    apply_warning_options(args, sink)
    args.configuration = configuration(args)
    outputs = _outputs(args)
    dep_path = _check_outputs(args, outputs, sink)

    listing_only = ((args.list_frames or args.list_vars or args.tree) and not outputs
                    and not depfile.wanted(args))
    ctx = LoadContext(_load_options(args, need_meshes=not listing_only), sink, sources=_SOURCES)
    if watched is not None:  # filled while loading: a failed run still names what it read
        watched += [args.files, ctx.dependencies]
    scene = load_with_context(args.files, ctx)
    check_variables(dict.fromkeys(args.configuration, NOWHERE), scene.variables, sink)
    sink.check()
    _print_listings(args, scene)

    if args.dep_only:  # -M: the rule only, nothing compiled
        targets = depfile.default_target(args, [p for _, p in outputs if not discarded(p)])
        dep = depfile.text(args, scene.sources, targets, sink)
        if dep_path is None:
            sys.stdout.buffer.write(dep)
            return EXIT_OK
        return EXIT_OK if write_files([(dep_path, dep)], sink, args.if_changed) else EXIT_ERROR

    files, directories, stdout_chunks = _emit_outputs(scene, outputs, args, sink)
    if depfile.wanted(args):  # after emitting: the rule names every file this run writes
        written = [str(p) for p, _ in files + directories]
        targets = written or depfile.default_target(args, [])
        dep = depfile.text(args, scene.sources, targets, sink)
        if dep_path is None:
            stdout_chunks.append(dep)
        else:
            files.append((dep_path, dep))
    return _write_outputs(files, directories, stdout_chunks, args, sink)


def _informational(args: argparse.Namespace) -> int | None:
    """--help, --version, --cmake-dir: print and end (their status); None for a compile."""
    if args.help:
        build_parser().print_help()
        return EXIT_OK
    if args.version:
        print(f"robrayc {__version__}")
        return EXIT_OK
    if args.cmake_dir:
        from robrayc.resources import resource_dir

        print(resource_dir("cmake"))
        return EXIT_OK
    return None


def _check_outputs(args: argparse.Namespace, outputs: list, sink: DiagnosticSink
                   ) -> Path | None:
    """Fail before any work if a format is missing or an output cannot be written; the
    dependency file's path (None: none, or standard output)."""
    from robrayc import depfile
    from robrayc.backends import BACKENDS, load
    from robrayc.outputs import check_target

    for fmt, _ in outputs:
        if fmt not in BACKENDS:
            raise UsageError(f"output format {fmt!r} is not available")
    dep_path = None
    if depfile.wanted(args):
        try:
            main_output = outputs[0][1] if outputs else None
            if discarded(main_output) and args.dep_file is None and not args.dep_only:
                raise UsageError("-MD with -o /dev/null needs -MF FILE to name the "
                                 "dependency file")
            dep_path = depfile.destination(args, main_output)
        except depfile.DepfileError as exc:
            raise UsageError(str(exc)) from None
        if dep_path is not None:
            check_target(dep_path, sink)
    for fmt, path in outputs:
        if path is not None and not discarded(path) and not getattr(load(fmt), "DIRECTORY",
                                                                      False):
            check_target(path, sink)
    sink.check()
    return dep_path


def _emit_outputs(scene, outputs: list, args: argparse.Namespace, sink: DiagnosticSink):
    """Every output's bytes: (files, directories, standard-output chunks), nothing written."""
    from robrayc.backends import EmitContext, build_options, load

    files: list[tuple[Path, bytes]] = []
    directories: list[tuple[Path, dict[str, bytes]]] = []
    stdout_chunks: list[bytes] = []
    for fmt, path in outputs:
        module = load(fmt)
        options = build_options(fmt, args, sink)
        emitted = module.emit(scene, EmitContext(path, options, sink, name=args.name))
        sink.check()
        if discarded(path):
            continue
        if getattr(module, "DIRECTORY", False):
            if path is None:
                raise UsageError(f"format {fmt} writes a directory: give -o DIR")
            directories.append((path, {str(o.path.relative_to(path)): o.data for o in emitted}))
            continue
        for out in emitted:
            if out.path is None:
                stdout_chunks.append(out.data)
            else:
                files.append((out.path, out.data))
    sink.check()
    return files, directories, stdout_chunks


def _write_outputs(files: list, directories: list, stdout_chunks: list[bytes],
                   args: argparse.Namespace, sink: DiagnosticSink) -> int:
    from robrayc.outputs import signals_deferred, write_directory, write_files

    with signals_deferred():  # an interrupt lands before all renames or after all of them
        if files and not write_files(files, sink, if_changed=args.if_changed):
            return EXIT_ERROR
        for path, content in directories:
            if not write_directory(path, content, sink):
                return EXIT_ERROR
    for chunk in stdout_chunks:
        sys.stdout.buffer.write(chunk)
    sys.stdout.flush()
    return EXIT_OK


def _print_listings(args: argparse.Namespace, scene) -> None:
    """--list-frames, --list-vars, --tree: one alone prints bare lines (for scripts); several
    print each under a heading, indented, so the lists stay apart."""
    listings = []
    if args.list_frames:
        listings.append(("frames", "".join(f.name + "\n" for f in scene.frames)))
    if args.list_vars:
        listings.append(("variables", "".join(v + "\n" for v in scene.variables)))
    if args.tree:
        from robrayc.analysis.tree import frame_tree

        listings.append(("tree", frame_tree(scene)))
    if len(listings) == 1:
        sys.stdout.write(listings[0][1])
        return
    for title, text in listings:
        sys.stdout.write(f"{title}:\n" + "".join("  " + line for line in
                                                  text.splitlines(keepends=True)))


_SOURCES = None  # the SourceCache of this process's runs (guarded() creates it)


def _print_diagnostics(sink: DiagnosticSink) -> None:
    from robrayc.diagnostics import render

    for d in sink.items:
        sys.stderr.write(render(d, _SOURCES, sink.color) + "\n")
    if sink.suppressed_warnings:
        sys.stderr.write(f"{sink.suppressed_warnings} more warnings not shown\n")
    n = sink.error_count
    if sink.stopped:
        sys.stderr.write(f"too many errors: stopped after {n}\n")
    elif n > 1:
        sys.stderr.write(f"{n} errors\n")


def _interrupted(signum, frame):  # SIGTERM -> unwind like Ctrl-C so temporaries are removed
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    try:
        argv = list(sys.argv[1:] if argv is None else argv)
        if argv == ["--version"]:  # before any import: build systems probe this often
            print(f"robrayc {__version__}")
            return EXIT_OK
        if argv and argv[0] in SUBCOMMANDS and not os.path.exists(argv[0]):
            module, _, func = SUBCOMMANDS[argv[0]].partition(":")
            return getattr(importlib.import_module(module), func or "main")(argv[1:])
        if argv[:1] == [_WATCH_DEPS] and len(argv) > 1:
            return _watch_child(argv[1], argv[2:])
        if "--watch" in argv:
            return _watch([a for a in argv if a != "--watch"])
        gc.disable()  # a short-lived compiler: the cyclic GC only costs time on big scenes
        return guarded(run, argv, "robrayc")
    except KeyboardInterrupt:  # Ctrl-C before guarded() took over: no traceback either
        sys.stderr.write("robrayc: interrupted\n")
        return 130


_WATCH_DEPS = "--watch-child-deps"  # internal: a --watch child writes what it read here


def _watch(argv: list[str]) -> int:
    """--watch: compile, then again whenever a file the last run read changes. Each compile
    is a fresh process, so no cache of an earlier run (meshes, templates) can go stale."""
    import subprocess
    import tempfile

    from robrayc.watch import watch

    signal.signal(signal.SIGTERM, _interrupted)

    def once(holder: list[list[str]]) -> int:
        with tempfile.TemporaryDirectory(prefix="robrayc-watch-") as tmp:
            deps = os.path.join(tmp, "deps")
            status = subprocess.call([sys.executable, "-m", "robrayc", _WATCH_DEPS, deps,
                                      *argv])
            if os.path.exists(deps):
                with open(deps, encoding="utf-8", errors="surrogateescape") as fh:
                    holder.append(fh.read().split("\0")[:-1])
        return 130 if status < 0 else status  # killed by a signal: stop watching

    return watch(once, stop=(EXIT_USAGE, 130))


def _watch_child(deps: str, argv: list[str]) -> int:
    holder: list[list[str]] = []
    status = guarded(lambda a, sink: run(a, sink, holder), argv, "robrayc")
    with open(deps, "w", encoding="utf-8", errors="surrogateescape") as fh:
        fh.write("".join(name + "\0" for names in holder for name in names))
    return status


def guarded(body, argv: list[str], prog: str) -> int:
    """Run ``body(argv, sink) -> status`` the way every robrayc command ends: diagnostics on
    stderr, usage errors exit 2, input errors 1, never a traceback (internal errors 3)."""
    from robrayc.diagnostics import CompileError, DiagnosticSink, SourceCache, SourcePos

    global _SOURCES
    if _SOURCES is None:
        _SOURCES = SourceCache()
    signal.signal(signal.SIGTERM, _interrupted)
    sink = DiagnosticSink(max_errors=MAX_ERRORS, max_warnings=MAX_WARNINGS)
    try:
        status = body(argv, sink)
        sys.stdout.flush()  # a full disk behind stdout shows here, not at interpreter exit
    except UsageError as exc:
        _print_diagnostics(sink)
        sys.stderr.write(f"{prog}: error: {exc}\nsee '{prog} --help' for usage\n")
        return EXIT_USAGE
    except CompileError:
        status = EXIT_ERROR
    except KeyboardInterrupt:
        sys.stderr.write(f"{prog}: interrupted\n")
        return 130
    except RecursionError:
        sink.error("input nested too deeply", SourcePos(prog))
        status = EXIT_ERROR
    except MemoryError:
        sink.error("out of memory", SourcePos(prog))
        status = EXIT_ERROR
    except BrokenPipeError:
        return EXIT_ERROR
    except OSError as exc:  # I/O nothing else caught: standard output on a full disk, ...
        _print_diagnostics(sink)
        what = f"'{exc.filename}'" if exc.filename else "cannot write standard output"
        sys.stderr.write(f"{prog}: error: {what}: {exc.strerror or exc}\n")
        return EXIT_ERROR
    except Exception as exc:  # a bug: say so briefly, never dump a traceback on users
        _print_diagnostics(sink)
        sys.stderr.write(f"{prog}: internal error: {type(exc).__name__}: {exc}\n"
                         "please report this with the input that caused it "
                         "(set ROBRAYC_DEBUG=1 for details)\n")
        if os.environ.get("ROBRAYC_DEBUG"):
            raise
        return EXIT_INTERNAL
    _print_diagnostics(sink)
    if status == EXIT_OK and sink.error_count:
        status = EXIT_ERROR
    return status


if __name__ == "__main__":
    raise SystemExit(main())
