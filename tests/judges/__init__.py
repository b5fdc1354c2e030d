"""Tests of judges/ (ARCHITECTURE.md)."""
