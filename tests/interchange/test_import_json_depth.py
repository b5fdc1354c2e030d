"""Deep JSON costs a reader a bounded amount of memory: every JSON reader refuses nesting deeper than
MAX_JSON_DEPTH from the parser's events, before it builds anything (interchange.importers.common).

Before, ijson built a nested element whole (its event prefixes growing with the depth) and checked it after:
10 million nested `[` (20 MB) cost a worker 16-19 GB. Here each reader meets a small deep file under tracemalloc
and must refuse it as `file:line: json: ... nested too deeply` with a peak far below what building it costs.
"""

import tracemalloc

import pytest

from interchange.importers import common
from interchange.importers.common import (
    MAX_JSON_DEPTH,
    ImportDataError,
    json_array_read,
    json_top_entries,
    json_values_read,
    jsonl_read,
)

DEPTH = 20_000  # 40 KB of brackets: building it cost the old readers 1 GB
PEAK_LIMIT = 16 * 1024 * 1024  # bytes the refusal may allocate: a chunk's events, nothing that grows with the depth


def _deep_files(tmp_path):
    closed = "[" * DEPTH + "]" * DEPTH
    return {
        # A Label Studio export whose second task nests, then the unclosed stream of the issue.
        "array": (json_array_read, {"what": "tasks"}, '[{"data": {}},\n' + closed + "]"),
        "array-unclosed": (json_array_read, {"what": "tasks"}, "[\n" + "[" * DEPTH),
        "values": (json_values_read, {"prefix": "topics.item"}, '{"topics": [\n' + closed + "]}"),
        "pairs": (json_values_read, {"prefix": "", "pairs": True}, '{"t1":\n' + closed + "}"),
        "top-entries": (json_top_entries, {}, '{"t1":\n' + closed + "}"),
        "jsonl": (jsonl_read, {}, '{"question": "q"}\n{"question": ' + closed + "}\n"),
    }


@pytest.mark.parametrize("reader", ["array", "array-unclosed", "values", "pairs", "top-entries", "jsonl"])
def test_deep_json_is_refused_before_it_is_built(reader, tmp_path, settings):
    read, options, text = _deep_files(tmp_path)[reader]
    path = tmp_path / f"{reader}.json"
    path.write_text(text, encoding="utf-8")
    tracemalloc.start()
    try:
        with pytest.raises(ImportDataError) as info:
            for _ in read(path, **options):
                pass
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < PEAK_LIMIT, f"refusing {DEPTH:,} levels allocated {peak:,} bytes"
    assert str(info.value) == (f"{path}:2: json: JSON nested too deeply: more than {MAX_JSON_DEPTH} levels of "
                               f"lists and objects")


def test_nesting_up_to_the_limit_is_read(tmp_path):
    path = tmp_path / "tasks.json"
    path.write_text("[" + "[" * (MAX_JSON_DEPTH - 1) + "]" * (MAX_JSON_DEPTH - 1) + "]", encoding="utf-8")
    (position, value), = json_array_read(path, what="tasks")
    depth = 0
    while isinstance(value, list) and value:
        value, depth = value[0], depth + 1
    assert (position, depth) == (1, MAX_JSON_DEPTH - 2)


@pytest.mark.parametrize("reader", ["array", "values", "pairs"])
def test_a_record_larger_than_a_line_may_be_is_refused_before_it_is_built(reader, tmp_path, monkeypatch):
    """One record of 3 MB (a list of 3,000 texts of 1,000 characters) under a 1 MB record limit (MAX_LINE_BYTES,
    what a JSONL line may hold): refused while it is read, the records before it read; the old readers built it
    whole."""
    monkeypatch.setattr(common, "MAX_LINE_BYTES", 1024 * 1024)
    big = "[" + ",".join(['"' + "x" * 1000 + '"'] * 3000) + "]"
    read, options, text = {
        "array": (json_array_read, {"what": "tasks"}, '[{"data": {}},\n' + big + "]"),
        "values": (json_values_read, {"prefix": "topics.item"}, '{"topics": [{"data": {}},\n' + big + "]}"),
        "pairs": (json_values_read, {"prefix": "", "pairs": True}, '{"t0": {"data": {}},\n"t1": ' + big + "}"),
    }[reader]
    path = tmp_path / f"{reader}.json"
    path.write_text(text, encoding="utf-8")
    seen = []
    tracemalloc.start()
    try:
        with pytest.raises(ImportDataError) as info:
            for position, _value in read(path, **options):
                seen.append(position)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert seen == [1]
    assert str(info.value) == (f"{path}:2: json: one record is larger than 1,048,576 bytes, the most a record (or a "
                               f"line) may hold")
    assert peak < PEAK_LIMIT, f"refusing a 3 MB record allocated {peak:,} bytes"


BROAD = "[" + ",".join(["[0]"] * common.MAX_JSON_VALUES) + "]"  # 800 kB, 400,000 values, within the depth limit


@pytest.mark.parametrize("reader", ["array", "values", "jsonl"])
def test_a_record_of_too_many_values_is_refused_before_it_is_built(reader, tmp_path):
    # Found: a 15 MB JSONL line of tiny lists within the depth limit cost a worker 600-800 MB to build.
    read, options, text = {
        "array": (json_array_read, {"what": "tasks"}, '[{"data": {}},\n' + BROAD + "]"),
        "values": (json_values_read, {"prefix": "topics.item"}, '{"topics": [\n' + BROAD + "]}"),
        "jsonl": (jsonl_read, {}, '{"question": "q"}\n{"question": ' + BROAD + "}\n"),
    }[reader]
    path = tmp_path / "broad.json"
    path.write_text(text)
    tracemalloc.start()
    try:
        with pytest.raises(ImportDataError, match=r"broad.json:2: json: one record holds more than 200,000 values"):
            for _ in read(path, **options):
                pass
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # Building it costs more than 30 MB of Python objects; the refusal a chunk's events and the line's text.
    assert peak < PEAK_LIMIT, peak


def test_a_broad_record_under_the_limit_is_read(tmp_path):
    path = tmp_path / "wide.jsonl"
    path.write_text('{"candidates": [' + ",".join(["1"] * 150_000) + "]}\n")
    assert len(next(jsonl_read(path))[1]["candidates"]) == 150_000
