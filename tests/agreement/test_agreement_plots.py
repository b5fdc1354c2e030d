"""The report's plots as a researcher puts them in a paper: every point named, legends clear of the data, y = x on
every human-vs-judge scatter, axes named with the measure, and SVG and 300 dpi PNG downloads for the campaign's
researchers only."""

import io
import xml.etree.ElementTree as ET

import pytest
from matplotlib.text import Text
from PIL import Image

from agreement.plots import report_plot
from agreement.report import agreement_report_build
from annotate.models import Role, SystemOutput
from annotate.task_types.registry import task_type_get
from judges.models import Judge, ModelJudgment
from reports.plots import LABEL_LIMIT
from tests.agreement.test_agreement_report import small_campaign  # noqa: F401 (fixture)
from tests.factories import CampaignFactory, ItemFactory, MembershipFactory, TopicFactory, UnitFactory, UserFactory
from tests.report_support import report_stored
from tests.tasktypes.test_agreement_ais import ais_report_campaign  # noqa: F401 (fixture)
from tests.tasktypes.test_agreement_images import image_report_campaign  # noqa: F401 (fixture)

SVG = "{http://www.w3.org/2000/svg}"


def _titles(svg: str) -> list[str]:
    """The SVG's <title> tooltips, parsed as XML (so the document must be well formed)."""
    return [element.text for element in ET.fromstring(svg[svg.index("<svg"):]).iter(f"{SVG}title")]


def _texts(svg: str) -> list[str]:
    """The SVG's visible text (matplotlib writes text as <text> with svg.fonttype none)."""
    return ["".join(element.itertext()) for element in ET.fromstring(svg[svg.index("<svg"):]).iter(f"{SVG}text")]


def _scatter_report(systems: dict[str, tuple[float, float]], *, task_type="qa_correctness", judge="judge-x") -> dict:
    """A report document with one judge and SYSTEMS {name: (human accuracy, judge accuracy)}."""
    return {
        "campaign": "c", "task_type": task_type, "layout": task_type_get(task_type).report_layout, "humans": {},
        "judges": {judge: {"system": {"n_systems": len(systems), "kendall_tau_b": 0.5, "spearman": 0.6,
                                      "pearson": 0.7}}},
        "systems": [{"system": name, "n": 10, "human": human, "judges": {judge: value}}
                    for name, (human, value) in systems.items()],
    }


