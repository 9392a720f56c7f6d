"""A merge holds one shard's records at a time, not the night's, and writes the merged results as it goes."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from tests.support.night import MODE, results_folder
from tipc.cluster.merge import merge
from tipc.errors import ResultsError

EACH = 80  # records per shard


def night(root: Path, shards: int) -> Path:
    mode_dir = root / "zoo" / MODE
    for k in range(1, shards + 1):
        part = mode_dir / "shards" / "g1" / f"shard{k}"
        results_folder(part, EACH, f"{k}/{shards}", (k - 1) * EACH, log_bytes=256)
        info = json.loads((part / "run.json").read_text())
        (part / "run.json").write_text(json.dumps({**info, "run_group": "g1"}))
        (part / "results_python.log").write_text("Run successfully with command - zoo!\n")
    return mode_dir


def peak_of_merge(mode_dir: Path) -> int:
    tracemalloc.start()
    try:
        merged = merge([mode_dir])
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        assert merged.records == EACH * len(list((mode_dir / "shards" / "g1").iterdir()))


def test_merge_memory_is_a_shards_not_the_nights(tmp_path):
    # A first merge pays for what the process loads once (modules, caches), whichever test ran before this one.
    peak_of_merge(night(tmp_path / "one", 1))
    small = peak_of_merge(night(tmp_path / "three", 3))
    large = peak_of_merge(night(tmp_path / "twelve", 12))
    assert large < small * 1.5, (small, large)  # four times the records, not four times the memory


def test_merged_records_are_every_shards_in_shard_order(tmp_path):
    mode_dir = night(tmp_path, 3)
    merge([mode_dir])
    shards = [json.loads(line)["shard"] for line in (mode_dir / "results.jsonl").read_text().splitlines()]
    assert shards == [f"{k}/3" for k in (1, 2, 3) for _ in range(EACH)]


def test_a_bad_last_shard_leaves_no_half_merged_results(tmp_path):
    mode_dir = night(tmp_path, 3)
    with (mode_dir / "shards" / "g1" / "shard3" / "results.jsonl").open("a") as out:
        out.write("not a record\n")
    with pytest.raises(ResultsError, match=r"shard3/results\.jsonl"):
        merge([mode_dir])
    assert not (mode_dir / "results.jsonl").exists()
    assert not list(mode_dir.glob(".results.jsonl.*"))
