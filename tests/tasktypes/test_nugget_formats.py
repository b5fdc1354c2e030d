"""nugget_evaluation's formats (tasktypes/nugget_evaluation/formats.py, docs/task-types/nugget_evaluation.md): the TREC
RAG answers with their cited segments, nuggetizer's nuggets and assignments, the AutoJudge harness's nugget banks,
the TSV lists and marks; each imported through the one entry point, refused with its file and line and nothing
written when bad, and written back by exports.py to the same rows."""

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from annotate.models import HumanJudgment, Item, JudgmentKind, SystemOutput, Topic, Unit
from annotate.services.campaigns import campaign_get_or_create
from interchange.importers.common import ImportDataError
from interchange.importers.service import ImportRequestError, import_run
from judges.models import ModelJudgment
from tasktypes.nugget_evaluation import exports
from tasktypes.nugget_evaluation.layout import topic_list, topic_lists

pytestmark = pytest.mark.django_db
TYPE = "nugget_evaluation"
EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "nugget_evaluation" / "examples"


def _campaign(slug="nuggets"):
    return campaign_get_or_create(slug=slug, task_type=TYPE, overlap=2)


def _example(name):
    return EXAMPLES / name


def _write(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _answers_folder(tmp_path, name="answers"):
    folder = tmp_path / name
    folder.mkdir()
    for name in ("answers.jsonl", "segments.tsv"):
        shutil.copy(_example(name), folder / name)
    return folder


def _state(campaign):
    """What a campaign holds, as plain data, for comparing two campaigns."""
    return {
        "topics": sorted((t.external_id, t.text, json.dumps(t.data, sort_keys=True))
                         for t in Topic.objects.filter(campaign=campaign)),
        "items": sorted((i.external_id, i.kind, i.text, json.dumps(i.data, sort_keys=True))
                        for i in Item.objects.filter(campaign=campaign)),
        "outputs": sorted(SystemOutput.objects.filter(campaign=campaign)
                          .values_list("system", "item__external_id", "rank")),
        "units": sorted(Unit.objects.filter(campaign=campaign)
                        .values_list("item__external_id", "judgments_needed", "judgments_done")),
        "humans": sorted((item, user.split("-annotator-")[-1], label, json.dumps(value, sort_keys=True))
                         for item, user, label, value in HumanJudgment.objects.filter(unit__campaign=campaign)
                         .values_list("unit__item__external_id", "annotator__username", "label", "value")),
        "judges": sorted(ModelJudgment.objects.filter(judge__campaign=campaign)
                         .values_list("judge__name", "item__external_id", "label", "raw")),
    }


def _without_sources(state):
    """STATE with each frozen list's source left out (an import's source names its file)."""
    topics = []
    for external_id, text, data in state["topics"]:
        data = json.loads(data)
        for found in [data.get("nuggets"), *(data.get("nugget_versions") or [])]:
            if found:
                found.pop("source", None)
        topics.append((external_id, text, json.dumps(data, sort_keys=True)))
    return {**state, "topics": topics}


def _units(campaign, prefix):
    return dict(Unit.objects.filter(campaign=campaign, item__external_id__startswith=prefix)
                .values_list("item__external_id", "judgments_needed"))


# --- rag-answers ---


def test_rag_answers_make_topics_answers_outputs_and_closed_units_with_the_cited_segments(tmp_path):
    campaign = _campaign()
    summary = import_run(campaign=campaign, fmt="rag-answers", paths=[_answers_folder(tmp_path)])

    assert summary.topics_created == 2
    assert summary.items_created == 6  # two creation items, four answers
    assert summary.systems == ["run-alpha", "run-beta"]
    answer = Item.objects.get(campaign=campaign, external_id="t1/run-alpha")
    assert answer.kind == "answer"
    assert answer.text == ("Worker bees gather nectar from flowers and carry it back to the hive. They fan it with "
                           "their wings until most of the water evaporates.")
    assert answer.data["run"] == "run-alpha" and answer.data["round"] == 1
    assert answer.data["sentences"][1]["citations"] == ["hive-3#0", "hive-7#2"]
    assert set(answer.data["segments"]) == {"hive-3#0", "hive-7#2"}
    # A citation by segment id is kept as it is.
    assert Item.objects.get(campaign=campaign, external_id="t2/run-alpha").data["sentences"][0]["citations"] == [
        "bake-1#4"]
    creation = Item.objects.get(campaign=campaign, external_id="t1/nuggets")
    assert creation.kind == "nuggets" and creation.text == "how do bees make honey"
    topic = Topic.objects.get(campaign=campaign, external_id="t1")
    assert [p["id"] for p in topic.data["passages"]] == ["hive-3#0", "hive-7#2"]  # each segment once
    assert SystemOutput.objects.filter(campaign=campaign, system="run-beta", rank=1).count() == 2
    # The answers wait for a frozen list; the creation units are open.
    assert set(_units(campaign, "t1/").values()) == {0, 2}
    assert _units(campaign, "t1/")["t1/nuggets"] == 2


def test_rag_answers_from_a_zip_and_answers_added_to_a_frozen_topic_are_open(tmp_path):
    campaign = _campaign()
    import_run(campaign=campaign, fmt="nuggetizer-nuggets", paths=[_example("nuggets.jsonl")])
    archive = tmp_path / "answers.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.write(_example("answers.jsonl"), "run/answers.jsonl")
        bundle.write(_example("segments.tsv"), "run/segments.tsv")
    root = tmp_path / "upload"
    root.mkdir()
    shutil.copy(archive, root / "answers.zip")
    fmt = next(f for f in campaign_spec_formats() if f.name == "rag-answers")
    paths = fmt.uploaded_paths(root=root, paths=[root / "answers.zip"])
    import_run(campaign=campaign, fmt="rag-answers", paths=paths)

    assert _units(campaign, "t1/run")["t1/run-alpha"] == 2
    assert Item.objects.get(campaign=campaign, external_id="t1/run-beta").data["segments"] == {
        "hive-7#2": "Inside the hive, bees fan the stored nectar until its water content falls below a fifth."}


def campaign_spec_formats():
    from annotate.task_types.registry import task_type_get

    return task_type_get(TYPE).formats


def test_rag_answers_import_again_is_a_no_op_and_another_text_is_refused(tmp_path):
    campaign = _campaign()
    folder = _answers_folder(tmp_path)
    import_run(campaign=campaign, fmt="rag-answers", paths=[folder])
    before = _state(campaign)
    again = import_run(campaign=campaign, fmt="rag-answers", paths=[folder])
    assert again.items_created == 0 and _state(campaign) == before

    rows = [json.loads(line) for line in _example("answers.jsonl").read_text().splitlines()]
    rows[1]["answer"][0]["text"] = "Something else."
    with pytest.raises(ImportDataError,
                       match=r"answers\.jsonl:2: answer: the answer of run 'run-beta'.*other sentences"):
        import_run(campaign=campaign, fmt="rag-answers", paths=[_write(tmp_path / "answers.jsonl", rows)])
    assert _state(campaign) == before


@pytest.mark.parametrize(("change", "message"), [
    (lambda row: row.pop("topic_id"), r"bad\.jsonl:2: topic_id: missing key"),
    (lambda row: row.update(answer=[{"text": "x", "citations": [5]}]),
     r"bad\.jsonl:2: citations: sentence 1: citation 5 is not an index into references"),
    (lambda row: row.update(answer="just text"), r"bad\.jsonl:2: answer: expected a list of sentences"),
    (lambda row: row.update(topic="another query"), r"bad\.jsonl:2: topic: topic 't1' has another text"),
    (lambda row: row.update(run_id="run-alpha"), r"bad\.jsonl:2: run_id: run 'run-alpha' answered topic 't1' on "
                                                 r"line 1 of bad\.jsonl already"),
])
def test_rag_answers_bad_lines_are_refused_with_file_and_line_and_nothing_is_written(tmp_path, change, message):
    campaign = _campaign()
    rows = [json.loads(line) for line in _example("answers.jsonl").read_text().splitlines()]
    change(rows[1])
    with pytest.raises(ImportDataError, match=message):
        import_run(campaign=campaign, fmt="rag-answers", paths=[_write(tmp_path / "bad.jsonl", rows)])
    assert not Topic.objects.filter(campaign=campaign).exists()
    assert not Item.objects.filter(campaign=campaign).exists()


def test_rag_answers_round_trip_through_the_export(tmp_path):
    campaign = _campaign()
    import_run(campaign=campaign, fmt="rag-answers", paths=[_answers_folder(tmp_path)])
    folder = tmp_path / "exported"
    folder.mkdir()
    (folder / "answers.jsonl").write_text(exports.answers_rag_jsonl(campaign))
    (folder / "segments.jsonl").write_text(exports.segments_jsonl(campaign))
    other = _campaign("again")
    import_run(campaign=other, fmt="rag-answers", paths=[folder])

    assert _state(other) == _state(campaign)
    assert exports.answers_rag_jsonl(other) == exports.answers_rag_jsonl(campaign)


# --- nugget lists ---


def test_nuggetizer_nuggets_freeze_each_topics_list_and_make_the_topic(tmp_path):
    campaign = _campaign()
    summary = import_run(campaign=campaign, fmt="nuggetizer-nuggets", paths=[_example("nuggets.jsonl")])

    assert summary.topics_created == 2 and summary.items_created == 2
    assert "nugget lists frozen: 2" in summary.lines()
    frozen = topic_list(Topic.objects.get(campaign=campaign, external_id="t1").data)
    assert frozen["version"] == 1 and frozen["source"] == "import:nuggets.jsonl"
    assert frozen["nuggets"][1] == {"id": "n2", "text": "Bees evaporate water from the nectar by fanning",
                                    "importance": "vital"}
    assert Topic.objects.get(campaign=campaign, external_id="t2").text == "why does bread dough rise"


def test_nugget_lists_as_proposals_are_kept_not_frozen():
    campaign = _campaign()
    import_run(campaign=campaign, fmt="nuggets-tsv", paths=[_example("nuggets.tsv")], as_proposals=True)

    topic = Topic.objects.get(campaign=campaign, external_id="t2")
    assert topic_list(topic.data) is None
    assert topic.text == "t2"  # a TSV gives no query: the topic's id stands for it until answers give one
    import_run(campaign=campaign, fmt="rag-answers", paths=[_example("answers.jsonl")])
    assert Item.objects.get(campaign=campaign, external_id="t2/nuggets").text == "why does bread dough rise"
    assert [n["text"] for n in topic.data["proposals"]["import:nuggets.tsv"]] == [
        "Yeast produces carbon dioxide", "Gluten holds the gas in the dough"]


def test_as_proposals_is_refused_by_a_format_that_takes_no_list():
    with pytest.raises(ImportRequestError, match="as-proposals"):
        import_run(campaign=_campaign(), fmt="rag-answers", paths=[_example("answers.jsonl")], as_proposals=True)


def test_a_nugget_bank_is_mapped_to_our_nuggets_questions_and_claims_alike():
    campaign = _campaign()
    import_run(campaign=campaign, fmt="autojudge-nugget-bank", paths=[_example("nugget_bank.json")])

    topic = Topic.objects.get(campaign=campaign, external_id="t1")
    assert topic.text == "how do bees make honey"
    assert topic_list(topic.data)["nuggets"] == [
        {"id": "n1", "text": "How do bees get the nectar?", "importance": "vital"},
        {"id": "n2", "text": "How is water removed from the nectar?", "importance": "vital"},  # importance 1
        {"id": "n3", "text": "Honey cells are capped with wax", "importance": "okay"},
    ]


@pytest.mark.parametrize(("fmt", "name", "text", "message"), [
    ("nuggetizer-nuggets", "bad.jsonl",
     '{"qid": "t1", "query": "q", "nuggets": [{"text": "a", "importance": "high"}]}\n',
     r"bad\.jsonl:1: importance: nugget 1: importance is vital or okay, not 'high'"),
    ("nuggetizer-nuggets", "bad.jsonl", '{"qid": "t1", "query": "q", "nuggets": []}\n',
     r"bad\.jsonl:1: nuggets: topic 't1': a nugget list needs at least one nugget"),
    ("nuggetizer-nuggets", "bad.jsonl",
     '{"qid": "t1", "query": "q", "nuggets": [{"text": "a", "importance": "vital"}]}\n'
     '{"qid": "t1", "query": "q", "nuggets": [{"text": "b", "importance": "vital"}]}\n',
     r"bad\.jsonl:2: topic: topic 't1' has a list on line 1 of bad\.jsonl already"),
    ("nuggets-tsv", "bad.tsv", "topic\tnugget\ttext\nt1\tn1\ta\n", r"bad\.tsv:1: importance: missing column"),
    ("nuggets-tsv", "bad.tsv", "topic\tnugget\timportance\ttext\nt1\tn1\tvital\ta\nt1\tn1\tokay\tb\n",
     r"bad\.tsv:2: nuggets: topic 't1': nugget id 'n1' is used twice"),
    ("autojudge-nugget-bank", "bad.json", '{"query_id": "t1", "title_query": "q", "nugget_bank": {"k": {"x": 1}}}',
     r"bad\.json:0: nugget_bank: nugget 'k' is neither a question nor a claim"),
    ("autojudge-nugget-bank", "bad.jsonl", '{"title_query": "q", "nugget_bank": {"k": {"claim": "c"}}}\n',
     r"bad\.jsonl:1: query_id: a bank needs its query_id"),
])
def test_bad_nugget_lists_are_refused_with_file_and_line_and_nothing_is_written(tmp_path, fmt, name, text, message):
    campaign = _campaign()
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ImportDataError, match=message):
        import_run(campaign=campaign, fmt=fmt, paths=[path])
    assert not Topic.objects.filter(campaign=campaign).exists()


