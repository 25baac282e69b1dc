"""The language server: analysis.py answers from the compiler (no pygls); server.py speaks LSP
through pygls (imported only by `robrayc lsp`)."""
