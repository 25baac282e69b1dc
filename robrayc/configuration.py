"""Configuration values given outside the scene: --config files and the one rule for names
the scene does not have. Shared by the command line and the picture analyses (which must not
import the CLI)."""

from __future__ import annotations

import math
import re
from pathlib import Path

from robrayc.diagnostics import NOWHERE, DiagnosticSink, SourcePos, suggest

# compiled when a --config file is read: a compile without one must not pay for it
_NAME_VALUE = r"\s*([^=\s][^=]*?)\s*=\s*(\S+)\s*$"


def read_config_file(path: str, sink: DiagnosticSink) -> dict[str, tuple[float, SourcePos]]:
    """NAME=VALUE lines (blank lines and '#' comments ignored) -> name: (value, position)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        sink.error(f"cannot read configuration file: {getattr(exc, 'strerror', None) or exc}",
                   SourcePos(path))
        return {}
    name_value = re.compile(_NAME_VALUE)
    out: dict[str, tuple[float, SourcePos]] = {}
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0]
        if not line.strip():
            continue
        m = name_value.match(line)
        col = len(line) - len(line.lstrip()) + 1
        if m is None:
            sink.error("expected NAME=VALUE", SourcePos(path, n, col, n, len(line.rstrip()) + 1))
            continue
        try:
            value = float(m.group(2))
            what = "a finite number"  # a NaN pose collides with nothing
        except ValueError:
            value, what = math.nan, "a number"
        if not math.isfinite(value):
            c = m.start(2) + 1
            sink.error(f"'{m.group(2)}' is not {what}", SourcePos(path, n, c, n, m.end(2) + 1))
            continue
        out[m.group(1)] = (value, SourcePos(path, n, col, n, m.end(1) + 1))
    return out


def check_variables(given: dict[str, SourcePos], variables: tuple[str, ...],
                    sink: DiagnosticSink) -> None:
    """One rule for every command and format: a configuration value for a variable the scene
    does not have is an error with did-you-mean (a typo must not silently pose at zero)."""
    for name, pos in given.items():
        if name not in variables:
            where = " (--var)" if pos is NOWHERE else ""
            sink.error(f"unknown configuration variable '{name}'{where}", pos,
                       suggest(name, variables))
