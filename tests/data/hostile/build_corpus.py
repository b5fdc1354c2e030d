"""Writes the hostile-input corpus (the files beside this script) and its manifest, cases.json.

Run it again after changing a case: `python tests/data/hostile/build_corpus.py`. The files are kept in the
repository so the test reads bytes, not code; this script is how they were made, and the one place a binary
case (a zip bomb, a PNG with forged dimensions) can be read as intent. Cases too large to store (lines over
the line limit) are written at test time from the manifest's `generate` recipe.

Each case: name, format, task_type, files (paths relative to this folder; a folder for nq301 or images),
options (import_data_run keyword arguments such as judge), setup (good imports run first, so a hostile file
can reference a campaign that has data), via ("command": import_data_run as `manage.py import_data` calls it;
"upload": uploads_import as the API and the import page call it), expect (file name, line, field, and a
fragment of the message), and why (what makes the file hostile).
"""

import io
import json
import os
import stat
import struct
import zipfile
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
GIB = 1024**3

QA_GOOD = [
    {"question": "who wrote hamlet", "answer": ["William Shakespeare"], "prediction": "Shakespeare"},
    {"question": "what is the capital of australia", "answer": ["Canberra"], "prediction": "Sydney"},
    {"question": "how many legs does a spider have", "answer": ["eight", "8"], "prediction": "8"},
]
NQ_HEADER = "id\tQuestion\tModel answer\tAcceptable?\tannotator1\tannotator2\tannotator3"
NQ_ROWS = ["1\twho wrote hamlet\tShakespeare\tYes\tYes\tYes\tYes",
           "2\twhat is the capital of australia\tSydney\tNo\tNo\tNo\tNo"]
RANKING_TOPICS = [
    {"qid": "r1", "query": "what causes tides",
     "candidates": [{"id": "a1", "kind": "answer", "text": "The pull of the moon and the sun.", "system": "sys-a"},
                    {"id": "d1", "kind": "document", "text": "Tides are the rise and fall of sea levels.",
                     "docno": "doc-1"}]},
    {"qid": "r2", "query": "why is the sky blue",
     "candidates": [{"id": "a2", "kind": "answer", "text": "Air scatters blue light most.", "system": "sys-a"},
                    {"id": "d2", "kind": "document", "text": "Rayleigh scattering favours short wavelengths.",
                     "docno": "doc-2"}]},
]
IMAGE_TOPICS = [
    {"id": "t1", "page_title": "Eiffel Tower", "section_title": "Construction"},
    {"id": "t2", "page_title": "Mount Kilimanjaro", "section_title": "Climbing routes"},
]
AIS_HEADER = "system_name,question,answer,attribution,passage,human_rating,auto_ais,nli_score"
AIS_ROW = ('sys-1,who wrote hamlet,Shakespeare wrote it.,https://en.wikipedia.org/wiki/Hamlet,'
           '"Hamlet is a tragedy written by William Shakespeare, ""probably"" around 1600.",Y,Y,0.91')
AIS_GOOD = {"system_name": "sys-1", "question": "who wrote hamlet", "answer": "Shakespeare wrote it.",
            "attribution": "https://en.wikipedia.org/wiki/Hamlet", "passage": "Hamlet is by Shakespeare.",
            "human_rating": "Y", "auto_ais": "Y", "nli_score": 0.91}
LS_TASK = {"id": 1, "data": {"qid": "101", "query": "can vitamin c prevent a cold", "items": [
    {"id": "d1", "docno": "clef-doc-1", "body": "Vitamin C does not prevent colds in most people.", "score": "0.9"},
    {"id": "a1", "docno": "gpt-3.5_p1_s1", "body": "No, but it may shorten a cold.", "score": "0.7"}]},
    "annotations": [{"completed_by": 7, "was_cancelled": False,
                     "result": [{"type": "ranker", "value": {"ranker": {"rank": ["d1", "a1"]}}}]}]}

SETUP_QA = {"format": "qa-eval-jsonl", "files": ["setup/NQ_setup.jsonl"]}
SETUP_RANKING = {"format": "jsonl", "files": ["setup/ranking.jsonl"]}
SETUP_TOPICS = {"format": "jsonl", "files": ["setup/topics.jsonl"]}
SETUP_PASSAGES = [{"format": "trec-topics", "files": ["setup/passage-topics.tsv"]},
                  {"format": "trec-run", "files": ["setup/passage-runs.txt"]}]


def jl(*objects) -> bytes:
    return b"".join(json.dumps(obj, ensure_ascii=False).encode() + b"\n" for obj in objects)


def lines(*rows: str) -> bytes:
    return "".join(row + "\n" for row in rows).encode()


def ls(*tasks) -> bytes:
    return json.dumps(list(tasks), indent=1, ensure_ascii=False).encode()


def with_(base: dict, **changes) -> dict:
    return {**base, **changes}


def ls_task(**data_changes) -> dict:
    return {**LS_TASK, "data": {**LS_TASK["data"], **data_changes}}


def png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png(width: int, height: int, *, extra: bytes = b"", bit_depth: int = 8, colour: int = 2) -> bytes:
    """A PNG whose header says WIDTH x HEIGHT; the pixel data is one tiny zlib stream, whatever the size."""
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, colour, 0, 0, 0)
    rows = b"".join(b"\x00" + bytes(width * 3) for _ in range(height)) if width * height <= 4096 else b"\x00"
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + extra + png_chunk(b"IDAT", zlib.compress(rows))
            + png_chunk(b"IEND", b""))


def jpeg(width: int, height: int) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "red").save(buffer, format="JPEG")
    return buffer.getvalue()


