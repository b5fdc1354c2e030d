#!/usr/bin/env python
"""Remake fixtures/nq301/ from a copy of castorini/qa-eval's data/ folder (the demo's NQ-open 301 data).

    .venv/bin/python scripts/make_nq301_fixture.py /work/shared/data/qa-eval-nq301 fixtures/nq301

Copies the human, GPT-4 and text-davinci-003 TSVs and the LICENSE as they are, and the 12 systems'
JSONL files with only the lines of the 301 questions of the human TSV (the NQ_ files hold all 3,610
NQ-open test questions), each line byte for byte. Questions are matched as the importer matches them.
"""

import argparse
import json
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from annotate.textnorm import question_key  # noqa: E402  (plain Python, no Django needed)

# The file names tasktypes/qa_correctness/nq301.py reads.
HUMAN_FILE = "NQ301_human.tsv"
JUDGE_FILES = ("NQ301_gpt-4.tsv", "NQ301_text-davinci-003.tsv")
SYSTEM_GLOB = "NQ_*.jsonl"
EXTRA_SYSTEM_FILES = ("NQ301_text-davinci-003_zeroshot.jsonl", "NQ301_text-davinci-003_fewshot-n64.jsonl")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="the qa-eval data folder")
    parser.add_argument("target", type=Path, help="where to write the subset (e.g. fixtures/nq301)")
    args = parser.parse_args()
    source, target = args.source, args.target
    (target / "model_outputs").mkdir(parents=True, exist_ok=True)
    for name in (HUMAN_FILE, *JUDGE_FILES, "LICENSE"):
        shutil.copyfile(source / name, target / name)

    lines = (source / HUMAN_FILE).read_text(encoding="utf-8").splitlines()[1:]
    questions = {question_key(line.split("\t")[1]) for line in lines if line.strip()}
    for path in sorted((source / "model_outputs").glob(SYSTEM_GLOB)):
        kept = [
            line
            for line in path.read_bytes().splitlines(keepends=True)
            if line.strip() and question_key(json.loads(line)["question"]) in questions
        ]
        (target / "model_outputs" / path.name).write_bytes(b"".join(kept))
        print(f"{path.name}: {len(kept)} of the 301 questions")
    for name in EXTRA_SYSTEM_FILES:
        shutil.copyfile(source / "model_outputs" / name, target / "model_outputs" / name)
    print(f"wrote {target}")

if __name__ == "__main__":
    main()
