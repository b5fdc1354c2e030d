"""Tests of annotate/ (ARCHITECTURE.md)."""
