"""The task types' registry (registry.py), what a task type is (spec.py: TaskTypeSpec, whose hooks core code asks
instead of branching on a type's name) and the options every task type takes (options.py).

Each task type is a package of `tasktypes/` whose `spec` module holds one subclass of TaskTypeSpec, registered with
`@register`; the registry finds those modules when Django starts (registry.autodiscover), and a Django system check
(annotate.checks) validates every spec. A test (tests/test_task_type_registry.py) keeps branches on a task type's
name out of the core.
"""
