"""The pairwise_preference task type: which of two responses to a prompt is better, or a tie (issue 33). Its spec
(spec.py), its import format (importers.py), its report (report.py, with stats.preference) and how it is shown
(presentation.py), its templates and styles."""
