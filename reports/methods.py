"""A report's methods section for a paper, as plain text (the page's "Methods (text)" download, methods.txt), and the
per-rater label table behind its statistics (labels.csv).

The methods text is made from the stored report document and the campaign's judges, so that it names what the page
shows: the data (items, annotators, the human label's rule), each judge with the version of its configuration (its
family and configuration hash, and the settings that make it), every interval method the document records and the
blocks it applies to (resamples and seed are in each), the figures with their n as the command prints them, and the
software that computed them (recorded in the document when it was built, report["software"]).
"""

from __future__ import annotations

import importlib.metadata
import json
import platform
from pathlib import Path

import numpy as np

from config.version import VERSION
from reports.ppi import ppi_judges
from reports.tables import SpreadsheetCsv
from stats import budget, resampling

# The libraries whose arithmetic a report shows, in the order a methods section names them.
LIBRARIES = ("numpy", "scipy", "scikit-learn", "statsmodels", "krippendorff", "irrCAC", "choix", "ir_measures",
             "pytrec-eval-terrier", "ppi-python", "matplotlib", "Django")
ROOT = Path(__file__).resolve().parent.parent


def concord_version() -> str:
    """The commit Concord runs from (read from .git, no subprocess), or "unknown" where the code is not a checkout."""
    head = ROOT / ".git" / "HEAD"
    try:
        ref = head.read_text().strip()
        if ref.startswith("ref: "):
            target = ROOT / ".git" / ref[5:]
            if target.exists():
                return target.read_text().strip()[:12]
            packed = (ROOT / ".git" / "packed-refs").read_text().splitlines()
            return next(line.split()[0][:12] for line in packed if line.endswith(" " + ref[5:]))
        return ref[:12]
    except (OSError, StopIteration):
        return "unknown"


def software_versions() -> dict[str, str]:
    """{name: version} of Concord (its version, config.version, and the commit it runs from), Python and each library
    of LIBRARIES installed here."""
    commit = concord_version()
    versions = {"Concord": VERSION if commit == "unknown" else f"{VERSION} (commit {commit})",
                "Python": platform.python_version()}
    for name in LIBRARIES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions


def random_stream() -> dict:
    """The random stream of every resampled figure of a report built now (stats.resampling.random_stream, the
    budget's resamples and seed, and the Concord commit whose code drew them): a figure recomputed under another
    stream moves by its Monte Carlo error, so the methods name the stream beside the method."""
    return {
        **resampling.random_stream(),
        "budget_resamples": budget.BUDGET_RESAMPLES,
        "budget_seed": budget.BUDGET_SEED,
        "budget_mc_groups": budget.MC_GROUPS,
        "concord": concord_version(),
    }


def random_stream_text(stream: dict) -> str:
    """One sentence for the methods section naming STREAM (random_stream's)."""
    return (f"Random stream: every bootstrap draws from {stream['generator']} (numpy {stream['numpy']}), Concord's "
            f"stream {stream['stream']} as computed by Concord {stream['concord']}: {stream['resamples']} resamples "
            f"an interval, seed {stream['seed']}; the labelling budget {stream['budget_resamples']} a size, seed "
            f"{stream['budget_seed']}, its figures with their Monte Carlo error ({stream['budget_mc_groups']} groups "
            f"of resamples). Under another stream an interval end moves by its Monte Carlo error only (below).")


def interval_errors(recorded: list[tuple[float, float, float]]) -> dict:
    """How far the report's interval ends would move under another random stream: over the RECORDED intervals
    (stats.resampling.interval_errors_recorded: each end's Monte Carlo standard error and the interval's width), the
    ends' median and largest error, and the same as a share of their interval's width (intervals of some width)."""
    errors = np.asarray([error for low, high, _ in recorded for error in (low, high)], dtype=float)
    shares = np.asarray([error / width for low, high, width in recorded if width > 0 for error in (low, high)],
                        dtype=float)
    return {"intervals": len(recorded), "ends": int(errors.size),
            "median": float(np.median(errors)) if errors.size else None,
            "max": float(errors.max()) if errors.size else None,
            "median_share": float(np.median(shares)) if shares.size else None,
            "max_share": float(shares.max()) if shares.size else None,
            "method": (f"each end's Monte Carlo standard error: the distance between the order statistics of its "
                       f"resamples that bracket its percentile by {resampling.BRACKET:g} standard errors each way "
                       f"(binomial ranks), over {2 * resampling.BRACKET:g}")}