@pytest.mark.parametrize(("fmt", "export", "name"), [
    ("nuggetizer-nuggets", exports.nuggets_nuggetizer_jsonl, "nuggets.jsonl"),
    ("nuggets-tsv", exports.nuggets_tsv, "nuggets.tsv"),
    ("autojudge-nugget-bank", exports.nugget_banks_jsonl, "banks.jsonl"),
])
def test_nugget_lists_round_trip_through_each_export(tmp_path, fmt, export, name):
    campaign = _campaign()
    import_run(campaign=campaign, fmt=fmt, paths=[_example(name if fmt != "autojudge-nugget-bank"
                                                           else "nugget_bank.json")])
    path = tmp_path / name
    path.write_text(export(campaign))
    other = _campaign("again")
    import_run(campaign=other, fmt=fmt, paths=[path])

    assert _without_sources(_state(other)) == _without_sources(_state(campaign))
    assert export(other) == export(campaign)


# --- assignments ---


def _answers_and_nuggets(tmp_path, campaign):
    import_run(campaign=campaign, fmt="rag-answers", paths=[_answers_folder(tmp_path, campaign.slug)])
    import_run(campaign=campaign, fmt="nuggetizer-nuggets", paths=[_example("nuggets.jsonl")])


def test_nuggetizer_assignments_are_an_assessors_marks_on_the_answers(tmp_path):
    campaign = _campaign()
    _answers_and_nuggets(tmp_path, campaign)
    assert _units(campaign, "t1/run")["t1/run-alpha"] == 2  # the frozen list opened them
    summary = import_run(campaign=campaign, fmt="nuggetizer-assignments", paths=[_example("assignments.jsonl")])

    assert summary.human_judgments_created == 4 and summary.items_created == 0
    judgment = HumanJudgment.objects.get(unit__item__external_id="t1/run-beta")
    assert judgment.annotator.username == "nuggets-annotator-ann"
    assert judgment.kind == JudgmentKind.ANNOTATION
    assert judgment.value == {"version": 1, "marks": {"n1": "not_support", "n2": "partial_support",
                                                      "n3": "support"}}
    assert judgment.label == "nps"
    assert Unit.objects.get(item__external_id="t1/run-beta").judgments_done == 1


