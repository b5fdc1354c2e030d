"""What the graded types' samples share (TaskTypeSpec.sample): grades 0-2 by the humans, a model's scores and
imported grades, and the runs pooled into the items, as a trec-run import stores them."""

from annotate.models import SystemOutput
from annotate.task_types.sample import TaskTypeSample, sample_score


class GradedSample(TaskTypeSample):
    """Items are "qid/docid"; the second judge's verdicts are imported grades."""

    # The campaign page shows the pools of its runs.
    bounds = {("campaign-detail", "researcher"): 19}

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
