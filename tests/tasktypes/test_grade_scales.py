"""Graded relevance on a scale the campaign defines (tasktypes.graded): options, the page, the check, grade mapping,
the qrels import and the report."""

import numpy as np
import pytest
from django.urls import reverse
from sklearn.metrics import cohen_kappa_score

from agreement.report import agreement_report_build
from annotate.models import HumanJudgment
from annotate.services.annotation import judgment_submit, judgment_value_check, unit_lease_next
from annotate.services.campaigns import CampaignError, campaign_options_set
from annotate.task_types.spec import JudgmentValueError
from interchange.importers.service import import_run
from stats.grades import fitted_grades, fitted_thresholds, quantile_cuts, quantile_grades, quantile_percentiles

FOUR = [{"grade": 0, "name": "Irrelevant", "definition": "Nothing to do with the query."},
        {"grade": 1, "name": "Related", "definition": "On the topic, does not answer."},
        {"grade": 2, "name": "Highly relevant", "definition": "Answers part of the query."},
        {"grade": 3, "name": "Perfectly relevant", "definition": "Answers the query."}]
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def four_grades(image_campaign):
    return campaign_options_set(campaign=image_campaign, values={"scale": FOUR, "relevant_from": 2})


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("scale", "message"),
    [
        ("0-3", "scale must be a list of"),
        ([{"grade": 0, "name": "No"}], "scale must have 2 to 10 grades"),
        (
            [{"grade": 0, "name": "No"}, {"grade": 2, "name": "Yes"}],
            "scale grades must be 0, 1, 2, ... in order; entry 2 has grade 2",
        ),
        (
            [{"grade": 0, "name": "No"}, {"grade": True, "name": "Yes"}],
            "scale grades must be 0, 1, 2, ... in order; entry 2 has grade True",
        ),
        ([{"grade": 0, "name": "No"}, {"grade": 1, "name": " "}], "scale grade 1: a name is required"),
        (
            [{"grade": 0, "name": "No", "colour": "red"}, {"grade": 1, "name": "Yes"}],
            "scale grade 0: unknown fields colour",
        ),
        ([{"grade": n, "name": str(n)} for n in range(11)], "scale must have 2 to 10 grades (keys 0-9), not 11"),
        # An llm judge's prompt shows the whole scale: its length is part of the prompt's budget (issue 48).
        (
            [{"grade": 0, "name": "N" * 201}, {"grade": 1, "name": "Yes"}],
            "scale grade 0: the name is 201 characters; at most 200",
        ),
        (
            [{"grade": 0, "name": "No"}, {"grade": 1, "name": "Yes", "definition": "d" * 2_001}],
            "scale grade 1: the definition is 2,001 characters; at most 2,000",
        ),
    ],
)
def test_a_malformed_scale_is_refused(image_campaign, scale, message):
    with pytest.raises(CampaignError, match="option scale: " + message.replace("(", r"\(").replace(")", r"\)")
                       .replace(".", r"\.")):
        campaign_options_set(campaign=image_campaign, values={"scale": scale})


@pytest.mark.django_db
def test_relevant_from_must_lie_on_the_scale(image_campaign):
    with pytest.raises(CampaignError, match=r"option relevant_from: 3 is not a grade of the scale \(0-2\)"):
        campaign_options_set(campaign=image_campaign, values={"relevant_from": 3})
    assert campaign_options_set(campaign=image_campaign, values={"scale": FOUR, "relevant_from": 3}).options[
        "relevant_from"] == 3


@pytest.mark.django_db
def test_a_scale_that_drops_a_grade_already_given_is_refused(four_grades, annotator):
    assignment = unit_lease_next(campaign=four_grades, annotator=annotator)
    judgment_submit(assignment=assignment, annotator=annotator, value={"grade": 3})
    with pytest.raises(CampaignError, match="grades 3 have been given in this campaign and the new scale stops at 2"):
        campaign_options_set(campaign=four_grades, values={}, unset=["scale"])
    assert HumanJudgment.objects.get(unit=assignment.unit).label == "3"


@pytest.mark.django_db
def test_values_are_checked_against_the_campaigns_scale(four_grades):
    unit = four_grades.units.order_by("position").first()
    assert judgment_value_check(task_type="image_relevance", value={"grade": 3}, unit=unit) == "3"
    with pytest.raises(JudgmentValueError, match="There is no grade 4: choose 0 irrelevant, 1 related, 2 highly "
                                                 "relevant or 3 perfectly relevant."):
        judgment_value_check(task_type="image_relevance", value={"grade": 4}, unit=unit)
    # Without a campaign, the task type's default 0/1/2.
    with pytest.raises(JudgmentValueError, match="There is no grade 3"):
        judgment_value_check(task_type="image_relevance", value={"grade": 3})


@pytest.mark.django_db
def test_the_page_shows_a_button_a_key_and_a_definition_per_grade_and_takes_grade_3(client, four_grades, annotator):
    client.force_login(annotator)
    html = client.get(reverse("annotate", args=[four_grades.slug])).content.decode()
    for entry in FOUR:
        assert f'id="grade-{entry["grade"]}" data-key="{entry["grade"]}"' in html
        assert f'<kbd>{entry["grade"]}</kbd> {entry["name"]}</button>' in html
        assert f'{entry["grade"]}</span> {entry["name"]}</dt>\n    <dd>{entry["definition"]}</dd>' in html  # the help
    assert "<kbd>3</kbd> perfectly relevant · <kbd>2</kbd> highly relevant" in html  # the keys line
    assignment = unit_lease_next(campaign=four_grades, annotator=annotator)
    response = client.post(reverse("annotate-submit", args=[four_grades.slug]),
                           {"assignment": assignment.pk, "grade": "3"}, **HTMX)
    assert response.status_code == 200
    assert HumanJudgment.objects.get(unit=assignment.unit, annotator=annotator).value == {"grade": 3}


