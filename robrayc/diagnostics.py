"""Source positions, diagnostics and their rendering (gcc style).

Every stage reports problems as :class:`Diagnostic` objects into a :class:`DiagnosticSink`;
stages stop at their boundary when errors were reported, so one run shows several errors.
"""

from __future__ import annotations

from collections.abc import Iterable

from robrayc.records import field, record


@record(frozen=True, slots=True)
class SourcePos:
    """A 1-based position (and optional end) in a source file."""

    file: str
    line: int = 0
    col: int = 0
    end_line: int = 0
    end_col: int = 0

    def __str__(self) -> str:
        if self.line <= 0:
            return self.file
        return f"{self.file}:{self.line}:{self.col}"


NOWHERE = SourcePos("<command line>")


# Every warning has a name (given at its call site), shown as `[-Wname]` and controlled by
# `-Wno-NAME` / `-Werror=NAME`, as gcc and clang name theirs. One line each: what it flags.
WARNINGS: dict[str, str] = {
    "undeclared-class": "an `isa` names a class that is never declared",
    "shadow": "a `def` redefines a name, hiding the earlier value",
    "unused-attribute": "an attribute that has no effect where it is written",
    "parentheses": "an expression whose precedence differs from what it looks like",
    "unnormalized": "an axis or quaternion that is not of unit length (normalised)",
    "unknown-frame": "allow_collision names a frame the scene does not have (an SRDF: a link)",
    "missing-mesh": "a mesh file that cannot be found or read (dropped or replaced)",
    "mesh-path-fallback": "a mesh found somewhere other than where its path says",
    "board-syntax": "a cs2 board line cs2 itself would ignore or misread",
    "empty-shape": "a shape without extent or area (ignored)",
    "multiple-roots": "a URDF with more than one root link",
    "urdf-limits": "URDF joint limits that are unusual (negative velocity, effort, ...)",
    "urdf-mimic": "a URDF mimic joint robrayc cannot follow exactly",
    "unknown-material": "a URDF material that is not defined",
    "empty-geometry": "a URDF <visual> or <collision> without geometry",
    "urdf-inertial": "a URDF <inertial> that is incomplete",
    "xacro": "a warning of the xacro processor (deprecated syntax, ...)",
    "no-robot": "a simulator format that needs a robot, on a scene without one",
    "format-loss": "something the output format cannot express exactly (left out or changed)",
    "simmer-layout": "a SimMeR maze placement that SimMeR would not honour",
    "projection": "a 2D projection that ignores part of the scene (sensors, roles, axes)",
    "unbounded-joint": "a joint without position limits where sampling needs them",
    "unknown-warning-option": "a -W option naming no warning",
    "empty-scene": "a scene file without statements (an empty scene)",
    "xml-declaration": "an XML declaration libxml2 refuses (ignored, as urdfdom does)",
    "missing-points": "points of a point cloud without coordinates (NaN), left out",
    "point-cloud-faces": "a point-cloud file with faces (a mesh): only its vertices are read",
    "obstacle-cover": "a run-time obstacle (mesh, cone) given as its certified sphere cover",
    "exact-checker": "the compiled collision checker is unavailable (no working C compiler): "
                     "the exact one is used",
    "sdf-joint": "an SDF joint read as other joints (universal, revolute2: two revolute "
                 "joints)",
    "ball-joint": "a ball joint written as what the output format has (three revolute "
                  "joints, or fixed at its rest pose)",
    "floating-joint": "a floating joint written as what the output format has (fixed at its "
                      "rest pose, or the model's pose)",
    "mjcf-lost": "MJCF geoms robrayc has no shape for (planes, ellipsoids, height fields, "
                 "...): dropped, counted",
    "outside-parent": "a URDF joint whose parent link is not in the URDF, attached to the frame "
                      "of that name from another input",
    "srdf-unneeded": "an SRDF pair disabled as Always colliding that collides in no sample "
                     "(allowed-collisions --check-srdf)",
    "srdf-ignored": "part of an SRDF not applied as MoveIt would: a collision element not a "
                    "child of <robot> (MoveIt skips it too), run-time obstacles against a "
                    "<disable_default_collisions> link (checked), its pairs in --check-srdf "
                    "(not linted), an <enable_collisions> of pairs the scene allows",
    "renamed": "a name robrayc generates (a ball or floating joint's variables, an output's "
               "extra joints) that an input's name already has, given a suffix",
    "urdf-ignored": "URDF content urdfdom ignores (<material> in <geometry>, a continuous "
                    "joint's lower/upper)",
}