def test_nuggetizer_assignments_freeze_a_topic_with_no_list_and_make_missing_answers():
    campaign = _campaign()
    summary = import_run(campaign=campaign, fmt="nuggetizer-assignments", paths=[_example("assignments.jsonl")])

    assert summary.topics_created == 2 and summary.human_judgments_created == 4
    frozen = topic_list(Topic.objects.get(campaign=campaign, external_id="t2").data)
    assert [n["text"] for n in frozen["nuggets"]] == ["Yeast produces carbon dioxide",
                                                      "Gluten holds the gas in the dough"]
    assert frozen["source"] == "import:assignments.jsonl"
    answer = Item.objects.get(campaign=campaign, external_id="t2/run-beta")
    assert answer.data["sentences"] == [{"text": "Dough rises because it is left somewhere warm.", "citations": []}]
    assert _units(campaign, "t2/run")["t2/run-beta"] == 2


def test_assignments_under_a_judge_name_are_that_judges_verdicts(tmp_path):
    campaign = _campaign()
    _answers_and_nuggets(tmp_path, campaign)
    summary = import_run(campaign=campaign, fmt="assignments-tsv", paths=[_example("assignments.tsv")],
                         judge="nuggetizer-gpt")

    assert summary.model_judgments_created == {"nuggetizer-gpt": 4}
    verdict = ModelJudgment.objects.get(judge__name="nuggetizer-gpt", item__external_id="t1/run-alpha")
    assert verdict.label == "ssn"
    assert json.loads(verdict.raw) == {"version": 1, "marks": {"n1": "support", "n2": "support",
                                                               "n3": "not_support"}, "failed": {}}
    assert not HumanJudgment.objects.filter(unit__campaign=campaign).exists()
    # A judge marks an answer once: a second assessor's marks in the file are counted as not used.
    rows = _example("assignments.tsv").read_text().splitlines()
    twice = tmp_path / "twice.tsv"
    twice.write_text("\n".join([*rows, *(row.replace("bob", "carl") for row in rows[1:4])]) + "\n")
    summary = import_run(campaign=campaign, fmt="assignments-tsv", paths=[twice], judge="nuggetizer-gpt")
    assert summary.model_judgments_created == {"nuggetizer-gpt": 0}
    assert summary.lines_unused[0]["lines"] == 1


