"""Graded relevance, the part image_relevance and passage_relevance share: the spec they extend (spec.py) and the
report builder they use (report.py). Not a task type itself: its spec module registers none."""
