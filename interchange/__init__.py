"""Imports and exports, what every format shares: the streaming readers and writers (importers/common.py,
importers/writes.py), the import's one entry point (importers/service.py, which asks the campaign's task type to run
its own formats), the formats every task type takes (judge-scores, item-categories) and the readers the task types'
importers use, the import jobs and their Celery task, the import page and API, and the campaign archive.
Below the task types: a task type's own formats live in its package (tasktypes/<name>/importers.py) and use these."""
