#!/usr/bin/env bash
# Rebuild robrayc/viewer/three.min.js: the parts of three.js (npm package `three`) that the
# HTML viewer uses, bundled and minified by esbuild (npm), with three.js's licence beside it.
# Run by hand when upgrading three.js (needs npm and the npm registry); the result is
# committed, so neither building robrayc nor viewing a page needs the network.
set -euo pipefail
THREE_VERSION=${THREE_VERSION:-0.187.0}
ESBUILD_VERSION=${ESBUILD_VERSION:-0.28.2}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
npm install --silent --no-audit --no-fund "three@$THREE_VERSION" "esbuild@$ESBUILD_VERSION"
cp "$ROOT/robrayc/viewer/three-entry.js" entry.js
npx esbuild entry.js --bundle --minify --format=iife --global-name=THREE \
    --legal-comments=none --target=es2020 --outfile=three.min.js
{
    printf '/* three.js r%s (https://threejs.org), MIT licence: see three-LICENSE.txt. */\n' \
        "$(echo "$THREE_VERSION" | cut -d. -f2)"
    cat three.min.js
} > "$ROOT/robrayc/viewer/three.min.js"
cp node_modules/three/LICENSE "$ROOT/robrayc/viewer/three-LICENSE.txt"
echo "wrote $ROOT/robrayc/viewer/three.min.js ($(wc -c < "$ROOT/robrayc/viewer/three.min.js") bytes)"
