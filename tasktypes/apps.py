from importlib import import_module

from django.apps import AppConfig

# The task types' modules, in the order task types and import formats are listed.
TASK_TYPE_MODULES = ("qa_correctness", "answer_ranking", "ais", "image_relevance", "passage_relevance")


class TaskTypesConfig(AppConfig):
    name = "tasktypes"
    verbose_name = "Task types"

    def ready(self):
        for name in TASK_TYPE_MODULES:
            import_module(f"tasktypes.{name}")
