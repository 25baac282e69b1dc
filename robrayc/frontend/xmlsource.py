"""Reading attributes of a parsed XML description (URDF, MJCF) with source positions: every
problem is an error at the element or attribute that holds it."""

from __future__ import annotations

import math
import re

from robrayc.diagnostics import DiagnosticSink, SourcePos


def local(tag) -> str:
    """An element's name without its namespace."""
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _attribute_pattern(attr: str) -> re.Pattern:
    pattern = _PATTERNS[attr] = re.compile(r"\b" + re.escape(attr) + r"\s*=\s*[\"']")
    return pattern


_PATTERNS: dict[str, re.Pattern] = {}  # attribute name -> its pattern, made once


def _search(pattern: re.Pattern, attr: str, text: str, start: int) -> re.Match | None:
    """pattern.search(text, start) for an attribute's pattern, tried only where the name
    occurs (a search starting with \\b tries every position; \\b still sees text[i - 1])."""
    i = text.find(attr, start)
    while i >= 0:
        m = pattern.match(text, i)
        if m:
            return m
        i = text.find(attr, i + 1)
    return None


# libxml2 keeps an element's line in 16 bits (some versions, some elements): 65535 means
# "this line or a later one".
SATURATED = 65535

# Markup in document order: what is no element (comments, CDATA, processing instructions,
# declarations, end tags), or an element's start tag (group 1: its name).
_MARKUP = re.compile(r"<!--.*?-->|<!\[CDATA\[.*?\]\]>|<\?.*?\?>|<![^>]*>|</|<([A-Za-z_][\w.:-]*)",
                     re.S)


class _LaterLinePos(SourcePos):
    """The position of an element libxml2 gave line 65535: found in the text when it is first
    read (for a message), not when it is made."""

    __slots__ = ("_find", "_found")

    def __init__(self, file: str, find) -> None:
        SourcePos.__init__(self, file, SATURATED)
        object.__setattr__(self, "_find", find)
        object.__setattr__(self, "_found", None)

    def _real(self) -> SourcePos:
        if self._found is None:
            object.__setattr__(self, "_found", self._find())
        return self._found

    line = property(lambda self: self._real().line)
    col = property(lambda self: self._real().col)
    end_line = property(lambda self: self._real().end_line)
    end_col = property(lambda self: self._real().end_col)


def start_tag_lines(root, lines: list[str]) -> dict:
    """Element -> the line of its start tag, for the elements libxml2 gave line 65535 or more:
    the elements in document order matched to the start tags of the text in order."""
    text = "\n".join(lines)
    elements = [el for el in root.iter() if isinstance(el.tag, str)]
    out = {}
    line, at = 1, 0
    tags = (m for m in _MARKUP.finditer(text) if m.group(1))
    for el, m in zip(elements, tags, strict=False):
        line += text.count("\n", at, m.start())
        at = m.start()
        if (el.sourceline or 0) >= SATURATED:
            out[el] = line
    return out


class XmlSource:
    """Positions and numbers of one XML file; subclasses set ctx, sink, file and lines."""

    sink: DiagnosticSink
    file: str
    lines: list[str]

    def pos(self, el, attr: str | None = None) -> SourcePos:
        line = getattr(el, "sourceline", None) or 0
        if line >= SATURATED:
            file, lines = self.file, self.lines
            return _LaterLinePos(file, lambda: self._pos_on_line(
                el, attr, self._true_line(el, lines), file, lines))
        return self._pos_on_line(el, attr, line, self.file, self.lines)

    _late_lines: dict | None = None  # root element -> start_tag_lines, made on first use

    def _true_line(self, el, lines: list[str]) -> int:
        root = el.getroottree().getroot()
        if self._late_lines is None:
            self._late_lines = {}
        found = self._late_lines.get(root)
        if found is None:
            found = self._late_lines[root] = start_tag_lines(root, lines)
        return found.get(el, SATURATED)

    def _pos_on_line(self, el, attr: str | None, line: int, file: str, lines: list[str]
                     ) -> SourcePos:
        if line <= 0 or line > len(lines):
            return SourcePos(file, max(line, 0))
        tag = el.tag
        if type(tag) is not str or "}" in tag:
            tag = local(tag)
        text = lines[line - 1]
        col = text.find("<" + tag)
        if col < 0:
            return SourcePos(file, line, 1)
        if attr is not None:  # the attribute may sit on a later line of a long start tag
            pattern = _PATTERNS.get(attr) or _attribute_pattern(attr)
            m = _search(pattern, attr, text, col)  # the common case: on the tag's own line
            if m:
                start = m.start() + 1
                return SourcePos(file, line, start, line, start + len(attr))
            for k in range(line, min(line + 8, len(lines)) if text.find(">", col) < 0 else 0):
                m = _search(pattern, attr, lines[k], 0)
                if m:
                    return SourcePos(file, k + 1, m.start() + 1, k + 1,
                                     m.start() + 1 + len(attr))
                if lines[k].find(">") >= 0:
                    break
        return SourcePos(file, line, col + 1, line, col + 2 + len(tag))

    def numbers(self, el, attr: str, what: str | None = None,
                text: str | None = None) -> tuple[float, ...] | None:
        """The numbers of an attribute (any count), or None after an error."""
        text = el.get(attr) if text is None else text
        parsed = self._parsed()
        values = parsed.get(text)
        if values is not None:
            return values
        try:
            values = tuple(map(float, text.split()))
        except ValueError:
            self.sink.error(f"{what or attr}: '{text}' is not a list of numbers",
                            self.pos(el, attr))
            return None
        if not all(map(math.isfinite, values)):
            self.sink.error(f"{what or attr}: '{text}' is not finite", self.pos(el, attr))
            return None
        values = tuple(v + 0.0 for v in values) if 0.0 in values else values  # no -0.0
        parsed[text] = values
        return values

    # Attribute text -> its numbers: robots repeat the same few texts ("0 0 0", "1") on
    # thousands of elements, each parsed once. A class attribute replaced per instance on
    # first use (numbers() stores into the instance's own dict).
    _parsed_numbers: dict[str, tuple[float, ...]] | None = None

    def _parsed(self) -> dict[str, tuple[float, ...]]:
        parsed = self._parsed_numbers
        if parsed is None:
            parsed = self._parsed_numbers = {}
        return parsed

    def floats(self, el, attr: str, n: int, default: tuple[float, ...] | None = None,
               what: str | None = None) -> tuple[float, ...] | None:
        text = el.get(attr) if el is not None else None
        if text is None:
            return default
        values = (self._parsed_numbers or self._parsed()).get(text)
        if values is not None and len(values) == n:  # the common case: seen before, right count
            return values
        if not text.strip() and default is not None:
            return default
        values = self.numbers(el, attr, what, text)
        if values is None:
            return None
        if len(values) != n:
            self.sink.error(f"{what or attr} needs {n} numbers, got {len(values)}",
                            self.pos(el, attr))
            return None
        return values

    def number(self, el, attr: str, default: float | None = None,
               required: bool = False) -> float | None:
        values = self.floats(el, attr, 1, None)
        if values is None:
            if el is not None and el.get(attr) is None and required:
                self.sink.error(f"<{local(el.tag)}> needs a '{attr}' attribute", self.pos(el))
            return default
        return values[0]
