"""pairwise_preference's formats (issue 33): MT-Bench's human judgments, Chatbot Arena's conversations, TREC preference
lines with their texts, pairs made from systems' outputs (all, or a seeded draw), a pair named again taking another
rater's verdict, and a file's verdicts imported as an external judge's."""

import io
import json
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from agreement.report import agreement_report_build
from annotate.models import HumanJudgment, Item, JudgmentKind, Membership, Role, Topic
from annotate.services.campaigns import campaign_get_or_create, campaign_options_set
from interchange.importers.common import ImportDataError
from interchange.importers.service import ImportRequestError, import_run
from interchange.importers.uploads import uploads_import
from judges.models import ModelJudgment
from tests.import_jobs_support import api_import, imports_inline  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db
TYPE = "pairwise_preference"


def _campaign(slug="prefs"):
    return campaign_get_or_create(slug=slug, task_type=TYPE)


def _conversation(*turns):
    return [{"role": role, "content": text} for question, answer in turns
            for role, text in (("user", question), ("assistant", answer))]


def _write(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _verdicts(campaign):
    return sorted(HumanJudgment.objects.filter(unit__campaign=campaign, kind=JudgmentKind.ANNOTATION)
                  .values_list("unit__item__external_id", "annotator__username", "label"))


def test_mt_bench_judgments_make_one_pair_per_question_turn_and_models_with_each_raters_verdict(tmp_path):
    one = ("Write a haiku about rain.", "Soft rain on the roof")
    two = ("Now make it about snow.", "Snow hushes the street")
    rows = [
        {
            "question_id": 81,
            "model_a": "alpha",
            "model_b": "beta",
            "winner": "model_a",
            "judge": "expert_0",
            "turn": 1,
            "conversation_a": _conversation(one, two),
            "conversation_b": _conversation((one[0], "Rain."), (two[0], "Snow.")),
        },
        {
            "question_id": 81,
            "model_a": "alpha",
            "model_b": "beta",
            "winner": "tie",
            "judge": "author_2",
            "turn": 1,
            "conversation_a": _conversation(one, two),
            "conversation_b": _conversation((one[0], "Rain."), (two[0], "Snow.")),
        },
        {
            "question_id": 81,
            "model_a": "alpha",
            "model_b": "beta",
            "winner": "model_b",
            "judge": "expert_0",
            "turn": 2,
            "conversation_a": _conversation(one, two),
            "conversation_b": _conversation((one[0], "Rain."), (two[0], "Snow.")),
        },
    ]
    campaign = _campaign()
    summary = import_run(campaign=campaign, fmt="mt-bench-human", paths=[_write(tmp_path / "human.jsonl", rows)])
    assert (summary.topics_created, summary.items_created, summary.human_judgments_created) == (2, 2, 3)
    assert dict(Topic.objects.filter(campaign=campaign).values_list("external_id", "text")) == {
        "81": one[0], "81/turn-2": f"**Question 1.** {one[0]}\n\n**Question 2.** {two[0]}"}
    second = Item.objects.get(campaign=campaign, external_id="81/turn-2/alpha-vs-beta")
    assert second.data["a"] == {"system": "alpha", "text": f"**Turn 1.** {one[1]}\n\n**Turn 2.** {two[1]}"}
    assert _verdicts(campaign) == [("81/alpha-vs-beta", "prefs-annotator-author_2", "tie"),
                                   ("81/alpha-vs-beta", "prefs-annotator-expert_0", "a"),
                                   ("81/turn-2/alpha-vs-beta", "prefs-annotator-expert_0", "b")]
    # GPT-4's pairwise judgments, the same layout, import as an external judge's (its inconsistent ties included).
    judge_rows = [{**rows[0], "judge": "gpt4_pair", "winner": "tie (inconsistent)"},
                  {**rows[2], "judge": "gpt4_pair", "winner": "model_b"}]
    summary = import_run(campaign=campaign, fmt="mt-bench-human", paths=[_write(tmp_path / "gpt4.jsonl", judge_rows)],
                         judge="gpt4-pair")
    assert summary.model_judgments_created == {"gpt4-pair": 2} and summary.items_created == 0
    assert sorted(ModelJudgment.objects.filter(judge__name="gpt4-pair").values_list("label", flat=True)) == [
        "b", "inconsistent"]
    # A human verdict cannot be order-inconsistent.
    with pytest.raises(ImportDataError, match="human.jsonl:1: winner: winner is a, b, tie or both_bad, not "
                                              "'inconsistent'"):
        import_run(campaign=campaign, fmt="mt-bench-human", paths=[_write(tmp_path / "human.jsonl", judge_rows)])


def test_arena_conversations_are_a_pair_each_with_both_bad_kept(tmp_path):
    question = ("What is 2+2?", "4")
    rows = [{"question_id": f"q{n}", "model_a": "alpha", "model_b": "beta", "winner": winner, "judge": f"user_{n}",
             "conversation_a": _conversation(question), "conversation_b": _conversation((question[0], "22")),
             "turn": 1, "language": "English", "tstamp": 1.0}
            for n, winner in enumerate(("model_a", "tie (bothbad)", "tie"))]
    campaign = _campaign()
    summary = import_run(campaign=campaign, fmt="arena-conversations", paths=[_write(tmp_path / "arena.jsonl", rows)])
    assert (summary.topics_created, summary.items_created, summary.human_judgments_created) == (3, 3, 3)
    assert [label for _, _, label in _verdicts(campaign)] == ["a", "both_bad", "tie"]


def test_trec_preference_lines_become_pairs_of_documents_whichever_side_a_line_puts_them(tmp_path):
    folder = tmp_path / "prefs"
    folder.mkdir()
    (folder / "topics.tsv").write_text("1037798\twho was the first woman in space\n")
    (folder / "collection.tsv").write_text("7\tValentina Tereshkova flew in 1963.\n12\tSally Ride flew in 1983.\n"
                                           "30\tThe moon has no air.\n")
    (folder / "prefs.txt").write_text("1037798 7 12 7 nist1\n1037798 12 7 7 nist2\n1037798 30 7 tie nist1\n")
    campaign = _campaign()
    summary = import_run(campaign=campaign, fmt="trec-preferences", paths=[folder])
    assert (summary.items_created, summary.human_judgments_created) == (2, 3)
    pair = Item.objects.get(campaign=campaign, external_id="1037798/12-vs-7")  # the smaller id as A
    assert pair.data == {"a": {"system": "12", "text": "Sally Ride flew in 1983."},
                         "b": {"system": "7", "text": "Valentina Tereshkova flew in 1963."}}
    assert _verdicts(campaign) == [("1037798/12-vs-7", "prefs-annotator-nist1", "b"),
                                   ("1037798/12-vs-7", "prefs-annotator-nist2", "b"),
                                   ("1037798/30-vs-7", "prefs-annotator-nist1", "tie")]
    # Uploaded as a .zip of the folder, from the browser or the API.
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in folder.iterdir():
            archive.write(path, f"prefs/{path.name}")
    other = _campaign("zipped")
    summary = uploads_import(campaign=other, fmt="trec-preferences",
                             files=[SimpleUploadedFile("prefs.zip", buffer.getvalue())])
    assert summary.items_created == 2 and _verdicts(other)[0][2] == "b"
    (folder / "collection.tsv").unlink()
    with pytest.raises(ImportDataError, match="collection.tsv is missing"):
        import_run(campaign=_campaign("missing"), fmt="trec-preferences", paths=[folder])


def _outputs(tmp_path, systems=("s1", "s2", "s3", "s4"), prompts=5):
    return _write(tmp_path / "outputs.jsonl", [
        {"prompt_id": f"p{p}", "prompt": f"Question {p}", "system": system, "response": f"{system} on {p}"}
        for p in range(prompts) for system in systems if not (system == "s4" and p == 0)])


def _pairs(campaign):
    return sorted(Item.objects.filter(campaign=campaign).values_list("external_id", flat=True))


def test_pairs_from_outputs_are_every_pair_or_a_seeded_draw_of_prompts(tmp_path):
    path = _outputs(tmp_path)
    every = _campaign("every")
    summary = import_run(campaign=every, fmt="pairwise-outputs", paths=[path])
    # Six pairs of systems on each of five prompts, but s4 did not answer p0: three pairs fewer.
    assert summary.items_created == 27
    assert "pairs made: 27, every pair of systems on every prompt both answered" in summary.notes
    # No verdict yet: the report opens with nothing to score.
    empty = agreement_report_build(campaign=every)
    assert empty["scores"]["humans"]["n_comparisons"] == 0 and empty["scores"]["humans"]["scores"]["s1"] is None
    drawn = []
    for slug, seed in (("seeded", 5), ("again", 5), ("other", 6)):
        campaign = _campaign(slug)
        campaign_options_set(campaign=campaign, values={"pair_prompts": 2, "pair_seed": seed})
        campaign.refresh_from_db()
        summary = import_run(campaign=campaign, fmt="pairwise-outputs", paths=[path])
        drawn.append(_pairs(campaign))
    assert drawn[0] == drawn[1] != drawn[2]  # the same seed, the same pairs
    systems = [tuple(sorted(pair.split("/")[1].split("-vs-"))) for pair in drawn[0]]
    assert len(drawn[0]) == 12 and all(systems.count(matchup) == 2 for matchup in set(systems))
    assert summary.notes[-1] == ("pairs made: 12, each pair of systems on 2 prompts both answered, drawn with seed 6 "
                                 "(options pair_prompts and pair_seed)")
    # Both orders of A and B are drawn.
    firsts = {pair.split("/")[1].split("-vs-")[0] for pair in drawn[0]}
    assert len(firsts) > 2


def test_a_pair_named_again_takes_another_verdict_but_not_other_responses(tmp_path):
    line = {"prompt_id": "p1", "prompt": "Q", "system_a": "x", "response_a": "one", "system_b": "y",
            "response_b": "two"}
    campaign = _campaign()
    import_run(campaign=campaign, fmt="pairwise-jsonl", paths=[_write(tmp_path / "a.jsonl", [
        {**line, "winner": "a", "annotator": "r1"}, {**line, "winner": "b", "annotator": "r2"}])])
    import_run(campaign=campaign, fmt="pairwise-jsonl", paths=[_write(tmp_path / "b.jsonl", [
        {**line, "winner": "tie", "annotator": "r3"}])])
    assert [label for _, _, label in _verdicts(campaign)] == ["a", "b", "tie"]
    assert Item.objects.filter(campaign=campaign).count() == 1
    with pytest.raises(ImportDataError, match="c.jsonl:1: id: pair 'p1/x-vs-y' is already there with other systems "
                                              "or responses"):
        import_run(campaign=campaign, fmt="pairwise-jsonl", paths=[_write(tmp_path / "c.jsonl", [
            {**line, "response_b": "three"}])])


def _trec_folder(folder, lines: str):
    folder.mkdir()
    (folder / "topics.tsv").write_text("1037798\twho was the first woman in space\n")
    (folder / "collection.tsv").write_text("7\tValentina Tereshkova flew in 1963.\n12\tSally Ride flew in 1983.\n"
                                           "30\tThe moon has no air.\n")
    (folder / "prefs.txt").write_text(lines)
    return folder


def test_a_published_preference_file_with_unnamed_repeats_imports_with_each_repeat_another_assessor(tmp_path):
    # As the TREC DL 2021 preferences are published: no assessor field, a pair judged again is its line again, in
    # either order.
    folder = _trec_folder(tmp_path / "prefs", "1037798 7 12 7\n1037798 30 7 7\n1037798 12 7 12\n1037798 7 12 tie\n")
    with pytest.raises(ImportDataError, match=r"prefs.txt:3: assessor: pair '1037798/12-vs-7' was judged on line 1 "
                                              r"by an assessor the file does not name.*repeat assessors"):
        import_run(campaign=_campaign("refused"), fmt="trec-preferences", paths=[folder])
    campaign = campaign_get_or_create(slug="prefs", task_type=TYPE, overlap=1)
    summary = import_run(campaign=campaign, fmt="trec-preferences", paths=[folder], repeat_assessors=True)
    assert (summary.items_created, summary.human_judgments_created) == (2, 4)
    assert _verdicts(campaign) == [("1037798/12-vs-7", "prefs-annotator-assessor1", "b"),
                                   ("1037798/12-vs-7", "prefs-annotator-assessor2", "a"),
                                   ("1037798/12-vs-7", "prefs-annotator-assessor3", "tie"),
                                   ("1037798/30-vs-7", "prefs-annotator-assessor1", "b")]
    assert ("pairs judged by assessors the files do not name: 2, of them judged more than once: 1 (each repeat "
            "another assessor, up to assessor3)") in summary.lines()
    # The option is for formats whose lines may name no assessor.
    with pytest.raises(ImportRequestError, match="formats pairwise-jsonl, trec-preferences, not mt-bench-human"):
        import_run(campaign=_campaign("mt"), fmt="mt-bench-human", paths=[folder / "prefs.txt"],
                   repeat_assessors=True)


def test_a_judges_both_orders_file_keeps_inconsistent_verdicts_and_counts_missing_texts_apart(tmp_path):
    # `@ topic x y mark`: ! x preferred in both orders, = the orders disagreed, ? a text was missing.
    humans = _trec_folder(tmp_path / "humans", "1037798 7 12 7 n1\n1037798 30 7 7 n1\n1037798 30 12 12 n1\n")
    judge = _trec_folder(tmp_path / "judge", "@ 1037798 7 12 !\n@ 1037798 30 7 =\n@ 1037798 12 30 ?\n"
                                             "@ 1037798 12 7 !\n")
    campaign = campaign_get_or_create(slug="prefs", task_type=TYPE, overlap=1)  # one assessor a pair: its label
    import_run(campaign=campaign, fmt="trec-preferences", paths=[humans])
    summary = import_run(campaign=campaign, fmt="trec-preferences", paths=[judge], judge="gpt-4o")
    labels = dict(ModelJudgment.objects.filter(judge__name="gpt-4o").values_list("item__external_id", "label"))
    assert labels == {"1037798/12-vs-7": "b", "1037798/30-vs-7": "inconsistent"}
    assert summary.lines_unused == [
        {"reason": "a judge's missing-text mark (?): no verdict", "lines": 1,
         "example": "prefs.txt:3: mark '@ 1037798 12 30 ?'"},
        {"reason": "naming an item an earlier line gave a verdict on (the first line's is kept)", "lines": 1,
         "example": "prefs.txt:4: item '1037798/12-vs-7'"}]
    report = agreement_report_build(campaign=campaign)["judges"]["gpt-4o"]
    assert report["inconsistent"] == 1 and report["item"]["n"] == 1  # the inconsistent verdict is left out
    with pytest.raises(ImportDataError, match="prefs.txt:1: line: an '@ topic x y mark' line is a judge's verdict"):
        import_run(campaign=_campaign("as-humans"), fmt="trec-preferences", paths=[judge])
    (judge / "prefs.txt").write_text("@ 1037798 7 12 maybe\n")
    with pytest.raises(ImportDataError, match="prefs.txt:1: mark: expected @ topic x y mark"):
        import_run(campaign=_campaign("bad-mark"), fmt="trec-preferences", paths=[judge], judge="gpt-4o")


def test_the_api_and_the_import_page_take_repeat_assessors(tmp_path, researcher, imports_inline, client):
    folder = _trec_folder(tmp_path / "prefs", "1037798 7 12 7\n1037798 12 7 tie\n")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in folder.iterdir():
            archive.write(path, f"prefs/{path.name}")
    campaign = campaign_get_or_create(slug="prefs", task_type=TYPE, overlap=1)
    Membership.objects.create(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    api = APIClient()
    api.force_authenticate(researcher)
    job = api_import(imports_inline, api, "/api/campaigns/prefs/import/", {
        "format": "trec-preferences", "repeat_assessors": "true",
        "files": [SimpleUploadedFile("prefs.zip", buffer.getvalue())]})
    assert job["status"] == "done" and job["parameters"] == {"repeat_assessors": True}
    assert [annotator for _, annotator, _ in _verdicts(campaign)] == ["prefs-annotator-assessor1",
                                                                       "prefs-annotator-assessor2"]
    client.force_login(researcher)
    page = client.get("/campaigns/prefs/import/").content.decode()
    assert 'name="repeat_assessors"' in page and "A pair judged again by an unnamed assessor" in page
