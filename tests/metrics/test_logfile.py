"""Figures from log files without reading them whole: streamed train steps, a tail window, chunked search."""

from __future__ import annotations

import os
import tracemalloc

import pytest

from tests.support.hang import without_hanging
from tipc.metrics import extract
from tipc.metrics.logfile import contains, extract_file, log_lines, tail_window

STEP = (
    "[2026/11/30 02:34:48] ppocr INFO: epoch: [1/1], global_step: {n}, lr: 0.001, loss: {loss}, ips: {ips} samples/s\n"
)


def steps(count: int, first: int = 1) -> str:
    return "".join(STEP.format(n=n, loss=10.0 / n, ips=100.0 + n) for n in range(first, first + count))


def test_train_figures_streamed_equal_the_whole_text_and_start_at_the_offset(tmp_path):
    log = tmp_path / "train.log"
    earlier, this_run = steps(3), steps(4, first=10)
    log.write_text(earlier + this_run)
    assert extract_file("train", log) == extract("train", earlier + this_run)
    assert extract_file("train", log, since=len(earlier.encode())) == extract("train", this_run)
    assert extract_file("train", log, since=10**9) == extract("train", earlier + this_run)  # replaced file


def test_the_last_block_is_found_in_a_window_at_the_end(tmp_path):
    log = tmp_path / "eval.log"
    block = "[2026/11/30 02:34:48] ppocr INFO: metric eval ***************\n[2026/11/30 02:34:48] ppocr INFO: acc:0.5\n"
    log.write_text("noise line\n" * 50_000 + block)
    assert extract_file("eval", log) == {"acc": 0.5}
    assert tail_window(log, size=100).startswith("[2026")  # cut at a line start


@pytest.mark.parametrize(
    ("text", "since", "found"),
    [
        ("x" * 70_000 + "Traceback (most recent call last)\n", 0, True),
        ("x" * (65_536 - 10) + "Traceback (most recent call last)", 0, True),  # across a chunk border
        ("Traceback (most recent call last)\nlater\n", 5, False),  # before the stage's part
        ("clean\n" * 10, 0, False),
    ],
    ids=["far-in", "across-chunks", "before-offset", "absent"],
)
def test_contains_reads_in_chunks(tmp_path, text, since, found):
    log = tmp_path / "infer.log"
    log.write_text(text)
    assert contains(log, "Traceback (most recent call last)", since) is found


def test_log_lines_are_decoded_leniently(tmp_path):
    log = tmp_path / "x.log"
    log.write_bytes(b"ok\n\xff\xfe bad bytes\n")
    assert list(log_lines(log)) == ["ok\n", "\ufffd\ufffd bad bytes\n"]


@pytest.mark.parametrize(
    ("since", "until", "lines"),
    [
        (0, None, ["a\n", "bb\n", "ccc\n"]),
        (2, 5, ["bb\n"]),
        (2, 4, ["bb"]),  # a line cut by the next writer's start
        (5, 9, ["ccc\n"]),
        (20, None, ["a\n", "bb\n", "ccc\n"]),  # shorter than since: replaced, all of it is new
        (5, 2, ["ccc\n"]),  # an end before the start is no end
    ],
    ids=["whole", "own-part", "cut-line", "last", "replaced", "no-end"],
)
def test_log_lines_read_a_stages_part_between_two_offsets(tmp_path, since, until, lines):
    log = tmp_path / "train.log"
    log.write_bytes(b"a\nbb\nccc\n")
    assert list(log_lines(log, since, until)) == lines


def test_a_tail_window_ends_where_the_next_writer_began(tmp_path):
    log = tmp_path / "eval.log"
    log.write_bytes(b"mine: 1\nnext: 2\n")
    assert tail_window(log, 0, until=8) == "mine: 1\n"


@pytest.mark.parametrize("kind", ["train", "eval"])
def test_a_huge_line_without_newline_costs_bounded_memory(tmp_path, kind):
    """64 MiB of output with no newline (a 1 GB one cost 3 GB): read in 1 MiB pieces, never whole."""
    log = tmp_path / "train.log"
    with open(log, "wb") as f:
        f.truncate(64 << 20)  # sparse: no disk
    tracemalloc.start()
    try:
        extract_file(kind, log)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20


@pytest.mark.parametrize("target", ["/dev/zero", "fifo"])
def test_a_log_replaced_by_a_link_to_a_device_or_fifo_is_refused_at_once(tmp_path, target):
    """A stage that replaces its own log with a link to /dev/zero hung the harness at 100 % CPU."""
    log = tmp_path / "train.log"
    if target == "fifo":
        os.mkfifo(tmp_path / "pipe")
        target = str(tmp_path / "pipe")
    log.symlink_to(target)
    for read in (lambda: extract_file("train", log), lambda: extract_file("eval", log), lambda: contains(log, "x")):
        assert isinstance(without_hanging(read), OSError)
