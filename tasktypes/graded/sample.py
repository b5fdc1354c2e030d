"""What the graded types' samples share (TaskTypeSpec.sample): grades 0-2 by the humans, a model's scores and
imported grades, and the runs pooled into the items, as a trec-run import stores them."""

from django.urls import reverse

from annotate.models import SystemOutput
from annotate.task_types.sample import InjectionSample, TaskTypeSample, sample_score
from interchange.importers.service import import_run


class GradedInjection(InjectionSample):
    """What the graded types' injection parts share: three runs pooled into two topics' items (trec-run), the first
    tagged; two assessors' grades of the first topic (trec-qrels), the second left for the annotator; the judges'
    imported scores. Their pages show the runs and their tag, their reports three plots and a qrels link per judge."""

    next_key = "0"
    plots = 3  # runs, score CDFs, confusion heatmaps

    def runs_import(self, kit, campaign, topics: list[str], ids: list[str]) -> None:
        """KIT's runs over IDS for every topic of TOPICS, each in its own order, the first under KIT's tag."""
        for r, run in enumerate(kit.runs):
            lines = [f"{qid} Q0 {doc} {rank} {10 - rank - r * (rank % 2)} {run}"
                     for qid in topics for rank, doc in enumerate(ids[r % 2:] + ids[:r % 2], start=1)]
            import_run(campaign=campaign, fmt="trec-run", paths=[kit.write(f"run{r}.txt", lines)],
                       tag=kit.run_tag if r == 0 else None)

    def qrels_import(self, kit, campaign, topic: str, ids: list[str], grades: int) -> None:
        """Two assessors' grades (0 to GRADES - 1) of IDS on TOPIC; the judges' scores of every item."""
        for a in range(2):
            path = kit.write(f"assessor{a}.qrels", [f"{topic} 0 {doc} {(n + a * (n % 2)) % grades}"
                                                    for n, doc in enumerate(ids)])
            import_run(campaign=campaign, fmt="trec-qrels", paths=[path])
        for name in kit.judges:
            kit.judge_scores(campaign, name)

    def systems(self, kit) -> list[str]:
        return list(kit.runs)

    def campaign_texts(self, kit, campaign) -> list[str]:
        """The pools: runs, their tag, topics and sections or queries."""
        topics = campaign.topics.all()
        return [*kit.runs, kit.run_tag, *(t.external_id for t in topics), *(t.text for t in topics)]

    def report_texts(self, kit, campaign, report) -> list[str]:
        return [*kit.runs, kit.run_tag,
                *{row["topic"] for block in report["judges"].values() for row in block["per_topic"]}]

    def plot_texts(self, kit, campaign) -> list[str]:
        return [*kit.judges, *(f"{name}, {kit.run_tag}" for name in kit.judges)]

    def downloads(self, kit, campaign, topics) -> list[tuple[str, str, list[str]]]:
        return [*super().downloads(kit, campaign, topics),
                (reverse("agreement-qrels", args=[campaign.slug, "consensus"]), "qrels", topics)]

    def report_checked(self, kit, page, campaign, get) -> None:
        """Every judge and assessor gets a qrels link, names with "/" and markup included, and each link
        downloads."""
        links = page.locator("a[href*='/report/qrels/']")
        hrefs = [links.nth(n).get_attribute("href") for n in range(links.count())]
        judge_links = [reverse("agreement-qrels", args=[campaign.slug, f"judge-{name}"]) for name in kit.judges]
        consensus = reverse("agreement-qrels", args=[campaign.slug, "consensus"])
        assert {consensus, *judge_links} <= set(hrefs) and len(hrefs) == len(set(hrefs))
        for href in hrefs:
            assert get(href) == 200, href
        assert "no link" not in page.inner_text("p:has(a[href$='consensus.qrels'])")


class GradedSample(TaskTypeSample):
    """Items are "qid/docid"; the second judge's verdicts are imported grades."""

    # The campaign page shows the pools of its runs.
    bounds = {("campaign-detail", "researcher"): 19}

    def form_answer(self, page) -> dict:
        return {"grade": "2"}

    def value(self, n, candidates) -> tuple[dict, str]:
        return {"grade": n % 3}, str(n % 3)

    def verdict(self, judge, n) -> tuple[float | None, str, str]:
        if judge == 1:
            return None, str(n % 3), "imported"
        score = sample_score(n)
        return score, "", f"{score}"

    def runs(self, *, campaign, items, systems, media_root) -> tuple[list, dict]:
        """Every run ranks every item of every topic; each run's file is written as the trec-run import stores it."""
        outputs = [SystemOutput(campaign=campaign, system=f"run-{s}", topic_id=item.topic_id, item=item,
                                rank=n % (systems + 1) + 1, score=1 - n % (systems + 1) / 10)
                   for s in range(systems) for n, item in enumerate(items)]
        by_run: dict[str, list] = {}
        for output in outputs:
            by_run.setdefault(output.system, []).append(output)
        folder = media_root / "runs" / str(campaign.pk)
        folder.mkdir(parents=True, exist_ok=True)
        meta = {}
        for name, rows in by_run.items():
            path = folder / f"{name}.run"
            lines = [f"{row.item.external_id.split('/')[0]} Q0 {row.item.external_id.split('/')[1]} {row.rank} "
                     f"{row.score} {name}\n" for row in rows]
            path.write_text("".join(lines), encoding="utf-8")
            meta[name] = {"depth": 10, "tags": ["clip-based"] if name == "run-0" else [], "lines": len(rows),
                          "sha256": "", "source": path.name, "file": str(path.relative_to(media_root))}
        return outputs, {"runs": meta}
