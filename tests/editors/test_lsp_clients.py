"""`robrayc lsp` used by real editor LSP clients, configured as editors/README.md says:
Neovim's built-in client (the README's snippet, run verbatim in `nvim --headless`) and
Emacs's eglot (through robray-mode's registration).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.editors.conftest import EDITORS, FIXTURES, require_program, robrayc_executable

README = EDITORS / "README.md"


def readme_block(after: str) -> str:
    """The first indented code block after the line containing `after`."""
    lines = README.read_text(encoding="utf-8").split("\n")
    start = next(i for i, line in enumerate(lines) if after in line)
    block: list[str] = []
    for line in lines[start + 1:]:
        if line.startswith("    ") or (block and not line.strip()):
            block.append(line[4:])
        elif block:
            break
    return "\n".join(block).strip() + "\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """The LSP fixture workspace, main.robray with a misspelt name (radius lge)."""
    dest = tmp_path / "ws"
    shutil.copytree(FIXTURES / "lsp", dest)
    main = dest / "main.robray"
    main.write_text(main.read_text().replace("radius leg;", "radius lge;"))
    return dest


def editor_env(tmp_path: Path) -> dict[str, str]:
    exe = robrayc_executable(tmp_path)
    return {**os.environ, "PATH": str(Path(exe).parent) + os.pathsep + os.environ["PATH"],
            "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_STATE_HOME": str(tmp_path / "state")}


NVIM_TEST = r"""
local out = vim.env.RESULT
local ok, err = pcall(function()
  vim.cmd('edit ' .. vim.fn.fnameescape(vim.env.SCENE))
  assert(vim.bo.filetype == 'robray', 'filetype ' .. vim.bo.filetype)
  assert(vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 50),
         'no diagnostics from robrayc lsp')
  local result = {diagnostics = {}}
  for _, d in ipairs(vim.diagnostic.get(0)) do
    table.insert(result.diagnostics, {lnum = d.lnum, col = d.col, end_col = d.end_col,
                                      severity = d.severity, message = d.message})
  end
  -- go to definition of `table` in `parent table;` (defined in the included file)
  local lnum = vim.fn.search('parent \\zstable')
  local params = {textDocument = {uri = vim.uri_from_bufnr(0)},
                  position = {line = lnum - 1, character = vim.fn.col('.') - 1}}
  local responses = vim.lsp.buf_request_sync(0, 'textDocument/definition', params, 30000)
  for _, r in pairs(responses or {}) do
    if r.result then result.definition = r.result[1] end
  end
  local hover = vim.lsp.buf_request_sync(0, 'textDocument/hover', {
    textDocument = params.textDocument,
    position = {line = vim.fn.search('lift]') - 1, character = vim.fn.col('.')}}, 30000)
  for _, r in pairs(hover or {}) do
    if r.result then result.hover = r.result.contents.value end
  end
  vim.fn.writefile({vim.fn.json_encode(result)}, out)
end)
if not ok then vim.fn.writefile({'ERROR: ' .. tostring(err)}, out) end
vim.cmd('qall!')
"""


def test_neovim_builtin_client_with_readme_config(workspace, tmp_path):
    nvim = require_program("nvim")
    init = tmp_path / "init.lua"
    # The package from editors/vim gives the filetype; then the README's snippet, verbatim.
    init.write_text(f"vim.opt.runtimepath:prepend({json.dumps(str(EDITORS / 'vim'))})\n"
                    "vim.cmd('filetype plugin indent on')\n"
                    + readme_block("**Neovim** (built-in client"))
    test = tmp_path / "test.lua"
    test.write_text(NVIM_TEST)
    result = tmp_path / "result.json"
    env = {**editor_env(tmp_path), "SCENE": str(workspace / "main.robray"),
           "RESULT": str(result)}
    proc = subprocess.run([nvim, "--headless", "-u", str(init), "-i", "NONE", "-n",
                           "-c", f"luafile {test}"], capture_output=True, text=True,
                          timeout=180, env=env, cwd=workspace, stdin=subprocess.DEVNULL)
    assert result.exists(), proc.stdout + proc.stderr
    text = result.read_text()
    assert not text.startswith("ERROR"), text
    r = json.loads(text)
    line = (workspace / "main.robray").read_text().split("\n").index(
        "            radius lge;")
    (d,) = [d for d in r["diagnostics"] if d["lnum"] == line]
    assert (d["col"], d["end_col"], d["severity"]) == (19, 22, 1)
    assert "unknown name 'lge'" in d["message"] and "did you mean 'leg'" in d["message"]
    assert r["definition"]["uri"].endswith("/parts/common.robray")
    assert r["definition"]["range"]["start"]["line"] == 9  # frame table {
    assert re.search(r"lift.*0\.5", r["hover"])


def test_eglot_with_robray_mode(workspace, tmp_path):
    """eglot (Emacs's LSP client) starts `robrayc lsp` for a robray-mode buffer through the
    mode's registration and shows its diagnostics through flymake."""
    emacs = require_program("emacs")
    (workspace / ".git").mkdir()  # a project root for eglot
    script = tmp_path / "eglot-test.el"
    result = tmp_path / "result.txt"
    script.write_text(f"""
(require 'package)
;; Debian's elpa-* packages (site-start, which -Q skips, would add this folder).
(add-to-list 'package-directory-list "/usr/share/emacs/site-lisp/elpa")
(package-initialize)
(unless (require 'eglot nil t)
  (with-temp-file {json.dumps(str(result))} (insert "SKIP eglot is not installed"))
  (kill-emacs 0))
(require 'robray-mode)
(setq robray-executable (executable-find "robrayc"))
(condition-case err
    (let ((buf (find-file-noselect {json.dumps(str(workspace / "main.robray"))})))
      (with-current-buffer buf
        (apply #'eglot (eglot--guess-contact))
        (let ((deadline (+ (float-time) 60)))
          (while (and (< (float-time) deadline) (null (flymake-diagnostics)))
            ;; No command loop in batch mode: start the (deferred) flymake checks by hand.
            (flymake-start nil t)
            (accept-process-output nil 0.2)))
        (let ((d (car (sort (flymake-diagnostics)
                            (lambda (a b) (> (flymake-diagnostic-beg a)
                                             (flymake-diagnostic-beg b)))))))
          (with-temp-file {json.dumps(str(result))}
            (insert (format "%d %d %s %s"
                            (with-current-buffer buf
                              (save-excursion (goto-char (flymake-diagnostic-beg d))
                                              (line-number-at-pos)))
                            (- (flymake-diagnostic-end d) (flymake-diagnostic-beg d))
                            (flymake-diagnostic-type d)
                            (flymake-diagnostic-text d)))))
        (eglot-shutdown (eglot-current-server))))
  (error (with-temp-file {json.dumps(str(result))} (insert (format "ERROR %S" err)))))
(kill-emacs 0)
""")
    proc = subprocess.run([emacs, "--batch", "-Q", "-L", str(EDITORS / "emacs"), "-l",
                           str(script)], capture_output=True, text=True, timeout=180,
                          env=editor_env(tmp_path), cwd=workspace, stdin=subprocess.DEVNULL)
    assert result.exists(), proc.stdout + proc.stderr
    text = result.read_text()
    if text.startswith("SKIP") and os.environ.get("CI") != "true":
        pytest.skip(text[5:])
    assert not text.startswith(("ERROR", "SKIP")), text + proc.stderr[-3000:]
    line = (workspace / "main.robray").read_text().split("\n").index(
        "            radius lge;") + 1
    assert text.startswith(f"{line} 3 "), text
    assert "error" in text and "unknown name 'lge'" in text
