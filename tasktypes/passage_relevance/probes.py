"""The probe kind passage_relevance has alone (TaskTypeSpec.probes): the query's words stuffed around a passage the
humans grade not relevant. A judge that rewards shared words grades the copy higher."""

import re

from tasktypes.probes import RaisingProbe


def _query_words(query: str) -> list[str]:
    """The query's words, lower-cased, each once, in order: those of three letters or more."""
    return list(dict.fromkeys(word for word in re.findall(r"\w+", query.lower()) if len(word) >= 3))


class QueryWordsStuffed(RaisingProbe):
    name = "stuffing"
    title = "Query words stuffed in"
    what = "the query, then the passage, then the query's words again, made of passages the humans grade not relevant"

    def changed(self, item, *, spec) -> tuple[str, dict]:
        """The query, then the passage, then the query's words again."""
        query = item.topic.text.strip()
        return f"{query} {item.text.strip()} {' '.join(_query_words(query))}", dict(item.data or {})


QUERY_WORDS_STUFFED = QueryWordsStuffed()
