from django.apps import AppConfig
from django.core import checks

from annotate.task_types.registry import autodiscover


class TaskTypesConfig(AppConfig):
    name = "tasktypes"
    verbose_name = "Task types"

    def ready(self):
        # Every package of tasktypes/ with a spec module is a task type: importing the module registers it.
        autodiscover("tasktypes")
        from tasktypes.checks import task_types_check

        checks.register(task_types_check)
