"""Source positions, diagnostics and their rendering (gcc style).

Every stage reports problems as :class:`Diagnostic` objects into a :class:`DiagnosticSink`;
stages stop at their boundary when errors were reported, so one run shows several errors.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class Diagnostic:
    severity: str  # "error" | "warning" | "note"
    message: str
    pos: SourcePos = NOWHERE
    hint: str | None = None
    notes: tuple[tuple[SourcePos, str], ...] = ()


class CompileError(Exception):
    """Raised to stop a compilation; the diagnostics are already in the sink."""

    def __init__(self, diagnostics: Iterable[Diagnostic] = ()) -> None:
        self.diagnostics = list(diagnostics)
        super().__init__("; ".join(d.message for d in self.diagnostics) or "compilation failed")


@dataclass
class DiagnosticSink:
    """Collects diagnostics; `werror` turns warnings into errors, `quiet` drops warnings.

    Limits (0: none; the command line sets them): after `max_errors` errors the compilation
    stops (as clang's -ferror-limit: a garbage input must not take minutes to report), and
    warnings past `max_warnings` are only counted (`suppressed_warnings`).
    """

    werror: bool = False
    quiet: bool = False
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
                notes: tuple[tuple[SourcePos, str], ...] = ()) -> None:
        severity = "error" if self.werror else "warning"
        if self.quiet and severity == "warning":
            return
        if severity == "warning":
            if self.max_warnings and self._warnings >= self.max_warnings:
                self.suppressed_warnings += 1
                return
            self._warnings += 1
        self.items.append(Diagnostic(severity, message, pos, hint, notes))
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


def render(diag: Diagnostic, sources: SourceCache | None = None) -> str:
    """`file:line:col: error: message`, the source line, a caret, then hint and notes."""
    out = [_escaped(f"{diag.pos}: {diag.severity}: {diag.message}")]
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
            out.append(" " + pad + "^" + "~" * (width - 1))
    if diag.hint:
        out.append(_escaped(f"hint: {diag.hint}"))
    for pos, note in diag.notes:
        out.append(_escaped(f"{pos}: note: {note}"))
    return "\n".join(out)
