"""Reproductions of the papers' figures and tables (one module per issue)."""
