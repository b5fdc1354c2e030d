"""What the sentiment report serves beside its document (Sentiment.extra_downloads): the reviews on which a judge
and the human label differ, as a CSV, written from what the report stored with it (Sentiment.report_extras)."""

from annotate.models import Item
from annotate.task_types.spec import DownloadFile, ExtraDownload
from reports.selectors import human_labels_get, judge_labels_get
from reports.tables import SpreadsheetCsv


def disagreements_get(*, campaign) -> list[dict]:
    """[{review, human, judge, label}]: each review whose human label a judge's verdict differs from."""
    humans = human_labels_get(campaign=campaign)
    rows = [(item, judge.name, label) for judge in judge_labels_get(campaign=campaign)
            for item, label in sorted(judge.labels.items()) if humans.item_label.get(item) not in (None, label)]
    names = dict(Item.objects.filter(pk__in={item for item, _, _ in rows}).values_list("pk", "external_id"))
    return [{"review": names[item], "human": humans.item_label[item], "judge": judge, "label": label}
            for item, judge, label in rows]


def disagreements_file(request, *, campaign, report, extras) -> DownloadFile:
    """The reviews on which a judge and the human label differ (review, human, judge, label)."""
    writer = SpreadsheetCsv()
    writer.writerow(["review", "human", "judge", "label"])
    for row in extras.get("disagreements", []):
        writer.writerow([row["review"], row["human"], row["judge"], row["label"]])
    return DownloadFile(text=writer.text(), filename=f"{campaign.slug}-disagreements.csv",
                        content_type="text/csv; charset=utf-8")


DISAGREEMENTS = ExtraDownload("disagreements", "disagreements.csv", "sentiment-disagreements",
                              "api-sentiment-disagreements", disagreements_file,
                              "The reviews on which a judge and the human label differ")