def interval_errors_text(errors: dict) -> str:
    """One sentence for the methods section from ERRORS (interval_errors')."""
    if not errors.get("ends"):
        return "Monte Carlo error: the report has no bootstrap interval."
    share = ("" if errors["median_share"] is None else
             f" ({100 * errors['median_share']:.1f}% and {100 * errors['max_share']:.1f}% of the interval's width)")
    return (f"Monte Carlo error of the interval ends (n = {errors['ends']} ends of {errors['intervals']} bootstrap "
            f"intervals): median {errors['median']:.4f}, largest {errors['max']:.4f}{share}; {errors['method']}.")


def _methods(node, path: str, found: dict[str, list[str]]) -> None:
    """Every method string of the document (a key ending in "method"), with the blocks it describes."""
    if isinstance(node, dict):
        for key, value in node.items():
            where = f"{path}.{key}" if path else str(key)
            if isinstance(value, str) and key.endswith("method") and value:
                found.setdefault(value, []).append(path or "report")
            else:
                _methods(value, where, found)
    elif isinstance(node, list):
        for value in node:
            _methods(value, path, found)


def _blocks(paths: list[str]) -> str:
    shown = list(dict.fromkeys(paths))
    return "; ".join(shown[:6]) + (f"; and {len(shown) - 6} more" if len(shown) > 6 else "")


def _judge_settings(config: dict) -> str:
    """A judge's configuration as the methods name it: every setting, long texts (a prompt) by their length."""
    parts = []
    for key, value in sorted((config or {}).items()):
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        parts.append(f"{key} = {text}" if len(text) <= 80 else f"{key} = ({len(text)} characters)")
    return ", ".join(parts) or "its family's defaults"


def _probes_lines(probes: dict | None) -> list[str]:
    """The robustness probes paragraph (tasktypes.probes): each kind, and each judge's flip rates with n and
    interval."""
    if not probes:
        return []
    kinds = "; ".join(f"{kind['title'].lower()} ({kind['probes']} probes: {kind['what']})" for kind in probes["kinds"])
    lines = ["", f"Robustness probes. Copies of items changed so that a sound judge keeps its verdict, kept apart from "
                 f"every other figure: {kinds}. Each judge's flip rate, read on its part of the items "
                 f"({probes['ci_method']}):"]
    for judge in probes["judges"]:
        rates = "; ".join(
            f"{rate['kind']} {rate['rate']:.3f} ({rate['flips']} of n = {rate['n']}, 95% CI "
            f"{rate['rate_ci95'][0]:.3f}-{rate['rate_ci95'][1]:.3f})" if rate["n"]
            else f"{rate['kind']}: no probe counts" for rate in judge["kinds"])
        lines.append(f"- {judge['name']}: {rates}")
    return lines


def _three(value) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def _ppi_lines(block: dict | None) -> list[str]:
    """The humans-and-judges paragraph (reports.ppi): per judge, the labels it was read with, or its check."""
    if not block:
        return []
    lines = ["", f"Humans and judges together. Each system's score from the human labels and a judge's verdicts on "
                 f"every {block['unit_one']}: {block['method']}."]
    several = len(block["measures"]) > 1
    for measure, name, judge in ppi_judges(block):
        check = judge["check"]
        name = f"{name}, {measure['label']}" if several else name
        if check:
            lines.append(f"- {name}: the humans judged {judge['labelled_units']} of {judge['units']} {block['unit']}; "
                         f"the method checked on {check['drawn']} drawn by the {judge['plan']} plan (seed "
                         f"{check['seed']}): {check['covered']} of {check['intervals']} systems' intervals cover the "
                         f"all-human figure, mean width {_three(check['mean_width_ratio'])} of the humans' alone on "
                         f"the same labels; " + (
                             f"over {check['draws']['n']} more draws, {_three(check['draws']['covered'])} "
                             f"of the intervals covered it and their mean width was "
                             f"{_three(check['draws']['mean_width_ratio'])} of the humans' alone; "
                             if check["draws"] else "one draw only; ") +
                         f"{judge['separated_count']} of {len(judge['pairs'])} pairs separated.")
        elif judge.get("followed"):
            followed = judge["followed"]
            lines.append(f"- {name}: the annotation queue followed a sample of the {block['unit']} drawn by the "
                         f"{judge['plan']} plan (sequential Poisson sampling); the humans labelled the first "
                         f"{followed['labelled']} of {judge['units']}, each weighted by 1 / its inclusion probability"
                         f" ({followed['outside']} labelled further down left out); {judge['separated_count']} of "
                         f"{len(judge['pairs'])} pairs of systems separated.")
        else:
            lines.append(f"- {name}: humans on {judge['labelled_units']} of {judge['units']} {block['unit']}, taken "
                         f"as a simple random sample; {judge['separated_count']} of {len(judge['pairs'])} pairs of "
                         f"systems separated.")
    return lines


