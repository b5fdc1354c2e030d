"""A task type that exists only for the tests (tests/tasktypes/test_task_type_package.py): is a review positive, neutral
or
negative? It is a whole task type in this one package, as a new task type is (ARCHITECTURE.md): its spec (spec.py),
its import format (importers.py), its report (report.py) and how the report is shown (presentation.py), and its
annotation and report templates (templates/sentiment/). Nothing outside this package names it."""
