"""How the sentiment report is shown: its own body (templates/sentiment/report_body.html), its judges table and text."""

from reports.presentation import ReportPresentation
from reports.tables import SpreadsheetCsv, interval_cells, value_cell


class SentimentPresentation(ReportPresentation):
    body_template = "sentiment/report_body.html"

    def judges_csv(self, report: dict) -> str:
        writer = SpreadsheetCsv()
        writer.writerow(["judge", "n", "cohen_kappa", "cohen_kappa_ci95_low", "cohen_kappa_ci95_high", "accuracy"])
        for name, block in report["judges"].items():
            item = block["item"]
            writer.writerow(
                [
                    name,
                    item["n"],
                    value_cell(item["cohen_kappa"]),
                    *interval_cells(item["cohen_kappa_ci95"]),
                    value_cell(item["accuracy"]),
                ]
            )
        return writer.text()

    def systems_csv(self, report: dict) -> str:
        writer = SpreadsheetCsv()
        writer.writerow(["system"])
        return writer.text()

    def text(self, report: dict) -> str:
        lines = [
            f"Sentiment report: {report['campaign']}",
            f"Humans: Fleiss' kappa {report['humans']['fleiss_kappa']} over {report['humans']['fleiss_items']} items",
        ]
        lines += [f"{name}: kappa {block['item']['cohen_kappa']} (n = {block['item']['n']})"
                  for name, block in report["judges"].items()]
        return "\n".join(lines)
