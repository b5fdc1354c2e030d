"""Campaigns for the load test, written in bulk (COPY on PostgreSQL): `python bench/load/seed.py --items 1000000`.

- load-qa (qa_correctness, overlap 2): ITEMS items, three per question. The size target of the load test.
- load-ais (ais, overlap 3), load-images (image_relevance, overlap 2, the items sharing 40 real PNG files),
  load-ranking (answer_ranking, overlap 2, one unit per topic of 8 candidates): ITEMS // 10 items each, so
  that every task type is under load at once.
- report-1m (qa_correctness, overlap 2): REPORT_ITEMS items with two human judgments each (by rater0 ..
  rater19) and two judges' verdicts on each, i.e. 1,000,000 human and 1,000,000 model judgments at the default
  size: the agreement report's size target. (The raters are not the load test's annotators: an annotator's
  progress line counts their judgments in the campaign through all of theirs, 0.2 s for 100,000 of them.)
- Users: load0 .. load{USERS-1} (annotators of every load-* campaign), rater0 .. rater19 and the researcher
  "loadlead", all with the password PASSWORD.

Uses the configured database (DATABASE_URL) and MEDIA_ROOT; the database must hold no such campaign yet. The rows are
written around the services, so the seed gives each campaign its data version itself, once, at the end.
"""

import argparse
import io
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

PASSWORD = "load-test-password"
SEEDED = ("load-qa", "load-ais", "load-images", "load-ranking", "report-1m")
IMAGES = 40
CANDIDATES = 8


def _topics(campaign, n: int, data) -> list[int]:
    from annotate.bulk import rows_insert
    from annotate.models import Topic

    rows_insert(Topic, ["campaign", "external_id", "text", "data"],
                ((campaign.pk, f"q{i}", f"Question {i}: what does the record say about case {i}?", data(i))
                 for i in range(n)))
    return list(Topic.objects.filter(campaign=campaign).order_by("id").values_list("id", flat=True))


