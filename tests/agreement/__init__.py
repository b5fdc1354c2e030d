"""Tests of agreement/ (ARCHITECTURE.md)."""
