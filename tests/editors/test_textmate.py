"""editors/textmate/robray.tmLanguage.json, run by a TextMate engine.

The engine is textmate-grammar-python (a Python port of vscode-textmate on the Oniguruma
regex library, as VS Code uses). Its scopes for the fixture are held to the same
classification as vim's syntax groups: the shared token table, and (where vim is installed)
every character of the fixture.
"""

from __future__ import annotations

import json
import logging
import os
import re

import pytest

from tests.editors.conftest import EDITORS, EXPECTED_GROUPS, SAMPLE, find_token

GRAMMAR = EDITORS / "textmate" / "robray.tmLanguage.json"
S = ".robray"

# vim group -> the innermost (non-punctuation) TextMate scope, as a regex
TM_SCOPE = {
    "robrayInclude": r"keyword\.control\.import\.include",
    "robrayDefine": r"keyword\.other\.def",
    "robrayKeyword": r"keyword\.other\.(frame|class|geometry|allow-collision)",
    "robrayFrameAttr": r"support\.type\.property-name\.frame",
    "robrayGeomAttr": r"support\.type\.property-name\.geometry",
    "robrayIsa": r"support\.type\.property-name\.isa",
    "robrayShape": r"support\.constant\.shape",
    "robrayJointType": r"support\.constant\.joint-type",
    "robrayConstant": r"constant\.language",
    "robrayNumber": r"constant\.numeric",
    "robrayPath": r"string\.quoted\.double\.path",
    "robrayIncludePath": r"string\.quoted\.double\.include",
    "robrayString": r"string\.quoted\.double",
    "robrayLineComment": r"comment\.line\.(double-slash|number-sign)",
    "robrayBlockComment": r"comment\.block",
    "robrayFrameName": r"entity\.name\.function\.frame",
    "robrayFrameRef": r"variable\.other\.frame",
    "robrayAllowName": r"variable\.other\.frame",
    "robrayClassName": r"entity\.name\.type\.class",
    "robrayDefName": r"variable\.other\.constant\.definition",
    "robrayName": r"variable\.other",
    "robrayOperator": r"keyword\.operator\.arithmetic",
    "": r"source|punctuation\..*",  # no vim group: whitespace and punctuation
}


def scope_matches(group: str, scope: str) -> bool:
    return re.fullmatch(f"(?:{TM_SCOPE[group]})(?:{re.escape(S)})?", scope) is not None


@pytest.fixture(scope="module")
def grammar() -> dict:
    with open(GRAMMAR, encoding="utf-8") as fh:
        return json.load(fh)


@pytest.fixture(scope="module")
def char_scopes(grammar, tmp_path_factory) -> dict[tuple[int, int], str]:
    """(line, column) -> innermost non-punctuation scope, for every character of the fixture."""
    # The engine makes a `.textmate_cache` folder in the working directory on import.
    here = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("textmate"))
    try:
        from textmate_grammar.parsers.base import LanguageParser
    finally:
        os.chdir(here)
    logging.getLogger("textmate_grammar").setLevel(logging.ERROR)
    element = LanguageParser(grammar).parse_string(SAMPLE.read_text(encoding="utf-8"))
    out: dict[tuple[int, int], str] = {}
    for (line, col), text, scopes in element.flatten():
        inner = [s for s in scopes if not s.startswith("punctuation.")] or scopes
        for k in range(len(text)):
            out[(line, col + k)] = inner[-1]
    return out


def test_grammar_metadata(grammar):
    assert grammar["scopeName"] == "source.robray"
    assert "robray" in grammar["fileTypes"]
    assert {"comments", "values", "attribute", "declaration"} <= set(grammar["repository"])


def test_every_regex_compiles_with_oniguruma(grammar):
    onig = pytest.importorskip("onigurumacffi")
    found = 0
    stack = [grammar]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key in ("match", "begin", "end", "while"):
                if key in node:
                    onig.compile(node[key])  # raises on a pattern Oniguruma rejects
                    found += 1
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    assert found > 20


def test_every_scope_is_namespaced(grammar):
    names = re.findall(r'"name":\s*"([^"]+)"', GRAMMAR.read_text(encoding="utf-8"))
    scopes = [n for n in names if n != "robray"]
    assert scopes and all(n.endswith(S) for n in scopes)


@pytest.mark.parametrize(("token", "occurrence", "context", "group"), EXPECTED_GROUPS,
                         ids=[f"{t}-{g}" for t, _, _, g in EXPECTED_GROUPS])
def test_scope_matches_vim_class(char_scopes, token, occurrence, context, group):
    line, col = find_token(token, occurrence, context)
    scopes = {char_scopes[(line, col + k)] for k in range(len(token))}
    assert len(scopes) == 1, f"{token!r} is split across scopes {scopes}"
    scope = scopes.pop()
    assert scope_matches(group, scope), f"{token!r}: scope {scope}, vim group {group}"


def test_every_character_agrees_with_vim(char_scopes, tmp_path):
    """Where vim is installed: vim's group and the TextMate scope agree on every non-blank
    character of the fixture (comments, strings, names, numbers, operators, punctuation)."""
    from tests.editors.test_vim import SYNTAX_DUMP, run_vim

    result = run_vim(SYNTAX_DUMP, tmp_path, {"FIXTURE": str(SAMPLE)})
    lines = SAMPLE.read_text(encoding="utf-8").split("\n")
    disagreements = []
    for i, (text, groups) in enumerate(zip(lines, result["lines"], strict=False)):
        for j, (ch, group) in enumerate(zip(text, groups, strict=True)):
            if ch.isspace():
                continue
            group = "" if group in ("robrayBlock", "robrayTodo") else group
            scope = char_scopes.get((i, j), "source.robray")
            if group == "robrayTodo":
                continue
            if not scope_matches(group, scope):
                disagreements.append(f"{i + 1}:{j + 1} {ch!r}: vim {group or '-'}, tm {scope}")
    assert not disagreements, "\n".join(disagreements[:40])


def test_vscode_extension_manifest(grammar):
    """The folder is a VS Code extension: its manifest names this grammar and the language
    configuration, whose word pattern keeps hyphenated names whole."""
    folder = GRAMMAR.parent
    manifest = json.loads((folder / "package.json").read_text(encoding="utf-8"))
    (lang,) = manifest["contributes"]["languages"]
    (gram,) = manifest["contributes"]["grammars"]
    assert ".robray" in lang["extensions"]
    assert gram["scopeName"] == grammar["scopeName"]
    assert (folder / gram["path"]).resolve() == GRAMMAR.resolve()
    config = json.loads((folder / lang["configuration"]).read_text(encoding="utf-8"))
    assert config["comments"] == {"lineComment": "//", "blockComment": ["/*", "*/"]}
    word = re.compile(config["wordPattern"])
    assert word.match("upper-link;").group() == "upper-link"
    assert word.match("1d-3]").group() == "1d-3"