def methods_text(*, report: dict, campaign_name: str, judges: list[tuple[str, str, str, dict, str, bool]],
                 figures: str, built_at: str, data_version) -> str:
    """The methods section of REPORT (a stored document) of the campaign CAMPAIGN_NAME. JUDGES: (name, family,
    configuration hash, configuration, the model ids the server reported as judges.selectors.ServedModels.text
    words them or "", whether its verdicts were imported: judges.models.Judge.is_external) of the campaign's judges;
    FIGURES: the report as the command prints it."""
    humans = report.get("humans") or {}
    lines = [f"Methods: agreement report of {campaign_name} ({report['campaign']}, {report['task_type']}), built "
             f"{built_at} at data version {data_version}.", ""]
    lines.append("Data. " + (
        f"{humans.get('annotators', 0)} annotators; {humans.get('items_labelled', 0)} items with a human label "
        f"(the adjudicated verdict where there is one, else the annotators' decided majority; "
        f"{humans.get('adjudicated', 0)} adjudicated, {humans.get('ties', 0)} tied and left without one)."
        if "items_labelled" in humans else f"{humans.get('annotators', 0)} annotators."))
    split = report.get("development_split")
    if split:
        finals = "; ".join(f"{final['judge']} marked final {final['marked_at']}, {final['before']} version"
                           f"{'s' if final['before'] != 1 else ''} marked final before it" for final in split["final"])
        lines += ["", f"Development split. The items were split once into a development part "
                      f"({split['development']} items) and a held-out part ({split['held_out_items']} items), a "
                      f"share of {split['held_out']} drawn within {split['stratify_words']} with seed "
                      f"{split['seed']}. Judges were developed on the development part; a judge's figures here are "
                      f"read on the held-out part for the judges marked final ({finals or 'none yet'}), on the "
                      f"development part for the others, and compared with the human labels of the same part "
                      f"only: no output or item of the other part counts for a judge, not even by a gold-answer "
                      f"match."]
    lines += _probes_lines(report.get("probes"))
    lines += _ppi_lines(report.get("ppi"))
    lines += ["", "Judges (each judge's version: its family and the hash of its whole configuration):"]
    if not judges:
        lines.append("- none")
    for name, family, config_hash, config, served, imported in judges:
        lines.append(f"- {name}: family {family}, configuration {config_hash[:12] or 'none'}"
                     f"{'' if imported else ': ' + _judge_settings(config)}"
                     f"{' (verdicts imported from outside Concord)' if imported else ''}"
                     f"{'; the server reported ' + served if served else ''}.")
    found: dict[str, list[str]] = {}
    _methods(report, "", found)
    lines += ["", "Statistics, their intervals and where the report uses each (intervals are 95%; a bootstrap "
                  "names its resamples and seed):"]
    lines += [f"- {method} [{_blocks(paths)}]" for method, paths in found.items()]
    lines += ["", "Figures (n beside each):", figures.strip(), ""]
    software = report.get("software") or {}
    if software:
        lines.append("Software: " + ", ".join(f"{name} {version}" for name, version in software.items()) + ".")
    if report.get("random_stream"):
        lines.append(random_stream_text(report["random_stream"]))
    if report.get("interval_errors"):
        lines.append(interval_errors_text(report["interval_errors"]))
    lines += ["", f"The labels behind every statistic, one row per item and rater (each annotator, each judge, and the "
                  f"human label): {report['campaign']}-labels.csv, beside this file on the report page."]
    return "\n".join(lines) + "\n"


def labels_csv(*, items, topics: dict[int, str], ratings, raters_kind: str = "annotator", judges: list,
               human_label: dict[int, str]) -> str:
    """The per-rater label table: one row per (item, rater) with a label: topic, item, rater, rater_kind
    (annotator, judge, or human_label for the report's label of the item), label. ITEMS: {item id: external id};
    TOPICS: {item id: topic external id}; RATINGS: the current annotations (stats.ratings.Ratings); JUDGES:
    reports.selectors.JudgeLabels."""
    out = SpreadsheetCsv()
    out.writerow(["topic", "item", "rater", "rater_kind", "label"])
    labelled = ratings.item >= 0
    for item, rater, label in zip(ratings.item[labelled].tolist(), ratings.rater[labelled].tolist(),
                                  ratings.label[labelled].tolist(), strict=True):
        out.writerow([topics.get(item, ""), items.get(item, item), ratings.raters[rater], raters_kind,
                      ratings.labels[label]])
    for item, label in sorted(human_label.items()):
        out.writerow([topics.get(item, ""), items.get(item, item), "human label", "human_label", label])
    for judge in judges:
        for item, label in sorted(judge.labels.items()):
            out.writerow([topics.get(item, ""), items.get(item, item), judge.name, "judge", label])
    return out.text()
