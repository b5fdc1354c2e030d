"""The report's "May a judge replace an annotator?" section (reports.replacement) on a qa_correctness campaign: three
annotators on 60 answers, a judge that copies the truth and one that says "yes" to everything; the same figures as
stats.replacement and stats.paradox give on the labels, the page, the epsilon option, and a campaign too small."""

import io

import numpy as np
import pytest
from django.core.management import call_command

from agreement.report import agreement_report_build
from annotate.models import HumanJudgment, JudgmentKind, Role
from judges.models import Judge, ModelJudgment
from stats import paradox, replacement
from tests.factories import CampaignFactory, ItemFactory, MembershipFactory, TopicFactory, UnitFactory, UserFactory
from tests.report_support import report_stored

pytestmark = pytest.mark.django_db
ITEMS = 60


def _campaign(researcher, *, annotators: int, slug: str):
    """SLUG: ITEMS answers (80% correct), ANNOTATORS annotators right 85% of the time, judges "truth" and "yes-man"."""
    rng = np.random.default_rng(11)
    truth = [rng.random() < 0.8 for _ in range(ITEMS)]
    campaign = CampaignFactory(slug=slug, task_type="qa_correctness", overlap=annotators)
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    people = [UserFactory(username=f"{slug}-{n}") for n in range(annotators)]
    judges = [Judge.objects.create(campaign=campaign, name=name, family="external", config={}, config_hash=name)
              for name in ("truth", "yes-man")]
    labels = {person.username: {} for person in people}
    for n in range(ITEMS):
        topic = TopicFactory(campaign=campaign, external_id=f"q{n}", text=f"question {n}")
        item = ItemFactory(campaign=campaign, topic=topic, external_id=f"a{n}", text=f"answer {n}")
        unit = UnitFactory(campaign=campaign, topic=topic, item=item, judgments_needed=annotators,
                           judgments_done=annotators)
        for person in people:
            said = truth[n] if rng.random() < 0.85 else not truth[n]
            labels[person.username][item.pk] = "yes" if said else "no"
            HumanJudgment.objects.create(unit=unit, annotator=person, kind=JudgmentKind.ANNOTATION,
                                         value={"correct": said}, label="yes" if said else "no")
        ModelJudgment.objects.create(judge=judges[0], item=item, label="yes" if truth[n] else "no", raw="")
        ModelJudgment.objects.create(judge=judges[1], item=item, label="yes", raw="")
    return campaign, labels