def _items(campaign, topic_ids: list[int], n: int, per_topic: int, kind: str, text, data) -> list[int]:
    from annotate.bulk import rows_insert
    from annotate.models import Item

    rows_insert(Item, ["campaign", "topic", "external_id", "kind", "text", "data"],
                ((campaign.pk, topic_ids[i // per_topic], f"i{i}", kind, text(i), data(i)) for i in range(n)))
    return list(Item.objects.filter(campaign=campaign).order_by("id").values_list("id", flat=True))


def _units(campaign, targets) -> None:
    """One unit per (topic id, item id or None), in queue order."""
    from annotate.bulk import rows_insert
    from annotate.models import Unit

    rows_insert(Unit, ["campaign", "topic", "item", "judgments_needed", "judgments_done", "position"],
                ((campaign.pk, topic, item, campaign.overlap, 0, position) for position, (topic, item) in
                 enumerate(targets)))


def _campaign(slug: str, task_type: str, overlap: int, users, researcher, options=None):
    from annotate.models import Campaign, Membership, Role

    campaign = Campaign.objects.create(slug=slug, name=slug.replace("-", " ").title(), task_type=task_type,
                                       overlap=overlap, options=options or {})
    Membership.objects.bulk_create([Membership(campaign=campaign, user=user, role=Role.ANNOTATOR) for user in users]
                                   + [Membership(campaign=campaign, user=researcher, role=Role.RESEARCHER)])
    return campaign


def _answer(i: int) -> str:
    return f"The record says case {i // 3} was closed in {1900 + i % 120}." if i % 3 else f"Answer {i // 3}"


def seed_qa(users, researcher, n: int, slug="load-qa", overlap=2):
    campaign = _campaign(slug, "qa_correctness", overlap, users, researcher)
    topics = _topics(campaign, (n + 2) // 3, lambda i: {"gold_answers": [f"Answer {i}"]})
    items = _items(campaign, topics, n, 3, "answer", _answer, lambda i: {})
    _units(campaign, ((topics[i // 3], item) for i, item in enumerate(items)))
    return campaign, topics, items


def seed_ais(users, researcher, n: int):
    campaign = _campaign("load-ais", "ais", 3, users, researcher)
    topics = _topics(campaign, n // 2, lambda i: {})
    passage = ("The archive's catalogue lists the collection under its founding year and names the donor, "
               "the place it was kept and the number of boxes it fills.")
    items = _items(campaign, topics, n, 2, "answer", _answer,
                   lambda i: {"passage": passage, "title": f"Catalogue entry {i}", "system": f"sys{i % 4}"})
    _units(campaign, ((topics[i // 2], item) for i, item in enumerate(items)))


def _image_files(campaign_id: int) -> list[dict]:
    """IMAGES small PNG originals and JPEG thumbnails in the campaign's store; the item data of each."""
    from django.conf import settings
    from PIL import Image

    from annotate.images import image_paths

    files = []
    rng = random.Random(7)
    for n in range(IMAGES):
        original, thumbnail = image_paths(campaign_id=campaign_id, image_id=f"img{n}", fmt="PNG")
        image = Image.new("RGB", (320, 240), tuple(rng.randrange(256) for _ in range(3)))
        for relative, fmt in ((original, "PNG"), (thumbnail, "JPEG")):
            path = Path(settings.MEDIA_ROOT) / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            image.save(path, fmt)
        buffer = io.BytesIO()
        image.save(buffer, "PNG")
        files.append({"image_id": f"img{n}", "image": original, "thumbnail": thumbnail, "width": 320, "height": 240,
                      "format": "PNG", "bytes": len(buffer.getvalue())})
    return files


def seed_images(users, researcher, n: int):
    campaign = _campaign("load-images", "image_relevance", 2, users, researcher)
    files = _image_files(campaign.pk)
    topics = _topics(campaign, n // 10, lambda i: {"page_title": f"Page {i}", "section_title": "History",
                                                   "section_context": "A short section about the place."})
    items = _items(campaign, topics, n, 10, "image", lambda i: "", lambda i: files[i % IMAGES])
    _units(campaign, ((topics[i // 10], item) for i, item in enumerate(items)))


def seed_ranking(users, researcher, n: int):
    campaign = _campaign("load-ranking", "answer_ranking", 2, users, researcher)
    topics = _topics(campaign, n // CANDIDATES, lambda i: {})
    _items(campaign, topics, n, CANDIDATES, "answer", _answer, lambda i: {})
    _units(campaign, ((topic, None) for topic in topics))


def seed_report(annotators, researcher, n: int):
    """N items, each judged by two of the annotators and by two judges (em, f1)."""
    from django.utils import timezone

    from annotate.bulk import rows_insert
    from annotate.models import HumanJudgment, Unit
    from judges.identity import judge_get_or_create
    from judges.models import ModelJudgment

    campaign, _, items = seed_qa([], researcher, n, slug="report-1m", overlap=2)
    Unit.objects.filter(campaign=campaign).update(judgments_done=2)
    units = list(Unit.objects.filter(campaign=campaign).order_by("position").values_list("id", flat=True))
    rng = random.Random(11)
    truth = [i % 3 == 0 or rng.random() < 0.1 for i in range(n)]
    now = timezone.now()

    def label(i: int, flip: float) -> bool:
        return truth[i] != (rng.random() < flip)

    def human_rows():
        for i, unit in enumerate(units):
            for a in (i % len(annotators), (i + 1) % len(annotators)):
                correct = label(i, 0.08)
                yield (unit, annotators[a].pk, "annotation", "import", {"correct": correct}, "yes" if correct else "no",
                       1, True, now)

    rows_insert(HumanJudgment, ["unit", "annotator", "kind", "source", "value", "label", "version", "is_current",
                                "created_at"], human_rows())
    for name, flip in (("em", 0.15), ("f1", 0.2)):
        judge = judge_get_or_create(campaign=campaign, name=name, family=name, config={})
        rows_insert(ModelJudgment, ["judge", "item", "score", "label", "raw", "failed", "fallback_label", "created_at"],
                    ((judge.pk, item, float(verdict), "yes" if verdict else "no", "", False, "", now)
                     for item, verdict in ((item, label(i, flip)) for i, item in enumerate(items))))
    return campaign


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1_000_000, help="Items of load-qa (default 1,000,000).")
    parser.add_argument("--report-items", type=int, default=500_000,
                        help="Items of report-1m, each with 2 human and 2 model judgments (default 500,000).")
    parser.add_argument("--users", type=int, default=50)
    args = parser.parse_args()

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.db import transaction

    users_model = get_user_model()
    password = make_password(PASSWORD)
    started = time.perf_counter()
    with transaction.atomic():
        users = users_model.objects.bulk_create(
            [users_model(username=f"load{i}", password=password) for i in range(args.users)])
        researcher = users_model.objects.create(username="loadlead", password=password)
        raters = users_model.objects.bulk_create(
            [users_model(username=f"rater{i}", password=password) for i in range(20)]
        )
        for step, seed, size in (("load-qa", seed_qa, args.items), ("load-ais", seed_ais, args.items // 10),
                                 ("load-images", seed_images, args.items // 10),
                                 ("load-ranking", seed_ranking, args.items // 10)):
            begun = time.perf_counter()
            seed(users, researcher, size)
            print(f"seeded {step}: {size:,} items in {time.perf_counter() - begun:.1f} s", flush=True)
        begun = time.perf_counter()
        seed_report(raters, researcher, args.report_items)
        print(f"seeded report-1m: {args.report_items:,} items, {2 * args.report_items:,} human and "
              f"{2 * args.report_items:,} model judgments in {time.perf_counter() - begun:.1f} s", flush=True)
        # The rows went in by COPY, around the services that bump a campaign's data version: each seeded campaign
        # gets its own here, once, in the same transaction (annotate.services.data_version).
        from annotate.models import Campaign
        from annotate.services.data_version import campaign_data_changed

        for campaign_id in Campaign.objects.filter(slug__in=SEEDED).values_list("pk", flat=True):
            campaign_data_changed(campaign_id=campaign_id)
    print(f"seeding took {time.perf_counter() - started:.1f} s", flush=True)


if __name__ == "__main__":
    main()
