"""Deep JSON costs a reader a bounded amount of memory: every JSON reader refuses nesting deeper than
MAX_JSON_DEPTH from the parser's events, before it builds anything (tasktypes.importers.common).

Before, ijson built a nested element whole (its event prefixes growing with the depth) and checked it after:
10 million nested `[` (20 MB) cost a worker 16-19 GB. Here each reader meets a small deep file under tracemalloc
and must refuse it as `file:line: json: ... nested too deeply` with a peak far below what building it costs.
"""

import tracemalloc

import pytest

from tasktypes.importers.common import (
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
