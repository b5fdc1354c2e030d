"""image_relevance imports: topics (JSONL, AToMiC JSON), runs pooled to a depth, image files checked and stored,
NIST qrels as an assessor's grades, external scores by image id; bad input refused with nothing written."""

import json
import zipfile
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from PIL import Image

from annotate.models import Campaign, HumanJudgment, Item, SystemOutput, Topic, Unit
from interchange.importers.trec_run import trec_order
from judges.models import ModelJudgment
from tests.image_synthetic import image_draw, images_write, qrels_write, runs_write, topics_write

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    return Path(settings.MEDIA_ROOT)


def imp(*args, slug="img"):
    call_command("import_data", "--campaign", slug, "--task-type", "image_relevance", *map(str, args))
    return Campaign.objects.get(slug=slug)


def state(media: Path):
    files = sorted(str(p.relative_to(media)) for p in media.rglob("*")) if media.exists() else []
    counts = tuple(model.objects.count() for model in (Topic, Item, SystemOutput, Unit, HumanJudgment, ModelJudgment))
    return counts, files


def fails(media, *args):
    before = state(media)
    with pytest.raises(CommandError) as info:
        imp(*args)
    assert state(media) == before
    return str(info.value)


@pytest.fixture
def topics(tmp_path):
    path = tmp_path / "topics.jsonl"
    return path, topics_write(path, topics=2)


def test_topics_from_jsonl_and_atomic_json(tmp_path, topics):
    path, ids = topics
    campaign = imp("--format", "jsonl", path)
    first = Topic.objects.get(campaign=campaign, external_id="t1")
    assert first.text == "Section 1" and first.data["page_title"] == "Page 1"
    assert first.data["section_context"].startswith("This section describes part 1")
    imp("--format", "jsonl", path)  # the same again: nothing changes
    assert Topic.objects.filter(campaign=campaign).count() == 2

    atomic = tmp_path / "TREC-2023-Text-to-Image.json"
    atomic.write_text(json.dumps([
        {"text_id": "projected-00001", "page_title": "Lighthouse", "section_title": "History",
         "hierarchical_section_title": "Lighthouse / History", "context_page_description": "A tower with a light.",
         "context_section_description": "Built in 1850 on the rocks."},
        {"text_id": "projected-00002", "page_title": "Harbour", "section_title": "",
         "context_page_description": "Boats.", "context_section_description": ""},
    ]), encoding="utf-8")
    campaign = imp("--format", "atomic-topics", atomic, slug="atomic")
    topic = Topic.objects.get(campaign=campaign, external_id="projected-00001")
    assert topic.data == {
        "page_title": "Lighthouse",
        "section_title": "History",
        "page_context": "A tower with a light.",
        "section_context": "Built in 1850 on the rocks.",
    }
    assert Topic.objects.get(campaign=campaign, external_id="projected-00002").text == "Harbour"
    by_id = tmp_path / "by-id.json"
    by_id.write_text(json.dumps({"x9": {"page_title": "P", "section_title": "S"}}), encoding="utf-8")
    assert Topic.objects.get(campaign=imp("--format", "atomic-topics", by_id, slug="byid")).external_id == "x9"


def test_topic_errors(tmp_path, media, topics):
    path, _ = topics
    imp("--format", "jsonl", path)
    changed = tmp_path / "changed.jsonl"
    changed.write_text(json.dumps({"id": "t1", "page_title": "Another", "section_title": "S"}) + "\n", encoding="utf-8")
    assert fails(media, "--format", "jsonl", changed) == f"{changed}:1: id: topic 't1' is already there with other text"
    untitled = tmp_path / "untitled.jsonl"
    untitled.write_text(json.dumps({"id": "t9", "page_context": "x"}) + "\n", encoding="utf-8")
    assert fails(media, "--format", "jsonl", untitled) == (
        f"{untitled}:1: section_title: a topic needs a section title or a page title")
    no_id = tmp_path / "noid.json"
    no_id.write_text(json.dumps([{"page_title": "P"}]), encoding="utf-8")
    assert fails(media, "--format", "atomic-topics", no_id) == (
        f"{no_id}:1: id: missing key (one of id, qid, topic_id, text_id)")


