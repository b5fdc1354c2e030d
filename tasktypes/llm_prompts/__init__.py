"""The llm family's two prompts, of the task types that ask a model for a verdict or a grade: is an answer correct
(answer.py: qa_correctness, pairwise_preference) and which grade of a scale an item earns (grade.py: the graded
types). They sit here, below the types and in none of them, because they are one history: when the family held both,
every llm judge's configuration took both prompts' options, and a judge's identity is the hash of its configuration,
so each type's prompt still carries the other's options (judges.families.base.JudgePrompt's carries). Moving either
into its type's package would make the types import each other (the independence contract of .importlinter)."""
