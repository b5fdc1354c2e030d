"""The registry of task types: name -> the one instance of its spec (annotate.task_types.spec.TaskTypeSpec).

A task type is a package of `tasktypes/` with a `spec` module whose class is decorated with `@register`; autodiscover
imports those modules when Django starts (tasktypes.apps), as Django's admin finds `admin.py` modules. A task type
defined elsewhere (a test's) registers by importing its spec module the same way.
"""

import pkgutil
from importlib import import_module
from importlib.util import find_spec

from annotate.task_types.formats import Count, Parameter, counts_of, parameters_of

_REGISTRY: dict = {}  # name -> TaskTypeSpec instance, in the order registered

# The module of a task type's package that holds its spec.
SPEC_MODULE = "spec"


class UnknownTaskType(LookupError):
    """A task type no package registered; the message is for the user."""


def register(spec_class: type) -> type:
    """Class decorator: register one instance of SPEC_CLASS (a TaskTypeSpec subclass) under its name. Registering a
    second class under a name already taken is refused: a task type is declared once."""
    existing = _REGISTRY.get(spec_class.name)
    if existing is not None and type(existing).__qualname__ != spec_class.__qualname__:
        raise ValueError(f"task type {spec_class.name!r} is registered twice: {type(existing).__module__} and "
                         f"{spec_class.__module__}")
    _REGISTRY[spec_class.name] = spec_class()
    return spec_class


def autodiscover(package: str) -> None:
    """Import the spec module of every subpackage of PACKAGE (each registers its task type), in name order."""
    for found in sorted(pkgutil.iter_modules(import_module(package).__path__), key=lambda module: module.name):
        if found.ispkg and find_spec(f"{package}.{found.name}.{SPEC_MODULE}") is not None:
            import_module(f"{package}.{found.name}.{SPEC_MODULE}")


def task_type_modules(module: str) -> list[str]:
    """The dotted names of the MODULE modules ("urls", "api_urls") of the registered task types' packages that have
    one: the project's URL configuration includes them, so a task type's own pages and endpoints live in its
    package."""
    packages = dict.fromkeys(type(spec).__module__.rpartition(".")[0] for spec in _REGISTRY.values())
    return [f"{package}.{module}" for package in packages if find_spec(f"{package}.{module}") is not None]


def unregister(name: str) -> None:
    """Forget task type NAME (a test that registered its own)."""
    _REGISTRY.pop(name, None)


def task_type_get(name: str):
    """The spec of task type NAME (a TaskTypeSpec), or UnknownTaskType naming the registered ones."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UnknownTaskType(f"unknown task type {name!r}; choose one of {', '.join(task_type_names())}") from None


def task_type_names() -> list[str]:
    return list(_REGISTRY)


def task_types() -> list:
    """Every registered spec, in the order of task_type_names."""
    return list(_REGISTRY.values())


def import_formats() -> dict[str, set[str]]:
    """Format name -> the task types it feeds, from every task type's formats."""
    formats: dict[str, set[str]] = {}
    for spec in _REGISTRY.values():
        for fmt in spec.formats:
            formats.setdefault(fmt.name, set()).add(spec.name)
    return formats


def import_formats_all() -> list:
    """Every registered task type's formats (annotate.task_types.formats.ImportFormat), in registration order."""
    return [fmt for spec in _REGISTRY.values() for fmt in spec.formats]


def import_parameters() -> dict[str, Parameter]:
    """Every import parameter some registered format takes, by name: the command line's options and the API's
    fields."""
    return parameters_of(import_formats_all())


def import_counts() -> dict[str, Count]:
    """Every count an import's summary may carry (the formats' and the task types' own), by name: the API's
    summary fields."""
    return counts_of([spec.import_counts for spec in _REGISTRY.values()]
                     + [fmt.counts for fmt in import_formats_all()])