@pytest.mark.parametrize(("fmt", "name", "change", "message"), [
    ("nuggetizer-assignments", "bad.jsonl", lambda rows: rows[1]["nuggets"][0].update(text="Bees like flowers"),
     r"bad\.jsonl:2: nuggets: nugget 1 \('Bees like flowers'\) is not in the frozen list of topic 't1'"),
    ("nuggetizer-assignments", "bad.jsonl", lambda rows: rows[0]["nuggets"][2].update(assignment="maybe"),
     r"bad\.jsonl:1: assignment: nugget 3: a mark is support, partial_support or not_support, not 'maybe'"),
    ("nuggetizer-assignments", "bad.jsonl", lambda rows: rows[2]["nuggets"].pop(),
     r"bad\.jsonl:3: nuggets: topic 't2': 1 of the 2 nuggets of its list are not marked"),
    ("assignments-tsv", "bad.tsv", lambda rows: rows.__setitem__(1, "t1\trun-gamma\tn1\tsupport\tbob"),
     r"bad\.tsv:2: run: no answer of run 'run-gamma' to topic 't1'"),
    ("assignments-tsv", "bad.tsv", lambda rows: rows.__setitem__(1, "t1\trun-alpha\tn9\tsupport\tbob"),
     r"bad\.tsv:2: nugget: no nugget 'n9' in the frozen list of topic 't1'"),
    ("assignments-tsv", "bad.tsv", lambda rows: rows.__setitem__(2, "t1\trun-alpha\tn1\tnot_support\tbob"),
     r"bad\.tsv:3: mark: nugget 'n1' of run 'run-alpha'.*marked 'support' on an earlier line"),
])
def test_bad_assignments_are_refused_with_file_and_line_and_nothing_is_written(tmp_path, fmt, name, change, message):
    campaign = _campaign()
    _answers_and_nuggets(tmp_path, campaign)
    before = _state(campaign)
    if fmt == "assignments-tsv":
        rows = _example("assignments.tsv").read_text().splitlines()
        change(rows)
        (tmp_path / name).write_text("\n".join(rows) + "\n")
    else:
        rows = [json.loads(line) for line in _example("assignments.jsonl").read_text().splitlines()]
        change(rows)
        _write(tmp_path / name, rows)
    with pytest.raises(ImportDataError, match=message):
        import_run(campaign=campaign, fmt=fmt, paths=[tmp_path / name])
    assert _state(campaign) == before


