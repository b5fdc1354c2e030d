"""Errors the judges app raises for the user to read. Every message says what to change."""


class JudgeConfigError(Exception):
    """A judge name, family or configuration that cannot be used."""


class JudgeRunError(Exception):
    """A judge run that cannot be started, cancelled or resumed as asked."""


class JudgeRunConflictError(JudgeRunError):
    """The judge already has a queued or running run; two would race for the same items."""


class JudgeQueueError(JudgeRunError):
    """The broker refused the run's batches (down or unreachable); the run has been marked failed."""
