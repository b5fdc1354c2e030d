"""Tests of what crosses the floors: start-up, settings, the layout itself, permissions, query counts, hostile pages,
the documentation."""
