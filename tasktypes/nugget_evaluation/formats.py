"""The import formats of nugget_evaluation (their readers in importers.py)."""

FORMATS: tuple = ()
