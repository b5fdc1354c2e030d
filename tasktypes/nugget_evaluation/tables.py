"""The nugget report's tables as CSV (reports.tables' writer and cell helpers): the runs' scores with intervals
(systems), the assignment agreement and the per-topic Kendall tau per topic (topics), the judges' run-level
correlations (judges), every answer's scores (answers). One row per thing, numbers unrounded, an undefined statistic
an empty cell."""

from __future__ import annotations

from reports.tables import SpreadsheetCsv, interval_cells, value_cell

HUMANS = "humans"


def runs_csv(report: dict) -> str:
    """Rows: runs; per source (the humans, then each judge) and score: its mean over topics, the interval's ends,
    the topics it is over."""
    sources, scores = report["runs"]["sources"], report["scores"]
    writer = SpreadsheetCsv()
    writer.writerow(["run", *(f"{source}_{score}_{what}" for source in sources for score in scores
                              for what in ("mean", "ci95_low", "ci95_high", "n_topics"))])
    for row in report["runs"]["rows"]:
        cells = []
        for source in sources:
            for score in scores:
                figure = row["sources"][source][score]
                cells += [value_cell(figure["mean"]), *interval_cells(figure["ci95"]), figure["n_topics"]]
        writer.writerow([row["run"], *cells])
    return writer.text()


TOPIC_COLUMNS = ["rater", "topic", "what", "n", "n_answers", "value", "ci95_low", "ci95_high", "ci_over"]


def topics_csv(report: dict) -> str:
    """Rows: per rater (the assessors among themselves, each judge against the humans) and topic, Cohen's kappa and
    the agreement rate over the three marks and over supported or not, each with n (nugget marks) and its interval
    over the topic's answers; then per judge and topic the Kendall tau of the runs' headline scores (n: runs)."""
    writer = SpreadsheetCsv()
    writer.writerow(TOPIC_COLUMNS)
    raters = {"assessors": report["assessors"],
              **{f"{name} vs humans": block["assignment"] for name, block in report["judges"].items()}}
    for rater, block in raters.items():
        for variant in ("three", "binary"):
            for row in block[variant]["per_topic"]:
                for key in ("cohen_kappa", "accuracy"):
                    writer.writerow([rater, row["topic"], f"{key}_{variant}", row["n"], row["n_answers"],
                                     value_cell(row[key]), *interval_cells(row.get(f"{key}_ci95")),
                                     row.get(f"{key}_ci_over", "")])
    for name, block in report["judges"].items():
        for row in block["runs"][report["headline"]]["per_topic"]["rows"]:
            writer.writerow([f"{name} vs humans", row["topic"], f"kendall_tau_b_runs_{report['headline']}",
                             row["n_runs"], "", value_cell(row["kendall_tau_b"]), "", "", ""])
    return writer.text()


CORRELATIONS = ("kendall_tau_b", "spearman", "pearson")


def judges_csv(report: dict) -> str:
    """Rows: per judge and score, how it orders the runs against the humans (n runs, n topics, each correlation with
    its interval over topics, the swapped pairs, the per-topic tau's mean, sd and quartiles), with the judge's
    assignment kappa against the humans (n marks, interval over topics) on each row, and whose nuggets it marks
    against ("frozen", or "judge:<name>": then its run scores are under that judge's lists and its kappa is empty)."""
    writer = SpreadsheetCsv()
    writer.writerow(["judge", "family", "score", "n_marks", "cohen_kappa", "cohen_kappa_ci95_low",
                     "cohen_kappa_ci95_high", "cohen_kappa_binary", "cohen_kappa_binary_ci95_low",
                     "cohen_kappa_binary_ci95_high", "n_runs", "n_topics",
                     *(f"{key}{end}" for key in CORRELATIONS for end in ("", "_ci95_low", "_ci95_high")),
                     "n_pairs", "n_swaps", "swaps", "topic_tau_n", "topic_tau_mean", "topic_tau_mean_ci95_low",
                     "topic_tau_mean_ci95_high", "topic_tau_sd", "topic_tau_q1", "topic_tau_median", "topic_tau_q3",
                     "nuggets"])
    for name, block in report["judges"].items():
        three, binary = block["assignment"]["three"], block["assignment"]["binary"]
        for score in report["scores"]:
            order = block["runs"][score]
            summary = order["per_topic"]["summary"]
            quartiles = summary.get("quartiles") or [None, None, None]
            writer.writerow([
                name, block["family"], score, three["n"], value_cell(three["cohen_kappa"]),
                *interval_cells(three.get("cohen_kappa_ci95")), value_cell(binary["cohen_kappa"]),
                *interval_cells(binary.get("cohen_kappa_ci95")), order["n_systems"], order["n_topics"],
                *(cell for key in CORRELATIONS for cell in (value_cell(order[key]),
                                                            *interval_cells(order.get(f"{key}_ci95")))),
                order["n_pairs"], order["n_swaps"],
                "; ".join(f"{swap['runs'][0]} > {swap['runs'][1]}" for swap in order["swaps"]),
                summary["n"], value_cell(summary["mean"]), *interval_cells(summary.get("bootstrap_ci95")),
                value_cell(summary["sd"]), *(value_cell(q) for q in quartiles), block.get("nuggets", "frozen")])
    return writer.text()


def answers_csv(report: dict) -> str:
    """Rows: answers (topic, run, item id, how many assessors marked it); per source and score, the answer's score
    (the humans': of their mark per nugget, report["humans"]["reference_rule"])."""
    answers = report["answers"]
    sources, scores = list(answers["scores"]), report["scores"]
    writer = SpreadsheetCsv()
    writer.writerow(["topic", "run", "item", "n_humans", *(f"{source}_{score}" for source in sources
                                                           for score in scores)])
    for index, row in enumerate(answers["rows"]):
        writer.writerow([row["topic"], row["run"], row["item"], row["n_humans"],
                         *(value_cell(answers["scores"][source][score][index]) for source in sources
                           for score in scores)])
    return writer.text()
