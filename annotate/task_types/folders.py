"""The files of the task types' packages: every registered task type's package (and the packages of the specs it
extends) may hold a `templates/` and a `static/` folder, found as Django finds an app's. So a task type's annotation
page, report body, scripts and styles live in its package, a task type defined outside tasktypes/ (a test's)
included. Settings: TEMPLATES' loaders name TemplateLoader, STATICFILES_FINDERS names StaticFinder."""

import sys
from pathlib import Path

from django.contrib.staticfiles.finders import FileSystemFinder
from django.core.files.storage import FileSystemStorage
from django.template.loaders.filesystem import Loader as FilesystemLoader

from annotate.task_types.registry import task_types
from annotate.task_types.spec import TaskTypeSpec


def task_type_folders(name: str) -> list[Path]:
    """The folders NAME ("templates", "static") of the registered task types' packages, each spec's own before those
    of the specs it extends."""
    found: list[Path] = []
    for spec in task_types():
        for cls in type(spec).__mro__:
            if not (isinstance(cls, type) and issubclass(cls, TaskTypeSpec)) or cls is TaskTypeSpec:
                continue
            folder = Path(sys.modules[cls.__module__].__file__).resolve().parent / name
            if folder.is_dir() and folder not in found:
                found.append(folder)
    return found


class TemplateLoader(FilesystemLoader):
    def get_dirs(self):
        return task_type_folders("templates")


class StaticFinder(FileSystemFinder):
    """The static/ folders of the task types' packages, as FileSystemFinder finds STATICFILES_DIRS (same URLs: a
    package's static/js/rank.js is /static/js/rank.js)."""

    def __init__(self, app_names=None, *args, **kwargs):
        super().__init__(app_names, *args, **kwargs)
        self.locations = [("", str(folder)) for folder in task_type_folders("static")]
        self.storages = {root: FileSystemStorage(location=root) for _, root in self.locations}
        for storage in self.storages.values():
            storage.prefix = ""

    def check(self, **kwargs):
        return []
