"""The option counting_rule of a qa_correctness campaign: how a system's output counts as correct
(tasktypes.qa_correctness.counting applies them)."""

RULE_CONCORD = "concord"
RULE_QA_EVAL = "qa-eval"
COUNTING_RULES = {
    RULE_CONCORD: "each output by its own answer's label, else an exact match with a gold answer",
    RULE_QA_EVAL: "the NQ-open 301 study's code: gold answers plus accepted minus rejected strings, per question",
}
