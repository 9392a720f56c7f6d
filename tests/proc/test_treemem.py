"""A stage's memory is its whole process tree's: the summing on fake /proc files, then a real tree."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tipc.proc.executor import Ending, ExecRequest, ProcessExecutor
from tipc.proc.treemem import TreePeak, process_kb, pss_kb, rss_kb, tree_kb

ROLLUP = b"55d0a0000000-7ffd0000 ---p 00000000 00:00 0  [rollup]\nRss:  9000 kB\nPss:  7000 kB\nShared_Clean: 4 kB\n"


@pytest.mark.parametrize(
    ("files", "pids", "expected"),
    [
        ({"/proc/1/smaps_rollup": ROLLUP}, [1], 7000),
        ({"/proc/1/statm": b"5000 2500 100 1 0 300 0\n"}, [1], 2500 * 4),
        (
            {"/proc/1/smaps_rollup": ROLLUP, "/proc/2/statm": b"10 20 0 0 0 0 0", "/proc/3/smaps_rollup": b"Pss: 5 kB"},
            [1, 2, 3],
            7000 + 80 + 5,
        ),
        ({"/proc/1/smaps_rollup": ROLLUP}, [1, 1], 7000),
        ({"/proc/1/smaps_rollup": ROLLUP}, [1, 99], 7000),
        ({"/proc/1/smaps_rollup": b"", "/proc/1/statm": b"1 2"}, [1], 8),
        ({"/proc/1/smaps_rollup": b"Rss: 10 kB\n", "/proc/1/statm": b"1 3"}, [1], 12),
        ({}, [1, 2], None),
        ({"/proc/1/statm": b"garbage"}, [1], None),
    ],
    ids=[
        "pss",
        "rss-where-smaps-unreadable",
        "sum-over-the-tree",
        "a-pid-counted-once",
        "a-process-gone-between-scan-and-read",
        "empty-rollup-falls-back",
        "rollup-without-pss-falls-back",
        "nothing-readable",
        "statm-that-does-not-read",
    ],
)
def test_tree_memory_sums_each_live_process(files, pids, expected):
    assert tree_kb(pids, files.get, page_kb=4) == expected


@pytest.mark.parametrize(
    ("text", "pss"),
    [(b"Pss: 12 kB\n", 12), (b"Rss: 1 kB\nPss:   0 kB\n", 0), (b"Pss:\n", None), (b"", None)],
    ids=["one-line", "zero", "no-number", "empty"],
)
def test_pss_line(text, pss):
    assert pss_kb(text) == pss


def test_rss_and_process_readers_agree_on_this_process():
    me = os.getpid()
    assert rss_kb(Path(f"/proc/{me}/statm").read_bytes()) > 0
    assert (process_kb(me) or 0) > 0


def test_samples_are_paced_and_the_peak_kept():
    sizes = iter([100, 900, 300])
    clock = iter([0.0, 0.1, 0.6, 0.7, 1.2]).__next__  # the first reading is the start
    listed = []
    peak = TreePeak(every=0.5, clock=clock, measure=lambda pids: next(sizes))
    for _ in range(4):
        peak.sample(lambda: listed.append(1) or [1])
    assert peak.peak_kb == 900  # 0.1 s and 0.7 s were too soon: 100, then 900
    assert len(listed) == 2  # and the tree was not even listed for them


MB50 = 50 << 20
# A parent that starts two children; each writes 50 MB (resident, not lazily zeroed pages) and
# holds it for two seconds: the stage's memory is the three together.
PARENT = f"""
import subprocess, sys
hold = "import time; b = b'\\\\x01' * {MB50}; time.sleep(2.0)"
children = [subprocess.Popen([sys.executable, "-c", hold]) for _ in range(2)]
for c in children:
    c.wait()
"""


def test_a_stages_memory_is_its_trees_and_the_root_figure_is_kept_beside_it(tmp_path):
    req = ExecRequest(argv=(sys.executable, "-c", PARENT), cwd=str(tmp_path), env={}, log=tmp_path / "stage.log")
    result = ProcessExecutor(grace=0.2).run(req)
    assert result.ending is Ending.EXITED and result.returncode == 0
    assert result.tree_peak_kb is not None and result.peak_rss_kb is not None
    children_kb = 2 * MB50 // 1024
    assert result.tree_peak_kb >= children_kb  # both children's 50 MB at once, plus the parent
    assert result.stage_peak_kb == max(result.tree_peak_kb, result.peak_rss_kb)  # wait4's kept beside it
