"""Importers: one module per data format, a shared module for errors, limits and reading, one service entry point."""
