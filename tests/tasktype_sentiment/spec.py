"""The sentiment task type's spec: one verdict per item (a review), positive, neutral or negative."""

from annotate.forms import CampaignOptionsForm
from annotate.selectors.annotation import unit_display
from annotate.task_types.registry import register
from annotate.task_types.spec import JudgmentValueError, TaskTypeSpec
from interchange.importers.formats import JUDGE_SCORES

from .downloads import DISAGREEMENTS
from .formats import ReviewsJsonl, ShopReviews

NAME = "sentiment"
SENTIMENTS = {"positive": "p", "neutral": "u", "negative": "n"}  # label -> its key on the annotation page


@register
class Sentiment(TaskTypeSpec):
    name = NAME
    label = "Review sentiment"
    options_form = CampaignOptionsForm
    page = ("sentiment/annotate.html", "sentiment/_unit.html")
    topic_noun = "product"
    formats = (ReviewsJsonl(), ShopReviews(), JUDGE_SCORES)
    # A family that runs on any item: BM25 scores each review against its product's name (a score, no verdict).
    judge_families = ("bm25",)
    report_layout = "sentiment"
    # A file its report serves beside the document, at URLs of its own (under the report page and its API).
    extra_downloads = (DISAGREEMENTS,)

    def value_check(self, value, *, unit=None) -> str:
        if not isinstance(value, dict) or set(value) != {"sentiment"} or value["sentiment"] not in SENTIMENTS:
            raise JudgmentValueError('A sentiment verdict is {"sentiment": "positive"}, "neutral" or "negative".')
        return value["sentiment"]

    def value_from_post(self, post, *, assignment) -> dict:
        return {"sentiment": post.get("sentiment", "")}

    def unit_context(self, *, assignment, arrangement=None) -> dict:
        return {**unit_display(assignment=assignment), "sentiments": SENTIMENTS}

    def adjudication_questions(self, campaign) -> list[dict]:
        return [{"name": "sentiment", "title": "How does the review feel about the product?", "when": None,
                 "choices": [{"value": label, "words": label, "key": key} for label, key in SENTIMENTS.items()]}]

    def report_build(self, *, campaign) -> dict:
        from .report import sentiment_report_build

        return sentiment_report_build(campaign=campaign)

    def report_extras(self, *, campaign, document: dict) -> dict:
        from .downloads import disagreements_get

        return {"disagreements": disagreements_get(campaign=campaign)}

    def report_presentation(self):
        from .presentation import SentimentPresentation

        return SentimentPresentation()

    def sample(self):
        from .sample import SentimentSample

        return SentimentSample()
