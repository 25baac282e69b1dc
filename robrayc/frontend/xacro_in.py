"""xacro input (`.xacro`, `.urdf.xacro`): expanded by the real xacro (PyPI `xacro`), then read
as URDF.

- `--xacro-arg NAME:=VALUE` sets `$(arg NAME)` (as `xacro FILE NAME:=VALUE`).
- `$(find PKG)` resolves through robrayc's package search (--package-path, then
  ROS_PACKAGE_PATH), the same as `package://PKG`, instead of xacro's ament index.
- ROS 1 xacro's unprefixed tags (`<property>`, `<macro>`, `<arg>`, `<if>`, `<unless>`,
  `<insert_block>`, a childless `<include>`), which today's xacro rejects but which files such
  as UR's 2015 descriptions use, are read as their `xacro:` forms with a warning, as ROS 1
  xacro did (its deprecation path). Unprefixed macro calls are not.
- xacro errors become located errors: an XML syntax error at its file, line and column; any
  other xacro error at the file xacro was reading (xacro's DOM keeps no line numbers), at the
  line of the expression, substitution, name or file it names when that text occurs once
  there, the macro chain as notes, with a hint for the common ones; the message is xacro's
  without its wrapping (no Python class names, no repeats). xacro's warnings become warnings.
- Every file xacro reads (includes, YAML) is a dependency (depfiles).
- The URDF diagnostics after expansion point into the expanded document, shown under the name
  `FILE (expanded by xacro)`.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from robrayc.diagnostics import SourcePos
from robrayc.frontend.common import LoadContext, Partial

EXPANDED = " (expanded by xacro)"


def load(path: Path, ctx: LoadContext) -> Partial:
    from robrayc.frontend import urdf

    real = urdf.resolve_input(path, ctx)
    if real is None:
        return Partial()
    data = ctx.read_source(real)
    if data is None:
        return Partial()
    ctx.sources.add(str(real), data.decode("utf-8", "replace"))
    text = expand(real, ctx)
    if text is None:
        return Partial()
    file = str(real) + EXPANDED
    return urdf.load_document(file, text.encode("utf-8"), ctx, base=real.parent)


def expand(path: Path, ctx: LoadContext) -> str | None:
    """The URDF text xacro makes of `path`; None (errors reported) when it fails."""
    try:
        import xacro
        from xacro import substitution_args
    except ImportError:
        ctx.sink.error("reading xacro needs the xacro package, which is not installed",
                       SourcePos(str(path)), "pip install 'robrayc[formats]' (or: pip install "
                       "xacro), or expand it first: xacro FILE > FILE.urdf")
        return None

    def find(pkg: str) -> str:
        folder = ctx.find_package(pkg)
        if folder is None:
            raise xacro.XacroException(f"package '{pkg}' not found (in --package-path or "
                                       "ROS_PACKAGE_PATH)")
        return str(folder)

    legacy: list[tuple[str, str]] = []
    saved = substitution_args._eval_find, xacro.parse

    def parse(inp, filename=None):
        doc = saved[1](inp, filename)
        _prefix_legacy_tags(doc, filename or str(path), legacy)
        return doc

    # xacro has no hooks for package look-up or for ROS 1 files: replace its functions
    substitution_args._eval_find, xacro.parse = find, parse
    xacro.all_includes = []
    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(stderr):
            doc = xacro.process_file(str(path), mappings=dict(ctx.options.xacro_args),
                                     verbosity=1)
        return doc.toprettyxml(indent="  ")  # as the xacro command writes it
    except Exception as exc:  # xacro raises anything (NameError, KeyError, ...) at its users
        _report(exc, path, ctx)
        return None
    finally:
        substitution_args._eval_find, xacro.parse = saved
        for file, tag in legacy:
            ctx.sink.warning(f"unprefixed xacro tag <{tag}> (ROS 1 xacro's deprecated form); "
                             f"read as <xacro:{tag}>", SourcePos(file),
                             f"write <xacro:{tag}>: today's xacro rejects the unprefixed form",
                             name="xacro")
        for name in xacro.all_includes:
            ctx.note_dependency(str(name))
        _warnings(stderr.getvalue(), path, ctx)


LEGACY_TAGS = ("property", "macro", "arg", "if", "unless", "insert_block")


def _prefix_legacy_tags(doc, file: str, legacy: list[tuple[str, str]]) -> None:
    """Rename ROS 1 xacro's unprefixed tags to their xacro: forms (one warning per file/tag)."""
    if not hasattr(doc, "getElementsByTagName"):
        return
    for tag in LEGACY_TAGS + ("include",):
        for el in list(doc.getElementsByTagName(tag)):
            if tag == "include" and any(c.nodeType == c.ELEMENT_NODE for c in el.childNodes):
                continue  # Gazebo's <include><uri>..., not xacro (as ROS 1 xacro decided)
            doc.renameNode(el, el.namespaceURI, "xacro:" + tag)
            if (file, tag) not in legacy:
                legacy.append((file, tag))


