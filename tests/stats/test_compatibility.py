"""Compatibility (stats.compatibility) against the authors' reference script.

The files under tests/data/compatibility/ were written for this test (random document ids that are numbers, as MS
MARCO's are; grades 0-3; a document graded twice; tied scores; a topic with no document graded above 0; a run topic
with no qrels). The expected numbers are what the reference script printed for them: github.com/claclark/Compatibility,
compatibility.py at commit bd47d75, `compatibility.py [-p P] qrels.txt run.txt`.
"""

from pathlib import Path

import ir_measures
import pytest

from stats.compatibility import compatibility, compatibility_per_topic

DATA = Path(__file__).resolve().parents[1] / "data" / "compatibility"

REFERENCE = {
    0.95: {"19335": 0.12663396783715022, "47923": 0.250947297517555, "87181": 0.284598448819009,
           "average": 0.22072657139123808},
    0.8: {"19335": 0.011363802852815985, "47923": 0.13434190717174388, "87181": 0.09026443783654252,
          "average": 0.07865671595370079},
    0.5: {"average": 0.014260046001632125},
}


def _qrels() -> dict:
    qrels: dict = {}
    for line in (DATA / "qrels.txt").read_text().splitlines():
        topic, _, doc, grade = line.split()
        qrels.setdefault(topic, {})[doc] = max(int(grade), qrels.get(topic, {}).get(doc, 0))
    return qrels


def _run() -> dict:
    run: dict = {}
    for line in (DATA / "run.txt").read_text().splitlines():
        topic, _, doc, _, score, _ = line.split()
        run.setdefault(topic, {})[doc] = float(score)
    return run


@pytest.mark.parametrize("p", sorted(REFERENCE))
def test_compatibility_matches_the_reference_script(p):
    per_topic = compatibility_per_topic(_qrels(), _run(), p=p)
    expected = REFERENCE[p]
    # Topic 1000 grades nothing above 0 and topic 5555 has no qrels: the reference leaves both out.
    assert set(per_topic) == {"19335", "47923", "87181"}
    for topic, value in expected.items():
        if topic != "average":
            assert per_topic[topic] == pytest.approx(value, abs=1e-12)
    assert compatibility(_qrels(), _run(), p=p) == pytest.approx(expected["average"], abs=1e-12)


def test_ir_measures_compat_is_another_variant():
    """Why Concord does not take ir_measures' Compat: on the same files it gives other numbers (it counts topic 1000
    as 0, and its per-topic values differ), so figures would not match the track's."""
    qrels = list(ir_measures.read_trec_qrels(str(DATA / "qrels.txt")))
    run = list(ir_measures.read_trec_run(str(DATA / "run.txt")))
    theirs = ir_measures.calc_aggregate([ir_measures.parse_measure("Compat(p=0.95)")], qrels, run)
    assert abs(list(theirs.values())[0] - REFERENCE[0.95]["average"]) > 0.05


def test_edge_cases():
    assert compatibility({"q": {"d1": 0}}, {"q": {"d1": 1.0}}) is None  # nothing graded above 0
    assert compatibility({"q": {"d1": 2, "d2": 1}}, {"q": {"d1": 2.0, "d2": 1.0}}) == pytest.approx(1.0)  # the ideal
    assert compatibility({"q": {"d1": 1}}, {"q": {"x": 1.0}}) == 0.0  # nothing relevant retrieved
    with pytest.raises(ValueError):
        compatibility_per_topic({}, {}, p=1.0)
