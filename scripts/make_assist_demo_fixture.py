#!/usr/bin/env python
"""Make fixtures/assist_demo/ from fixtures/nq301/: the adjudication and assistance-experiment demo's data.

    .venv/bin/python scripts/make_assist_demo_fixture.py fixtures/nq301 fixtures/assist_demo

Takes, in file order, the first QUESTIONS questions whose DPR answer the NQ-open 301 study judged (its human TSV's
"Acceptable?") and GPT-4 gave a readable yes/no verdict on, and writes:
- NQ_DPR.jsonl: those lines of model_outputs/NQ_DPR.jsonl, byte for byte (format qa-eval-jsonl);
- gpt-4.tsv: GPT-4's verdict on each answer as an external judge's (format judge-scores: topic, item, score, label);
- truth.tsv: the study's final verdict on each answer (topic, item, verdict), which the demo's simulated annotators
  are right or wrong against and its adjudicator settles units with.
Topic and item ids are the ones the qa-eval-jsonl importer gives (one system: item = topic id + "-1").
"""

import argparse
import csv
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import os  # noqa: E402

import django  # noqa: E402

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
django.setup()  # the importers' modules read models; nothing here touches a database

from annotate.textnorm import answer_key, question_key  # noqa: E402
from interchange.importers.qa_index import topic_external_id_for  # noqa: E402  (the ids qa-eval-jsonl gives)
from tasktypes.qa_correctness.nq301 import verdict_parse  # noqa: E402  (how the nq301 import reads GPT-4's verdicts)

QUESTIONS = 120


def _verdicts(path: Path, column: str) -> dict[tuple[str, str], str]:
    with path.open(newline="", encoding="utf-8") as handle:
        rows = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        return {(question_key(row["Question"]), answer_key(row["Model answer"])): row[column] for row in rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="fixtures/nq301")
    parser.add_argument("target", type=Path, help="fixtures/assist_demo")
    args = parser.parse_args()
    truth = _verdicts(args.source / "NQ301_human.tsv", "Acceptable?")
    gpt4 = _verdicts(args.source / "NQ301_gpt-4.tsv", "gpt-4")
    lines, judged, truths = [], [], []
    with (args.source / "model_outputs" / "NQ_DPR.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            key = (question_key(row["question"]), answer_key(row["prediction"]))
            final = truth.get(key, "").strip().lower()
            label, failed = verdict_parse(gpt4.get(key, ""))
            if final not in ("yes", "no") or failed:
                continue
            topic = topic_external_id_for(row["question"])
            lines.append(line)
            judged.append((topic, f"{topic}-1", "1" if label == "yes" else "0", label))
            truths.append((topic, f"{topic}-1", final))
            if len(lines) == QUESTIONS:
                break
    args.target.mkdir(parents=True, exist_ok=True)
    (args.target / "NQ_DPR.jsonl").write_text("".join(lines), encoding="utf-8")
    for name, header, rows in (("gpt-4.tsv", ("topic", "item", "score", "label"), judged),
                               ("truth.tsv", ("topic", "item", "verdict"), truths)):
        with (args.target / name).open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
            writer.writerow(header)
            writer.writerows(rows)
    print(f"{len(lines)} questions; GPT-4 agrees with the study on "
          f"{sum(j[3] == t[2] for j, t in zip(judged, truths))}")


if __name__ == "__main__":
    main()
