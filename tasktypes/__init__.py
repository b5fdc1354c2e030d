"""The task types, one module each; each registers its spec in annotate.task_types when Django starts."""
