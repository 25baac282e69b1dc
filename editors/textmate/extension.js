// VS Code client for `robrayc lsp`: diagnostics, go-to-definition, hover, completion and
// symbols for robray files. Plain JavaScript (no build step); the language client library
// (npm vscode-languageclient) is bundled into the .vsix by scripts/package_vscode.sh.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

async function activate(context) {
  const config = vscode.workspace.getConfiguration("robray");
  const command = config.get("server.path", "robrayc");
  const args = ["lsp", ...config.get("server.args", [])];
  const server = { command, args, transport: TransportKind.stdio };
  const options = {
    documentSelector: [
      { scheme: "file", language: "robray" },
      { scheme: "untitled", language: "robray" },
    ],
  };
  client = new LanguageClient("robray", "robray (robrayc lsp)", server, options);
  try {
    await client.start();
  } catch (err) {
    vscode.window.showErrorMessage(
      `robray: cannot start '${command} lsp' (${err.message}). Install robrayc ` +
      "(pip install robrayc) or set robray.server.path.");
  }
  context.subscriptions.push({ dispose: () => client && client.stop() });
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
