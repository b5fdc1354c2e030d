"""What an import format is: an ImportFormat, listed by each task type it feeds (TaskTypeSpec.formats).

A format declares its name, its help, the parameters it takes (each a Parameter, declared once; the import page's
form, the `import_data` options, the API's fields and an import job's stored parameters are made from them), whether
its paths may be folders, whether it needs a judge name, the counts it adds to an import's summary (Count) and the
lines it says them in. It runs itself (run): interchange's import service calls it inside the import's transaction
and knows no format by name.
"""

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Parameter:
    """One option of an import. NAME is its key everywhere (the form field, the API field, the job's stored
    parameters), `--name-with-dashes` on the command line; KIND is str, int or bool (a bool is a flag, off by
    default). HELP says what it does, LABEL what the import page calls it. REFUSED, when set, is the message for an
    import that gives it to a format that does not take it ({fmt}: that format, {formats}: the campaign's formats
    that take it, {task_types}: the task types that have one); when None such a value is ignored."""

    name: str
    kind: type
    help: str
    label: str
    default: object = None
    max_length: int = 100
    min_value: int | None = None
    refused: str | None = None

    @property
    def option(self) -> str:
        """Its command-line option: `--score-judge`."""
        return "--" + self.name.replace("_", "-")

    @staticmethod
    def given(value) -> bool:
        """Whether VALUE is an import's answer to it rather than its absence (None, "", an unset flag)."""
        return value is not None and value != "" and value is not False


@dataclass(frozen=True)
class Count:
    """A figure a format adds to an import's summary (summary.counts[NAME]), shown in the API's summary under its
    NAME: KIND int, list (of names) or dict (name -> int); HELP for the API's schema."""

    name: str
    kind: type = int
    help: str = ""

    def empty(self):
        """Its value when the import did not count it."""
        return self.kind()


class ImportFormat:
    """One import format of a task type. Subclasses set the attributes and implement run; a task type lists an
    instance of each of its formats (a format several task types share words its help for each: MyFormat(help=...)).
    """

    name: str = ""
    # The import page's help: what a file holds (`text` in backticks is a line as typed).
    help: str = ""
    parameters: tuple[Parameter, ...] = ()
    counts: tuple[Count, ...] = ()
    # Whether its paths may be folders (a .zip of one, uploaded: uploaded_paths).
    folders: bool = False
    # Whether it is an external judge's verdicts naming no judge: an import needs a judge name (its `judge`).
    judge_required: bool = False

    def __init__(self, **declared):
        for key, value in declared.items():
            if not hasattr(type(self), key) or callable(getattr(type(self), key)):
                raise TypeError(f"{type(self).__name__} declares no {key!r}")
            setattr(self, key, value)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"

    def run(self, *, campaign, paths: list[Path], summary, unused, **parameters) -> None:
        """Import PATHS into CAMPAIGN inside the import's transaction (interchange.importers.service.import_run):
        count what was made in SUMMARY (an ImportSummary: its figures, and this format's counts in summary.counts),
        the lines not used in UNUSED. PARAMETERS are this format's parameters, each given or its default."""
        raise NotImplementedError

    def lines(self, summary) -> list[str]:
        """This format's lines of SUMMARY, between what was created and what the campaign now holds: its notes by
        default."""
        return list(summary.notes)

    def category_lines(self, summary) -> list[str]:
        """How many items a `category` key or column put in a category."""
        if not summary.items_categorised:
            return []
        return [f"items given a category (or another one): {summary.items_categorised}"]

    def uploaded_paths(self, *, root: Path, paths: list[Path]) -> list[Path]:
        """The paths an import reads from uploaded files PATHS, stored in folder ROOT (a folder format unpacks its
        .zip uploads there); PATHS by default."""
        return paths

    def values(self, given: dict) -> dict:
        """This format's parameters from GIVEN (an import's parameters by name), each given or its default."""
        return {parameter.name: given[parameter.name] if parameter.given(given.get(parameter.name))
                else parameter.default for parameter in self.parameters}


def parameters_of(formats) -> dict[str, Parameter]:
    """The parameters FORMATS take, by name, in the order first taken; one name declared twice is refused."""
    found: dict[str, Parameter] = {}
    for fmt in formats:
        for parameter in fmt.parameters:
            if found.setdefault(parameter.name, parameter) != parameter:
                raise ValueError(f"import parameter {parameter.name!r} is declared twice, differently ({fmt.name})")
    return found


def counts_of(groups) -> dict[str, Count]:
    """The counts of GROUPS (each a format's or a task type's tuple of Count), by name; one name declared twice,
    differently, is refused."""
    found: dict[str, Count] = {}
    for group in groups:
        for count in group:
            if found.setdefault(count.name, count) != count:
                raise ValueError(f"import count {count.name!r} is declared twice, differently")
    return found


def takers(parameter: Parameter, formats) -> list[str]:
    """The names of FORMATS that take PARAMETER, each once, in order."""
    return list(dict.fromkeys(fmt.name for fmt in formats if parameter in fmt.parameters))


def parameter_help(parameter: Parameter, formats) -> str:
    """PARAMETER's help, after the names of FORMATS that take it: `trec-run: pool depth per run (default 25)`."""
    return f"{', '.join(takers(parameter, formats))}: {parameter.help}"


def needs_judge_words(formats) -> str:
    """The names of FORMATS that need a judge name, as a list in words ("a, b and c"); "" for none."""
    names = [fmt.name for fmt in formats if fmt.judge_required]
    return " and ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else "".join(names)
