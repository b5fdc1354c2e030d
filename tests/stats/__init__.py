"""Tests of stats/ (ARCHITECTURE.md)."""
