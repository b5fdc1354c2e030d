"""The report of a nugget_evaluation campaign (to be written)."""


def nugget_report_build(*, campaign) -> dict:
    raise NotImplementedError
