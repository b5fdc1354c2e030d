"""`manage.py agreement_report --campaign SLUG [--json] [--stored]`: the agreement report on stdout (DESIGN.md §5).

Built fresh from the data by default: a script gets the report of the data as it is now, with no worker needed, and
the stored copy is left alone. With --stored, the report the page shows (agreement.stored): read from the store when
current, else the stored one while a rebuild is queued (said on stderr), or built here and stored when none is (a
script needs no worker)."""

import json

from django.core.management.base import BaseCommand, CommandError

from agreement.report import agreement_report_build
from agreement.stored import report_for_open, stored_report_rebuild, stored_report_status
from annotate.models import Campaign
from annotate.task_types import LAYOUT_RANKING


def _fmt(value) -> str:
    return "—" if value is None else f"{value:.3f}"


class Command(BaseCommand):
    help = "Print a campaign's agreement report: a readable summary, or with --json the report document."

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True, help="campaign slug")
        parser.add_argument("--json", action="store_true", dest="as_json", help="print the JSON document of DESIGN.md §5, nothing else")
        parser.add_argument("--stored", action="store_true",
                            help="print the stored report the page shows instead of building one from the data now")

    def handle(self, *args, campaign, as_json: bool, stored: bool = False, **options):
        try:
            found = Campaign.objects.get(slug=campaign)
        except Campaign.DoesNotExist:
            raise CommandError(f"no campaign {campaign!r}") from None
        if stored:
            if stored_report_status(campaign=found)["report_version"] is None:
                stored_report_rebuild(campaign_id=found.pk)  # the first build, here: no worker needed
            opened = report_for_open(campaign=found)
            if not opened.ready:
                raise CommandError(f"the first report of {campaign!r} is being built elsewhere (a worker holds its "
                                   "build lock); run again shortly, or without --stored for one built from the data now")
            report = opened.document
            if opened.updating:
                self.stderr.write(f"stored report of data version {opened.version}, the data is at {opened.data_version}"
                                  f": {opened.build_error or opened.queue_error or 'a rebuild is queued'}")
        else:
            report = agreement_report_build(campaign=found)
        if as_json:
            self.stdout.write(json.dumps(report, ensure_ascii=False))
        else:
            self.stdout.write(summary_text(report))


def summary_text(report: dict) -> str:
    """The report as aligned plain text, three decimals, "—" where a statistic is undefined."""
    if report["layout"] == LAYOUT_RANKING:
        return ranking_summary_text(report)
    humans = report["humans"]
    lines = [
        f"Agreement report: {report['campaign']} ({report['task_type']})",
        "",
        f"Humans: {humans['annotators']} annotators, {humans['items_labelled']} items with a human label "
        f"({humans['adjudicated']} adjudicated, {humans['ties']} ties, {humans.get('items_open', 0)} still open)",
        f"  Fleiss' kappa {_fmt(humans['fleiss_kappa'])} over {humans['fleiss_items']} items; "
        f"Krippendorff's alpha {_fmt(humans['krippendorff_alpha'])}",
    ]
    for pair in humans["pairwise_cohen_kappa"]:
        lines.append(f"  Cohen's kappa {pair['a']} vs {pair['b']}: {_fmt(pair['kappa'])} (n = {pair['n']})")
    lines += ["", "Judges (item level vs the human label; system level vs human accuracies):"]
    if not report["judges"]:
        lines.append("  none")
    width = max([len(name) for name in report["judges"]] + [5])
    if report["judges"]:
        lines.append(
            f"  {'judge':<{width}}  {'n':>6}  {'kappa':>6}  {'agree':>6}  {'failed':>6}  {'tau-b':>6}  {'rho':>6}  {'r':>6}"
        )
    for name, block in report["judges"].items():
        item, system = block["item"], block["system"]
        lines.append(
            f"  {name:<{width}}  {item['n']:>6}  {_fmt(item['cohen_kappa']):>6}  {_fmt(item['accuracy']):>6}  "
            f"{item.get('failed', 0):>6}  {_fmt(system['kendall_tau_b']):>6}  {_fmt(system['spearman']):>6}  "
            f"{_fmt(system['pearson']):>6}"
        )
    for name, block in report["judges"].items():
        for key, words in (("system_all", "each side over every output it decided"),
                           ("system_mean_score", "by the judge's mean score")):
            order = block.get(key)
            if order and order is not block["system"]:
                lines.append(f"  {name:<{width}}  systems {words}: tau-b {_fmt(order['kendall_tau_b'])}, "
                             f"rho {_fmt(order['spearman'])}, r {_fmt(order['pearson'])} "
                             f"({order['n_systems']} systems)")
    if report["systems"]:
        names = list(report["judges"])
        swidth = max(len(row["system"]) for row in report["systems"])
        counting = report.get("counting")
        rule = f" (counting rule {counting['rule']}: {counting['description']})" if counting else ""
        lines += ["", f"System accuracy{rule}:",
                  "  " + "  ".join([f"{'system':<{swidth}}", f"{'n':>5}", f"{'human':>6}", *names])]
        for row in report["systems"]:
            cells = [f"{row['system']:<{swidth}}", f"{row['n']:>5}", f"{_fmt(row['human']):>6}"]
            cells += [f"{_fmt(row['judges'].get(name)):>{max(6, len(name))}}" for name in names]
            lines.append("  " + "  ".join(cells))
    return "\n".join(lines)


def _mean_ci(summary: dict | None) -> str:
    if not summary:
        return "—"
    ci = summary["ci95"]
    interval = f" [{_fmt(ci[0])}, {_fmt(ci[1])}]" if ci else ""
    return f"{_fmt(summary['mean'])}{interval} (n = {summary['n']})"


def ranking_summary_text(report: dict) -> str:
    """answer_ranking: mean per-topic Kendall tau-b with its 95% CI per ranker, and the human ceiling."""
    humans = report["humans"]
    ceiling = humans["ceiling"] or {}
    lines = [
        f"Agreement report: {report['campaign']} ({report['task_type']})",
        "",
        f"Humans: {humans['annotators']} annotators, {humans['topics_ranked']} of {humans['topics']} topics ranked "
        f"({humans['adjudicated']} adjudicated)",
        f"  human vs human tau-b, mean over topics: {_mean_ci(ceiling.get('kendall_tau_b'))}; "
        f"answers only: {_mean_ci(ceiling.get('kendall_tau_b_answers_only'))}",
        "",
        "Rankers (per-topic Kendall tau-b vs the human order, mean over topics with 95% CI):",
    ]
    if not report["judges"]:
        lines.append("  none")
    for name, block in report["judges"].items():
        for dimension, means in block["topic_mean_by_dimension"].items():
            lines.append(
                f"  {name} [{dimension}]: {_mean_ci(means['kendall_tau_b'])}; "
                f"answers only: {_mean_ci(means['kendall_tau_b_answers_only'])}"
            )
    return "\n".join(lines)
