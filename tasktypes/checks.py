"""The Django system check of the task types (`manage.py check`, and every start of the app): each registered spec
declares what core code will ask of it, so a task type package that misses a piece is refused at start-up, not on
the first page that needs it."""

from django.core import checks
from django.template import TemplateDoesNotExist
from django.template.loader import get_template

from annotate.forms import CampaignOptionsForm
from annotate.task_types.formats import ImportFormat, parameters_of
from annotate.task_types.options import COMMON_OPTIONS
from annotate.task_types.registry import import_counts, import_formats_all, task_types
from annotate.task_types.spec import UNIT_ITEM, UNIT_TOPIC, TaskTypeSpec
from judges.families import FAMILIES

# The hooks every task type implements itself (the base class's raise NotImplementedError).
REQUIRED_HOOKS = ("value_check", "value_from_post", "unit_context", "adjudication_questions", "report_build",
                  "report_presentation")


def spec_problems(spec: TaskTypeSpec) -> list[str]:
    """What is missing or wrong in SPEC, in words; [] when it is complete."""
    problems = []
    if not spec.label:
        problems.append("it has no label (what the pages call it)")
    if spec.unit not in (UNIT_ITEM, UNIT_TOPIC):
        problems.append(f"its unit is {spec.unit!r}, not {UNIT_ITEM!r} or {UNIT_TOPIC!r}")
    for hook in REQUIRED_HOOKS:
        if getattr(type(spec), hook) is getattr(TaskTypeSpec, hook):
            problems.append(f"it does not implement {hook}")
    if len(spec.page) != 2:
        problems.append("its page is not (the annotation page, the unit fragment) templates")
    for template in spec.page:
        try:
            get_template(template)
        except TemplateDoesNotExist:
            problems.append(f"its page template {template} does not exist")
    if not (isinstance(spec.options_form, type) and issubclass(spec.options_form, CampaignOptionsForm)):
        problems.append("its options_form is not a CampaignOptionsForm")
    elif set(spec.options_form.base_fields) != set(COMMON_OPTIONS) | set(spec.options):
        problems.append("its options form does not have one field per option it takes (its own and the common ones)")
    problems.extend(formats_problems(spec))
    unknown = sorted(set(spec.judge_families) - set(FAMILIES))
    if unknown:
        problems.append(f"its judge_families name no judge family: {', '.join(unknown)} (known: "
                        f"{', '.join(sorted(FAMILIES))})")
    return problems


def formats_problems(spec: TaskTypeSpec) -> list[str]:
    """What is missing or wrong in SPEC's import formats, in words."""
    if not spec.formats:
        return ["it declares no import format"]
    problems = []
    odd = [repr(fmt) for fmt in spec.formats if not isinstance(fmt, ImportFormat)]
    if odd:
        return [f"its formats are not import formats (annotate.task_types.formats.ImportFormat): {', '.join(odd)}"]
    if len(spec.import_formats) != len(spec.formats):
        problems.append("it lists a format name twice")
    unexplained = [fmt.name for fmt in spec.formats if not fmt.help]
    if unexplained:
        problems.append(f"the import page has no help for its formats {', '.join(unexplained)} (their help)")
    unrun = [fmt.name for fmt in spec.formats if type(fmt).run is ImportFormat.run]
    if unrun:
        problems.append(f"its formats {', '.join(unrun)} do not implement run")
    try:
        parameters_of(import_formats_all())
        import_counts()
    except ValueError as exc:
        problems.append(str(exc))
    return problems


def task_types_check(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """Every registered task type's problems, one error each."""
    return [checks.Error(f"task type {spec.name!r}: {problem}", obj=type(spec), id="tasktypes.E001")
            for spec in task_types() for problem in spec_problems(spec)]
