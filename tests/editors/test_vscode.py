"""The VS Code extension (editors/textmate): packaged as a .vsix by scripts/package_vscode.sh with
the real npm @vscode/vsce; the manifest, the client code and the bundled language-client
library are checked in the package."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from tests.editors.conftest import EDITORS, require_program

REPO = EDITORS.parent
EXTENSION = EDITORS / "textmate"


def _require_npm_packages() -> None:
    require_program("npm")  # skips outside CI, fails in CI
    if not (EXTENSION / "node_modules" / "@vscode" / "vsce").is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail("editors/textmate/node_modules is missing (.ci/run runs npm ci there)")
        pytest.skip("run `npm ci` in editors/textmate first")


@pytest.fixture(scope="module")
def vsix(tmp_path_factory) -> Path:
    _require_npm_packages()
    out = tmp_path_factory.mktemp("vsix") / "robray.vsix"
    proc = subprocess.run(["bash", str(REPO / "scripts" / "package_vscode.sh"), str(out)],
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return out


def test_manifest(vsix: Path) -> None:
    with zipfile.ZipFile(vsix) as z:
        names = set(z.namelist())
        manifest = json.loads(z.read("extension/package.json"))
        vsixmanifest = z.read("extension.vsixmanifest").decode()
    source = json.loads((EXTENSION / "package.json").read_text())
    assert manifest["name"] == source["name"] == "robray"
    assert f'Id="robray" Version="{source["version"]}" Publisher="robrayc"' in vsixmanifest
    assert manifest["main"] == "./extension.js" and "extension/extension.js" in names
    assert "onLanguage:robray" in manifest["activationEvents"]
    language = manifest["contributes"]["languages"][0]
    assert language["id"] == "robray" and ".robray" in language["extensions"]
    grammar = manifest["contributes"]["grammars"][0]
    assert "extension/" + grammar["path"].removeprefix("./") in names
    assert "extension/" + language["configuration"].removeprefix("./") in names
    settings = manifest["contributes"]["configuration"]["properties"]
    assert settings["robray.server.path"]["default"] == "robrayc"
    assert "vscode-languageclient" in manifest["dependencies"]
    assert not any(n.startswith("extension/node_modules/@vscode/vsce/") for n in names)


def test_client_starts_robrayc_lsp_and_its_library_is_bundled(vsix: Path, tmp_path) -> None:
    with zipfile.ZipFile(vsix) as z:
        z.extractall(tmp_path)
    ext = tmp_path / "extension"
    node = shutil.which("node") or pytest.skip("node is not installed")
    code = (ext / "extension.js").read_text()
    assert '"lsp"' in code and 'require("vscode-languageclient/node")' in code
    subprocess.run([node, "--check", str(ext / "extension.js")], check=True, timeout=60)
    # Every module the client library loads (besides VS Code's own `vscode`) is in the package.
    script = """
const path = require("path");
const main = require.resolve("vscode-languageclient/node", {paths: [process.argv[1]]});
const seen = new Set();
const queue = [main];
while (queue.length) {
  const file = queue.pop();
  if (seen.has(file)) continue;
  seen.add(file);
  const text = require("fs").readFileSync(file, "utf8");
  for (const m of text.matchAll(/require\\(["']([^"']+)["']\\)/g)) {
    const name = m[1];
    if (name === "vscode" || require("module").isBuiltin(name)) continue;
    queue.push(require.resolve(name, {paths: [path.dirname(file)]}));
  }
}
console.log(seen.size);
"""
    proc = subprocess.run([node, "-e", script, str(ext)], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert int(proc.stdout) > 10
