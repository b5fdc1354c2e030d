"""Tests of reports/ (ARCHITECTURE.md)."""