@record(frozen=True, slots=True)
class Diagnostic:
    """One error, warning or note, at a source position."""

    severity: str  # "error" | "warning" | "note"
    message: str
    pos: SourcePos = NOWHERE
    hint: str | None = None
    notes: tuple[tuple[SourcePos, str], ...] = ()
    name: str = ""  # a warning's name ("" for errors); shown as [-Wname] or [-Werror=name]


class CompileError(Exception):
    """Raised to stop a compilation; the diagnostics are already in the sink."""

    def __init__(self, diagnostics: Iterable[Diagnostic] = ()) -> None:
        self.diagnostics = list(diagnostics)
        super().__init__("; ".join(d.message for d in self.diagnostics) or "compilation failed")


@record
class DiagnosticSink:
    """Collects diagnostics; `werror` turns warnings into errors, `quiet` drops warnings.

    Limits (0: none; the command line sets them): after `max_errors` errors the compilation
    stops (as clang's -ferror-limit: a garbage input must not take minutes to report), and
    warnings past `max_warnings` are only counted (`suppressed_warnings`).
    """

    werror: bool = False
    quiet: bool = False
    disabled: frozenset[str] = frozenset()  # -Wno-NAME
    as_errors: frozenset[str] = frozenset()  # -Werror=NAME
    not_errors: frozenset[str] = frozenset()  # -Wno-error=NAME (under -Werror)
    color: bool = False  # how the command line renders (--color), not what is collected
    items: list[Diagnostic] = field(default_factory=list)
    max_errors: int = 0
    max_warnings: int = 0
    suppressed_warnings: int = 0
    stopped: bool = False  # max_errors was reached
    _errors: int = field(default=0, repr=False)
    _warnings: int = field(default=0, repr=False)

    def error(self, message: str, pos: SourcePos = NOWHERE, hint: str | None = None,
              notes: tuple[tuple[SourcePos, str], ...] = ()) -> None:
        self.items.append(Diagnostic("error", message, pos, hint, notes))
        self._count_error()

    def _count_error(self) -> None:
        self._errors += 1
        if self.max_errors and self._errors >= self.max_errors and not self.stopped:
            self.stopped = True
            raise CompileError(self.items)

    def warning(self, message: str, pos: SourcePos = NOWHERE, hint: str | None = None,
                notes: tuple[tuple[SourcePos, str], ...] = (), *, name: str = "") -> None:
        """A warning called `name` (a key of WARNINGS: tests check every call site)."""
        if name in self.disabled:
            return
        as_error = name in self.as_errors or (self.werror and name not in self.not_errors)
        severity = "error" if as_error else "warning"
        if self.quiet and severity == "warning":
            return
        if severity == "warning":
            if self.max_warnings and self._warnings >= self.max_warnings:
                self.suppressed_warnings += 1
                return
            self._warnings += 1
        self.items.append(Diagnostic(severity, message, pos, hint, notes, name))
        if severity == "error":
            self._count_error()

    @property
    def error_count(self) -> int:
        return sum(1 for d in self.items if d.severity == "error")

    def check(self) -> None:
        """Stop at a stage boundary when errors have been reported."""
        if self.error_count:
            raise CompileError(self.items)

    def fatal(self, message: str, pos: SourcePos = NOWHERE,
              hint: str | None = None) -> CompileError:
        """Record an error and return the exception that stops the compilation."""
        self.error(message, pos, hint)
        return CompileError(self.items)


def suggest(name: str, candidates: Iterable[str]) -> str | None:
    """A 'did you mean' hint for a misspelt name, or None."""
    import difflib  # only when a name is misspelt: not on every run's start-up

    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None


