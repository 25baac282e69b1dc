#!/usr/bin/env bash
# Package the VS Code extension (editors/textmate: grammar + client for `robrayc lsp`) as a
# .vsix with npm @vscode/vsce. Usage: scripts/package_vscode.sh [OUT.vsix]
# Needs node and npm. The npm packages come from editors/textmate/node_modules: installed
# from package-lock.json by `npm ci` when missing (CI runs that in .ci/run, so the tests
# never download).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
EXT="$ROOT/editors/textmate"
OUT=$(realpath -m "${1:-$ROOT/dist/robray.vsix}")
mkdir -p "$(dirname "$OUT")"
cd "$EXT"
if [ ! -d node_modules/vscode-languageclient ] || [ ! -d node_modules/@vscode/vsce ]; then
    npm ci --no-audit --no-fund
fi
# No LICENSE file or repository URL in the extension folder: vsce would ask about both.
npx --no-install vsce package --skip-license --allow-missing-repository --out "$OUT"
