"""The language server (`robrayc lsp`) driven over stdio by a small JSON-RPC test client.

The client is written here from the protocol (Content-Length framing, requests, notifications),
independently of pygls, so the test checks the wire protocol a real editor sees.
"""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.editors.conftest import FIXTURES
from tests.run import robrayc

LSP_FIXTURES = FIXTURES / "lsp"


class Client:
    """A minimal LSP client over a subprocess's stdin/stdout."""

    def __init__(self, cmd: list[str], cwd: Path) -> None:
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=cwd)
        self.messages: queue.Queue = queue.Queue()
        self.next_id = 0
        self.diagnostics: dict[str, list] = {}
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    self.messages.put(None)
                    return
                line = line.decode("ascii").strip()
                if not line:
                    break
                key, _, value = line.partition(":")
                headers[key.strip().lower()] = value.strip()
            body = out.read(int(headers["content-length"]))
            self.messages.put(json.loads(body))

    def send(self, payload: dict) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        self.proc.stdin.flush()

    def notify(self, method: str, params: dict | None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: dict | None, timeout: float = 30) -> object:
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            msg = self._next(timeout)
            if msg.get("id") == rid and "method" not in msg:
                assert "error" not in msg, msg["error"]
                return msg.get("result")
            self._handle(msg)

    def _next(self, timeout: float) -> dict:
        try:
            msg = self.messages.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError("no message from the server in time") from None
        if msg is None:
            err = self.proc.stderr.read().decode(errors="replace")
            raise AssertionError(f"server exited: {err}")
        return msg

    def _handle(self, msg: dict) -> None:
        if msg.get("method") == "textDocument/publishDiagnostics":
            self.diagnostics[msg["params"]["uri"]] = msg["params"]["diagnostics"]
        elif "id" in msg and "method" in msg:  # a request from the server: answer it
            self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})

    def wait_diagnostics(self, uri: str, timeout: float = 30) -> list:
        """The next diagnostics published for `uri`."""
        self.diagnostics.pop(uri, None)
        while uri not in self.diagnostics:
            self._handle(self._next(timeout))
        return self.diagnostics[uri]

    def settled(self, uri: str, timeout: float = 30) -> list:
        """The diagnostics for `uri`, waiting for a first publication if none came yet."""
        while uri not in self.diagnostics:
            self._handle(self._next(timeout))
        return self.diagnostics[uri]

    def open(self, path: Path, text: str | None = None) -> str:
        uri = path.resolve().as_uri()
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "robray", "version": 1,
            "text": path.read_text(encoding="utf-8") if text is None else text}})
        return uri

    def close(self) -> int:
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            return self.proc.wait(timeout=30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A copy of the LSP fixtures (the tests edit files)."""
    dest = tmp_path / "ws"
    shutil.copytree(LSP_FIXTURES, dest)
    return dest


@pytest.fixture
def client(workspace: Path):
    c = Client([sys.executable, "-m", "robrayc", "lsp"], workspace)
    result = c.request("initialize", {
        "processId": None, "rootUri": workspace.as_uri(), "capabilities": {
            "textDocument": {"hover": {"contentFormat": ["markdown", "plaintext"]}}}})
    caps = result["capabilities"]
    assert caps["definitionProvider"] and caps["hoverProvider"]
    assert caps["documentSymbolProvider"] and "completionProvider" in caps
    c.notify("initialized", {})
    yield c
    assert c.close() == 0


def position_of(text: str, needle: str, offset: int = 0, occurrence: int = 0) -> dict:
    """LSP position (UTF-16) of `needle` (+offset characters) in `text`."""
    at = -1
    for _ in range(occurrence + 1):
        at = text.index(needle, at + 1)
    at += offset
    line = text.count("\n", 0, at)
    col = at - (text.rfind("\n", 0, at) + 1)
    prefix = text[text.rfind("\n", 0, at) + 1: at]
    return {"line": line, "character": len(prefix.encode("utf-16-le")) // 2 if col else 0}


def doc(uri: str, text: str, needle: str, offset: int = 1, occurrence: int = 0) -> dict:
    return {"textDocument": {"uri": uri}, "position": position_of(text, needle, offset,
                                                                   occurrence)}


# --- diagnostics -------------------------------------------------------------------------------


def test_diagnostics_for_broken_file_with_ranges(client, workspace):
    path = workspace / "main.robray"
    clean = client.open(path)
    assert client.wait_diagnostics(clean) == []

    broken = path.read_text().replace("translation [0, 0, lift]", "tranlsation [0, 0, lift]")
    client.notify("textDocument/didChange", {
        "textDocument": {"uri": clean, "version": 2},
        "contentChanges": [{"text": broken}]})
    diags = client.wait_diagnostics(clean)
    assert len(diags) == 1, diags
    d = diags[0]
    assert d["severity"] == 1 and d["source"] == "robrayc"
    assert "unknown attribute 'tranlsation'" in d["message"]
    assert "did you mean 'translation'" in d["message"]
    start = position_of(broken, "tranlsation")
    assert d["range"] == {"start": start,
                          "end": {"line": start["line"], "character": start["character"] + 11}}


def test_warning_and_incremental_change(client, workspace):
    path = workspace / "main.robray"
    uri = client.open(path)
    client.wait_diagnostics(uri)
    text = path.read_text()
    # An incremental edit: rename the allowed pair's second frame to an unknown one.
    start = position_of(text, "arm-base;", 0)
    client.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": 2},
        "contentChanges": [{"range": {"start": start, "end": {
            "line": start["line"], "character": start["character"] + 8}}, "text": "arm-bse"}]})
    diags = client.wait_diagnostics(uri)
    assert [d["severity"] for d in diags] == [2], diags  # a warning
    assert "unknown frame 'arm-bse'" in diags[0]["message"]
    assert diags[0]["code"] == "-Wunknown-frame"  # the warning's name, as clangd gives it


def test_syntax_error_in_included_file_is_reported_there_and_at_include(client, workspace):
    common = workspace / "parts" / "common.robray"
    common.write_text(common.read_text().replace("def leg 0.05;", "def leg 0.05"))
    uri = client.open(workspace / "main.robray")
    diags = client.wait_diagnostics(uri)
    assert any("in included file" in d["message"] and d["range"]["start"]["line"] == 0
               for d in diags), diags
    assert client.settled(common.resolve().as_uri())[0]["severity"] == 1


def test_unsaved_included_file_is_checked_with_its_includer(client, workspace):
    main = client.open(workspace / "main.robray")
    assert client.wait_diagnostics(main) == []
    common_path = workspace / "parts" / "common.robray"
    client.diagnostics.pop(main)
    # The editor opens the included file and deletes `def leg` without saving.
    text = common_path.read_text().replace("def leg 0.05;\n", "")
    common = client.open(common_path, text)
    diags = client.wait_diagnostics(common)
    assert any("unknown name 'leg'" in d["message"] for d in diags), diags
    # ...and main.robray, which uses `leg`, is re-checked against the unsaved text.
    assert any("unknown name 'leg'" in d["message"] for d in client.settled(main))


# --- definition --------------------------------------------------------------------------------


def test_definition_across_include(client, workspace):
    path = workspace / "main.robray"
    text = path.read_text()
    uri = client.open(path)
    client.wait_diagnostics(uri)
    common = (workspace / "parts" / "common.robray").resolve()
    common_text = common.read_text()

    def target(needle, offset=1, occurrence=0):
        result = client.request("textDocument/definition", doc(uri, text, needle, offset,
                                                               occurrence))
        assert result, f"no definition for {needle!r}"
        return result[0]

    # `parent table` -> frame table in the included file
    loc = target("parent table", len("parent t"))
    assert loc["uri"] == common.as_uri()
    assert loc["range"]["start"] == position_of(common_text, "table {")
    # a def used in an expression, defined in the included file
    loc = target("table-height / 3")
    assert loc["uri"] == common.as_uri()
    assert loc["range"]["start"] == position_of(common_text, "table-height 0.75")
    # `isa metal` -> class metal
    loc = target("isa metal", len("isa m"))
    assert loc["range"]["start"] == position_of(common_text, "metal {")
    # a def defined in this file
    loc = target("lift]")
    assert loc["uri"] == uri
    assert loc["range"]["start"] == position_of(text, "lift table-height")
    # allow_collision names
    loc = target("allow_collision table", len("allow_collision ta"))
    assert loc["uri"] == common.as_uri()
    loc = target("arm-base;", 4)  # on the hyphen's right: still the whole name
    assert loc["range"]["start"] == position_of(text, "arm-base {")
    # the include path itself
    loc = target('"parts/common.robray"', 3)
    assert loc["uri"] == common.as_uri()
    assert loc["range"]["start"] == {"line": 0, "character": 0}


def test_definition_inside_included_file_uses_includer_context(client, workspace):
    common_path = workspace / "parts" / "common.robray"
    common_text = common_path.read_text()
    main = client.open(workspace / "main.robray")
    client.wait_diagnostics(main)
    uri = client.open(common_path)
    client.wait_diagnostics(uri)
    loc = client.request("textDocument/definition",
                         doc(uri, common_text, "dimension [1, 2, leg]", len("dimension [1, 2, l")))
    assert loc[0]["range"]["start"] == position_of(common_text, "leg 0.05")


# --- hover -------------------------------------------------------------------------------------


def test_hover_def_value(client, workspace):
    path = workspace / "main.robray"
    text = path.read_text()
    uri = client.open(path)
    client.wait_diagnostics(uri)
    h = client.request("textDocument/hover", doc(uri, text, "lift]"))
    value = h["contents"]["value"]
    assert "lift" in value and repr(0.75 / 3 + 0.25) in value
    assert h["range"]["start"] == position_of(text, "lift]")
    # a def from the included file
    h = client.request("textDocument/hover", doc(uri, text, "table-height / 3"))
    assert "0.75" in h["contents"]["value"]
    # a built-in constant
    h = client.request("textDocument/hover", doc(uri, text, "deg]"))
    assert "0.017453292519943295" in h["contents"]["value"]


def test_hover_frame_absolute_pose(client, workspace):
    path = workspace / "main.robray"
    text = path.read_text()
    uri = client.open(path)
    client.wait_diagnostics(uri)
    h = client.request("textDocument/hover", doc(uri, text, "frame shoulder", len("frame s")))
    value = h["contents"]["value"]
    assert "revolute" in value
    # table at (1, 0, 0.75); arm-base up `lift` and turned 90 deg about z; shoulder 0.1 along
    # arm-base's x, i.e. along world y.
    lift = 0.75 / 3 + 0.25
    assert f"translation [1.0, 0.1, {lift + 0.75!r}]" in value, value
    h = client.request("textDocument/hover", doc(uri, text, "shape cylinder", 1))
    assert "geometry" in h["contents"]["value"]


# --- completion --------------------------------------------------------------------------------


def labels(result) -> set[str]:
    items = result["items"] if isinstance(result, dict) else result
    return {i["label"] for i in items}


def test_completion_inside_geometry(client, workspace):
    path = workspace / "main.robray"
    text = path.read_text()
    edited = text.replace("            height 0.3;\n", "            height 0.3;\n            \n")
    uri = client.open(path, edited)
    client.wait_diagnostics(uri)
    pos = position_of(edited, "height 0.3;\n", len("height 0.3;\n") + 12)
    got = labels(client.request("textDocument/completion",
                                {"textDocument": {"uri": uri}, "position": pos}))
    assert {"shape", "radius", "dimension", "color", "no-shadow", "isa", "mesh"} <= got
    assert "translation" not in got and "parent" not in got  # frame attributes


def test_completion_by_context(client, workspace):
    path = workspace / "main.robray"
    uri = client.open(path)
    client.wait_diagnostics(uri)
    text = path.read_text()

    def complete(edit_from: str, edit_to: str) -> set[str]:
        new = text.replace(edit_from, edit_to)
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 9},
                                                 "contentChanges": [{"text": new}]})
        client.wait_diagnostics(uri)
        return labels(client.request("textDocument/completion", {
            "textDocument": {"uri": uri}, "position": position_of(new, edit_to,
                                                                  len(edit_to))}))

    frame_attrs = complete("        type revolute;", "        ")
    assert {"translation", "parent", "type", "axis", "limit_position", "geometry"} <= frame_attrs
    assert "radius" not in frame_attrs
    assert complete("shape cylinder", "shape c") == {"cylinder", "cone"}
    assert complete("type revolute", "type ") == {"fixed", "revolute", "prismatic", "ball",
                                                  "floating"}
    assert {"table", "arm-base", "shoulder"} <= complete("parent table", "parent ")
    assert complete("isa metal;\n            shape", "isa m") == {"metal"}
    assert {"lift", "table-height", "leg", "pi"} <= complete("radius leg", "radius ")
    top = complete("allow_collision table arm-base;", "")
    assert {"frame", "class", "def", "include", "allow_collision"} <= top
    assert complete('include "parts/common.robray"', 'include "parts/') == {
        "parts/common.robray"}


# --- document symbols --------------------------------------------------------------------------


def test_document_symbols(client, workspace):
    path = workspace / "main.robray"
    text = path.read_text()
    uri = client.open(path)
    client.wait_diagnostics(uri)
    syms = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert [(s["name"], s["kind"]) for s in syms] == [("lift", 14), ("arm-base", 19)]
    arm = syms[1]
    assert [c["name"] for c in arm["children"]] == ["shoulder"]
    assert arm["selectionRange"]["start"] == position_of(text, "arm-base {")
    assert arm["range"]["start"] == position_of(text, "frame arm-base", 0)
    closing = text.index("}\n\nallow")  # the frame's own closing brace, end exclusive
    assert arm["range"]["end"] == {"line": text.count("\n", 0, closing), "character": 1}
    assert syms[0]["detail"] == repr(0.75 / 3 + 0.25)


def test_utf16_positions_after_non_bmp_characters(client, workspace):
    # A comment with an astral character before an error on the same line: the client's
    # columns are UTF-16 code units, two for U+1F916.
    path = workspace / "main.robray"
    text = "/* \U0001F916 */ frame robot { parnt table; }\n"
    uri = client.open(path, text)
    diags = client.wait_diagnostics(uri)
    assert diags[0]["range"]["start"] == {"line": 0, "character": text.index("parnt") + 1}


# --- the check mode editors without LSP use ---------------------------------------------------


def test_check_mode_reads_unsaved_text(workspace):
    path = workspace / "main.robray"
    broken = path.read_text().replace("radius leg;", "radius lge;")
    # (its own run: the text on its standard input, which tests/run.py's robrayc leaves empty)
    proc = subprocess.run([sys.executable, "-m", "robrayc", "lsp", "--check", str(path),
                           "--stdin"], input=broken, capture_output=True, text=True,
                          cwd=workspace, timeout=60)
    assert proc.returncode == 1
    line = broken[:broken.index("lge")].count("\n") + 1
    assert f"{path}:{line}:20: error: unknown name 'lge'" in proc.stdout
    assert "did you mean 'leg'" in proc.stdout


def test_check_mode_shows_source_line_and_caret(workspace):
    """`lsp --check` renders as the compiler: the line (from disk, or from --stdin, or from an
    included file) and a caret under the problem."""
    path = workspace / "main.robray"
    broken = path.read_text().replace("radius leg;", "radius lge;")
    path.write_text(broken)
    line_text = broken.splitlines()[broken[:broken.index("lge")].count("\n")]
    caret = " " * (line_text.index("lge") + 1) + "^~~"
    for extra, given in (((), None), (("--stdin",), broken)):  # (stdin: as above)
        proc = subprocess.run([sys.executable, "-m", "robrayc", "lsp", "--check", str(path),
                               *extra], input=given, capture_output=True, text=True,
                              cwd=workspace, timeout=60)
        assert proc.returncode == 1
        assert f"\n {line_text}\n{caret}\n" in proc.stdout, proc.stdout
    compiled = robrayc(path, cwd=workspace, timeout=60, process=True)
    assert f"\n {line_text}\n{caret}\n" in compiled.err


# --- the analysis on every public scene file ---------------------------------------------------

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "public-robray"


def corpus_files() -> list[Path]:
    return sorted(CORPUS.rglob("*.robray")) if CORPUS.is_dir() else []


@pytest.mark.skipif(not corpus_files(), reason="shared corpus not present")
def test_index_agrees_with_compiler_on_corpus():
    """On every public scene the compiler accepts, every name the loader recorded as used
    resolves: names in expressions to the def the fold used (with its value) or a built-in,
    `isa` to a declared class or a warned tag, `parent` and kept `allow_collision` names to
    frames of the scene. And nothing in the analysis raises, on any file."""
    from robrayc.frontend.fold import BUILTINS
    from robrayc.lsp.analysis import Workspace, compile_diagnostics, completion_context

    checked = 0
    for path in corpus_files():
        compiled = compile_diagnostics(Workspace(), path)
        index = compiled.index
        text = path.read_text(encoding="utf-8", errors="replace")
        for cut in range(0, len(text), max(1, len(text) // 40)):
            completion_context(text[:cut])
        assert not any("internal error" in d.message for d in compiled.diagnostics), path
        if any(d.severity == "error" for d in compiled.diagnostics) or compiled.scene is None:
            continue
        checked += 1
        scene = compiled.scene
        allowed = {n for a in scene.allowed for n in (a.a, a.b)}
        for fi in index.files.values():
            assert fi.parsed, (path, fi.path)
            for ref in fi.references:
                if ref.kind == "def":
                    assert (ref.target is not None and ref.target.value is not None) \
                        or ref.name in BUILTINS, (path, ref)
                elif ref.kind == "frame":
                    assert scene.has_frame(ref.name) or ref.name not in allowed, (path, ref)
                elif ref.kind == "include":
                    assert ref.path in index.files, (path, ref)
                elif ref.kind == "class" and ref.target is not None:
                    assert ref.target.kind == "class" and ref.target.name == ref.name
    assert checked > 20


def test_definition_resolves_as_the_compiler(client, workspace):
    """`parent a` names the frame a even where a def a exists (the loader never reads a
    parent as an expression); `a` in an expression is the def visible there (a later def of
    the same name shadows it only for later uses); `isa` before a class is declared names no
    class (the loader keeps it as a tag)."""
    path = workspace / "names.robray"
    text = ("def a 1;\nframe a { }\nframe b { parent a; translation [a, 0, 0]; isa late; }\n"
            "def a 2;\nframe c { parent b; translation [a, 0, 0]; }\nclass late { }\n")
    path.write_text(text)
    uri = client.open(path)
    client.settled(uri)

    def targets(needle: str, offset: int, occurrence: int = 0):
        return client.request("textDocument/definition",
                              doc(uri, text, needle, offset, occurrence)) or []

    [loc] = targets("parent a", len("parent "))
    assert loc["range"]["start"] == position_of(text, "a { }")
    [loc] = targets("[a, 0, 0]", 1)
    assert loc["range"]["start"] == position_of(text, "a 1;")
    [loc] = targets("[a, 0, 0]", 1, occurrence=1)
    assert loc["range"]["start"] == position_of(text, "a 2;")
    assert targets("isa late", len("isa ")) == []
    hover = client.request("textDocument/hover", doc(uri, text, "[a, 0, 0]", 1, 1))
    assert "`2.0`" in hover["contents"]["value"]
