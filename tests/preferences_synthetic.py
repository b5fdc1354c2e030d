"""Synthetic TREC preference collections of the published DL 2021 preferences' shape, for tests and the benchmark.

The published collection pairs passages of one topic's pool (each passage belongs to one topic), judges each pair by
one to three assessors whom the file does not name (a repeat of a pair is simply its line again, in either order),
and comes with an LLM judge's file in the both-orders layout: `@ topic x y !` (x preferred, both orders agreed),
`@ topic x y =` (the orders disagreed) or `@ topic x y ?` (a passage's text was missing). Here each passage has a
hidden quality; an assessor prefers the better passage by Bradley-Terry odds, or calls a tie when the two are close;
the judge sees the same qualities through noise. Written as two trec-preferences folders (topics.tsv and
collection.tsv beside the preference file): `human/` and `judge/`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class Collection:
    human: Path  # a trec-preferences folder of the assessors' lines, none naming its assessor
    judge: Path  # a trec-preferences folder of the judge's both-orders lines
    topics: int
    passages: int
    pairs: int
    human_lines: int
    repeated_pairs: int  # pairs judged by more than one assessor
    judge_marks: dict[str, int]  # "!", "=", "?" -> lines


def collection_write(folder: Path, *, topics: int, passages: tuple[int, int] = (20, 60), pairs: int,
                     assessors: tuple[int, ...] = (1, 1, 1, 2, 3), tie_margin: float = 0.15,
                     judge_noise: float = 0.8, inconsistent: float = 0.15, missing: float = 0.05,
                     seed: int = 0) -> Collection:
    """Write a collection of PAIRS pairs over TOPICS topics, each topic's pool of PASSAGES (low, high) passages, each
    pair judged by a number of assessors drawn from ASSESSORS, into FOLDER/human and FOLDER/judge."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(passages[0], passages[1] + 1, size=topics)
    per_topic = np.bincount(rng.integers(0, topics, size=pairs), minlength=topics)
    texts_topics, texts_passages, human, judge = [], [], [], []
    marks = {"!": 0, "=": 0, "?": 0}
    made = repeated = 0
    for topic, (size, wanted) in enumerate(zip(sizes, per_topic, strict=True)):
        qid = f"{1000 + topic}"
        texts_topics.append(f"{qid}\tquestion number {topic}")
        ids = [f"p{topic}_{n}" for n in range(size)]
        texts_passages += [f"{docid}\tpassage {docid} of topic {qid}" for docid in ids]
        quality = rng.normal(0.0, 1.0, size=size)
        every = list(itertools.combinations(range(size), 2))
        chosen = rng.choice(len(every), size=min(int(wanted), len(every)), replace=False)
        for index in chosen:
            i, j = every[index]
            made += 1
            times = int(rng.choice(assessors))
            repeated += times > 1
            for _ in range(times):
                left, right = (i, j) if rng.random() < 0.5 else (j, i)
                gap = quality[left] - quality[right]
                if abs(gap + rng.normal(0, 0.3)) < tie_margin:
                    preferred = "tie"
                else:
                    preferred = ids[left] if rng.random() < 1 / (1 + math.exp(-2 * gap)) else ids[right]
                human.append(f"{qid} {ids[left]} {ids[right]} {preferred}")
                draw = rng.random()
                if draw < missing:
                    mark, x, y = "?", left, right
                elif draw < missing + inconsistent:
                    mark, x, y = "=", left, right
                else:
                    seen = gap + rng.normal(0, judge_noise)
                    mark, (x, y) = "!", ((left, right) if seen > 0 else (right, left))
                marks[mark] += 1
                judge.append(f"@ {qid} {ids[x]} {ids[y]} {mark}")
    for name, lines in (("human", human), ("judge", judge)):
        path = folder / name
        path.mkdir(parents=True, exist_ok=True)
        (path / "topics.tsv").write_text("\n".join(texts_topics) + "\n")
        (path / "collection.tsv").write_text("\n".join(texts_passages) + "\n")
        (path / f"{name}.prefs").write_text("\n".join(lines) + "\n")
    return Collection(human=folder / "human", judge=folder / "judge", topics=topics, passages=int(sizes.sum()),
                      pairs=made, human_lines=len(human), repeated_pairs=repeated, judge_marks=marks)
