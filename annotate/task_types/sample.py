"""What a task type's sample is (TaskTypeSpec.sample): small synthetic content of the type, in the type's own package
(tasktypes/<name>/sample.py), from which the project-wide tests build its campaigns (tests/project/test_query_counts.py
counts every page's queries on them; tests/project/test_browser_injection.py imports the files of its injection part,
laden with script payloads, and checks every page shows them as text), so that a new task type is covered by those
tests without an edit to them. The app never reads a sample."""

from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple


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
    # Its part of the browser injection journey (tests/project/test_browser_injection.py fails for a type without).
    injection: "InjectionSample | None" = None

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

    def form_answer(self, page: str) -> dict:
        """The fields the annotation page's form sends for a valid verdict on the unit PAGE (the unit's fragment, as
        the annotator's browser gets it) shows, beside the assignment, shown_version and submission ids: what
        tests/annotate/test_annotation_query_counts.py and bench/bench_requests.py submit."""
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


class InjectionKit(NamedTuple):
    """What tests/project/test_browser_injection.py hands a type's injection part (TaskTypeSample.injection): its
    payloads and helpers, so that the payloads stay defined in the test and the part only says where they go."""

    folder: Path  # where the part writes its files
    loaded: Callable[..., str]  # loaded(label, *payload names): LABEL followed by the payloads (default all)
    token: Callable[[str], str]  # token(label): LABEL with the payloads that hold no whitespace glued on
    topic_payload: str  # payloads for a topic id (no slash: item ids are "<topic>/<item>")
    evil_url: str  # an http(s) URL with breakouts in it
    js_url: str  # a javascript: "URL"
    systems: tuple[str, ...]  # two system names
    judges: tuple[str, ...]  # three judge names
    runs: tuple[str, ...]  # three run tags
    run_tag: str  # a run's descriptive tag
    campaign: Callable[..., Any]  # campaign(task_type, overlap=n): the campaign, its researcher and annotators
    write: Callable[[str, list[str]], Path]  # write(file name, lines): the file, in folder
    write_csv: Callable[[str, list[dict]], Path]  # write_csv(file name, rows): a CSV with a header, in folder
    web_judgments: Callable[..., None]  # web_judgments(campaign, value_for(rater, n) -> value): the raters judge
    judge_scores: Callable[..., None]  # judge_scores(campaign, name, flip=0, labels=("yes", "no")): a judge imported
    images: Callable[[Path, list[str]], None]  # images(folder, image ids): small pictures written in FOLDER


class InjectionSample:
    """A task type's part of the browser injection journey (tests/project/test_browser_injection.py): how its
    campaign is imported from payload-laden files through its real importers, and which of those texts each page
    must show. The test opens the same pages for every type and asks this part what differs."""

    # The key that gives a verdict on the annotation page, so that the next unit comes.
    next_key: str = "n"
    # How many SVG plots its report draws for the campaign build() makes.
    plots: int = 1
    # The labels of its judges' imported scores: (the label of a high score, of a low one).
    judge_labels: tuple[str, str] = ("yes", "no")

    def build(self, kit: InjectionKit):
        """The campaign, imported from files whose every text field carries KIT's payloads: some units judged on the
        web by KIT's raters, some left for the annotator "ann"; KIT's judges' scores imported."""
        raise NotImplementedError

    def unit_texts(self, assignment) -> list[str]:
        """The imported texts of ASSIGNMENT's unit: what the annotation page must show, word for word."""
        raise NotImplementedError

    def unit_checked(self, kit: InjectionKit, page, assignment) -> object:
        """A check of its own on the annotation PAGE (Playwright's) showing ASSIGNMENT's unit; what it saw, which
        the test gathers over the units it opens and compares with units_seen."""
        return None

    def units_seen(self, kit: InjectionKit) -> set:
        """What unit_checked sees over the first two units the annotator is given."""
        return {None}

    def systems(self, kit: InjectionKit) -> list[str]:
        """The names of the systems (or runs) its report and downloads show."""
        return list(kit.systems)

    def campaign_texts(self, kit: InjectionKit, campaign) -> list[str]:
        """The imported texts the campaign page shows besides the campaign's name and description."""
        return []

    def report_texts(self, kit: InjectionKit, campaign, report: dict) -> list[str]:
        """The imported texts its report page shows besides the campaign's and judges' names; REPORT is the
        document."""
        return self.systems(kit)

    def plot_texts(self, kit: InjectionKit, campaign) -> list[str]:
        """The labels its report's SVG plots carry."""
        return list(kit.judges)

    def downloads(self, kit: InjectionKit, campaign, topics: list[str]) -> list[tuple[str, str, list[str]]]:
        """(URL, kind: json, csv or qrels, names it must hold) of the downloads of its own the report page offers
        besides the JSON document and the judges' and labels' CSVs; TOPICS are the judged topics' ids."""
        from django.urls import reverse

        return [(reverse("agreement-systems-csv", args=[campaign.slug]), "csv", [*kit.judges, *self.systems(kit)])]

    def report_checked(self, kit: InjectionKit, page, campaign, get: Callable[[str], int]) -> None:
        """A check of its own on the report PAGE (Playwright's); GET(path) fetches a path as the researcher and
        gives the status."""