def test_runs_are_ordered_as_trec_eval_orders_them():
    # score descending, ties by docid descending; the rank column plays no part
    assert trec_order({"b": 5.0, "a": 5.0, "c": 9.0, "d": 5.0}) == ["c", "d", "b", "a"]


def test_runs_are_pooled_to_their_depth_and_kept_whole(tmp_path, media, topics):
    path, ids = topics
    imp("--format", "jsonl", path)
    runs = tmp_path / "runs.txt"
    runs_write(runs, topics=ids, runs=["alpha", "beta"], images=30, lines=20, seed=4)
    campaign = imp("--format", "trec-run", "--depth", "5", "--tag", "clip-based", runs)

    lines = [line.split() for line in runs.read_text().splitlines()]
    expected = {}
    for qid in ids:
        pool = set()
        for run in ("alpha", "beta"):
            ranked = [docid for q, _, docid, _, _, tag in lines if q == qid and tag == run][:5]  # scores fall with rank
            pool.update(ranked)
        expected[qid] = pool
    for qid in ids:
        pooled = set(Item.objects.filter(campaign=campaign, topic__external_id=qid).values_list("data__image_id",
                                                                                              flat=True))
        assert pooled == expected[qid]
    assert Unit.objects.filter(campaign=campaign).count() == sum(len(pool) for pool in expected.values())
    meta = campaign.options["runs"]["alpha"]
    assert (meta["depth"], meta["tags"], meta["lines"]) == (5, ["clip-based"], 40)
    assert (media / meta["file"]).read_text().count("\n") == 40
    # A pooled image ranked deep by the other run keeps that rank.
    for run in ("alpha", "beta"):
        for qid, _, docid, rank, _, tag in lines:
            if tag == run and docid in expected[qid]:
                output = SystemOutput.objects.get(campaign=campaign, system=run, topic__external_id=qid,
                                                  item__data__image_id=docid)
                assert output.rank == int(rank)

    before = state(media)
    imp("--format", "trec-run", "--depth", "5", "--tag", "clip-based", runs)  # the same runs again: a no-op
    assert state(media) == before
    assert fails(media, "--format", "trec-run", "--depth", "6", runs).endswith(
        "tag: run 'alpha' is already imported with other lines, depth or tags")


def test_run_errors(tmp_path, media, topics):
    path, _ = topics
    imp("--format", "jsonl", path)
    unknown = tmp_path / "unknown.run"
    unknown.write_text("t1 Q0 img-1 1 2.0 r\nt7 Q0 img-2 1 1.0 r\n", encoding="utf-8")
    assert fails(media, "--format", "trec-run", unknown) == f"{unknown}:2: qid: no topic 't7' in this campaign"
    with pytest.raises(CommandError, match="--depth and --tag pool the runs of a graded relevance campaign"):
        imp("--format", "jsonl", "--depth", "5", path)


def test_images_are_checked_stored_with_thumbnails_and_attached(tmp_path, media, topics):
    path, ids = topics
    imp("--format", "jsonl", path)
    runs = tmp_path / "runs.txt"
    runs_write(runs, topics=ids, runs=["alpha"], images=8, lines=8)
    campaign = imp("--format", "trec-run", runs)
    files = images_write(tmp_path / "images", [f"img-{n}" for n in range(8)])
    imp("--format", "images", tmp_path / "images")
    item = Item.objects.get(campaign=campaign, topic__external_id="t1", data__image_id="img-1")
    assert item.data["format"] == "JPEG" and (item.data["width"], item.data["height"]) == (96, 64)
    assert (media / item.data["image"]).read_bytes() == files[1].read_bytes()  # the original, unchanged
    with Image.open(media / item.data["thumbnail"]) as thumb:
        assert thumb.format == "JPEG" and max(thumb.size) <= 512
    assert all("image" in data for data in Item.objects.filter(campaign=campaign).values_list("data", flat=True))

    # The same files again are a no-op; other bytes under a stored id are refused.
    before = state(media)
    imp("--format", "images", tmp_path / "images")
    assert state(media) == before
    other = image_draw(tmp_path / "img-1.jpg", seed=99)
    assert fails(media, "--format", "images", other).endswith(
        "img-1.jpg:0: file: image 'img-1' is already stored with other bytes; originals are not replaced")


