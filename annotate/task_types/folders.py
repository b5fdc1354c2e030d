"""The files of the task types' packages: every registered task type's package (and the packages of the specs it
extends) may hold a `templates/` and a `static/` folder and a `templatetags/` package, found as Django finds an
app's. So a task type's annotation page, report body, its template filters, scripts and styles live in its package,
a task type defined outside tasktypes/ (a test's) included. Settings: TEMPLATES' backend is TemplateBackend and its
loaders name TemplateLoader, STATICFILES_FINDERS names StaticFinder."""

import sys
from collections.abc import Iterator
from importlib import import_module
from importlib.util import find_spec
from pathlib import Path

from django.contrib.staticfiles.finders import FileSystemFinder
from django.core.files.storage import FileSystemStorage
from django.template.backends.django import DjangoTemplates, get_package_libraries
from django.template.loaders.filesystem import Loader as FilesystemLoader

from annotate.task_types.registry import task_types
from annotate.task_types.spec import TaskTypeSpec


def _spec_modules() -> Iterator[str]:
    """The modules of the registered task types' spec classes, each spec's own before those of the specs it extends
    (graded/ after image_relevance/); a module may come more than once."""
    for spec in task_types():
        for cls in type(spec).__mro__:
            if isinstance(cls, type) and issubclass(cls, TaskTypeSpec) and cls is not TaskTypeSpec:
                yield cls.__module__


def task_type_folders(name: str) -> list[Path]:
    """The folders NAME ("templates", "static") of the registered task types' packages, each spec's own before those
    of the specs it extends."""
    found: list[Path] = []
    for module in _spec_modules():
        folder = Path(sys.modules[module].__file__).resolve().parent / name
        if folder.is_dir() and folder not in found:
            found.append(folder)
    return found


def task_type_template_libraries() -> dict[str, str]:
    """The template tag libraries of the registered task types' packages' templatetags/ ({name: module}, the name
    {% load %} takes: the module's, as for an installed app's)."""
    libraries: dict[str, str] = {}
    for package in dict.fromkeys(module.rpartition(".")[0] for module in _spec_modules()):
        if package and find_spec(f"{package}.templatetags") is not None:
            tags = import_module(f"{package}.templatetags")
            libraries.update({name.rpartition(".")[2]: name for name in get_package_libraries(tags)})
    return libraries


class TemplateBackend(DjangoTemplates):
    """Django's template engine, with the task types' template tag libraries beside the installed apps'."""

    def get_templatetag_libraries(self, custom_libraries):
        return super().get_templatetag_libraries({**task_type_template_libraries(), **custom_libraries})


class TemplateLoader(FilesystemLoader):
    def get_dirs(self):
        return task_type_folders("templates")


class StaticFinder(FileSystemFinder):
    """The static/ folders of the task types' packages, as FileSystemFinder finds STATICFILES_DIRS (same URLs: a
    package's static/answer_ranking/rank.js is /static/answer_ranking/rank.js: each package keeps its files under
    its name, so that two packages' files never take the same URL)."""

    def __init__(self, app_names=None, *args, **kwargs):
        super().__init__(app_names, *args, **kwargs)
        self.locations = [("", str(folder)) for folder in task_type_folders("static")]
        self.storages = {root: FileSystemStorage(location=root) for _, root in self.locations}
        for storage in self.storages.values():
            storage.prefix = ""

    def check(self, **kwargs):
        return []
