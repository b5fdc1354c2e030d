"""The task types' registry (registry.py), what a task type is (spec.py: TaskTypeSpec, whose hooks core code asks
instead of branching on a type's name), the options every task type takes (options.py), and the template loader
and static files' finder that find the templates and static files in the task types' packages (folders.py).

Each task type is a package of `tasktypes/` whose `spec` module holds one subclass of TaskTypeSpec, registered with
`@register`; the registry finds those modules when Django starts (registry.autodiscover, called by tasktypes.apps),
and a Django system check (tasktypes.checks) validates every spec. A test (tests/project/test_task_type_registry.py)
keeps branches on a task type's name, a report's layout or a judge family's name out of the core.
"""
