"""The nugget_evaluation task type (issue 51, docs/nugget_evaluation.md): TREC RAG-style evaluation of generated
answers by nuggets. Two steps per topic, each with its own units in one campaign: nugget creation (one unit per
topic: the assessor writes the topic's nuggets, each vital or okay) and nugget assignment (one unit per answer of a
run: the assessor marks each nugget of the topic's frozen list supported, partly supported or not). How the data is
laid out is layout.py; its spec is spec.py."""