def test_marks_of_a_topic_with_no_list_in_a_tsv_are_refused():
    campaign = _campaign()
    with pytest.raises(ImportDataError, match=r"assignments\.tsv:2: topic: no topic 't1' in the campaign"):
        import_run(campaign=campaign, fmt="assignments-tsv", paths=[_example("assignments.tsv")])


@pytest.mark.parametrize(("fmt", "export", "name"), [
    ("nuggetizer-assignments", exports.assignments_nuggetizer_jsonl, "assignments.jsonl"),
    ("assignments-tsv", exports.assignments_tsv, "assignments.tsv"),
])
@pytest.mark.parametrize("judge", [None, "auto"])
def test_marks_round_trip_through_each_export(tmp_path, fmt, export, name, judge):
    campaign, other = _campaign(), _campaign("again")
    for target in (campaign, other):
        _answers_and_nuggets(tmp_path, target)
    import_run(campaign=campaign, fmt=fmt, paths=[_example(name)], judge=judge)
    path = tmp_path / name
    path.write_text(export(campaign, judge=judge))
    import_run(campaign=other, fmt=fmt, paths=[path], judge=judge)

    assert _without_sources(_state(other)) == _without_sources(_state(campaign))
    assert export(other, judge=judge) == export(campaign, judge=judge)
    assert export(campaign, judge=judge).count("\n") == (4 if fmt == "nuggetizer-assignments" else 11)
    if fmt == "assignments-tsv" and judge is None:
        assert export(campaign) == _example(name).read_text()


