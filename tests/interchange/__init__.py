"""Tests of interchange/ (ARCHITECTURE.md)."""
