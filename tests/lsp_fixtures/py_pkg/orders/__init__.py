"""Order totals: the fixture of candor's pylsp-rope tests (tests/lsp_real.rs)."""