def test_images_imported_before_the_runs_are_attached_when_pooled(tmp_path, media, topics):
    path, ids = topics
    imp("--format", "jsonl", path)
    images_write(tmp_path / "images", ["img-0", "img-1"])
    zipped = tmp_path / "images.zip"
    with zipfile.ZipFile(zipped, "w") as bundle:
        for file in (tmp_path / "images").iterdir():
            bundle.write(file, f"folder/{file.name}")
    imp("--format", "images", zipped)
    runs = tmp_path / "runs.txt"
    runs.write_text("t1 Q0 img-0 1 2.0 r\nt1 Q0 img-1 2 1.0 r\nt1 Q0 img-5 3 0.5 r\n", encoding="utf-8")
    campaign = imp("--format", "trec-run", runs)
    attached = dict(Item.objects.filter(campaign=campaign).values_list("data__image_id", "data__format"))
    assert attached == {"img-0": "PNG", "img-1": "JPEG", "img-5": None}


def _png_named(path: Path) -> Path:
    Image.new("RGB", (8, 8), "red").save(path, format="PNG")
    return path


BAD_IMAGES = [
    ("fake.jpg", lambda p: p.write_text("not an image at all"), "file: not an image (Pillow cannot read it)"),
    ("png.jpg", _png_named, "name: named .jpg but the bytes are a PNG image"),
    ("notes.txt", lambda p: p.write_text("hello"), "name: not an allowed image type"),
    ("empty.png", lambda p: p.write_bytes(b""), "file: empty file"),
    ("cut.jpg", lambda p: p.write_bytes(image_draw(p, seed=1, size=(400, 300)).read_bytes()[:700]),
     "file: damaged or truncated image"),
]


@pytest.mark.parametrize(("name", "make", "message"), BAD_IMAGES, ids=[b[0] for b in BAD_IMAGES])
def test_bad_image_files_are_refused_and_nothing_is_stored(tmp_path, media, topics, name, make, message):
    imp("--format", "jsonl", topics[0])
    folder = tmp_path / "upload"
    images_write(folder, ["good-1", "good-2"])
    make(folder / name)
    assert message in fails(media, "--format", "images", folder)


def test_pixel_limit_and_decompression_bomb(tmp_path, media, topics, settings):
    imp("--format", "jsonl", topics[0])
    settings.IMAGE_MAX_PIXELS = 5000
    big = image_draw(tmp_path / "big.png", seed=1, size=(100, 80))
    assert fails(media, "--format", "images", big).endswith(
        "file: 100 x 80 pixels; images may have at most 5,000 pixels"
    )
    settings.IMAGE_MAX_PIXELS = 10**12  # our limit out of the way: Pillow's own bomb check answers
    bomb = tmp_path / "bomb.png"
    Image.new("1", (20000, 20000)).save(bomb, optimize=True)  # 400 megapixels in a few kilobytes
    assert bomb.stat().st_size < 200_000
    assert fails(media, "--format", "images", bomb).endswith(
        "file: too many pixels to decode safely (decompression bomb)"
    )


def test_zip_path_traversal_symlinks_and_duplicate_ids(tmp_path, media, topics):
    imp("--format", "jsonl", topics[0])
    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil, "w") as bundle:
        bundle.writestr("../escape.png", b"x")
    assert "zip entry path leaves the folder" in fails(media, "--format", "images", evil)
    target = image_draw(tmp_path / "real.png", seed=3)
    link = tmp_path / "links" / "linked.png"
    link.parent.mkdir()
    link.symlink_to(target)
    assert fails(media, "--format", "images", link.parent).endswith(
        "linked.png:0: file: a symbolic link, not an image file"
    )
    twins = tmp_path / "twins"
    twins.mkdir()
    image_draw(twins / "same.png", seed=1)
    image_draw(twins / "same.jpg", seed=2)
    assert "name: image id 'same' also names" in fails(media, "--format", "images", twins)


