"""Every interval on the report page names what it resampled (or its method), and a note every cell of a table
would repeat is said once, in the table's caption (agreement.templatetags.agreement_format)."""

import re
from pathlib import Path

from agreement.templatetags.agreement_format import ci, ci95, ci_shared, interval

ROOT = Path(__file__).resolve().parents[2]
NOTE = "too few runs to resample: 3 (an interval needs at least 4)"


def test_an_interval_names_its_unit_or_its_method():
    block = {"kappa": 0.5, "kappa_ci95": [0.25, 0.75], "kappa_ci_note": None, "kappa_ci_over": "topics"}
    assert ci(block, "kappa") == ('<div class="ci-under muted" title="95% interval, resampling topics">[0.250, 0.750] '
                                  '<span class="ci-over">over topics</span></div>')
    assert '[0.250, 0.750] <span class="ci-over">Wilson</span>' in interval([0.25, 0.75], "Wilson")
    assert '[0.250, 0.750] <span class="ci-over">normal</span>' in interval([0.25, 0.75], "normal")
    summary = {"mean": 0.5, "bootstrap_ci95": [0.25, 0.75], "ci_method": "bootstrap", "ci_over": "topics"}
    assert '[0.250, 0.750] <span class="ci-over">over topics</span>' in ci95(summary)


def test_a_note_every_row_repeats_is_said_once():
    rows = [{"name": "bm25", "measures": [{"tau": 0.3, "tau_ci95": None, "tau_ci_note": NOTE, "rho": 0.5,
                                           "rho_ci95": None, "rho_ci_note": NOTE}] * 3}]
    table = ci_shared(rows)
    assert table["note"] == f"No interval: {NOTE}"
    assert all(not m["tau_ci_note"] and not m["rho_ci_note"] for m in table["rows"][0]["measures"])
    assert rows[0]["measures"][0]["tau_ci_note"] == NOTE  # the document itself is left as it is
    # Beside a cell that has an interval, the caption says which cells it covers.
    rows[0]["measures"] = [*rows[0]["measures"], {"tau": 0.1, "tau_ci95": [0.0, 0.2], "tau_ci_note": None}]
    assert ci_shared(rows)["note"] == f"No interval where a cell shows none: {NOTE}"


def test_notes_that_differ_stay_in_their_cells():
    rows = [{"tau_ci95": None, "tau_ci_note": NOTE}, {"tau_ci95": None, "tau_ci_note": "too few topics to resample: 2"}]
    assert ci_shared(rows) == {"note": None, "rows": rows}
    assert ci_shared([{"tau_ci95": None, "tau_ci_note": NOTE}])["note"] is None  # one cell: nothing to collapse


def test_every_bare_interval_in_the_templates_names_its_unit():
    """`interval` has no block to read a unit from: each template that uses it must give one."""
    templates = [*ROOT.glob("templates/**/*.html"), *ROOT.glob("tasktypes/*/templates/**/*.html")]
    bare = [f"{path.relative_to(ROOT)}: {hit}" for path in templates
            for hit in re.findall(r"\|interval(?!:)[^}]*\}\}", path.read_text())]
    assert bare == []