class SourceCache:
    """Source texts by file name, so the renderer can show the offending line."""

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}
        # file -> (the text split, its lines): split once, not once per diagnostic (100,000
        # warnings on an 800 kB file took 12 minutes).
        self._lines: dict[str, tuple[str, list[str]]] = {}

    def add(self, file: str, text: str) -> None:
        self.texts[file] = text

    def clear(self) -> None:
        self.texts.clear()
        self._lines.clear()

    def line(self, file: str, line: int) -> str | None:
        text = self.texts.get(file)
        if text is None:
            # Only files the run read are shown, never one a position merely names: a JSON
            # scene's "pos" could otherwise print lines of any file (e.g. /etc/shadow).
            return None
        cached = self._lines.get(file)
        if cached is None or cached[0] is not text:
            # Lines end at \n only, as the lexer counts them (a lone \r is not a line break).
            cached = (text, [ln[:-1] if ln.endswith("\r") else ln for ln in text.split("\n")])
            self._lines[file] = cached
        lines = cached[1]
        if 1 <= line <= len(lines):
            return lines[line - 1]
        return None


def _printable(line: str) -> str:
    # Tabs keep the caret aligned; other controls are shown escaped.
    return "".join(ch if ch == "\t" or ch.isprintable() else "?" for ch in line)


_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


_MAX_LINE = 4000  # a 1 MB name in 100 messages must not print 100 MB


def _escaped(text: str) -> str:
    """Names from hostile inputs reach messages: line ends, ANSI escapes and bidi controls
    are shown as escapes, so a name can neither fake a diagnostic line nor drive the
    terminal; a huge name is cut."""
    if len(text) > _MAX_LINE:  # keep both ends: the end says what went wrong
        cut = len(text) - _MAX_LINE
        text = f"{text[:_MAX_LINE // 2]}...({cut} characters)...{text[-_MAX_LINE // 2:]}"
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _ESCAPES.get(ch) or
                   (f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")
                   for ch in text)


# gcc's default GCC_COLORS: bold red errors, bold magenta warnings, bold cyan notes, bold
# green carets; locations and messages bold.
_SGR = {"error": "01;31", "warning": "01;35", "note": "01;36", "caret": "01;32",
        "locus": "01", "hint": "01;32"}


def _paint(text: str, what: str, color: bool) -> str:
    return f"\033[{_SGR[what]}m\033[K{text}\033[m\033[K" if color and text else text


def _option_tag(diag: Diagnostic) -> str:
    if not diag.name:
        return ""
    return f" [-Werror={diag.name}]" if diag.severity == "error" else f" [-W{diag.name}]"


def render(diag: Diagnostic, sources: SourceCache | None = None, color: bool = False) -> str:
    """`file:line:col: error: message [-Wname]`, the source line, a caret, then hint and
    notes; `color` adds gcc's colours (escapes come after escaping hostile text)."""
    head = (_paint(_escaped(f"{diag.pos}:"), "locus", color) + " "
            + _paint(f"{diag.severity}:", diag.severity, color) + " "
            + _escaped(diag.message) + _paint(_option_tag(diag), diag.severity, color))
    out = [head]
    if sources is not None and diag.pos.line > 0:
        text = sources.line(diag.pos.file, diag.pos.line)
        if text is not None and len(text) <= 500:
            shown = _printable(text)
            out.append(" " + shown)
            col = max(diag.pos.col, 1)
            pad = "".join("\t" if ch == "\t" else " " for ch in shown[: col - 1])
            width = 1
            if diag.pos.end_line == diag.pos.line and diag.pos.end_col > col:
                width = diag.pos.end_col - col
            out.append(" " + pad + _paint("^" + "~" * (width - 1), "caret", color))
    if diag.hint:
        out.append(_paint("hint:", "hint", color) + " " + _escaped(diag.hint))
    for pos, note in diag.notes:
        out.append(_paint(_escaped(f"{pos}:"), "locus", color) + " "
                   + _paint("note:", "note", color) + " " + _escaped(note))
    return "\n".join(out)