def test_a_second_list_after_marks_starts_round_two_and_the_first_rounds_marks_stay(tmp_path):
    campaign = _campaign()
    _answers_and_nuggets(tmp_path, campaign)
    import_run(campaign=campaign, fmt="nuggetizer-assignments", paths=[_example("assignments.jsonl")])
    marks_before = sorted(HumanJudgment.objects.filter(unit__campaign=campaign).values_list(
        "unit__item__external_id", "label"))
    revised = tmp_path / "revised.tsv"
    revised.write_text("topic\tnugget\timportance\ttext\n"
                       "t1\tn1\tvital\tBees collect nectar from flowers\n"
                       "t1\tn2\tokay\tHoney is stored in wax cells\n")
    summary = import_run(campaign=campaign, fmt="nuggets-tsv", paths=[revised])

    assert any("t1 (round 2)" in note for note in summary.notes)
    topic = Topic.objects.get(campaign=campaign, external_id="t1")
    assert [found["version"] for found in topic_lists(topic.data)] == [1, 2]
    assert set(_units(campaign, "t1/run")) == {"t1/run-alpha", "t1/run-beta", "t1/run-alpha@2", "t1/run-beta@2"}
    assert _units(campaign, "t1/run")["t1/run-alpha@2"] == 2
    assert sorted(HumanJudgment.objects.filter(unit__campaign=campaign).values_list(
        "unit__item__external_id", "label")) == marks_before
    # The new round's marks go to the round-2 answers.
    import_run(campaign=campaign, fmt="assignments-tsv", paths=[_write_tsv(tmp_path / "round2.tsv", [
        ("t1", "run-alpha", "n1", "support"), ("t1", "run-alpha", "n2", "not_support")])])
    assert HumanJudgment.objects.get(unit__item__external_id="t1/run-alpha@2").value == {
        "version": 2, "marks": {"n1": "support", "n2": "not_support"}}
    # t2's list was not replaced: its answers stay in round 1.
    assert not Item.objects.filter(campaign=campaign, external_id__startswith="t2/", external_id__contains="@").exists()


def _write_tsv(path, rows):
    path.write_text("topic\trun\tnugget\tmark\n" + "".join("\t".join(row) + "\n" for row in rows))
    return path


def test_the_harness_container_of_banks_is_read_bank_by_bank(tmp_path):
    bank = json.loads(_example("nugget_bank.json").read_text())
    other = {"query_id": 7, "title_query": "why does bread dough rise",
             "nugget_bank": {"Yeast makes gas": {"claim": "Yeast makes gas", "query_id": "7", "importance": 0}}}
    path = tmp_path / "banks.json"
    path.write_text(json.dumps({"format_version": "v3", "banks": {"t1": bank, "7": other}}))
    campaign = _campaign()
    summary = import_run(campaign=campaign, fmt="autojudge-nugget-bank", paths=[path])

    assert "nugget lists frozen: 2" in summary.notes
    assert topic_list(Topic.objects.get(campaign=campaign, external_id="7").data)["nuggets"] == [
        {"id": "n1", "text": "Yeast makes gas", "importance": "okay"}]


def test_rag_answers_with_only_a_segments_file_are_refused(tmp_path):
    folder = tmp_path / "only"
    folder.mkdir()
    shutil.copy(_example("segments.tsv"), folder / "segments.tsv")
    with pytest.raises(ImportDataError, match=r"files: no answers: rag-answers reads \.jsonl files"):
        import_run(campaign=_campaign(), fmt="rag-answers", paths=[folder])