def _where(path: Path) -> tuple[str, list[tuple[SourcePos, str]]]:
    """The file xacro was reading when it stopped, and notes for the macro and include chain."""
    import xacro

    stack = [f for f in (xacro.filestack or []) if f]
    notes: list[tuple[SourcePos, str]] = []
    for macro in reversed(xacro.macrostack or []):
        name = macro.body.getAttribute("name")
        where = macro.history[-1][-1] if macro.history and macro.history[-1] else str(path)
        notes.append((SourcePos(str(where or path)), f"in xacro macro '{name}'"))
    for outer in reversed(stack[:-1]):
        notes.append((SourcePos(str(outer)), "included from here"))
    return (str(stack[-1]) if stack else str(path)), notes


def _report(exc: Exception, path: Path, ctx: LoadContext) -> None:
    import xml.parsers.expat

    file, notes = _where(path)
    if isinstance(exc, xml.parsers.expat.ExpatError):
        _add_source(file, ctx)
        msg = xml.parsers.expat.ErrorString(exc.code) if exc.code else str(exc)
        ctx.sink.error(f"XML syntax error: {msg}", SourcePos(file, exc.lineno, exc.offset + 1),
                       notes=tuple(notes))
        return
    message, expressions = _message(exc)
    import xacro

    calls = [m.body.getAttribute("name") for m in reversed(xacro.macrostack or [])][:1]
    line, col = _locate(file, message, expressions, calls)
    if line:
        _add_source(file, ctx)
    hints = [_HINTS[k] for k in _HINTS if k.search(message)][:1]
    hints += [f"while evaluating ${{{e}}}" for e in expressions[1:]]
    if not line:
        hints.append("xacro reports the file but not the line")
    ctx.sink.error(f"xacro: {message}", SourcePos(file, line, col), "; ".join(hints) or None,
                   notes=tuple(notes))


def _message(exc: BaseException) -> tuple[str, list[str]]:
    """xacro's error as one sentence, without the Python class names and the repeats of
    xacro's wrapping (XacroException(msg, exc=inner, suffix=context)); and the expressions
    being evaluated, innermost first."""
    import re

    import xacro

    said: list[str] = []
    expressions: list[str] = []
    e: BaseException | None = exc
    while e is not None:
        if isinstance(e, xacro.XacroException):
            for m in re.finditer(r"when evaluating expression '(.*)'", str(e.suffix or "")):
                expressions.insert(0, m[1])
            text = str(e.args[0] or "") if e.args else ""
            text = re.sub(r"^<class '[^']*'>: .*", "", text, flags=re.S)  # repeats e.exc
            inner = e.exc
        else:
            text, inner = _plain(e), None
            if isinstance(e, OSError) and said:
                text = ""  # xacro already said "No such file or directory: PATH"
        text = text.strip().rstrip(":").strip()
        if text and not any(text in t for t in said):
            said.append(text)
        e = inner
    message = " ".join(said) or "xacro failed (it gave no message)"
    if message[:2].istitle():  # "No such file": robrayc's messages start in lower case
        message = message[0].lower() + message[1:]
    return message, expressions


