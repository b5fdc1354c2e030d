"""Real public nugget data through nugget_evaluation's imports: the TREC iKAT 2024 human nuggets and the participants'
generated responses as CONE-RAG publishes them (github.com/irlabamsterdam/CONE-RAG, resources/: no licence is
given, so the data is read from a checkout here and never committed).

    git clone https://github.com/irlabamsterdam/CONE-RAG /tmp/CONE-RAG   # or fetch it, and point --cone at it
    .venv/bin/python bench/bench_nuggets_ikat.py --cone /tmp/CONE-RAG

It writes the human nuggets (resources/human_resources/gold_nuggets_human.json: per turn, nuggets with a relevance
1-4; relevance 3 or 4 is read as vital, 1 or 2 as okay) as a nuggetizer-nuggets file and the responses
(resources/participant_resources/automatic_responses.json: per turn, each run's response) as a rag-answers file,
imports both into a throw-away campaign through the import's entry point, and checks the campaign against counts
made from the JSON files alone: topics, nuggets per topic and their importance, answers per run, and each topic's
nugget texts as exported again (nuggetizer-nuggets). The files have no human marks an answer can be tied to (the
crowd study's labels name runs by aliases the release does not map), so no marks are imported; the report is built
on the lists and answers alone (its counts are checked too).
"""

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from throwaway import throwaway_database  # noqa: E402 (bench/, the script's folder)

NUGGETS = "resources/human_resources/gold_nuggets_human.json"
RESPONSES = "resources/participant_resources/automatic_responses.json"


def importance(relevance: str) -> str:
    return "vital" if int(relevance) >= 3 else "okay"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cone", type=Path, required=True, help="a checkout of irlabamsterdam/CONE-RAG")
    args = parser.parse_args()
    nuggets = json.loads((args.cone / NUGGETS).read_text(encoding="utf-8"))
    responses = json.loads((args.cone / RESPONSES).read_text(encoding="utf-8"))
    throwaway_database("concord-bench-ikat-")
    from annotate.models import Campaign, Item, Topic
    from interchange.importers.service import import_run
    from tasktypes.nugget_evaluation import exports
    from tasktypes.nugget_evaluation.layout import ANSWER_KIND, topic_list
    from tasktypes.nugget_evaluation.report import nugget_report_build

    folder = Path(tempfile.mkdtemp(prefix="concord-bench-ikat-"))
    # The responses' turns only: a list is frozen for the topics whose answers are evaluated.
    shared = sorted(set(nuggets) & set(responses))
    lists = {turn: [{"text": " ".join(entry["text"].split()), "importance": importance(entry["relevance"])}
                    for entry in nuggets[turn].values() if entry["text"].strip()] for turn in shared}
    # A turn whose nuggets all have an empty text has no list to freeze: left out, and counted.
    turns = [turn for turn in shared if lists[turn]]
    (folder / "nuggets.jsonl").write_text("".join(
        json.dumps({"qid": turn, "query": turn, "nuggets": lists[turn]}) + "\n" for turn in turns), encoding="utf-8")
    (folder / "answers.jsonl").write_text("".join(
        json.dumps({"run_id": run, "topic_id": turn, "topic": turn, "references": [],
                    "answer": [{"text": text, "citations": []}]}) + "\n"
        for turn in turns for run, text in sorted(responses[turn].items()) if text.strip()), encoding="utf-8")
    campaign = Campaign.objects.create(slug="ikat-2024", name="iKAT 2024 (CONE-RAG)", task_type="nugget_evaluation",
                                       overlap=1)
    spent = {}
    for what, fmt, name in (("answers", "rag-answers", "answers.jsonl"), ("lists", "nuggetizer-nuggets",
                                                                          "nuggets.jsonl")):
        started = time.perf_counter()
        import_run(campaign=campaign, fmt=fmt, paths=[folder / name])
        spent[what] = time.perf_counter() - started
    answers_expected = Counter(run for turn in turns for run, text in responses[turn].items() if text.strip())
    answers_found = Counter(Item.objects.filter(campaign=campaign, kind=ANSWER_KIND).values_list("data__run",
                                                                                                flat=True))
    frozen = {topic.external_id: topic_list(topic.data) for topic in Topic.objects.filter(campaign=campaign)}
    checks = {
        "topics": (len(turns), len(frozen)),
        "nuggets": (sum(map(len, lists.values())), sum(len(found["nuggets"]) for found in frozen.values())),
        "vital nuggets": (sum(n["importance"] == "vital" for found in lists.values() for n in found),
                          sum(n["importance"] == "vital" for found in frozen.values() for n in found["nuggets"])),
        "answers per run": (answers_expected, answers_found),
        "nugget texts exported again": (
            {turn: [n["text"] for n in lists[turn]] for turn in turns},
            {row["qid"]: [n["text"] for n in row["nuggets"]] for row in map(
                json.loads, exports.nuggets_nuggetizer_jsonl(campaign).splitlines())}),
    }
    started = time.perf_counter()
    report = nugget_report_build(campaign=campaign)
    build = time.perf_counter() - started
    checks["report's topics, runs and answers"] = (
        (len(turns), len(answers_expected), sum(answers_expected.values())),
        (report["n_topics"], report["n_runs"], report["n_answers"]))
    print(f"iKAT 2024 (CONE-RAG): {len(turns)} turns with responses and human nuggets "
          f"({len(shared) - len(turns)} more whose nuggets have no text), "
          f"{checks['nuggets'][0]:,} nuggets ({checks['vital nuggets'][0]:,} vital), {len(answers_expected)} runs, "
          f"{sum(answers_expected.values()):,} answers")
    print("imports: " + ", ".join(f"{what} {seconds:.2f} s" for what, seconds in spent.items())
          + f"; report {build:.2f} s")
    failed = [name for name, (expected, found) in checks.items() if expected != found]
    for name, (expected, found) in checks.items():
        print(f"  {name}: {'as counted from the JSON' if expected == found else 'DIFFERS'}")
    if failed:
        sys.exit(f"the campaign differs from the files: {', '.join(failed)}")


if __name__ == "__main__":
    main()