def _boxes_overlap(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def _legends_clear_of_axes(figure) -> None:
    figure.draw_without_rendering()
    renderer = figure.canvas.get_renderer()
    legends = list(figure.legends) + [axes.get_legend() for axes in figure.axes if axes.get_legend()]
    assert legends, "the plot has no legend"
    frames = [axes.get_window_extent(renderer) for axes in figure.axes if axes.get_visible()]
    for legend in legends:
        box = legend.get_window_extent(renderer)
        assert not any(_boxes_overlap(box, frame) for frame in frames), "a legend lies on the axes"


def _diagonal(axes) -> bool:
    """Whether AXES draws y = x across its whole range."""
    low, high = axes.get_xlim()
    for line in axes.get_lines():
        xs, ys = line.get_xdata(), line.get_ydata()
        if len(xs) == 2 and list(xs) == list(ys) and min(xs) <= low + 1e-9 and max(xs) >= high - 1e-9:
            return True
    return False


# --- Every point identifiable ---

def test_qa_scatter_names_every_system_beside_its_point_and_in_its_tooltip(small_campaign):  # noqa: F811
    report = agreement_report_build(campaign=small_campaign)
    plot = report_plot(report=report, name="systems")
    svg = plot.svg()
    shown = [row for row in report["systems"] if row["human"] is not None and row["judges"]["judge-a"] is not None]
    assert {row["system"] for row in shown} == {"S1", "S2", "S3"}
    for row in shown:
        assert row["system"] in _texts(svg), f"{row['system']} has no label beside its point"
        assert any(title.startswith(f"{row['system']}: accuracy") and "judge-a" in title for title in _titles(svg))


def test_past_the_label_limit_points_are_named_by_their_tooltips_only():
    names = [f"system-{n:02d}" for n in range(LABEL_LIMIT + 5)]
    report = _scatter_report({name: (0.3 + n / 100, 0.35 + n / 90) for n, name in enumerate(names)})
    svg = report_plot(report=report, name="systems").svg()
    titles = _titles(svg)
    assert len(titles) == len(names)  # one tooltip per point
    assert all(any(title.startswith(f"{name}: ") for title in titles) for name in names)
    assert not set(names) & set(_texts(svg)), "labels written for more than LABEL_LIMIT points"


def test_labels_cover_no_other_label_or_point():
    # Twelve systems crowded into a corner, as NQ-open's are.
    accuracies = {"ANCE-plus_FiD": (0.651, 0.618), "Contriever_FiD": (0.658, 0.628), "DPR": (0.585, 0.551),
                  "EMDR2": (0.731, 0.671), "EviGen": (0.664, 0.651), "FiD": (0.641, 0.605), "FiD-KD": (0.728, 0.684),
                  "GAR-plus_FiD": (0.685, 0.661), "R2D2": (0.711, 0.648), "Rocketv2_FiD": (0.695, 0.658),
                  "text-davinci-003_fewshot-n64": (0.754, 0.688), "text-davinci-003_zeroshot": (0.711, 0.678)}
    plot = report_plot(report=_scatter_report(accuracies), name="systems")
    figure = plot.figure
    figure.draw_without_rendering()
    renderer = figure.canvas.get_renderer()
    axes = figure.axes[0]
    labels = [text for text in axes.texts if text.get_text() in accuracies]
    assert sorted(text.get_text() for text in labels) == sorted(accuracies)
    boxes = [Text.get_window_extent(text, renderer) for text in labels]  # the words, without a leader line
    frame = axes.get_window_extent(renderer)
    for n, box in enumerate(boxes):
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1, labels[n]
        for other in boxes[n + 1:]:
            assert not _boxes_overlap(box, other), (labels[n].get_text(), "overlaps another label")
    centres = axes.transData.transform(list(accuracies.values()))
    for text, box in zip(labels, boxes, strict=True):
        for name, (cx, cy) in zip(accuracies, centres, strict=True):
            assert not box.contains(cx, cy), f"the label {text.get_text()} covers the point of {name}"


def test_names_with_markup_and_dollars_are_shown_as_they_are():
    name = 'a <b>&"$x$" system'
    svg = report_plot(report=_scatter_report({name: (0.5, 0.6), "plain": (0.7, 0.6)}), name="systems").svg()
    assert name in _texts(svg)  # not set as mathtext, and escaped: the document parses
    assert any(title.startswith(f"{name}: ") for title in _titles(svg))
    assert "<b>" not in svg


def test_run_judge_and_tag_names_with_dollars_are_shown_as_they_are():
    tag, judge, run = "tag $\\pwned{7*7}$", "judge $x$", "run-a $\\pwned$"
    rows = [{"system": name, "tags": [tag] if tagged else [], "human": {"ndcg_cut_10": value, "map": value / 2},
             "judges": {judge: {"ndcg_cut_10": value + 0.1, "map": value}}}
            for name, tagged, value in ((run, True, 0.4), ("run-b", False, 0.6))]
    report = {"task_type": "image_relevance", "layout": "grades", "bias_tag": tag, "systems": rows, "humans": {},
              "judges": {judge: {"system": {"ndcg_cut_10": {"kendall_tau_b": 1.0}, "map": {"kendall_tau_b": 1.0}}}}}
    texts = "\n".join(_texts(report_plot(report=report, name="runs").svg()))
    for name in (tag, judge, run, f"{judge}, {tag}"):
        assert name in texts, name


# --- Legends outside the data; y = x; axes named with the measure ---

def test_qa_scatter_one_panel_per_judge_with_y_equals_x_and_the_legend_below(small_campaign):  # noqa: F811
    report = agreement_report_build(campaign=small_campaign)
    figure = report_plot(report=report, name="systems").figure
    panels = [axes for axes in figure.axes if axes.get_visible()]
    assert panels and all(_diagonal(axes) for axes in panels)
    assert {axes.get_xlabel() for axes in panels} == {"accuracy under human labels"}
    assert any(axes.get_ylabel() == "accuracy under judge-a" for axes in panels)
    _legends_clear_of_axes(figure)


def test_ais_scatter_is_named_ais_accuracy(ais_report_campaign):  # noqa: F811
    figure = report_plot(report=agreement_report_build(campaign=ais_report_campaign), name="systems").figure
    axes = figure.axes[0]
    assert axes.get_xlabel() == "AIS accuracy under human labels"
    assert axes.get_ylabel() == "AIS accuracy under autoais-t5"
    assert _diagonal(axes)
    _legends_clear_of_axes(figure)


def test_image_runs_scatter_has_y_equals_x_on_both_measures(image_report_campaign):  # noqa: F811
    report = agreement_report_build(campaign=image_report_campaign)
    plot = report_plot(report=report, name="runs")
    panels = [axes for axes in plot.figure.axes if axes.get_visible()]
    assert [axes.get_xlabel() for axes in panels] == ["NDCG@10 under human qrels", "MAP under human qrels"]
    assert [axes.get_ylabel() for axes in panels] == ["NDCG@10 under clip", "MAP under clip"]
    assert all(_diagonal(axes) for axes in panels)
    legend = [text.get_text() for legend in plot.figure.legends for text in legend.get_texts()]
    assert any(label.startswith("y = x") for label in legend) and "clip, clip-based" in legend
    svg = plot.svg()
    for run in ("r1", "r2", "r3", "r4"):
        assert _texts(svg).count(run) == 2  # labelled in both panels
        assert sum(title.startswith(f"{run}: ") for title in _titles(svg)) == 2
    _legends_clear_of_axes(plot.figure)


def test_image_cdf_is_on_each_judges_raw_scores(image_report_campaign):  # noqa: F811
    report = agreement_report_build(campaign=image_report_campaign)
    plot = report_plot(report=report, name="cdf")
    panels = [axes for axes in plot.figure.axes if axes.get_visible()]
    assert len(panels) == sum(1 for block in report["judges"].values() if block.get("cdf"))
    for axes, (name, block) in zip(panels, ((n, b) for n, b in report["judges"].items() if b.get("cdf"))):
        assert axes.get_ylabel() == "share of images at or below" and axes.get_xlabel() == "raw score"
        assert axes.get_title().startswith(name)
        xs = axes.get_lines()[0].get_xdata()  # the raw quantiles, not scaled to [0, 1]
        assert list(xs) == block["cdf"]["quantiles"]


def test_image_confusion_heatmap_gives_each_cell_its_count(image_report_campaign):  # noqa: F811
    report = agreement_report_build(campaign=image_report_campaign)
    plot = report_plot(report=report, name="confusion")
    judges = [name for name, block in report["judges"].items() if block["item"].get("confusion")]
    axes = plot.figure.axes[0]
    matrix = report["judges"][judges[0]]["item"]["confusion"]
    counts = [[int(text.get_text()) for text in axes.texts[row * len(matrix):(row + 1) * len(matrix)]]
              for row in range(len(matrix))]
    assert counts == matrix and axes.get_ylabel() == "human consensus grade"
    assert [label.get_text() for label in axes.get_xticklabels()] == [str(e["grade"]) for e in report["scale"]]
    assert any(title.startswith(f"{judges[0]}: rows are the human consensus grade") for title in _titles(plot.svg()))


@pytest.fixture
def nrp_campaign(db, researcher):
    """answer_ranking: one topic, the answers of sysA and sysB among two documents, scored by one ranker."""
    campaign = CampaignFactory(slug="nrp-plot", task_type="answer_ranking")
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    judge = Judge.objects.create(campaign=campaign, name="ranker", family="external", config_hash="r")
    topic = TopicFactory(campaign=campaign, external_id="1")
    UnitFactory(campaign=campaign, topic=topic, item=None)
    for name, kind, score in (("A", "answer", 3.0), ("B", "answer", 0.0), ("d1", "document", 1.0),
                              ("d2", "document", 2.0)):
        item = ItemFactory(campaign=campaign, topic=topic, external_id=f"1/{name}", kind=kind)
        if kind == "answer":
            SystemOutput.objects.create(campaign=campaign, system=f"sys{name}", topic=topic, item=item,
                                        data={"prompt": "p1"})
        ModelJudgment.objects.create(judge=judge, item=item, score=score)
    return campaign


def test_nrp_plot_names_the_measure_and_each_point(nrp_campaign):
    plot = report_plot(report=agreement_report_build(campaign=nrp_campaign), name="nrp")
    axes = plot.figure.axes[0]
    assert axes.get_xlabel().startswith("NRP (1 = above every document): mean, ±1 sd")
    assert [label.get_text() for label in axes.get_yticklabels()] == ["sysA · p1", "sysB · p1"]
    titles = _titles(plot.svg())
    assert any(title.startswith("sysA · p1, ranker: mean NRP 1.000") for title in titles)
    assert any(title.startswith("sysB · p1, ranker: mean NRP 0.000") for title in titles)
    assert "sysA · p1, ranker: 1 answers, NRP 1.00" in titles  # each answer drawn behind its mean
    _legends_clear_of_axes(plot.figure)


# --- Downloads ---

def test_png_download_is_a_300_dpi_png(client, small_campaign, researcher):  # noqa: F811
    client.force_login(researcher)
    report_stored(small_campaign)
    response = client.get("/campaigns/small/report/plots/systems.png")
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    assert response["Content-Disposition"] == 'attachment; filename="small-systems.png"'
    image = Image.open(io.BytesIO(response.content))
    assert image.format == "PNG"
    assert all(round(dpi) >= 300 for dpi in image.info["dpi"])  # the pHYs chunk
    assert image.width >= 6 * 300  # a figure some inches wide, in print pixels


def test_svg_download_is_a_standalone_svg_document(client, small_campaign, researcher):  # noqa: F811
    client.force_login(researcher)
    report_stored(small_campaign)
    response = client.get("/campaigns/small/report/plots/systems.svg")
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    assert response["Content-Disposition"] == 'attachment; filename="small-systems.svg"'
    svg = response.content.decode()
    assert svg.startswith("<?xml") and ET.fromstring(svg).tag == f"{SVG}svg"
    assert {"S1", "S2", "S3"} <= {title.split(":")[0] for title in _titles(svg)}


def test_image_and_ranking_plots_download(client, image_report_campaign, nrp_campaign, researcher):  # noqa: F811
    client.force_login(researcher)
    report_stored(image_report_campaign)
    report_stored(nrp_campaign)
    for url in ("/campaigns/imgs/report/plots/runs.png", "/campaigns/imgs/report/plots/cdf.svg",
                "/campaigns/imgs/report/plots/confusion.svg", "/campaigns/imgs/report/plots/confusion.png",
                "/campaigns/nrp-plot/report/plots/nrp.svg"):
        assert client.get(url).status_code == 200, url
    # a plot another task type's report has, an unknown plot, an unknown format
    for url in ("/campaigns/imgs/report/plots/systems.svg", "/campaigns/nrp-plot/report/plots/runs.png",
                "/campaigns/imgs/report/plots/pie.svg", "/campaigns/imgs/report/plots/runs.pdf"):
        assert client.get(url).status_code == 404, url


@pytest.mark.parametrize("fmt", ["svg", "png"])
def test_outsiders_get_404_and_anonymous_the_login(client, small_campaign, annotator, fmt):  # noqa: F811
    url = f"/campaigns/small/report/plots/systems.{fmt}"
    response = client.get(url)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    MembershipFactory(campaign=small_campaign, user=annotator, role=Role.ANNOTATOR)
    other_researcher = UserFactory(username="res2")
    MembershipFactory(user=other_researcher, role=Role.RESEARCHER)  # a researcher of another campaign
    for user, status in ((annotator, 403), (other_researcher, 404)):  # the annotator is told it is not theirs
        client.force_login(user)
        assert client.get(url).status_code == status


def test_report_pages_link_each_plot_download(client, small_campaign, image_report_campaign,  # noqa: F811
                                             nrp_campaign, researcher):
    client.force_login(researcher)
    expected = {"small": ["systems"], "imgs": ["runs", "cdf"], "nrp-plot": ["nrp"]}
    for slug, plots in expected.items():
        report_stored(slug)
        page = client.get(f"/campaigns/{slug}/report/").content.decode()
        for plot in plots:
            for fmt in ("svg", "png"):
                assert f'href="/campaigns/{slug}/report/plots/{plot}.{fmt}" download' in page, (slug, plot, fmt)
        assert "PNG, 300 dpi" in page


def test_plot_figures_are_independent_figures(small_campaign):  # noqa: F811
    """Rendered through Figure, never pyplot: no figure is left open in pyplot's global state."""
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    report_plot(report=agreement_report_build(campaign=small_campaign), name="systems").png()
    assert plt.get_fignums() == before


def test_systems_left_out_of_the_correlation_are_drawn_apart_with_the_reason():
    report = _scatter_report({"big": (0.6, 0.55), "large": (0.7, 0.72), "tiny": (1.0, 0.0)})
    reason = "1 of its 1 outputs labelled by both; a system needs at least 10 (option min_system_outputs)"
    report["judges"]["judge-x"]["system"]["excluded"] = [{"system": "tiny", "reason": reason}]
    plot = report_plot(report=report, name="systems")
    axes = plot.figure.axes[0]
    assert axes.get_title() == "judge-x (r 0.700, τb 0.500 over 2 of 3 systems)"
    legend = [text.get_text() for legend in plot.figure.legends for text in legend.get_texts()]
    assert "left out of r and τb (coverage)" in legend
    titles = _titles(plot.svg())
    assert f"tiny: accuracy 1.000 under humans, 0.000 under judge-x; left out of the correlation: {reason}" in titles
    assert "big: accuracy 0.600 under humans, 0.550 under judge-x" in titles
