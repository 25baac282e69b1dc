"""Make-style dependency files (gcc's -M family) listing every file a compile read.

The text follows gcc's `libcpp/mkdeps.cc` quoting, which GNU make, Ninja and CMake's depfile
reader all parse the same way:

- a space or tab is preceded by a backslash, and the backslashes directly before it are
  doubled (make reads 2N+1 backslashes + space as N backslashes and a space);
- ``$`` becomes ``$$`` (make would expand it);
- ``#`` becomes ``\\#`` (make would start a comment).

A newline cannot be written in a make rule at all, so a path holding one is refused.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from pathlib import Path

from robrayc.diagnostics import DiagnosticSink, SourcePos

# Long lines are folded with a backslash-newline, as gcc does, so diffs of depfiles stay small.
_WIDTH = 76


class DepfileError(ValueError):
    """A path that no make-style depfile can express."""


def escape(path: str) -> str:
    """`path` quoted for a make rule (target or prerequisite)."""
    if "\n" in path or "\r" in path:
        raise DepfileError(f"path {path!r} holds a newline, which a depfile cannot express")
    out: list[str] = []
    slashes = 0
    for ch in path:
        if ch == "\\":
            slashes += 1
            out.append(ch)
            continue
        if ch in " \t":
            out.append("\\" * slashes)  # double the run of backslashes before the blank
            out.append("\\")
        elif ch == "$":
            out.append("$")
        elif ch == "#":
            out.append("\\")
        slashes = 0
        out.append(ch)
    return "".join(out)


def _rule(head: str, words: Iterable[str]) -> str:
    line = head
    lines: list[str] = []
    for word in words:
        if len(line) + 1 + len(word) > _WIDTH and line != head:
            lines.append(line + " \\")
            line = " "
        line += " " + word
    lines.append(line)
    return "\n".join(lines) + "\n"


def render(targets: Sequence[str], dependencies: Sequence[str],
           phony_exclude: Iterable[str] | None = None, phony: bool = False) -> str:
    """The depfile text: one rule `targets: dependencies`, then with `phony` an empty rule
    for each dependency not in `phony_exclude` (gcc's -MP: a deleted or renamed include then
    does not stop make with "No rule to make target")."""
    if not targets:
        raise DepfileError("a depfile needs at least one target")
    deps = list(dict.fromkeys(dependencies))  # first occurrence wins, order kept
    head = " ".join(escape(t) for t in targets) + ":"
    text = _rule(head, (escape(d) for d in deps))
    if phony:
        skip = set(phony_exclude or ())
        for d in deps:
            if d not in skip:
                text += "\n" + escape(d) + ":\n"
    return text


def parse(text: str) -> list[tuple[list[str], list[str]]]:
    """Read back rules written by :func:`render` (and gcc): [(targets, prerequisites)].

    The reverse of :func:`escape`, for tests and tools that inspect depfiles.
    """
    text = text.replace("\\\r\n", " ").replace("\\\n", " ")
    rules: list[tuple[list[str], list[str]]] = []
    for line in text.split("\n"):
        if not line.strip():
            continue
        words = _split_words(line)
        colon = next((i for i, (w, sep) in enumerate(words) if sep), None)
        if colon is None:
            raise DepfileError(f"no ':' in depfile line {line!r}")
        rules.append(([w for w, _ in words[:colon + 1]], [w for w, _ in words[colon + 1:]]))
    return rules


def _split_words(line: str) -> list[tuple[str, bool]]:
    """Words of a rule line; the flag marks the word the target list ends with (`word:`)."""
    words: list[tuple[str, bool]] = []
    cur: list[str] = []
    i, n = 0, len(line)

    def flush(colon: bool) -> None:
        if cur:
            words.append(("".join(cur), colon))
            cur.clear()
        elif colon and words:  # "a.c :" -- the colon ends the previous word's list
            words[-1] = (words[-1][0], True)

    while i < n:
        ch = line[i]
        if ch == "\\":
            j = i
            while j < n and line[j] == "\\":
                j += 1
            run = j - i
            if j < n and line[j] in " \t":
                cur.append("\\" * (run // 2))
                if run % 2:  # escaped blank: part of the name
                    cur.append(line[j])
                    i = j + 1
                else:
                    flush(False)
                    i = j + 1
                continue
            if j < n and line[j] == "#" and run == 1:
                cur.append("#")
                i = j + 1
                continue
            cur.append("\\" * run)
            i = j
            continue
        if ch == "$" and i + 1 < n and line[i + 1] == "$":
            cur.append("$")
            i += 2
            continue
        if ch in " \t":
            flush(False)
        elif ch == ":" and (i + 1 == n or line[i + 1] in " \t"):
            flush(True)
        else:
            cur.append(ch)
        i += 1
    flush(False)
    return words


# --- the command-line side (-M, -MD, -MF, -MT, -MP) ------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """gcc's dependency options, spelled as gcc spells them."""
    g = parser.add_argument_group(
        "dependency files (as gcc)",
        "A make rule 'TARGETS: every file read' (inputs, includes, URDFs, meshes) for make, "
        "Ninja and CMake's DEPFILE.")
    g.add_argument("-M", dest="dep_only", action="store_true",
                   help="print the rule (to standard output, or -MF FILE) and write nothing "
                   "else; its default target is the -o file")
    g.add_argument("-MD", dest="dep_write", action="store_true",
                   help="also write the rule to OUTPUT.d (OUTPUT: the -o file)")
    g.add_argument("-MF", dest="dep_file", metavar="FILE",
                   help="write the rule to FILE ('-': standard output); implies -MD")
    g.add_argument("-MT", dest="dep_targets", action="append", default=[], metavar="TARGET",
                   help="target of the rule (repeatable; default: every file written)")
    g.add_argument("-MP", dest="dep_phony", action="store_true",
                   help="add an empty rule for each dependency other than the inputs, so a "
                   "deleted include does not break make")


def wanted(args: argparse.Namespace) -> bool:
    return bool(args.dep_only or args.dep_write or args.dep_file is not None)


def destination(args: argparse.Namespace, main_output: Path | None) -> Path | None:
    """Where the depfile goes (None: standard output); raises DepfileError on a bad request."""
    if args.dep_file is not None:
        return None if args.dep_file == "-" else Path(args.dep_file)
    if args.dep_only:
        return None
    if main_output is None:
        raise DepfileError("-MD needs -o FILE (or -MF FILE) to name the dependency file")
    return main_output.with_name(main_output.name + ".d")


def default_target(args: argparse.Namespace, outputs: Sequence[Path | None]) -> list[str]:
    """-M's target when -MT is not given: the requested outputs, else INPUT's stem + '.c'."""
    named = [str(p) for p in outputs if p is not None]
    if named:
        return named
    return [Path(args.files[0]).with_suffix(".c").name]


def text(args: argparse.Namespace, sources: Sequence[str], targets: Sequence[str],
         sink: DiagnosticSink) -> bytes:
    """The depfile for a run: -MT targets if given, else `targets`."""
    inputs = {str(Path(f)) for f in args.files} | set(args.files)
    try:
        rule = render(args.dep_targets or list(targets), sources, inputs, phony=args.dep_phony)
    except DepfileError as exc:
        raise sink.fatal(f"cannot write the dependency file: {exc}", SourcePos("robrayc")) \
            from None
    return rule.encode("utf-8", "surrogateescape")