def test_the_quantile_rule_cuts_four_grades_at_the_median_and_the_upper_thirds():
    assert quantile_percentiles([0, 1, 2]) == (50.0, 75.0)
    assert quantile_percentiles([0, 1, 2, 3]) == pytest.approx((50.0, 200 / 3, 250 / 3))
    scores = {n: float(n) for n in range(1, 101)}
    cuts = quantile_cuts(list(scores.values()), levels=[0, 1, 2, 3])
    assert cuts == pytest.approx(tuple(np.percentile(list(scores.values()), [50, 200 / 3, 250 / 3])))
    grades = quantile_grades(scores, levels=[0, 1, 2, 3])
    assert [sum(1 for g in grades.values() if g == level) for level in range(4)] == [50, 17, 16, 17]


def test_fitted_thresholds_recover_a_four_grade_mapping():
    rng = np.random.default_rng(7)
    scores = {n: float(x) for n, x in enumerate(rng.uniform(0, 1, 200))}
    human = fitted_grades(scores, [0.3, 0.6, 0.85])
    fitted = fitted_thresholds(scores, human, levels=[0, 1, 2, 3])
    assert len(fitted["thresholds"]) == 3 and fitted["cv_kappa_linear"] > 0.9
    mapped = fitted_grades(scores, fitted["thresholds"])
    keys = sorted(scores)
    assert cohen_kappa_score([human[k] for k in keys], [mapped[k] for k in keys], weights="linear") > 0.9


@pytest.mark.django_db
def test_qrels_on_the_campaigns_scale_import_and_the_report_is_four_by_four(four_grades, tmp_path):
    qrels = tmp_path / "anna.qrels"
    qrels.write_text("eiffel-construction 0 q-a 3\neiffel-construction 0 q-b 1\nkilimanjaro-routes 0 q-c 0\n")
    import_run(campaign=four_grades, fmt="trec-qrels", paths=[qrels])
    report = agreement_report_build(campaign=four_grades)
    assert [entry["grade"] for entry in report["scale"]] == [0, 1, 2, 3]
    assert report["humans"]["grades"] == {"0": 1, "1": 1, "2": 0, "3": 1}
    bad = tmp_path / "bob.qrels"
    bad.write_text("eiffel-construction 0 q-d 4\n")
    with pytest.raises(Exception, match=r"expected 0, 1, 2 or 3 \(the campaign's scale\), got 4"):
        import_run(campaign=four_grades, fmt="trec-qrels", paths=[bad])


def test_map_counts_documents_relevant_from_the_campaigns_threshold():
    import ir_measures

    from stats.retrieval import run_measures, run_measures_per_topic

    qrels = {"q1": {"a": 3, "b": 1, "c": 2}, "q2": {"d": 1, "e": 2}}
    run = {"q1": {"b": 3.0, "a": 2.0, "c": 1.0}, "q2": {"d": 2.0, "e": 1.0}}
    for rel in (1, 2, 3):
        expected = ir_measures.calc_aggregate([ir_measures.parse_measure(f"AP(rel={rel})")], qrels, run)
        assert run_measures(qrels, run, relevant_from=rel)["map"] == pytest.approx(next(iter(expected.values())))
    assert run_measures(qrels, run, relevant_from=1)["map"] != run_measures(qrels, run, relevant_from=2)["map"]
    per_topic = run_measures_per_topic(qrels, run, relevant_from=2)["map"]
    assert per_topic == pytest.approx({"q1": (0 + 1 / 2 + 2 / 3) / 2, "q2": 1 / 2})


@pytest.mark.django_db
def test_the_report_binarises_at_relevant_from(four_grades, tmp_path):
    from judges.identity import judge_get_or_create
    from judges.models import ModelJudgment

    qrels = tmp_path / "anna.qrels"
    human = {"q-a": 3, "q-b": 1, "q-c": 2, "q-d": 0, "q-e": 2, "q-f": 1}
    topic = {doc: "eiffel-construction" if doc < "q-d" else "kilimanjaro-routes" for doc in human}
    qrels.write_text("".join(f"{topic[doc]} 0 {doc} {grade}\n" for doc, grade in human.items()))
    import_run(campaign=four_grades, fmt="trec-qrels", paths=[qrels])
    judge = judge_get_or_create(campaign=four_grades, name="grader", family="external", config={})
    model = {"q-a": 2, "q-b": 2, "q-c": 3, "q-d": 0, "q-e": 1, "q-f": 0}
    for doc, grade in model.items():
        ModelJudgment.objects.create(judge=judge, item=four_grades.items.get(external_id=f"{topic[doc]}/{doc}"),
                                     label=str(grade))
    block = agreement_report_build(campaign=four_grades)["judges"]["grader"]
    docs = sorted(human)
    assert block["mapping"] == {"rule": "labels"}
    assert block["item"]["confusion"] == [[sum(1 for d in docs if (human[d], model[d]) == (h, m)) for m in range(4)]
                                          for h in range(4)]
    binary = cohen_kappa_score([human[d] >= 2 for d in docs], [model[d] >= 2 for d in docs])
    assert block["item"]["cohen_kappa_binary"] == pytest.approx(binary)
    # Two topics are too few to resample: no interval, and the report says why.
    assert block["item"]["cohen_kappa_binary_ci95"] is None
    assert block["item"]["cohen_kappa_binary_ci_note"].startswith("too few topics to resample: 2")
