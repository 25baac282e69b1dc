"""The `robrayc` command: aarxc's options plus -I, --format, -W error, -q and backends' own.

Exit status: 0 success, 1 errors in the inputs or outputs, 2 usage errors. Never a traceback:
an unexpected exception is reported as an internal error with exit status 3.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import math
import os
import signal
import sys
from pathlib import Path

# robrayc.diagnostics and the rest are imported where used: `robrayc --version` must not pay
# for them. (TYPE_CHECKING as the standard library spells it without importing typing.)
from typing import TYPE_CHECKING

from robrayc import __version__
from robrayc.cli.arguments import (
    UsageError,
    build_parser,
    discarded,
    parse_arguments,
    selected_outputs,
)
from robrayc.cli.subcommands import SUBCOMMANDS

if TYPE_CHECKING:
    from robrayc.diagnostics import DiagnosticSink

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
# A run stops after this many errors and shows at most this many warnings (pathological inputs
# with 100,000 problems must still end in well under a second or two).
MAX_ERRORS, MAX_WARNINGS = 100, 1000


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
        if not math.isfinite(config[name]):  # a NaN pose collides with nothing
            raise UsageError(f"--val {text!r} for --var {name} is not a finite number")
    return config


def _named_values(items: list[str], sep: str, expects: str,
                  empty_name: bool = False) -> dict[str, str]:
    """NAME<sep>VALUE command-line items -> {NAME: VALUE}; a missing separator or name (unless
    `empty_name`) is a usage error ("<expects>, got 'item'")."""
    out = {}
    for item in items:
        name, found, value = item.partition(sep)
        if not found or not (name or empty_name):
            raise UsageError(f"{expects}, got {item!r}")
        out[name] = value
    return out


def _load_options(args: argparse.Namespace, need_meshes: bool = True):
    """LoadOptions from the command line; need_meshes False when no output reads triangles."""
    from robrayc.frontend import LoadOptions
    from robrayc.meshes.axes import check_axes

    packages = _named_values(args.package_path, "=", "--package-path expects NAME=DIR",
                             empty_name=True)  # =DIR: package:///rest, no package name
    try:  # canonical spelling: "Y", "-Z"
        up, forward = check_axes(args.mesh_up_axis.strip(), args.mesh_forward_axis.strip())
    except ValueError as exc:
        raise UsageError(f"-U/-F: {exc}") from None
    xacro_args = _named_values(args.xacro_arg, ":=", "--xacro-arg expects NAME:=VALUE")
    return LoadOptions(include_dirs=tuple(args.include_dirs), package_paths=packages,
                       xacro_args=xacro_args, missing_mesh=args.missing_mesh, mesh_up=up,
                       mesh_forward=forward, collada_up=args.collada_up_axis, root=args.root,
                       need_meshes=need_meshes, input_format=args.input_format)


def run(argv: list[str], sink: DiagnosticSink, watched: list[list[str]] | None = None) -> int:
    """One compile. `watched` (--watch) receives the lists of files the run reads."""
    from robrayc import depfile
    from robrayc.configuration import check_variables
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
    outputs = selected_outputs(args)
    dep_path = _check_outputs(args, outputs, sink)

    listing_only = ((args.list_frames or args.list_vars or args.tree) and not outputs
                    and not depfile.wanted(args))
    ctx = LoadContext(_load_options(args, need_meshes=not listing_only), sink, sources=_SOURCES)
    if watched is not None:  # filled while loading: a failed run still names what it read
        watched += [args.files, ctx.dependencies]
    scene = load_with_context(args.files, ctx)
    if _KEPT is not None:
        _KEPT.append((scene, ctx))
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
    """The command; with no `argv`, the process itself (it ends here)."""
    global _KEPT
    command = argv is None
    try:
        argv = list(sys.argv[1:] if argv is None else argv)
        if argv and argv[0] in SUBCOMMANDS and not os.path.exists(argv[0]):
            module, _, func = SUBCOMMANDS[argv[0]].partition(":")
            return getattr(importlib.import_module(module), func or "main")(argv[1:])
        if argv[:1] == [_WATCH_DEPS] and len(argv) > 1:
            return _watch_child(argv[1], argv[2:])
        if "--watch" in argv:
            return _watch([a for a in argv if a != "--watch"])
        if not command:  # a library caller: its process, its garbage collector
            return guarded(run, argv, "robrayc")
        gc.disable()  # a short-lived compiler: the cyclic GC only costs time on big scenes
        # The process ends with the compile: its memory goes back to the system at once,
        # where freeing the scene object by object took 0.05 s of a 10,000-frame compile and
        # 0.2 s of a 20,000-frame one.
        _KEPT = []
        status = guarded(run, argv, "robrayc")
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    except KeyboardInterrupt:  # Ctrl-C before guarded() took over: no traceback either
        sys.stderr.write("robrayc: interrupted\n")
        return 130


_KEPT: list | None = None  # what the command's compile made (see main), never freed
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
    from robrayc.kinematics import RangeError

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
    except RangeError as exc:  # limits no sampler can draw from (located at their frame)
        sink.error(str(exc), exc.pos, "give the joint limits a finite width")
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
