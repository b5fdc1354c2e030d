"""How an ais report is shown (reports.presentation): the verdict report's page with the two questions' agreement, the
AIS systems table and the judges' disagreements (templates/ais/), and the systems table's further columns."""

from reports.presentation import VerdictPresentation


class AisPresentation(VerdictPresentation):
    body_template = "ais/report_body.html"
    measure = "AIS accuracy"

    def systems_csv(self, report: dict) -> str:
        """The verdict systems table with, after human, its bootstrap standard error and the outputs in all, tied and
        still open."""
        from reports.tables import systems_csv

        return systems_csv(report=report, extra=("human_se", "outputs", "ties", "open"))
