"""Synthetic Attributed-QA ratings files of the public ratings.csv's shape, for tests and the import benchmark.

Columns: system_name, question, answer, attribution, passage, human_rating (Y/N or blank), auto_ais (Y/N),
nli_score. Every system answers every question once; about `rated_share` of the rows carry a human rating.
Passages are written "« title » « section » text" like the corpus, with commas, quotes and newlines so the
CSV needs quoting. Deterministic for a seed.
"""

import csv
import random
from pathlib import Path

COLUMNS = ["system_name", "question", "answer", "attribution", "passage", "human_rating", "auto_ais", "nli_score"]
_WORDS = ("river city census population bridge tower founded century mayor island railway museum election "
          "harbour province village castle treaty coast mountain valley festival cathedral").split()


def ais_rows(*, systems: int, questions: int, rated_share: float = 0.28, passage_words: int = 88,
             seed: int = 0, first: int = 0) -> list[dict]:
    """Rows for questions FIRST .. FIRST + QUESTIONS - 1, every system answering each."""
    rng = random.Random(seed * 1_000_003 + first)
    rows = []
    for q in range(first, first + questions):
        question = f"what is the {rng.choice(_WORDS)} of place {q}"
        for s in range(systems):
            title = f"Place {q} ({rng.choice(_WORDS)})"
            words = " ".join(rng.choice(_WORDS) for _ in range(passage_words))
            passage = f"« {title} » « History, \"early\" years » {words},\nsecond line {q}-{s}."
            score = round(rng.random(), 6)
            rated = rng.random() < rated_share
            rows.append({
                "system_name": f"system-{s:02d}",
                "question": question,
                "answer": f"{rng.randint(1, 10**6):,}",
                "attribution": f"https://en.wikipedia.org/wiki/Place_{q}",
                "passage": passage,
                # Humans agree with the NLI score more often than not, so the correlation is positive.
                "human_rating": ("Y" if (score + rng.gauss(0, 0.3)) >= 0.5 else "N") if rated else "",
                "auto_ais": "Y" if score >= 0.5 else "N",
                "nli_score": repr(score),
            })
    return rows


def ais_csv_write(path: Path, rows: list[dict]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    return path


def ais_csv_stream(path: Path, *, systems: int, questions: int, seed: int = 0) -> Path:
    """Write a large file question by question, never holding all its rows (the benchmark's 83,000 rows)."""
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        for first in range(0, questions, 100):
            writer.writerows(ais_rows(systems=systems, questions=min(100, questions - first), seed=seed, first=first))
    return path
