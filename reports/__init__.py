"""The report kit every task type's report is built with: the selectors that read a campaign's judgments for a report
(one fixed number of queries whatever its size), and the blocks every report shares: the humans among themselves,
adjudication, assistance arms, the labelling budget, LLM judges side by side, item categories, system orders.

Below the task types (docs/design.md §3): it imports the statistics (stats/), annotate and judges, never a task type's
package or the agreement app above it.
"""
