"""What a task type's sample is (TaskTypeSpec.sample): small synthetic content of the type, in the type's own package
(tasktypes/<name>/sample.py), from which the project-wide tests build its campaigns (tests/project/test_query_counts.py
counts every page's queries on them), so that a new task type is covered by those tests without an edit to them. The
app never reads a sample."""

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple


class SampleItem(NamedTuple):
    """One candidate of a topic: ITEM, an unsaved annotate.models.Item; SYSTEM, the system whose output it is (a
    SystemOutput of rank 1 is made for it), or None when no system's output is it; OUTPUT, that SystemOutput's other
    fields."""

    item: object
    system: str | None = None
    output: dict = {}


class SampleJudge(NamedTuple):
    """A judge of the sample's campaigns: its name, its family (judges.families, or "external": imported verdicts)
    and its configuration."""

    name: str
    family: str
    config: dict = {}


def sample_score(n: int) -> float:
    """A judge's N-th score, spread over [0, 1) (the same for every type)."""
    return (n * 37 % 100) / 100


class TaskTypeSample:
    """A task type's sample. Subclasses set judges and override items, value and what else differs."""

    # The campaign options its campaigns need beside the defaults.
    options: dict = {}
    # The external id of topic number q.
    topic_id: str = "{}"
    # Two judges; the tests make the second fail on each topic's first item.
    judges: tuple[SampleJudge, ...] = ()
    # Queries its pages may run where they cost more than the tests' default bound: {(page, role): queries}, measured
    # plus headroom (tests/project/test_query_counts.py's BOUNDS are the defaults).
    bounds: dict[tuple[str, str], int] = {}

    def topic_data(self, q: int) -> dict:
        """Topic.data of topic number Q."""
        return {}

    def items(self, *, campaign, topic, q: int, systems: int, image: Callable[[str], dict]) -> list[SampleItem]:
        """The candidates of TOPIC, number Q, of CAMPAIGN, from SYSTEMS systems. IMAGE(image id) writes a small
        picture under MEDIA_ROOT and gives the Item.data an import writes for it."""
        raise NotImplementedError

    def value(self, n: int, candidates: list[int]) -> tuple[dict, str]:
        """The N-th human verdict: its value and its label; CANDIDATES are the pks of the items of the unit's topic
        (what a ranking orders)."""
        raise NotImplementedError

    def verdict(self, judge: int, n: int) -> tuple[float | None, str, str]:
        """The N-th verdict of judge number JUDGE (of judges): its score, label and raw output. A score and its yes or
        no by default."""
        score = sample_score(n)
        label = "yes" if score >= 0.5 else "no"
        return score, label, label

    def runs(self, *, campaign, items: list, systems: int, media_root: Path) -> tuple[list, dict]:
        """For a type that pools runs (spec.pools_runs): the unsaved SystemOutputs of SYSTEMS runs over the saved
        ITEMS of CAMPAIGN, and the options that name their files (written under MEDIA_ROOT), as a run import leaves
        them."""
        raise NotImplementedError
