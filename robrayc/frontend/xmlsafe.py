"""Parsing untrusted XML (URDF, SRDF, MJCF, COLLADA) with lxml, hardened: no entity expansion,
no DTD loading, no network, no XInclude; a document declaring entities or naming an external
DTD is refused with an error naming the file. An XML declaration libxml2 refuses is ignored
with a warning, as urdfdom (TinyXML) reads it."""

from __future__ import annotations

import re

from robrayc.diagnostics import DiagnosticSink, SourcePos

_ROOT_START = re.compile(rb"<[A-Za-z_]")
_COMMENT = re.compile(rb"<!--.*?-->", re.S)


def parse_xml(data: bytes, file: str, sink: DiagnosticSink, what: str = "URDF"):
    """Parse untrusted XML: no entities, no DTD, no network, no XInclude. None on error."""
    from lxml import etree

    # The prolog: what precedes the root element, comments removed (a comment holding "<a"
    # must not end it early, one holding "<!ENTITY" must not be taken for a declaration).
    bare = _COMMENT.sub(b"", data)
    m = _ROOT_START.search(bare)
    prolog = bare[: m.start()] if m else bare
    del bare  # a copy of the whole file: not kept while the tree is built
    if b"<!DOCTYPE" in prolog or b"<!doctype" in prolog:
        if b"<!ENTITY" in prolog:
            sink.error(f"{what} declares XML entities; refused (entity expansion is disabled "
                       "for safety)", SourcePos(file, _line_of(data, b"<!ENTITY"), 1))
            return None
        if re.search(rb"<!DOCTYPE\s+\S+\s+(SYSTEM|PUBLIC)\b", prolog, re.I):
            sink.error(f"{what} names an external DTD; refused (no DTD or network access)",
                       SourcePos(file, _line_of(data, b"<!DOCTYPE"), 1))
            return None
    # Blank text between elements is dropped (these formats hold everything in attributes).
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                             dtd_validation=False, huge_tree=False, remove_comments=True,
                             remove_pis=True, remove_blank_text=True)
    try:
        root = _lenient_parse(data, parser, file, sink, what)
    except etree.XMLSyntaxError as exc:
        line, col = exc.position if exc.position else (exc.lineno or 0, 0)
        sink.error(f"XML syntax error: {_xml_message(exc)}", SourcePos(file, line or 1, col or 1))
        return None
    except ValueError as exc:
        sink.error(f"cannot parse {what}: {exc}", SourcePos(file, 1, 1))
        return None
    info = root.getroottree().docinfo
    dtd = info.internalDTD
    if dtd is not None and any(True for _ in dtd.iterentities()):  # e.g. a UTF-16 file
        sink.error(f"{what} declares XML entities; refused",
                   SourcePos(file, max(_line_of(data, b"<!ENTITY"), 1), 1))
        return None
    if info.system_url or info.public_id:
        sink.error(f"{what} names an external DTD; refused",
                   SourcePos(file, max(_line_of(data, b"<!DOCTYPE"), 1), 1))
        return None
    if not _may_hold_entities(data, info.encoding):
        return root
    for el in root.iter(etree.Entity):  # an unexpanded entity reference (lxml filters in C)
        sink.error(f"{what} uses an XML entity reference; refused",
                   SourcePos(file, el.sourceline or 0, 1))
        return None
    return root


def _may_hold_entities(data: bytes, encoding: str | None) -> bool:
    """Whether the text may hold an entity reference: an '&', which every encoding but the
    EBCDIC family writes with byte 0x26 (the walk over a 100,000-link tree takes 0.1 s)."""
    import codecs

    try:
        amp = codecs.encode("&", encoding or "utf-8")
    except (LookupError, ValueError):
        return True
    return b"&" not in amp or b"&" in data


_DECLARATION = re.compile(rb"<\?xml(?=[\s?]).*?\?>", re.S)


def _xml_message(exc) -> str:
    return re.sub(r",? line \d+, column \d+.*$", "", str(exc.msg or exc))


def _lenient_parse(data: bytes, parser, file: str, sink: DiagnosticSink, what: str):
    """Parse; when libxml2 refuses only the XML declaration (a version other than 1.x, an
    unknown encoding, a declaration after a comment or blank line: urdfdom's TinyXML reads
    them all), parse again with the declaration blanked out (same lines and columns) and
    warn. The text is then read as UTF-8, as urdfdom does."""
    from lxml import etree

    try:
        return etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        m = _DECLARATION.search(data, 0, _prolog_end(data))
        if m is None:
            raise
        blank = bytes(c if c in b"\r\n" else 32 for c in m.group())
        root = etree.fromstring(data[:m.start()] + blank + data[m.end():], parser)
        line = data.count(b"\n", 0, m.start()) + 1
        sink.warning(f"{what}: XML declaration ignored ({_xml_message(exc)}), as urdfdom does",
                     SourcePos(file, line, m.start() - data.rfind(b"\n", 0, m.start())),
                     name="xml-declaration")
        return root


def _prolog_end(data: bytes) -> int:
    m = _ROOT_START.search(_COMMENT.sub(lambda c: b" " * len(c.group()), data))
    return m.start() if m else len(data)


def _line_of(data: bytes, needle: bytes) -> int:
    i = data.find(needle)
    return data.count(b"\n", 0, i) + 1 if i >= 0 else 0


