"""Two judges compared (reports.judge_compare): the changed items, each one's kappa and agreement with the human label
and the change with its interval, McNemar's test; the page and the API."""

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.contingency_tables import mcnemar

from annotate.models import HumanJudgment, JudgmentKind, Role
from judges.models import Judge, LLMSample, ModelJudgment
from reports.judge_compare import CompareError, judge_comparison
from tests.factories import CampaignFactory, ItemFactory, MembershipFactory, TopicFactory, UnitFactory, UserFactory

pytestmark = pytest.mark.django_db
ITEMS = 40


@pytest.fixture
def campaign(researcher):
    """40 answers on 10 questions, one annotator's verdict each; judge v1 right on 24, v2 on 32 (it fixes 10 of v1's
    errors and breaks 2 of its right ones); v2 never judged the last answer."""
    rng = np.random.default_rng(4)
    campaign = CampaignFactory(slug="cmp", task_type="qa_correctness", overlap=1)
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    person = UserFactory(username="cmp-ann")
    v1, v2 = (Judge.objects.create(campaign=campaign, name=name, family="llm", config_hash=name,
                                   config={"model": "m", "n": 3, "instruction": instruction})
              for name, instruction in (("v1", "Say whether it is right."), ("v2", "Say whether it answers it.")))
    truth = rng.random(ITEMS) < 0.6
    right_v1 = np.array([True] * 24 + [False] * 16)
    right_v2 = right_v1.copy()
    right_v2[24:34] = True  # fixed
    right_v2[0:2] = False  # broken
    topics = [TopicFactory(campaign=campaign, external_id=f"q{q}", text=f"question {q}") for q in range(ITEMS // 4)]
    for n in range(ITEMS):
        topic = topics[n // 4]
        item = ItemFactory(campaign=campaign, topic=topic, external_id=f"a{n}", text=f"answer {n}")
        unit = UnitFactory(campaign=campaign, topic=topic, item=item, judgments_needed=1, judgments_done=1)
        label = "yes" if truth[n] else "no"
        HumanJudgment.objects.create(unit=unit, annotator=person, kind=JudgmentKind.ANNOTATION,
                                     value={"correct": bool(truth[n])}, label=label)
        flip = {"yes": "no", "no": "yes"}
        ModelJudgment.objects.create(judge=v1, item=item, label=label if right_v1[n] else flip[label])
        if n < ITEMS - 1:
            ModelJudgment.objects.create(judge=v2, item=item, label=label if right_v2[n] else flip[label])
            LLMSample.objects.create(judge=v2, item=item, index=0, text=label, served_model="m-0315")
    return campaign, truth, right_v1, right_v2


def test_the_comparison_is_the_libraries_figures(campaign):
    campaign, truth, right_v1, right_v2 = campaign
    result = judge_comparison(campaign=campaign, first="v1", second="v2")
    shared = ITEMS - 1
    assert (result["n_both"], result["n_labelled"], result["n_changed"]) == (shared, shared, 12)
    assert len(result["changed"]) == 12 and result["changed"][0]["external_id"] == "a0"
    assert {row["external_id"] for row in result["changed"]} == {f"a{n}" for n in (0, 1, *range(24, 34))}
    human = ["yes" if t else "no" for t in truth[:shared]]
    labels = {name: [h if r else {"yes": "no", "no": "yes"}[h] for h, r in zip(human, right, strict=False)]
              for name, right in (("v1", right_v1), ("v2", right_v2))}
    kappas = [side["cohen_kappa"] for side in result["agreement"]]
    assert kappas == pytest.approx([cohen_kappa_score(human, labels["v1"]), cohen_kappa_score(human, labels["v2"])])
    assert result["difference"]["cohen_kappa"] == pytest.approx(kappas[1] - kappas[0])
    assert result["difference"]["accuracy"] == pytest.approx((32 - 24) / shared)
    low, high = result["difference"]["accuracy_ci95"]
    assert low <= result["difference"]["accuracy"] <= high  # resampling the 10 questions: the fixes sit in 3 of them
    assert result["config_changes"] == [{"key": "instruction", "a": "Say whether it is right.",
                                          "b": "Say whether it answers it."}]
    assert result["first"]["served_text"] == "" and result["second"]["served_models"] == {"m-0315": 39}
    test = result["correct_test"]
    assert test["discordant"] == [10, 2]
    assert test["p"] == pytest.approx(mcnemar([[22, 10], [2, 5]], exact=True).pvalue)
    with pytest.raises(CompareError, match="no judge called 'v3'; its judges: v1, v2"):
        judge_comparison(campaign=campaign, first="v1", second="v3")
    with pytest.raises(CompareError, match="two different judges"):
        judge_comparison(campaign=campaign, first="v1", second="v1")


def test_the_page_and_the_api(campaign, client, researcher):
    campaign, *_ = campaign
    client.force_login(researcher)
    panel = client.get("/campaigns/cmp/judges/").content.decode()
    assert 'id="compare-judges"' in panel
    # The judge page lists the two as versions of the llm family, the second with what changed and a comparison link.
    assert 'id="versions-llm"' in panel and "<td>instruction</td>" in panel
    assert '/campaigns/cmp/report/compare/?a=v1&amp;b=v2">compare with v1</a>' in panel
    page = client.get("/campaigns/cmp/report/compare/?a=v1&b=v2")
    html = page.content.decode()
    assert page.status_code == 200 and "<b>12</b> of the 39 items both judges labelled" in html
    assert html.count("<tr><td>a") == 12 and 'id="compare-difference"' in html
    assert "Say whether it answers it." in html and "m-0315 (39 samples)" in html
    refused = client.get("/campaigns/cmp/report/compare/?a=v1&b=nope")
    assert refused.status_code == 400 and "no judge called &#x27;nope&#x27;" in refused.content.decode()
    api = client.get("/api/campaigns/cmp/agreement/compare/?a=v1&b=v2")
    assert api.status_code == 200 and api.json()["n_changed"] == 12
    assert client.get("/api/campaigns/cmp/agreement/compare/?a=v1").status_code == 400
    assert client.get("/api/campaigns/cmp/agreement/compare/").json()["judges"] == ["v1", "v2"]
