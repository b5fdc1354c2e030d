"""Text normalisation shared by import matching and the EM/F1 judges.

`squad_normalize` is the answer normalisation of the SQuAD v1.1 evaluation script (lower case,
punctuation and the articles a/an/the removed, whitespace collapsed), which EM and token F1 are
defined on. `question_key` makes the same question written by different files compare equal.
"""

import functools
import re
import string
import unicodedata

_PUNCTUATION = set(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_CURLY = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2032": "'", "`": "'"})
# Tokenised text splits contractions and possessives: "do n't", "it 's", "they 're".
_SPLIT_CLITIC = re.compile(r"\s+(n't|'s|'re|'ve|'ll|'d|'m)\b")


@functools.lru_cache(maxsize=65_536)  # a report normalises each prediction once per rater: the same strings again
def squad_normalize(text: str) -> str:
    text = text.lower()
    text = "".join(ch for ch in text if ch not in _PUNCTUATION)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def squad_tokens(text: str) -> list[str]:
    return squad_normalize(text).split()


def question_key(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).translate(_CURLY).lower()
    text = _SPLIT_CLITIC.sub(r"\1", text)
    text = " ".join(text.split()).rstrip(" ?")
    return text


def answer_key(text: str) -> str:
    """Key for matching one file's answer string to another's: quotes, clitics, case and spacing."""
    return squad_normalize(question_key(text))