def test_qrels_become_an_assessors_grades(tmp_path, media, topics):
    path, ids = topics
    imp("--format", "jsonl", path)
    runs = tmp_path / "runs.txt"
    runs.write_text("t1 Q0 img-0 1 2.0 r\nt1 Q0 img-1 2 1.0 r\n", encoding="utf-8")
    campaign = imp("--format", "trec-run", runs)
    qrels = tmp_path / "nist.qrels"
    qrels_write(qrels, {("t1", "img-0"): 2, ("t1", "img-1"): 0, ("t2", "img-9"): 1})
    imp("--format", "trec-qrels", qrels)
    grades = dict(HumanJudgment.objects.filter(unit__campaign=campaign).values_list("unit__item__external_id", "label"))
    assert grades == {"t1/img-0": "2", "t1/img-1": "0", "t2/img-9": "1"}
    judgment = HumanJudgment.objects.get(unit__item__external_id="t1/img-0")
    assert judgment.annotator.username == "qrels-nist" and judgment.value == {"grade": 2}
    assert Unit.objects.filter(campaign=campaign, judgments_done__lt=1).count() == 0  # k = 1: all graded
    imp("--format", "trec-qrels", qrels)  # again: a no-op
    assert HumanJudgment.objects.count() == 3

    bad = tmp_path / "bad.qrels"
    bad.write_text("t1 0 img-0 3\n", encoding="utf-8")
    assert (
        fails(media, "--format", "trec-qrels", bad)
        == f"{bad}:1: grade: expected 0, 1 or 2 (the campaign's scale), got 3"
    )
    clash = tmp_path / "nist.qrels"
    clash.write_text("t1 0 img-0 1\n", encoding="utf-8")
    assert "'1' conflicts with '2' already recorded" in fails(media, "--format", "trec-qrels", clash)


def test_judge_scores_name_images_by_their_id(tmp_path, media, topics):
    path, _ = topics
    imp("--format", "jsonl", path)
    runs = tmp_path / "runs.txt"
    runs.write_text("t1 Q0 img-0 1 2.0 r\nt2 Q0 img-0 1 1.0 r\n", encoding="utf-8")
    imp("--format", "trec-run", runs)
    scores = tmp_path / "gpt4v.tsv"
    scores.write_text("topic\titem\tscore\nt1\timg-0\t73\nt2\timg-0\t12\n", encoding="utf-8")
    imp("--format", "judge-scores", "--judge", "gpt-4v", scores)
    assert dict(ModelJudgment.objects.values_list("item__external_id", "score")) == {"t1/img-0": 73.0,
                                                                                     "t2/img-0": 12.0}


def test_campaign_page_shows_each_topics_pool(tmp_path, media, topics, client, researcher):
    from annotate.models import Role
    from tests.factories import MembershipFactory

    path, ids = topics
    imp("--format", "jsonl", path)
    runs = tmp_path / "runs.txt"
    runs_write(runs, topics=ids, runs=["alpha", "beta"], images=30, lines=20, seed=4)
    campaign = imp("--format", "trec-run", "--depth", "5", "--tag", "clip-based", runs)
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    client.force_login(researcher)
    page = client.get(f"/campaigns/{campaign.slug}/").content.decode()
    sizes = {qid: Item.objects.filter(campaign=campaign, topic__external_id=qid).count() for qid in ids}
    for qid in ids:
        assert (
            f'<tr><td>{qid}</td><td>Section {qid[1:]}</td><td class="num">{sizes[qid]}</td><td class="num">0</td></tr>'
            in page
        )
    assert "<b>alpha</b> (depth 5, clip-based, 40 lines)" in page
