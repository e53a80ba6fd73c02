// The qlang extension: starts `qlangc lsp` for qlang's files (see docs/editors.md).
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate() {
  const settings = vscode.workspace.getConfiguration("qlang");
  const [command, ...args] = settings.get("server.command");
  client = new LanguageClient("qlang", "qlang", { command, args }, {
    documentSelector: [
      { scheme: "file", language: "qlang" },
      { scheme: "untitled", language: "qlang" },
      { scheme: "file", language: "qlang-rules" },
      { scheme: "file", pattern: "**/*.gqa.json" },
      { scheme: "file", pattern: "**/*.kb.tsv" },
    ],
    initializationOptions: { openVocabulary: settings.get("openVocabulary") },
    synchronize: { configurationSection: "qlang" },
  });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
