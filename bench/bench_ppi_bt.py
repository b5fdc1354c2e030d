"""Bradley-Terry strengths from humans and a judge together (stats.ppi_bt), simulated: do the combined 95% intervals
of the centred strengths hold the true ones 95% of the time, and how much narrower are they than the humans' alone?

Each study: 200 prompts, each with the four comparisons alpha-beta, beta-gamma, gamma-delta and alpha-delta, every
outcome drawn from the Bradley-Terry model (strengths 0.8, 0.2, -0.3, -0.7; no ties); humans label a share of the
prompts (a simple random sample of prompts, all their comparisons); the judge flips a share of all outcomes (10% or
30%), or is biased: it calls alpha the winner of 30% of the comparisons alpha lost, and flips 5% of the rest. Prints
one line per design (coverage over the four systems' intervals, their mean width over the humans' alone on the same
prompts, lambda's mean) and the check: every design with at least reports.ppi.FEW_LABELS (40) labelled prompts within
93.5-96.5% (with 20 the page flags the block "few labels": shown, not checked).

    .venv/bin/python bench/bench_ppi_bt.py [--studies 500] [--seed 0]
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reports.ppi import FEW_LABELS  # noqa: E402
from stats import ppi_bt  # noqa: E402

STRENGTH = {"alpha": 0.8, "beta": 0.2, "gamma": -0.3, "delta": -0.7}
PAIRS = [("alpha", "beta"), ("beta", "gamma"), ("gamma", "delta"), ("alpha", "delta")]
PROMPTS = 200
LOW, HIGH = 0.935, 0.965


def study(rng, judge: str):
    comparisons, where, truth = [], [], []
    for prompt in range(PROMPTS):
        for a, b in PAIRS:
            comparisons.append((a, b, None))
            where.append(prompt)
            truth.append(float(rng.random() < 1 / (1 + np.exp(STRENGTH[b] - STRENGTH[a]))))
    truth = np.array(truth)
    if judge == "biased":
        alpha_lost = np.array([a == "alpha" for a, _, _ in comparisons]) & (truth == 0)
        said = np.where(alpha_lost & (rng.random(len(truth)) < 0.3), 1.0, truth)
        said = np.where(~alpha_lost & (rng.random(len(truth)) < 0.05), 1 - said, said)
    else:
        said = np.where(rng.random(len(truth)) < float(judge), 1 - truth, truth)
    return comparisons, where, truth, said


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    centred = {s: v - np.mean(list(STRENGTH.values())) for s, v in STRENGTH.items()}
    started = time.perf_counter()
    outside = []
    print(f"Bradley-Terry, humans and a judge together: {args.studies} studies a design, {PROMPTS} prompts of "
          f"{len(PAIRS)} comparisons, seed {args.seed}")
    print("| judge | humans on | coverage | humans alone | width / humans alone | lambda | no fit |")
    print("|---|---|---|---|---|---|---|")
    for judge in ("0.1", "0.3", "biased"):
        for labelled in (20, 40):
            covered = humans = total = failed = 0
            ratios, lams = [], []
            for _ in range(args.studies):
                comparisons, where, truth, said = study(rng, judge)
                chosen = set(rng.choice(PROMPTS, size=labelled, replace=False).tolist())
                found = ppi_bt.combined_bradley_terry(
                    comparisons, where, [t if p in chosen else None for t, p in zip(truth, where, strict=True)],
                    said)
                if found is None:  # the humans' own fit ran off: no interval, counted as four misses
                    failed += 1
                    total += len(STRENGTH)
                    continue
                lams.append(found.lam)
                for system, combined, alone in zip(found.systems, found.combined, found.human, strict=True):
                    total += 1
                    covered += combined.ci95[0] <= centred[system] <= combined.ci95[1]
                    humans += alone.ci95[0] <= centred[system] <= alone.ci95[1]
                    ratios.append(combined.width / alone.width)
            name = {"0.1": "flips 10%", "0.3": "flips 30%", "biased": "biased toward alpha"}[judge]
            print(f"| {name} | {labelled} of {PROMPTS} prompts | {covered / total:.1%} | {humans / total:.1%} | "
                  f"{np.mean(ratios):.3f} | {np.mean(lams):.2f} | {failed} |")
            # Fewer labelled prompts than FEW_LABELS: the page says the coverage is approximate; shown, not checked.
            if labelled >= FEW_LABELS and not LOW <= covered / total <= HIGH:
                outside.append(f"{name}, {labelled}: {covered / total:.1%}")
    print(("PASS" if not outside else "FAIL") + f": the coverage of every design with at least {FEW_LABELS} labelled "
          f"prompts within {LOW:.1%}-{HIGH:.1%}"
          + ("" if not outside else ", out of range: " + "; ".join(outside)))
    print(f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
