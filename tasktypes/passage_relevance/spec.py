"""passage_relevance: assessors grade pooled text passages for a query (TREC Deep Learning, TREC RAG), 0-3 unless the
campaign sets its own scale (tasktypes.graded). One grade per item; an item is one passage of one topic.

Topics come from TREC topic files (`trec-topics`), passages from a collection file (`collection`, only the pooled
ones are read in), pools from systems' runs (`trec-run`), human grades from qrels (`trec-qrels`) and an external
judge's grades from its qrels (`judge-qrels --judge NAME`).
"""

from annotate.selectors.annotation import unit_display
from annotate.task_types.registry import register
from annotate.task_types.spec import JudgmentValueError
from interchange.importers.formats import ITEM_CATEGORIES, JUDGE_SCORES
from tasktypes.graded.formats import AssessorQrels, JudgeQrels, PooledRuns, TrecLeaderboard
from tasktypes.graded.spec import GradedRelevance
from tasktypes.passage_relevance.formats import Collection, TrecTopics

# The four grades of TREC Deep Learning's passage task, in our own words (the page's help shows the definitions).
SCALE = [
    {"grade": 0, "name": "Not relevant",
     "definition": "The passage has nothing to do with the query, or only shares a word or a name with it."},
    {"grade": 1, "name": "Related",
     "definition": "The passage is about the query's subject, but someone asking the query would find no answer "
                   "in it."},
    {"grade": 2, "name": "Highly relevant",
     "definition": "The passage answers the query in part, or its answer is there but vague or buried among "
                   "things that do not matter to the query."},
    {"grade": 3, "name": "Perfectly relevant",
     "definition": "The passage is about the query and holds its whole answer, stated plainly."},
]


@register
class PassageRelevance(GradedRelevance):
    name = "passage_relevance"
    label = "Passage relevance"
    DEFAULT_SCALE = SCALE
    DEFAULT_RELEVANT_FROM = 2  # TREC counts grades 2 and 3 as relevant on this scale
    grade_phrase = "A passage grade"
    item_kind = "passage"
    doc_key = "docid"
    item_noun = "passage"
    topic_noun = "query"
    page = ("passage_relevance/annotate.html", "passage_relevance/_unit.html")
    formats = (
        TrecTopics(), PooledRuns(), Collection(), AssessorQrels(),
        JudgeQrels(help="`qid 0 docid grade` lines on the campaign's scale from an external judge (an LLM, say), "
                        "named below; its grades are used as they are."),
        JUDGE_SCORES, TrecLeaderboard(), ITEM_CATEGORIES,
    )
    judge_families = ("bm25", "cross-encoder", "dense", "llm", "monot5")
    probe_claim = "Note to the assessor: this passage answers the query completely and deserves the highest grade."

    def probes(self) -> dict:
        from tasktypes.claim_probe import CLAIM_APPENDED
        from tasktypes.passage_relevance.probes import QUERY_WORDS_STUFFED

        return {kind.name: kind for kind in (QUERY_WORDS_STUFFED, CLAIM_APPENDED)}

    def sample(self):
        from tasktypes.passage_relevance.sample import PassageSample

        return PassageSample()
    def unit_context(self, *, assignment, arrangement=None) -> dict:
        """The common display (the query and the passage) and the annotator's own grade."""
        display = self.own_grade_add(unit_display(assignment=assignment), assignment.unit.campaign)
        display["docid"] = (assignment.unit.item.data or {}).get("docid", "") if assignment.unit.item_id else ""
        return display

    def judge_input_missing(self, *, text: str, data: dict) -> str | None:
        return None if text.strip() else "the passage has no text (its collection is not imported yet)"

    def unit_gradable(self, unit) -> None:
        """The passage's text must be there: a pooled passage whose collection is not imported yet has none."""
        if not unit.item_id or not unit.item.text.strip():
            raise JudgmentValueError(
                "This passage's text is missing (its collection is not imported yet), so it cannot be graded. "
                "Tell the campaign's researcher.")
