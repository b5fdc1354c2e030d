"""Tests of tasktypes/ (ARCHITECTURE.md)."""
