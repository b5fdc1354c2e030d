"""Statistics and IR measures as pure functions: lists and arrays in, numbers out, no Django. The bottom floor
(docs/design.md §3): every module here imports only libraries and modules of this package, so every layer above may use
it.

Every function returns None where its statistic is undefined (too few observations, constant input, no agreement
possible by chance) instead of raising or returning NaN, so a report can carry `null` and say why. The arithmetic is
the libraries' (docs/design.md §4): scikit-learn, scipy, statsmodels, krippendorff and ir_measures; these modules shape
the
inputs and catch the degenerate cases.

By subject:
- interrater: Cohen's and Fleiss' kappa, Krippendorff's alpha, agreement rates, with their intervals;
- correlation: Kendall's tau-b, Spearman's rho, Pearson's r, rankings as tie groups, NRP;
- uncertainty: the bootstrap's resamples and seed, when an interval is shown, means with intervals;
- resampling and batch_stats: the bootstrap by per-unit sufficient statistics, each statistic over all resamples;
- ratings: a campaign's labels as integer columns, and the tables counted on them;
- retrieval and compatibility: IR measures of runs, leaderboards, the orders of runs under two qrels;
- system_order and rank_agreement: two orders of the same systems, with agreement at the top;
- system_tests: paired tests between systems and between judges; budget: how many labels an interval width needs;
- selection: whether an annotator judged a selected sample; stats_arms: assistance arms; grades: scores to grades;
  disagreement: how much the raters and judges of an item disagree (the adjudication queue's order).
"""
