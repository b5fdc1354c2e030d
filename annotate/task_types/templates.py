"""A template loader for the task types' packages: every registered task type's package (and the packages of the specs
it extends) may hold a `templates/` folder, found as Django finds an app's. So a task type's annotation page and
report body live in its package, a task type defined outside tasktypes/ (a test's) included."""

import sys
from pathlib import Path

from django.template.loaders.filesystem import Loader as FilesystemLoader

from annotate.task_types.registry import task_types
from annotate.task_types.spec import TaskTypeSpec


def task_type_template_dirs() -> list[Path]:
    """The templates/ folders of the registered task types' packages, each spec's own before those it extends."""
    found: list[Path] = []
    for spec in task_types():
        for cls in type(spec).__mro__:
            if not (isinstance(cls, type) and issubclass(cls, TaskTypeSpec)) or cls is TaskTypeSpec:
                continue
            folder = Path(sys.modules[cls.__module__].__file__).resolve().parent / "templates"
            if folder.is_dir() and folder not in found:
                found.append(folder)
    return found


class Loader(FilesystemLoader):
    def get_dirs(self):
        return task_type_template_dirs()
