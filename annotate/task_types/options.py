"""The options every task type takes (a task type adds its own in TaskTypeSpec.options): name -> check(name, value)
giving the problem, or None when fine. The checks of a feature's options sit beside its vocabulary (annotate.arms,
annotate.adjudication_kinds); the plain checks are here."""

from collections.abc import Callable

from annotate.adjudication_kinds import adjudication_check, judge_name_check
from annotate.arms import ARM_ASSIGNMENTS, ARM_PER, arms_check
from annotate.words import or_list

# The order in which open units are offered to annotators (option queue_order; annotate.selectors.queue_order).
QUEUE_ORDERS = {
    "position": "in the order the units were imported",
    "informative": "first the units the judges disagree on most, then those they are least sure of",
    "sample": "a sample of the topics drawn by the plan of option ppi_plan, which the humans-and-judges estimate "
              "weights (more where the judges disagree, under the active plan)",
}
# The plans that choose which units humans label, for the report's humans-and-judges check (stats.label_plans).
PPI_PLANS = {
    "active": "more labels where the judge is unsure",
    "stratified": "by the judge's doubt, in strata",
    "uniform": "every unit alike",
}


def whole_number(key: str, value) -> str | None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        return f"{key} must be a whole number, at least 1"
    return None


def share(key: str, value) -> str | None:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value <= 1:
        return f"{key} must be a share from 0 to 1"
    return None


def open_share(key: str, value) -> str | None:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 < value < 1:
        return f"{key} must be a share greater than 0 and less than 1 (e.g. 0.1)"
    return None


def width(key: str, value) -> str | None:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 < value <= 2:
        return f"{key} must be an interval width greater than 0 and at most 2 (e.g. 0.1)"
    return None


def persistence(key: str, value) -> str | None:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 < value < 1:
        return f"{key} must be a number strictly between 0 and 1, e.g. 0.9"
    return None


def margin(key: str, value) -> str | None:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value < 1:
        return f"{key} must be a number from 0 up to (not including) 1, e.g. 0.2"
    return None


def yes_no(key: str, value) -> str | None:
    if not isinstance(value, bool):
        return f"{key} must be true or false"
    return None


def choice(choices: dict[str, str]) -> Callable[[str, object], str | None]:
    def check(key: str, value) -> str | None:
        if value not in choices:
            return f"{key} is one of {or_list(list(choices))}, not {value!r}"
        return None
    return check


COMMON_OPTIONS: dict[str, Callable[[str, object], str | None]] = {
    # The report's coverage rules (reports.system_level and reports.verdicts).
    "min_system_outputs": whole_number,
    "small_sample": whole_number,
    "min_system_coverage": share,
    # Ranking agreement at the top (stats.rank_agreement): RBO's persistence, and k of overlap@k and tau-b@k.
    "rbo_p": persistence,
    "top_k": whole_number,
    # After an import that adds items, start each configured judge on them (interchange.jobs).
    "judge_new_items": yes_no,
    # The assistance experiment (docs/arms.md; annotate.services.arms, reports.arms).
    "arms": arms_check,
    "arm_assignment": choice(ARM_ASSIGNMENTS),
    "arm_per": choice(ARM_PER),
    # What puts a unit in the adjudication queue (annotate.selectors.adjudication), and the judge of kind "judge".
    "adjudication": adjudication_check,
    "adjudication_judge": judge_name_check,
    # The labelling budget (stats.budget): the interval width it counts labels towards, and the queue order.
    "budget_width": width,
    "queue_order": choice(QUEUE_ORDERS),
    # Humans and judges together (reports.ppi): the plan of its check and the share of units the check labels.
    "ppi_plan": choice(PPI_PLANS),
    "ppi_check_share": open_share,
    # The alternative annotator test's cost-benefit margin (stats.replacement, reports.replacement).
    "alt_test_epsilon": margin,
}
