"""Tests of accounts/ (ARCHITECTURE.md)."""
