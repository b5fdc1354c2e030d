"""BM25 (lexical ranker): the query's BM25 score for each candidate, the topic's candidates as the corpus.

BM25's IDF and length normalisation depend on the corpus. As in Heineking et al. (ECIR 2025), a topic's
candidates (its generated answers and judged documents) are ranked together, so the corpus is the
topic's candidates: the task layer sends them in `ItemInput.topic_candidates` whatever slice of the
topic a batch holds, and a candidate's score does not depend on how the run was batched. Scoring is
the bm25s library's (Lucene variant by default); deterministic.
"""

import logging
import re

from judges.errors import JudgeConfigError
from judges.families.base import ItemInput, JudgeFamily, Option, Verdict

_WORD = re.compile(r"\w+")
METHODS = ("lucene", "robertson", "atire", "bm25l", "bm25+")
TOKENIZERS = ("regex", "bm25s")


def _bm25s():
    """The bm25s module, with its logger (which the library sets to DEBUG) back at WARNING."""
    import bm25s

    logging.getLogger("bm25s").setLevel(logging.WARNING)
    return bm25s


def _tokenize(texts: list[str], tokenizer: str) -> list[list[str]]:
    if tokenizer == "regex":
        return [_WORD.findall(text.lower()) for text in texts]
    bm25s = _bm25s()
    # The library's own: lowercase, words of two or more characters, English stopwords removed.
    return bm25s.tokenize(texts, stopwords="en", return_ids=False, show_progress=False)


class BM25(JudgeFamily):
    name = "bm25"
    description = "BM25 score of the query against each candidate; corpus = the topic's candidates."
    needs_topic_candidates = True
    options = {
        "k1": Option((int, float), 1.2, "Term-frequency saturation (Lucene default 1.2)."),
        "b": Option((int, float), 0.75, "Length normalisation, 0 to 1."),
        "method": Option((str,), "lucene", "BM25 variant: " + ", ".join(METHODS) + "."),
        "tokenizer": Option((str,), "regex",
                            "regex: lowercase words (\\w+); bm25s: the library's, English stopwords removed."),
    }

    def check_config(self, config: dict) -> None:
        if config["k1"] < 0:
            raise JudgeConfigError(f"bm25: k1 must be 0 or more, not {config['k1']}")
        if not 0.0 <= config["b"] <= 1.0:
            raise JudgeConfigError(f"bm25: b must be between 0 and 1, not {config['b']}")
        if config["method"] not in METHODS:
            raise JudgeConfigError(f"bm25: method must be one of {', '.join(METHODS)}, not {config['method']!r}")
        if config["tokenizer"] not in TOKENIZERS:
            raise JudgeConfigError(f"bm25: tokenizer must be regex or bm25s, not {config['tokenizer']!r}")

    def judge_batch(self, items: list[ItemInput], config: dict) -> list[Verdict]:
        # One index per (query, corpus): the items of a topic share it.
        groups: dict[tuple[str, tuple[str, ...]], list[int]] = {}
        for position, item in enumerate(items):
            groups.setdefault((item.topic_text, self._corpus(item, items)), []).append(position)
        verdicts: list[Verdict | None] = [None] * len(items)
        for (query, corpus), positions in groups.items():
            scores = self._scores(query, corpus, config)
            for position in positions:
                item = items[position]
                score = scores[corpus.index(item.text)]
                verdicts[position] = Verdict(score=score, label="",
                                             raw=f"BM25 {score:.4f} over {len(corpus)} candidate(s) of the topic")
        return verdicts

    @staticmethod
    def _corpus(item: ItemInput, items: list[ItemInput]) -> tuple[str, ...]:
        if item.topic_candidates is not None and item.text in item.topic_candidates:
            return item.topic_candidates
        # Called outside the task layer without the topic's candidates: the batch's items of the topic.
        return tuple(other.text for other in items if other.topic_text == item.topic_text)

    @staticmethod
    def _scores(query: str, corpus: tuple[str, ...], config: dict) -> list[float]:
        bm25s = _bm25s()
        tokens = _tokenize([query, *corpus], config["tokenizer"])
        query_tokens, corpus_tokens = tokens[0], tokens[1:]
        if not any(corpus_tokens):
            return [0.0] * len(corpus)
        index = bm25s.BM25(k1=config["k1"], b=config["b"], method=config["method"])
        index.index(corpus_tokens, show_progress=False)
        known = [token for token in query_tokens if token in index.vocab_dict]
        if not known:
            return [0.0] * len(corpus)
        return [float(score) for score in index.get_scores(known)]
