"""The report's plots as the page, the downloads and the stored report draw them: those of the report's task type (its
report presentation's: reports.presentation) and the labelling budget's, which every report has. The drawing is in
the report kit (reports.plots) and the task types' packages."""

from collections.abc import Callable

from annotate.task_types.registry import task_type_get


def report_plots(*, report: dict) -> dict[str, Callable]:
    """Name -> function(report=) -> Plot or None, of REPORT's page in page order: its task type's, then the humans and
    judges together, then the budget's."""
    from reports.plots import budget_plot, ppi_plot

    return {**task_type_get(report["task_type"]).report_presentation().plots(report), "ppi": ppi_plot,
            "budget": budget_plot}


def report_plot_names(*, report: dict) -> tuple[str, ...]:
    """The names of the plots REPORT's page shows (where they have data), in page order."""
    return tuple(report_plots(report=report))


def report_plot(*, report: dict, name: str):
    """The plot NAME of REPORT (a reports.plots.Plot); None where the report has no such plot or no data for it."""
    plots = report_plots(report=report)
    return plots[name](report=report) if name in plots else None
