"""The task types, one package each (tasktypes/<name>/: spec.py, importers.py, report.py, presentation.py, tables.py,
plots.py, templates/), found when Django starts (annotate.task_types.registry.autodiscover) and checked by a system
check (tasktypes.checks)."""