def zip_of(entries: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as bundle:
        for name, data in entries:
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            bundle.writestr(info, data)
    return buffer.getvalue()


def zip_symlink_entry() -> bytes:
    """A zip whose entry `passwd.png` is stored as a symbolic link (Unix mode 120777) to /etc/passwd."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as bundle:
        info = zipfile.ZipInfo("passwd.png")
        info.create_system = 3
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        bundle.writestr(info, "/etc/passwd")
    return buffer.getvalue()


def zip_bomb(names: list[str], size: int) -> bytes:
    """A zip of NAMES, each SIZE zero bytes compressed with bzip2 (a GiB of zeros packs into under a kilobyte).

    The declared sizes are honest: the archive really unpacks to len(NAMES) * SIZE bytes.
    """
    buffer = io.BytesIO()
    chunk = bytes(1 << 24)
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_BZIP2, compresslevel=9) as bundle:
        for name in names:
            with bundle.open(name, "w", force_zip64=True) as sink:
                for _ in range(size // len(chunk)):
                    sink.write(chunk)
    return buffer.getvalue()


def zip_lying_size(name: str, size: int, declared: int) -> bytes:
    """A zip whose one entry declares DECLARED bytes but inflates to SIZE: the headers' sizes are patched."""
    data = zip_of([(name, bytes(size))])
    local = data.index(b"PK\x03\x04")
    central = data.index(b"PK\x01\x02")
    patched = bytearray(data)
    patched[local + 22:local + 26] = struct.pack("<I", declared)
    patched[central + 24:central + 28] = struct.pack("<I", declared)
    return bytes(patched)


def utf16(text: bytes) -> bytes:
    return text.decode().encode("utf-16")


def files() -> dict[str, bytes]:
    """Every stored file of the corpus, by path relative to this folder."""
    cut_ls = ls(LS_TASK, ls_task(qid="102"))
    cut_nq = lines(NQ_HEADER, *NQ_ROWS, "3\thow many legs does a spider have\t8")
    ais_csv = lines(AIS_HEADER, AIS_ROW)
    return {
        # setup: good files a case's campaign is filled with first
        "setup/NQ_setup.jsonl": jl(*QA_GOOD[:2]),
        "setup/ranking.jsonl": jl(*RANKING_TOPICS),
        "setup/topics.jsonl": jl(*IMAGE_TOPICS),
        "setup/passage-topics.tsv": lines("q1\tfirst query", "q2\tsecond query"),
        "setup/passage-runs.txt": lines("q1 Q0 d1 1 2.0 r", "q1 Q0 d2 2 1.0 r", "q2 Q0 d3 1 1.0 r"),
        # gold-answers (ais)
        "gold-answers/empty-list.jsonl": jl({"question": "who wrote hamlet", "answers": ["Shakespeare"]},
                                            {"question": "when did it open", "answers": []}),
        "gold-answers/no-question.jsonl": jl({"answers": ["Shakespeare"]}),
        # trec-topics, collection, judge-qrels (passage_relevance)
        "trec-topics/no-tab.tsv": lines("q1\tfirst query", "q2 no tab here"),
        "trec-topics/empty-query.jsonl": jl({"qid": "q1", "text": "first"}, {"qid": "q2", "text": ""}),
        "trec-topics/two-texts.tsv": lines("q1\tone query", "q1\tanother query"),
        "collection/two-texts.tsv": lines("d1\tone text", "d1\tanother text"),
        "collection/no-text.jsonl": jl({"docid": "d1"}),
        "collection/empty-id.tsv": lines("d1\tone text", "\tno id"),
        # values over IMPORT_MAX_VALUE_CHARS (100,000 characters)
        "collection/long-passage.tsv": lines("d1\t" + "w" * 100_001),
        "qa-eval-jsonl/NQ_long_value.jsonl": jl(QA_GOOD[0], {**QA_GOOD[1], "prediction": "p" * 100_001}),
        "label-studio/long-body.json": ls(ls_task(items=[LS_TASK["data"]["items"][0],
                                                         {**LS_TASK["data"]["items"][1], "body": "b" * 100_001}])),
        "judge-qrels/beyond-scale.qrels": lines("t1 0 img-1 2", "t1 0 img-2 3"),
        "judge-qrels/unknown-topic.qrels": lines("t1 0 img-1 2", "zz 0 img-1 1"),
        "judge-qrels/two-grades.qrels": lines("q1 0 d1 2", "q1 0 d1 3"),
        # qa-eval-jsonl
        "qa-eval-jsonl/NQ_truncated.jsonl": jl(*QA_GOOD[:2]) + jl(QA_GOOD[2])[:52],
        "qa-eval-jsonl/NQ_utf16.jsonl": utf16(jl(*QA_GOOD)),
        "qa-eval-jsonl/NQ_latin1.jsonl": jl(QA_GOOD[0]) + jl(with_(QA_GOOD[1], prediction="café"))
        .replace("café".encode(), "café".encode("latin-1")),
        "qa-eval-jsonl/NQ_question_number.jsonl": jl(QA_GOOD[0], with_(QA_GOOD[1], question=1901)),
        "qa-eval-jsonl/NQ_answer_object.jsonl": jl(with_(QA_GOOD[0], answer={"text": "William Shakespeare"})),
        "qa-eval-jsonl/NQ_line_is_list.jsonl": jl(list(QA_GOOD[0].values())),
        "qa-eval-jsonl/NQ_escaped_nul.jsonl": jl(QA_GOOD[0], with_(QA_GOOD[1], prediction="Syd\x00ney")),
        "qa-eval-jsonl/NQ_conflicting_duplicate.jsonl": jl(*QA_GOOD, with_(QA_GOOD[0], prediction="Marlowe")),
        "qa-eval-jsonl/NQ_blank.jsonl": b"\n  \n\t\n",
        "qa-eval-jsonl/NQ_deep_nesting.jsonl": jl(QA_GOOD[0]) + b'{"question": ' + b"[" * 5000 + b"]" * 5000 + b"}\n",
        "qa-eval-jsonl/NQ_huge_integer.jsonl": jl(QA_GOOD[0]) + b'{"question": 1' + b"0" * 5000 + b"}\n",
        "qa-eval-jsonl/NQ_" + "s" * 201 + ".jsonl": jl(QA_GOOD[0]),
        # nq301 (folders; zips go through the upload path, which unpacks them)
        "nq301/missing-column/NQ301_human.tsv": lines(NQ_HEADER.replace("\tAcceptable?", ""),
                                                      *(r.replace("\tYes\tYes", "\tYes", 1) for r in NQ_ROWS)),
        "nq301/truncated-row/NQ301_human.tsv": cut_nq,
        "nq301/latin1/NQ301_human.tsv": lines(NQ_HEADER, NQ_ROWS[0], "2\tcapital of Côte d'Ivoire\tYamoussoukro"
                                              "\tYes\tYes\tYes\tYes").replace("ô".encode(), "ô".encode("latin-1")),
        "nq301/bad-verdict/NQ301_human.tsv": lines(NQ_HEADER, NQ_ROWS[0], NQ_ROWS[1].replace("No\tNo\tNo\tNo",
                                                                                            "No\tNo\tMaybe\tNo")),
        "nq301/judge-unknown-id/NQ301_human.tsv": lines(NQ_HEADER, *NQ_ROWS),
        "nq301/judge-unknown-id/NQ301_gpt-4.tsv": lines("id\tModel answer\tgpt-4", "1\tShakespeare\tYes.",
                                                        "999\tSydney\tNo."),
        "nq301/long-id/NQ301_human.tsv": lines(NQ_HEADER, NQ_ROWS[0], "9" * 201 + NQ_ROWS[1][1:]),
        "nq301/nul-byte/NQ301_human.tsv": lines(NQ_HEADER, NQ_ROWS[0].replace("hamlet", "ham\x00let"), NQ_ROWS[1]),
        "nq301/zips/traversal.zip": zip_of([("../NQ301_human.tsv", lines(NQ_HEADER, *NQ_ROWS))]),
        "nq301/zips/absolute.zip": zip_of([("/etc/cron.d/NQ301_human.tsv", lines(NQ_HEADER, *NQ_ROWS))]),
        "nq301/zips/bomb.zip": zip_bomb(["nq301/NQ301_human.tsv", "nq301/model_outputs/NQ_big.jsonl"], GIB),
        "nq301/zips/bad-crc.zip": zip_lying_size("nq301/NQ301_human.tsv", 16 * 1024**2, 200),
        # judge-scores
        "judge-scores/nan.tsv": lines("topic\titem\tscore\tlabel", "r1\ta1\t0.5\tgood", "r1\td1\tNaN\tbad"),
        "judge-scores/unknown-item.tsv": lines("topic\titem\tscore", "r1\ta1\t0.5", "r1\tzzz\t0.1"),
        "judge-scores/unknown-topic.tsv": lines("topic\titem\tscore", "no-such-topic\timg-1\t0.3"),
        "judge-scores/no-score-column.tsv": lines("topic\titem\tlabel", "q-1\tq-1-1\tyes"),
        "judge-scores/utf16.tsv": utf16(lines("topic\titem\tscore", "r1\ta1\t0.5")),
        "judge-scores/long-label.tsv": lines("topic\titem\tscore\tlabel", "r1\ta1\t0.5\t" + "relevant " * 8),
        "judge-scores/infinite.tsv": lines("topic\titem\tscore", "r1\ta1\t-inf"),
        # item-categories
        "item-categories/two-categories.tsv": lines("r1\ta1\tsemantic", "r1\ta1\tsymbolic"),
        "item-categories/multiline.jsonl": jl({"topic": "r1", "item": "a1", "category": "one\ntwo"}),
        "item-categories/no-such-topic.tsv": lines("topic\titem\tcategory", "zz\ta1\tsemantic"),
        "item-categories/two-fields.csv": lines("r1,a1"),
        # label-studio
        "label-studio/truncated.json": cut_ls[: len(cut_ls) // 2],
        "label-studio/not-a-list.json": json.dumps({"tasks": [LS_TASK]}).encode(),
        "label-studio/items-object.json": ls(ls_task(items={"d1": LS_TASK["data"]["items"][0]})),
        "label-studio/duplicate-candidate.json": ls(ls_task(items=[LS_TASK["data"]["items"][0]] * 2)),
        "label-studio/ranker-unknown-id.json": ls({**LS_TASK, "annotations": [
            {"completed_by": 7, "result": [{"value": {"ranker": {"rank": ["d1", "a1", "ghost"]}}}]}]}),
        "label-studio/nan-score.json": ls(ls_task(items=[{**LS_TASK["data"]["items"][0], "score": "NaN"},
                                                         LS_TASK["data"]["items"][1]])),
        "label-studio/escaped-nul.json": ls(ls_task(), ls_task(qid="102", query="is ibuprofen\x00 safe")),
        "label-studio/latin1.json": ls(ls_task(query="café au lait")).replace("café".encode(),
                                                                           "café".encode("latin-1")),
        "label-studio/empty.json": b"",
        "label-studio/deep-nesting.json": b"[" * 5000 + b"]" * 5000,
        "label-studio/long-qid.json": ls(ls_task(qid="q" * 201)),
        "label-studio/odd-samples.json": ls(ls_task(items=[
            {"id": "a1", "body": "Answer one.", "system": "gpt-4", "sample": "\u00b2"},
            {"id": "a2", "body": "Answer two.", "system": "gpt-4", "sample": "7" * 5000}]), {"id": 2}),
        # jsonl, answer_ranking
        "jsonl-ranking/qid-list.jsonl": jl(with_(RANKING_TOPICS[0], qid=["r1"])),
        "jsonl-ranking/candidates-object.jsonl": jl(with_(RANKING_TOPICS[0], candidates={"a1": "text"})),
        "jsonl-ranking/duplicate-candidate.jsonl": jl(RANKING_TOPICS[0], with_(
            RANKING_TOPICS[1], candidates=[RANKING_TOPICS[1]["candidates"][0]] * 2)),
        "jsonl-ranking/ranking-unknown-id.jsonl": jl(with_(RANKING_TOPICS[0], rankings=[
            {"annotator": "ann", "ranking": ["a1", "d1", "ghost"]}])),
        "jsonl-ranking/long-system.jsonl": jl(with_(RANKING_TOPICS[0], candidates=[
            with_(RANKING_TOPICS[0]["candidates"][0], system="s" * 201)])),
        "jsonl-ranking/truncated.jsonl": jl(RANKING_TOPICS[0]) + jl(RANKING_TOPICS[1])[:70],
        # jsonl, ais
        "jsonl-ais/question-list.jsonl": jl(AIS_GOOD, with_(AIS_GOOD, system_name="sys-2", question=["who", "what"])),
        "jsonl-ais/nli-negative.jsonl": jl(with_(AIS_GOOD, nli_score=-0.25)),
        "jsonl-ais/rating-number.jsonl": jl(with_(AIS_GOOD, human_rating=3)),
        "jsonl-ais/escaped-nul.jsonl": jl(with_(AIS_GOOD, passage="Hamlet\x00 is by Shakespeare.")),
        # jsonl, image_relevance topics
        "jsonl-topics/id-list.jsonl": jl(IMAGE_TOPICS[0], with_(IMAGE_TOPICS[1], id=["t2"])),
        "jsonl-topics/conflicting-duplicate.jsonl": jl(*IMAGE_TOPICS, with_(IMAGE_TOPICS[0], section_title="History")),
        "jsonl-topics/utf16.jsonl": utf16(jl(*IMAGE_TOPICS)),
        "jsonl-topics/long-id.jsonl": jl(with_(IMAGE_TOPICS[0], id="t" * 201)),
        # trec-qrels
        "trec-qrels/unknown-document.qrels": lines("r1 0 doc-1 2", "r1 0 doc-404 1"),
        "trec-qrels/grade-float.qrels": lines("r1 0 doc-1 1.5"),
        "trec-qrels/negative-grade.qrels": lines("t1 0 img-1 2", "t1 0 img-2 -1"),
        "trec-qrels/unknown-topic.qrels": lines("t1 0 img-1 2", "t9 0 img-1 1"),
        "trec-qrels/empty.qrels": b"",
        "trec-qrels/long-image-id.qrels": lines("t1 0 img-1 2", "t1 0 " + "i" * 400 + " 1"),
        # trec-run
        "trec-run/nan-score.run": lines("r1 Q0 a1 1 2.5 bm25", "r1 Q0 d1 2 nan bm25"),
        "trec-run/unknown-topic.run": lines("r1 Q0 a1 1 2.5 bm25", "r404 Q0 d1 1 1.0 bm25"),
        "trec-run/truncated-row.run": lines("r1 Q0 a1 1 2.5 bm25") + b"r1 Q0 d1 2",
        "trec-run/duplicate-docid.run": lines("t1 Q0 img-1 1 3.0 clip", "t1 Q0 img-2 2 2.0 clip",
                                              "t1 Q0 img-1 3 1.0 clip"),
        "trec-run/negative-rank.run": lines("t1 Q0 img-1 -1 3.0 clip"),
        "trec-run/long-tag.run": lines("r1 Q0 a1 1 2.5 " + "bm25-" * 21),
        "trec-run/long-image-tag.run": lines("t1 Q0 img-1 1 3.0 " + "clip-" * 41),
        "trec-run/unknown-image-topic.run": lines("t1 Q0 img-1 1 3.0 clip", "zz Q0 img-1 1 3.0 clip"),
        # attributed-qa
        "attributed-qa/missing-column.csv": lines(AIS_HEADER.replace(",passage", ""), AIS_ROW.rsplit(',"', 1)[0]
                                                  + ",Y,Y,0.91"),
        "attributed-qa/truncated-quoted.csv": ais_csv[:-30],
        "attributed-qa/latin1.csv": lines(AIS_HEADER, AIS_ROW.replace("Hamlet is", "Hamlet (pièce) is"))
        .replace("è".encode(), "è".encode("latin-1")),
        "attributed-qa/nli-nan.csv": lines(AIS_HEADER, AIS_ROW.replace(",0.91", ",nan")),
        "attributed-qa/conflicting-duplicate.csv": lines(AIS_HEADER, AIS_ROW, AIS_ROW.replace(
            "Shakespeare wrote it.", "Marlowe wrote it.")),
        "attributed-qa/utf16.csv": utf16(ais_csv),
        "attributed-qa/nul-byte.csv": lines(AIS_HEADER, AIS_ROW.replace("tragedy", "tra\x00gedy")),
        "attributed-qa/long-system.csv": lines(AIS_HEADER, "s" * 201 + AIS_ROW[5:]),
        "attributed-qa/short-row.csv": lines(AIS_HEADER, AIS_ROW, "sys-2,who wrote hamlet"),
        # atomic-topics
        "atomic-topics/truncated.json": json.dumps([{"text_id": "t1", "page_title": "Eiffel Tower"}] * 3,
                                                   indent=1).encode()[:90],
        "atomic-topics/list-of-strings.json": json.dumps(["t1", "t2"]).encode(),
        "atomic-topics/title-number.json": json.dumps([{"text_id": "t1", "page_title": "Eiffel Tower"},
                                                       {"text_id": "t2", "section_title": 42}]).encode(),
        "atomic-topics/empty.json": b"",
        "atomic-topics/utf16.json": utf16(json.dumps([{"text_id": "t1", "page_title": "Tour"}]).encode()),
        "atomic-topics/huge-integer.json": b'[{"text_id": 1' + b"0" * 5000 + b', "page_title": "Tour"}]',
        "atomic-topics/escaped-nul.json": json.dumps([{"text_id": "t1", "page_title": "Eiffel\x00Tower"}]).encode(),
        # images
        "images/text-as.jpg": b"This is a text file that calls itself a JPEG.\n",
        "images/png-as.gif": png(8, 8),
        "images/bomb-dimensions.png": png(60000, 60000, bit_depth=1, colour=0),
        "images/ztxt-bomb.png": png(8, 8, extra=png_chunk(b"zTXt", b"Comment\x00\x00" + zlib.compress(
            bytes(32 * 1024**2), 9))),
        "images/truncated.png": png(8, 8)[:45],
        "images/empty.png": b"",
        "images/image.svg": b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>\n',
        "images/duplicate-ids/same.png": png(8, 8),
        "images/duplicate-ids/same.jpg": jpeg(8, 8),
        "images/zips/traversal.zip": zip_of([("ok.png", png(8, 8)), ("../escape.png", png(8, 8))]),
        "images/zips/absolute.zip": zip_of([("/tmp/absolute.png", png(8, 8))]),
        "images/zips/symlink-entry.zip": zip_symlink_entry(),
        "images/zips/bomb.zip": zip_bomb(["img-1.png", "img-2.png"], GIB),
        "images/zips/bad-crc.zip": zip_lying_size("img-1.png", 16 * 1024**2, 100),
        "images/zips/path-clash.zip": zip_of([("img-1.png", png(8, 8)), ("img-1.png/img-2.png", png(8, 8))]),
        "images/zips/not-a.zip": b"PK\x03\x04 this only starts like a zip archive\n",
    }


SYMLINKS = {  # path -> target: git stores these as symbolic links (mode 120000)
    "images/passwd.png": "/etc/passwd",
    "images/linked-folder/passwd.jpg": "/etc/passwd",
}
SYMLINK_NEIGHBOURS = {"images/linked-folder/good.png": png(8, 8)}


def case(name, fmt, task_type, files, line, field, fragment, *, expect_file=None, why, **extra) -> dict:
    """One manifest entry; EXPECT_FILE is the name the message gives (the first file's name by default)."""
    shown = expect_file or Path(files[0]).name
    return {"name": name, "format": fmt, "task_type": task_type, "files": files, **extra,
            "expect": {"file": shown, "line": line, "field": field, "message": fragment}, "why": why}


QA, RANK, AIS, IMG = "qa_correctness", "answer_ranking", "ais", "image_relevance"
PAS = "passage_relevance"


def cases() -> list[dict]:
    big = 17 * 1024**2  # over common.MAX_LINE_BYTES (16 MiB)
    return [
        case("qa-truncated-mid-json", "qa-eval-jsonl", QA, ["qa-eval-jsonl/NQ_truncated.jsonl"], 3, "json",
             "malformed JSON", why="the last line is cut in the middle of a string"),
        case("qa-utf16-bom", "qa-eval-jsonl", QA, ["qa-eval-jsonl/NQ_utf16.jsonl"], 1, "encoding", "not UTF-8",
             why="UTF-16 with a byte order mark"),
        case("qa-latin1", "qa-eval-jsonl", QA, ["qa-eval-jsonl/NQ_latin1.jsonl"], 2, "encoding", "byte 0xe9",
             why="a latin-1 e-acute on line 2"),
        case("qa-question-is-a-number", "qa-eval-jsonl", QA, ["qa-eval-jsonl/NQ_question_number.jsonl"], 2,
             "question", "expected a string, got int", why="a number where the question string belongs"),
        case("qa-answer-is-an-object", "qa-eval-jsonl", QA, ["qa-eval-jsonl/NQ_answer_object.jsonl"], 1, "answer",
             "expected a list of strings, got dict", why="an object where the list of gold answers belongs"),
        case("qa-line-is-a-list", "qa-eval-jsonl", QA, ["qa-eval-jsonl/NQ_line_is_list.jsonl"], 1, "json",
             "not a JSON object", why="a JSON list where the line's object belongs"),
        case("qa-escaped-nul", "qa-eval-jsonl", QA, ["qa-eval-jsonl/NQ_escaped_nul.jsonl"], 2, "prediction",
             "NUL", why="\\u0000 inside a string: PostgreSQL text cannot hold it"),
        case("qa-conflicting-duplicate", "qa-eval-jsonl", QA, ["qa-eval-jsonl/NQ_conflicting_duplicate.jsonl"], 4,
             "question", "already answered this question differently at line 1",
             why="one system answers the same question twice, differently"),
        case("qa-deep-nesting", "qa-eval-jsonl", QA, ["qa-eval-jsonl/NQ_deep_nesting.jsonl"], 2, "json",
             "nested too deeply", why="5,000 nested lists: deeper than the parser's recursion limit"),
        case("qa-huge-integer", "qa-eval-jsonl", QA, ["qa-eval-jsonl/NQ_huge_integer.jsonl"], 2, "json",
             "number too long", why="a 5,001-digit integer, over Python's 4,300-digit conversion limit"),
        case("qa-long-system-name", "qa-eval-jsonl", QA, ["qa-eval-jsonl/NQ_" + "s" * 201 + ".jsonl"], 0, "system",
             "holds at most 200", why="a file name giving a 201-character system, longer than the column"),
        case("qa-blank-file", "qa-eval-jsonl", QA, ["qa-eval-jsonl/NQ_blank.jsonl"], 1, "file", "file is empty",
             why="only blank lines"),
        case("qa-gigantic-line", "qa-eval-jsonl", QA, ["generated/NQ_gigantic.jsonl"], 2, "line", "line limit",
             generate={"file": "generated/NQ_gigantic.jsonl", "head": json.dumps(QA_GOOD[0]) + "\n"
                       + '{"question": "q", "answer": ["a"], "prediction": "', "fill": "x", "bytes": big,
                       "tail": '"}\n'},
             why="a 17 MiB line, over the line limit: one line must not take the memory of a whole file"),

        case("nq301-missing-column", "nq301", QA, ["nq301/missing-column"], 1, "Acceptable?", "missing column",
             expect_file="NQ301_human.tsv", why="the header lacks the verdict column"),
        case("nq301-truncated-row", "nq301", QA, ["nq301/truncated-row"], 4, "Acceptable?", "row too short",
             expect_file="NQ301_human.tsv", why="the last row is cut after the answer"),
        case("nq301-latin1", "nq301", QA, ["nq301/latin1"], 3, "encoding", "byte 0xf4",
             expect_file="NQ301_human.tsv", why="a latin-1 o-circumflex on line 3"),
        case("nq301-bad-verdict", "nq301", QA, ["nq301/bad-verdict"], 3, "annotator2", "expected Yes or No",
             expect_file="NQ301_human.tsv", why="'Maybe' where an annotator's Yes or No belongs"),
        case("nq301-judge-unknown-id", "nq301", QA, ["nq301/judge-unknown-id"], 3, "id", "no question '999'",
             expect_file="NQ301_gpt-4.tsv", why="a judge's row references a question the human file lacks"),
        case("nq301-long-id", "nq301", QA, ["nq301/long-id"], 3, "id", "holds at most 200",
             expect_file="NQ301_human.tsv", why="a 201-character question id, longer than the column"),
        case("nq301-nul-byte", "nq301", QA, ["nq301/nul-byte"], 2, "encoding", "NUL",
             expect_file="NQ301_human.tsv", why="a raw NUL byte in a question"),
        case("nq301-zip-traversal", "nq301", QA, ["nq301/zips/traversal.zip"], 0, "../NQ301_human.tsv",
             "leaves the folder", via="upload", why="a zip entry that climbs out of the folder"),
        case("nq301-zip-absolute", "nq301", QA, ["nq301/zips/absolute.zip"], 0, "/etc/cron.d/NQ301_human.tsv",
             "leaves the folder", via="upload", why="a zip entry with an absolute path"),
        case("nq301-zip-bomb", "nq301", QA, ["nq301/zips/bomb.zip"], 0, "file", "unpacks to more than",
             via="upload", why="two entries of 1 GiB of zeros each, bzip2-packed into under 2 KB"),
        case("nq301-zip-lying-size", "nq301", QA, ["nq301/zips/bad-crc.zip"], 0, "nq301/NQ301_human.tsv",
             "damaged", via="upload", why="an entry declares 200 bytes and inflates to 16 MiB"),

        case("item-categories-two-categories", "item-categories", RANK, ["item-categories/two-categories.tsv"], 2,
             "category", "gives the same item the category 'semantic'", setup=[SETUP_RANKING],
             why="one item given two categories"),
        case("item-categories-multiline", "item-categories", RANK, ["item-categories/multiline.jsonl"], 1,
             "category", "one line", setup=[SETUP_RANKING], why="a category that breaks the line"),
        case("item-categories-no-such-topic", "item-categories", RANK, ["item-categories/no-such-topic.tsv"], 2,
             "topic", "none of the 1 lines read is used", setup=[SETUP_RANKING],
             why="every line names a topic the campaign lacks: nothing would be used"),
        case("item-categories-two-fields", "item-categories", QA, ["item-categories/two-fields.csv"], 1, "line",
             "2 fields", setup=[SETUP_QA], why="a CSV line without its category"),
        case("judge-scores-nan", "judge-scores", RANK, ["judge-scores/nan.tsv"], 3, "score", "finite number",
             options={"judge": "ext"}, setup=[SETUP_RANKING], why="NaN where a score belongs"),
        case("judge-scores-infinite", "judge-scores", RANK, ["judge-scores/infinite.tsv"], 2, "score",
             "finite number", options={"judge": "ext"}, setup=[SETUP_RANKING], why="-inf where a score belongs"),
        case("judge-scores-long-label", "judge-scores", RANK, ["judge-scores/long-label.tsv"], 2, "label",
             "holds at most 64", options={"judge": "ext"}, setup=[SETUP_RANKING],
             why="a 72-character label, longer than the column"),
        case("judge-scores-unknown-item", "judge-scores", RANK, ["judge-scores/unknown-item.tsv"], 3, "item",
             "no item 'zzz'", options={"judge": "ext"}, setup=[SETUP_RANKING],
             why="a score for an item the campaign lacks"),
        case("judge-scores-unknown-topic", "judge-scores", IMG, ["judge-scores/unknown-topic.tsv"], 2, "topic",
             "no topic 'no-such-topic'", options={"judge": "ext"}, setup=[SETUP_TOPICS],
             why="a score for a topic the campaign lacks"),
        case("judge-scores-no-score-column", "judge-scores", QA, ["judge-scores/no-score-column.tsv"], 1, "score",
             "missing column", options={"judge": "ext"}, setup=[SETUP_QA], why="the header has no score column"),
        case("judge-scores-utf16", "judge-scores", QA, ["judge-scores/utf16.tsv"], 1, "encoding", "byte 0xff",
             options={"judge": "ext"}, setup=[SETUP_QA], why="UTF-16 with a byte order mark"),

        case("label-studio-truncated", "label-studio", RANK, ["label-studio/truncated.json"], 41, "json",
             "malformed JSON", why="the export is cut in half"),
        case("label-studio-not-a-list", "label-studio", RANK, ["label-studio/not-a-list.json"], 0, "json",
             "expected a JSON list of tasks, got dict", why="an object where the list of tasks belongs"),
        case("label-studio-items-object", "label-studio", RANK, ["label-studio/items-object.json"], 1, "data.items",
             "missing or empty list", why="an object where the list of items belongs"),
        case("label-studio-duplicate-candidate", "label-studio", RANK, ["label-studio/duplicate-candidate.json"], 1,
             "data.items[1].id", "repeated", why="one candidate id twice in a task"),
        case("label-studio-ranker-unknown-id", "label-studio", RANK, ["label-studio/ranker-unknown-id.json"], 1,
             "annotations[0].result[0].value.ranker.rank", "no candidate 'ghost'",
             why="the ranking names a candidate the task does not have"),
        case("label-studio-nan-score", "label-studio", RANK, ["label-studio/nan-score.json"], 1,
             "data.items[0].score", "finite number", options={"score_judge": "ls-score"},
             why="NaN where a score belongs"),
        case("label-studio-escaped-nul", "label-studio", RANK, ["label-studio/escaped-nul.json"], 2, "data.query",
             "NUL", why="\\u0000 inside the query text"),
        case("label-studio-latin1", "label-studio", RANK, ["label-studio/latin1.json"], 6, "encoding",
             "byte 0xe9", why="a latin-1 e-acute"),
        case("label-studio-deep-nesting", "label-studio", RANK, ["label-studio/deep-nesting.json"], 1, "json",
             "nested too deeply", why="5,000 nested lists: refused at level 501, on the line it is on"),
        case("label-studio-long-qid", "label-studio", RANK, ["label-studio/long-qid.json"], 1, "data.qid",
             "holds at most 200", why="a 201-character qid, longer than the column"),
        case("label-studio-odd-samples", "label-studio", RANK, ["label-studio/odd-samples.json"], 2, "data",
             "missing or not an object",
             why="samples '\u00b2' and a 5,000-digit number (int() crashed on both) before a task without data"),
        case("label-studio-empty", "label-studio", RANK, ["label-studio/empty.json"], 1, "file", "file is empty",
             why="zero bytes"),

        case("jsonl-ranking-qid-list", "jsonl", RANK, ["jsonl-ranking/qid-list.jsonl"], 1, "qid", "non-empty id",
             why="a list where the qid string belongs"),
        case("jsonl-ranking-candidates-object", "jsonl", RANK, ["jsonl-ranking/candidates-object.jsonl"], 1,
             "candidates", "missing or empty list", why="an object where the list of candidates belongs"),
        case("jsonl-ranking-duplicate-candidate", "jsonl", RANK, ["jsonl-ranking/duplicate-candidate.jsonl"], 2,
             "candidates[1].id", "repeated", why="one candidate id twice in a topic"),
        case("jsonl-ranking-unknown-id", "jsonl", RANK, ["jsonl-ranking/ranking-unknown-id.jsonl"], 1,
             "rankings[0].ranking", "no candidate 'ghost'", why="the ranking names a candidate the topic lacks"),
        case("jsonl-ranking-long-system", "jsonl", RANK, ["jsonl-ranking/long-system.jsonl"], 1,
             "candidates[0].system", "holds at most 200", why="a 201-character system, longer than the column"),
        case("jsonl-ranking-truncated", "jsonl", RANK, ["jsonl-ranking/truncated.jsonl"], 2, "json",
             "malformed JSON", why="the second line is cut mid-object"),
        case("jsonl-ais-question-list", "jsonl", AIS, ["jsonl-ais/question-list.jsonl"], 2, "question",
             "expected a string, got list", why="a list where the question belongs"),
        case("jsonl-ais-negative-score", "jsonl", AIS, ["jsonl-ais/nli-negative.jsonl"], 1, "nli_score",
             "probability", why="a negative probability"),
        case("jsonl-ais-rating-number", "jsonl", AIS, ["jsonl-ais/rating-number.jsonl"], 1, "human_rating",
             "expected Y or N", why="a number where Y or N belongs"),
        case("jsonl-ais-escaped-nul", "jsonl", AIS, ["jsonl-ais/escaped-nul.jsonl"], 1, "passage", "NUL",
             why="\\u0000 inside the passage"),
        case("jsonl-topics-id-list", "jsonl", IMG, ["jsonl-topics/id-list.jsonl"], 2, "id", "non-empty id",
             why="a list where the topic id belongs"),
        case("jsonl-topics-conflicting-duplicate", "jsonl", IMG, ["jsonl-topics/conflicting-duplicate.jsonl"], 3,
             "id", "already there with other text", why="one topic id twice with different text"),
        case("jsonl-topics-utf16", "jsonl", IMG, ["jsonl-topics/utf16.jsonl"], 1, "encoding", "byte 0xff",
             why="UTF-16 with a byte order mark"),

        case("jsonl-topics-long-id", "jsonl", IMG, ["jsonl-topics/long-id.jsonl"], 1, "id", "holds at most 200",
             why="a 201-character topic id, longer than the column"),

        case("trec-qrels-unknown-document", "trec-qrels", RANK, ["trec-qrels/unknown-document.qrels"], 2, "docno",
             "no document 'doc-404'", setup=[SETUP_RANKING], why="a grade for a document the campaign lacks"),
        case("trec-qrels-grade-float", "trec-qrels", RANK, ["trec-qrels/grade-float.qrels"], 1, "grade",
             "expected an integer", setup=[SETUP_RANKING], why="a fraction where an integer grade belongs"),
        case("trec-qrels-negative-grade", "trec-qrels", IMG, ["trec-qrels/negative-grade.qrels"], 2, "grade",
             "expected 0, 1 or 2", setup=[SETUP_TOPICS], why="grade -1 for an image"),
        case("trec-qrels-unknown-topic", "trec-qrels", IMG, ["trec-qrels/unknown-topic.qrels"], 2, "qid",
             "no topic 't9'", setup=[SETUP_TOPICS], why="a grade under a topic the campaign lacks"),
        case("trec-qrels-empty", "trec-qrels", IMG, ["trec-qrels/empty.qrels"], 1, "file", "file is empty",
             setup=[SETUP_TOPICS], why="zero bytes"),

        case("trec-qrels-long-image-id", "trec-qrels", IMG, ["trec-qrels/long-image-id.qrels"], 2, "docid",
             "holds at most 401", setup=[SETUP_TOPICS], why="a 400-character image id: its item id is longer"),

        case("trec-run-nan-score", "trec-run", RANK, ["trec-run/nan-score.run"], 2, "score", "finite number",
             setup=[SETUP_RANKING], why="NaN where a score belongs"),
        case("trec-run-unknown-topic", "trec-run", RANK, ["trec-run/unknown-topic.run"], 2, "qid", "no topic 'r404'",
             setup=[SETUP_RANKING], why="a run line under a topic the campaign lacks"),
        case("trec-run-truncated-row", "trec-run", RANK, ["trec-run/truncated-row.run"], 2, "line",
             "expected 6 fields", setup=[SETUP_RANKING], why="the last line is cut after the rank"),
        case("trec-run-long-tag", "trec-run", RANK, ["trec-run/long-tag.run"], 1, "tag", "holds at most 100",
             setup=[SETUP_RANKING], why="a 105-character tag naming the judge, longer than the column"),
        case("trec-run-long-image-tag", "trec-run", IMG, ["trec-run/long-image-tag.run"], 1, "tag",
             "holds at most 200", setup=[SETUP_TOPICS], why="a 205-character run name, longer than the column"),
        case("trec-run-duplicate-docid", "trec-run", IMG, ["trec-run/duplicate-docid.run"], 3, "docid",
             "appears twice", setup=[SETUP_TOPICS], why="one image twice in a topic's ranking"),
        case("trec-run-negative-rank", "trec-run", IMG, ["trec-run/negative-rank.run"], 1, "rank",
             "expected 0 or more", setup=[SETUP_TOPICS], why="rank -1"),
        case("trec-run-unknown-image-topic", "trec-run", IMG, ["trec-run/unknown-image-topic.run"], 2, "qid",
             "no topic 'zz'", setup=[SETUP_TOPICS], why="a run line under a topic the campaign lacks"),
        case("trec-run-gigantic-line", "trec-run", IMG, ["generated/gigantic.run"], 2, "line", "line limit",
             setup=[SETUP_TOPICS], generate={"file": "generated/gigantic.run", "head": "t1 Q0 img-1 1 3.0 clip\nt1 Q0 ",
                                             "fill": "i", "bytes": big, "tail": " 2 1.0 clip\n"},
             why="a 17 MiB image id, over the line limit"),

        case("attributed-qa-missing-column", "attributed-qa", AIS, ["attributed-qa/missing-column.csv"], 1,
             "passage", "missing column", why="the header lacks the passage column"),
        case("attributed-qa-truncated-quoted", "attributed-qa", AIS, ["attributed-qa/truncated-quoted.csv"], 2,
             "row", "fields; the header has 8", why="the file ends inside a quoted passage"),
        case("attributed-qa-latin1", "attributed-qa", AIS, ["attributed-qa/latin1.csv"], 2, "encoding", "byte 0xe8",
             why="a latin-1 e-grave in a passage"),
        case("attributed-qa-nan-score", "attributed-qa", AIS, ["attributed-qa/nli-nan.csv"], 2, "nli_score",
             "probability", why="nan where a probability belongs"),
        case("attributed-qa-conflicting-duplicate", "attributed-qa", AIS,
             ["attributed-qa/conflicting-duplicate.csv"], 3, "answer", "already answered this question differently",
             why="one system answers the same question twice, differently"),
        case("attributed-qa-utf16", "attributed-qa", AIS, ["attributed-qa/utf16.csv"], 1, "encoding", "byte 0xff",
             why="UTF-16 with a byte order mark"),
        case("attributed-qa-nul-byte", "attributed-qa", AIS, ["attributed-qa/nul-byte.csv"], 2, "passage", "NUL",
             why="a raw NUL byte in a passage"),
        case("attributed-qa-long-system", "attributed-qa", AIS, ["attributed-qa/long-system.csv"], 2,
             "system_name", "holds at most 200", why="a 201-character system, longer than the column"),
        case("attributed-qa-short-row", "attributed-qa", AIS, ["attributed-qa/short-row.csv"], 3, "row",
             "2 fields; the header has 8", why="a row cut after its second column"),
        case("attributed-qa-gigantic-field", "attributed-qa", AIS, ["generated/gigantic.csv"], 2, "csv",
             "field larger than field limit", generate={
                 "file": "generated/gigantic.csv", "head": AIS_HEADER + "\nsys-1,who wrote hamlet,x,,\"",
                 "fill": "p", "bytes": big, "tail": "\",Y,Y,0.5\n"},
             why="a 17 MiB passage"),

        case("atomic-topics-truncated", "atomic-topics", IMG, ["atomic-topics/truncated.json"], 8, "json",
             "malformed JSON", why="the list is cut mid-object"),
        case("atomic-topics-list-of-strings", "atomic-topics", IMG, ["atomic-topics/list-of-strings.json"], 1,
             "json", "topic 1 is not an object", why="strings where topic objects belong"),
        case("atomic-topics-title-number", "atomic-topics", IMG, ["atomic-topics/title-number.json"], 2,
             "section_title", "expected a string, got int", why="a number where the section title belongs"),
        case("atomic-topics-empty", "atomic-topics", IMG, ["atomic-topics/empty.json"], 1, "json", "malformed JSON",
             why="zero bytes"),
        case("atomic-topics-utf16", "atomic-topics", IMG, ["atomic-topics/utf16.json"], 0, "encoding", "not UTF-8",
             why="UTF-16 with a byte order mark"),
        case("atomic-topics-huge-integer", "atomic-topics", IMG, ["atomic-topics/huge-integer.json"], 0, "json",
             "number too long", why="a 5,001-digit integer id"),
        case("atomic-topics-escaped-nul", "atomic-topics", IMG, ["atomic-topics/escaped-nul.json"], 1, "page_title",
             "NUL", why="\\u0000 inside a title"),

        case("images-text-named-jpg", "images", IMG, ["images/text-as.jpg"], 0, "file", "not an image",
             why="a text file named .jpg"),
        case("images-png-named-gif", "images", IMG, ["images/png-as.gif"], 0, "name",
             "named .gif but the bytes are a PNG image", why="a PNG named .gif"),
        case("images-decompression-bomb", "images", IMG, ["images/bomb-dimensions.png"], 0, "file",
             "decompression bomb", why="a 3.6-gigapixel PNG header in a file of under 100 bytes"),
        case("images-ztxt-bomb", "images", IMG, ["images/ztxt-bomb.png"], 0, "file", "damaged",
             why="a text chunk that inflates to 32 MiB"),
        case("images-truncated", "images", IMG, ["images/truncated.png"], 0, "file", "damaged or truncated",
             why="a PNG cut inside its pixel data"),
        case("images-empty", "images", IMG, ["images/empty.png"], 0, "file", "empty file", why="zero bytes"),
        case("images-svg", "images", IMG, ["images/image.svg"], 0, "name", "not an allowed image type",
             why="an SVG with a script"),
        case("images-duplicate-ids", "images", IMG, ["images/duplicate-ids"], 0, "name", "image id 'same' also names",
             expect_file="same.png", why="two files give the same image id"),
        case("images-symlink-to-passwd", "images", IMG, ["images/passwd.png"], 0, "file", "symbolic link",
             why="a symbolic link named like an image pointing at /etc/passwd"),
        case("images-symlink-in-folder", "images", IMG, ["images/linked-folder"], 0, "file", "symbolic link",
             expect_file="passwd.jpg", why="a folder holding a symbolic link to /etc/passwd"),
        case("images-zip-traversal", "images", IMG, ["images/zips/traversal.zip"], 0, "../escape.png",
             "leaves the folder", why="a zip entry that climbs out of the folder"),
        case("images-zip-absolute", "images", IMG, ["images/zips/absolute.zip"], 0, "/tmp/absolute.png",
             "leaves the folder", why="a zip entry with an absolute path"),
        case("images-zip-symlink-entry", "images", IMG, ["images/zips/symlink-entry.zip"], 0, "file",
             "not an image", expect_file="symlink-entry.zip:passwd.png",
             why="a zip entry stored as a symbolic link to /etc/passwd (unpacked as a plain file, then refused)"),
        case("images-zip-bomb", "images", IMG, ["images/zips/bomb.zip"], 0, "file", "unpacks to more than",
             why="two entries of 1 GiB of zeros each, bzip2-packed into under 2 KB"),
        case("images-zip-lying-size", "images", IMG, ["images/zips/bad-crc.zip"], 0, "img-1.png", "damaged",
             why="an entry declares 100 bytes and inflates to 16 MiB"),
        case("images-zip-path-clash", "images", IMG, ["images/zips/path-clash.zip"], 0, "img-1.png/img-2.png",
             "cannot be unpacked", why="an entry whose folder is another entry's file"),
        case("images-not-a-zip", "images", IMG, ["images/zips/not-a.zip"], 0, "file", "not a zip archive",
             why="a text file named .zip"),
        case("images-zip-many-entries", "images", IMG, ["generated/many.zip"], 0, "file", "more than 100000 entries",
             generate={"file": "generated/many.zip", "zip_entries": 100_001},
             why="an archive of 100,001 empty entries"),

        case("trec-topics-no-tab", "trec-topics", PAS, ["trec-topics/no-tab.tsv"], 2, "line", "found no tab",
             why="a topic line whose id and query are not tab-separated"),
        case("trec-topics-empty-query", "trec-topics", PAS, ["trec-topics/empty-query.jsonl"], 2, "text",
             "has no query text", why="a JSONL topic with an empty query"),
        case("trec-topics-two-texts", "trec-topics", PAS, ["trec-topics/two-texts.tsv"], 2, "text",
             "already there with another text", why="one qid with two queries"),
        case("collection-two-texts", "collection", PAS, ["collection/two-texts.tsv"], 2, "text",
             "already has another text", setup=SETUP_PASSAGES, why="a pooled passage twice with two texts"),
        case("collection-no-text", "collection", PAS, ["collection/no-text.jsonl"], 1, "text",
             "expected the passage as a string", setup=SETUP_PASSAGES, why="a JSONL passage without its text"),
        case("collection-empty-id", "collection", PAS, ["collection/empty-id.tsv"], 2, "id", "empty id",
             setup=SETUP_PASSAGES, why="a passage line with no docid before the tab"),
        case("collection-long-passage", "collection", PAS, ["collection/long-passage.tsv"], 1, "passage",
             "at most 100,000 characters", setup=SETUP_PASSAGES,
             why="a 100,001-character passage, over the value limit (IMPORT_MAX_VALUE_CHARS)"),
        case("qa-long-value", "qa-eval-jsonl", QA, ["qa-eval-jsonl/NQ_long_value.jsonl"], 2, "prediction",
             "value of 100,001 characters", why="a 100,001-character answer, over the value limit"),
        case("label-studio-long-body", "label-studio", RANK, ["label-studio/long-body.json"], 1, "data.items[1].body",
             "at most 100,000 characters", why="a candidate's 100,001-character body, over the value limit"),
        case("gold-answers-empty-list", "gold-answers", AIS, ["gold-answers/empty-list.jsonl"], 2, "answers",
             "expected a non-empty list", why="a question with no gold answer"),
        case("gold-answers-no-question", "gold-answers", AIS, ["gold-answers/no-question.jsonl"], 1, "question",
             "expected the question as text", why="answers without their question"),
        case("judge-qrels-beyond-scale", "judge-qrels", IMG, ["judge-qrels/beyond-scale.qrels"], 2, "grade",
             "expected 0, 1 or 2", options={"judge": "vlm-x"}, setup=[SETUP_TOPICS],
             why="grade 3 on the 0/1/2 scale"),
        case("judge-qrels-unknown-topic", "judge-qrels", IMG, ["judge-qrels/unknown-topic.qrels"], 2, "qid",
             "no topic 'zz'", options={"judge": "vlm-x"}, setup=[SETUP_TOPICS],
             why="a judge's grade under a topic the campaign lacks"),
        case("judge-qrels-two-grades", "judge-qrels", PAS, ["judge-qrels/two-grades.qrels"], 2, "grade",
             "has grade 2 on line 1", options={"judge": "llm-x"}, setup=SETUP_PASSAGES,
             why="one passage graded twice, differently, in one file"),
    ]


def build() -> None:
    for relative, data in files().items():
        path = HERE / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    for relative, data in SYMLINK_NEIGHBOURS.items():
        (HERE / relative).parent.mkdir(parents=True, exist_ok=True)
        (HERE / relative).write_bytes(data)
    for relative, target in SYMLINKS.items():
        path = HERE / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink() or path.exists():
            path.unlink()
        os.symlink(target, path)
    manifest = {"cases": cases()}
    (HERE / "cases.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    build()