def test_the_section_reads_every_annotator_and_the_page_shows_it(client, researcher):
    campaign, labels = _campaign(researcher, annotators=3, slug="replace")
    report = agreement_report_build(campaign=campaign)
    block = report["replacement"]
    assert block["annotators"] == 3 and block["epsilon"] == replacement.EPSILON and block["epsilon_default"]
    items = sorted(next(iter(labels.values())))
    truth = {item: label for item, label in ModelJudgment.objects.filter(judge__name="truth")
             .values_list("item_id", "label")}
    expected = replacement.alt_test(replacement.rater_labels_of(labels, truth))
    got = block["judges"]["truth"]["alt_test"]
    assert got["ran"] and got["passes"]
    assert {key: got[key] for key in ("winning_rate", "advantage", "annotators")} == {
        key: expected[key] for key in ("winning_rate", "advantage", "annotators")}
    assert block["judges"]["truth"]["human_likeness"]["z"] == pytest.approx(
        replacement.human_likeness(replacement.rater_labels_of(labels, truth))["z"])
    # The yes-man: agreement is the share of "yes" majorities, its kappa 0 (one label throughout); AC1 and the
    # prevalence index show why.
    majority = {item: max(("yes", "no"), key=[labels[p][item] for p in labels].count) for item in items}
    yes_man = block["judges"]["yes-man"]
    table = [[0, sum(majority[i] == "no" for i in items)], [0, sum(majority[i] == "yes" for i in items)]]
    assert yes_man["paradox"]["agreement"] == pytest.approx(paradox.paradox_panel(table)["agreement"])
    assert yes_man["paradox"]["cohen_kappa"] == pytest.approx(0.0) and yes_man["paradox"]["paradox"]
    # A judge that always says "yes" on 80%-yes answers: with the 12 to 17 answers per annotator on which the two
    # others split counted as ties, it held up against 2 of 3 annotators at epsilon 0.2. Those answers decide nothing
    # and are not counted now; on the rest it holds up against none, at any epsilon shown.
    alt = yes_man["alt_test"]
    assert [row["undecidable"] for row in alt["annotators"]] == [17, 13, 12]
    assert [row["n"] for row in alt["annotators"]] == [43, 47, 48] and alt["rests_on"] == sorted(labels)
    assert [(each["epsilon"], each["rejected"], each["passes"]) for each in alt["by_epsilon"]] == [
        (0.05, 0, False), (0.1, 0, False), (0.2, 0, False)]
    assert [each["campaign"] for each in alt["by_epsilon"]] == [False, False, True]

    report_stored(campaign)
    client.force_login(researcher)
    html = client.get("/campaigns/replace/report/").content.decode()
    assert 'id="replacement"' in html and 'id="paradox-panel"' in html and "ε = 0.2, q = 0.05" in html
    assert "yes-man agrees on" in html  # the paradox row says why its kappa is low
    # Who each verdict rests on, with their items, and the verdict at each epsilon.
    assert ("<b>truth</b>:\n  the verdict rests on\n  replace-0 (n = 43 items), replace-1 (n = 47 items) and replace-2 "
            "(n = 48 items)") in html
    epsilon_table = html[html.index('id="replacement-epsilon"'):]
    epsilon_table = epsilon_table[:epsilon_table.index("</table>")]
    headers = epsilon_table.split('<th class="num">ε = ')[1:]
    assert [header.split("<")[0].strip() for header in headers] == ["0.05", "0.1", "0.2"]
    assert epsilon_table.count("may replace</b>") == 3 and epsilon_table.count("may not replace</b>") == 3
    assert "ε = 0.2 <span class=\"muted\">(campaign)</span>" in epsilon_table

    out = io.StringIO()
    call_command("agreement_report", "--campaign", "replace", stdout=out)
    assert "  truth: alt-test winning rate 1.000 (3 of 3 annotators), may replace" in out.getvalue()
    assert ("  yes-man: by epsilon: 0.05: 0.000 (0 of 3), may not replace; 0.1: 0.000 (0 of 3), may not replace; "
            "0.2: 0.000 (0 of 3), may not replace") in out.getvalue()
    assert "  yes-man: the verdict rests on replace-0, replace-1, replace-2 (items per annotator: replace-0 43, " \
        "replace-1 47, replace-2 48)" in out.getvalue()
    assert "  yes-man: n = 60, agreement" in out.getvalue()

    # The epsilon is a campaign option, from the options page; the verdict is given at it besides the three.
    answer = client.post("/campaigns/replace/options/", {"alt_test_epsilon": "0.15"}, follow=True)
    assert answer.status_code == 200
    campaign.refresh_from_db()
    assert campaign.options["alt_test_epsilon"] == 0.15
    judges = agreement_report_build(campaign=campaign)["replacement"]["judges"]
    assert judges["truth"]["alt_test"]["epsilon"] == 0.15 and judges["truth"]["alt_test"]["passes"]
    assert [each["epsilon"] for each in judges["truth"]["alt_test"]["by_epsilon"]] == [0.05, 0.1, 0.15, 0.2]
    assert (judges["yes-man"]["alt_test"]["rejected"], judges["yes-man"]["alt_test"]["passes"]) == (0, False)
    report_stored(campaign)
    html = client.get("/campaigns/replace/report/").content.decode()
    assert "<b class=\"fails\">may not replace</b>" in html and "ε = 0.15, q = 0.05" in html
    assert "ε = 0.15 <span class=\"muted\">(campaign)</span>" in html
    refused = client.post("/campaigns/replace/options/", {"alt_test_epsilon": "1.5"})
    assert refused.status_code == 400 and "alt_test_epsilon must be a number from 0 up to" in refused.content.decode()


def test_too_few_annotators_is_said_instead_of_a_number(client, researcher):
    campaign, _ = _campaign(researcher, annotators=2, slug="two")
    report_stored(campaign)
    client.force_login(researcher)
    html = client.get("/campaigns/two/report/").content.decode()
    assert ("truth: the alternative annotator test did not run: it needs 3 annotators with 30 or more items each, on "
            "50 items or more that the judge and at least two annotators labelled; this campaign has 2 annotators, 60 "
            "such items, and 2 annotators with 30 or more of them (two-0 and two-1).") in html
    assert "The human-likeness z was not computed: it needs 3 annotators who share 10 items or more" in html
    # Two annotators: one other each, which cannot split evenly, so every item counts, and both are named.
    assert "the annotators with enough items are\n  two-0 (n = 60 items) and two-1 (n = 60 items)." in html
    assert 'id="replacement-epsilon"' not in html  # no verdict to give at other margins
    assert 'id="paradox-panel"' in html  # the panel needs no more than the judge and the human labels


def test_labels_read_as_codes_pair_up_as_the_dicts_do():
    """The section reads each side's labels as codes (_read_codes, _pairs): the same pairs as the labels themselves
    give, with a grade the scale does not have and a label outside the label map left out as before."""
    from collections import Counter

    from reports.replacement import _pairs, _read_codes, _reader
    from reports.selectors import labels_coded

    def _coded(labels, read):
        return _read_codes(labels_coded(labels), read)

    rng = np.random.default_rng(3)
    human = {int(item): str(rng.integers(0, 4)) for item in rng.choice(1000, 600, replace=False)}
    judge = {int(item): str(rng.integers(0, 3)) for item in rng.choice(1000, 500, replace=False)}
    for read in (_reader([0, 1, 2], None), _reader(None, {"0": "low", "1": "low", "2": "high"})):
        expected = Counter((read(human[item]), read(judge[item])) for item in human.keys() & judge.keys()
                           if read(human[item]) is not None and read(judge[item]) is not None)
        assert _pairs(_coded(human, read), _coded(judge, read)) == expected
        items, codes, values = _coded(judge, read)
        assert dict(zip(items.tolist(), [values[code] for code in codes.tolist()], strict=True)) == {
            item: read(label) for item, label in judge.items() if read(label) is not None}
        assert items.tolist() == sorted(items.tolist())
