"""The qa_correctness task type: its spec (spec.py, registered when Django starts), and beside it what its spec
calls: its report builder (report.py) and its own formats."""