def _plain(e: BaseException) -> str:
    """A Python error's text, readable without its class name."""
    if isinstance(e, KeyError):
        return f"no key {e.args[0]!r}" if e.args else "no such key"
    if isinstance(e, OSError) and e.strerror:
        return f"{e.strerror}: {e.filename}" if e.filename else e.strerror
    if isinstance(e, SyntaxError):
        return f"invalid expression: {e.msg}"
    return str(e) or type(e).__name__.removesuffix("Error").lower() + " error"


def _pattern(text: str):
    import re

    return re.compile(text, re.I)


# What to do about the errors users meet most (first match wins).
_HINTS = {
    _pattern(r"package '[^']*' not found"):
        "give the package's folder with --package-path NAME=DIR, or add a folder holding it "
        "to ROS_PACKAGE_PATH",
    _pattern(r"no such file or directory"):
        "check the file name (a relative name is relative to the including file's folder)",
    _pattern(r"undefined substitution argument"):
        "set it with --xacro-arg NAME:=VALUE, or declare <xacro:arg name=... default=...>",
    _pattern(r"environment variable '[^']*' is not set"):
        "set it, or use $(optenv NAME DEFAULT) for a default",
    _pattern(r"undefined parameters"):
        "pass them in the macro call, or give them defaults in params (NAME:=VALUE)",
    _pattern(r"name '[^']*' is not defined|undefined property"):
        "define it with <xacro:property name=... value=...> before its use",
    _pattern(r"unknown macro name"):
        "define the macro (<xacro:macro name=...>) or include the file that does",
}


def _locate(file: str, message: str, expressions: list[str], calls: list[str]
            ) -> tuple[int, int]:
    """(line, column) in `file` of what xacro complains about, when the text names it once
    (xacro's DOM keeps no line numbers): the expression, substitution, name or file, else the
    call of the macro being expanded."""
    import re

    try:
        lines = Path(file).read_text("utf-8", "replace").splitlines()
    except OSError:
        return 0, 0
    wanted = [re.compile(re.escape("${" + e + "}")) for e in expressions]
    for pattern, form in _NAMED:
        m = pattern.search(message)
        if m:
            wanted.append(re.compile(form.format(re.escape(m[1]))))
    wanted += [re.compile(rf"<xacro:{re.escape(name)}(?![\w.:-])") for name in calls]
    for want in wanted:
        hits = [(i, w.start() + 1) for i, t in enumerate(lines, 1) for w in want.finditer(t)]
        if len(hits) == 1:
            return hits[0]
    return 0, 0


# Message -> the text naming the culprit in the source (a regular expression of the name).
_NAMED = (
    (_pattern(r"package '([^']+)' not found"), r"\$\(find\s+{}\)"),
    (_pattern(r"environment variable '([^']+)' is not set"), r"\$\((?:opt)?env\s+{}\b"),
    (_pattern(r"no such file or directory: (?:\S*/)?([^/\s]+)"), r"(?<![\w.-]){}(?![\w.-])"),
    (_pattern(r"undefined block \"([^\"]+)\""), r"name=[\"']{}[\"']"),
    (_pattern(r"name '(\w+)' is not defined"), r"(?<![\w.-]){}(?![\w.:-])"),
    (_pattern(r"unknown macro name:? (?:xacro:)?([\w.:-]+)"), r"(?<![\w.-]){}(?![\w.:-])"),
    (_pattern(r"undefined (?:substitution argument|property|macro)?\s*'?([\w.:-]+)"),
     r"(?<![\w.-]){}(?![\w.:-])"),
)


def _add_source(file: str, ctx: LoadContext) -> None:
    try:
        ctx.sources.add(file, Path(file).read_text("utf-8", "replace"))
    except OSError:
        pass


def _warnings(text: str, path: Path, ctx: LoadContext) -> None:
    lines = [t for t in text.splitlines() if t.strip()]
    for i, line in enumerate(lines):
        if line.startswith(("when ", "in file:", "included from:", "instantiated from:")):
            continue
        where = next((t.split(":", 1)[1].strip() for t in lines[i + 1:]
                      if t.startswith(("when processing file:", "in file:"))), str(path))
        message = line.strip().removeprefix("warning: ")
        ctx.sink.warning(f"xacro: {message}", SourcePos(where), name="xacro")
