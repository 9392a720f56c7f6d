"""Figures from log files without reading them whole: streamed train steps, a tail window, chunked search."""

from __future__ import annotations

import os
import tracemalloc

import pytest

from tests.support.hang import without_hanging
from tipc.metrics import extract
from tipc.metrics.logfile import CLIPPED, contains, extract_file, log_lines, log_tail, tail_window

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
        ("To do\n" * 40 + "Traceback (most recent call last)\n", 0, True),  # its first letter often before it
        ("To do\n" * 40, 0, False),
        ("T" * ((1 << 20) - 10) + "Traceback (most recent call last)", 0, True),  # false starts, then a border
    ],
    ids=["far-in", "across-chunks", "before-offset", "absent", "after-false-starts", "only-false-starts", "many-T"],
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
    reads = (lambda: extract_file("train", log), lambda: extract_file("eval", log), lambda: contains(log, "x"),
             lambda: log_tail(log, 4096))  # fmt: skip
    for read in reads:
        assert isinstance(without_hanging(read), OSError)


EARLIER_PART = "run 1 line\nTraceback (most recent call last):\nold boom\n"
TENSOR_LINE = "ValueError: (InvalidArgument) got Tensor(shape=[9999]," + " 0.12345678," * 9000 + " CUDA error: 700 ..."


@pytest.mark.parametrize(
    ("content", "lines", "size", "since", "tail", "cut"),
    [
        ("a\nb\nc\n", 80, 1024, 0, "a\nb\nc", False),
        ("".join(f"line {i}\n" for i in range(100)), 3, 1024, 0, "line 97\nline 98\nline 99", True),
        ("x" * 50 + "\nlast line\n", 80, 20, 0, "last line", True),
        ("\x1b[33mRun failed\x1b[0m\n", 80, 1024, 0, "Run failed", False),
        ("caf\xe9\n".encode("latin-1"), 80, 1024, 0, "caf\ufffd", False),
        ("x" * 100 + "the end\n", 80, 20, 0, CLIPPED + "xxxxxxxxxxxxthe end", True),
        ("x" * 100 + "the end", 80, 20, 0, CLIPPED + "xxxxxxxxxxxxxthe end", True),
        (
            EARLIER_PART + "run 2 line a\nrun 2 line b\n",
            80,
            1024,
            0,
            EARLIER_PART + "run 2 line a\nrun 2 line b",
            False,
        ),
        (
            EARLIER_PART + "run 2 line a\nrun 2 line b\n",
            80,
            1024,
            len(EARLIER_PART),
            "run 2 line a\nrun 2 line b",
            False,
        ),
        (EARLIER_PART + "run 2 line a\nrun 2 line b\n", 80, 14, len(EARLIER_PART), "run 2 line b", True),
        (EARLIER_PART + "run 2 line a\nrun 2 line b\n", 80, 1024, len(EARLIER_PART) + 6, "line a\nrun 2 line b", False),
        (EARLIER_PART + "run 2 line a\n", 80, 1024, 10_000, EARLIER_PART + "run 2 line a", False),
    ],
    ids=[
        "whole-file",
        "line-cap",
        "byte-cap-drops-fragment",
        "ansi-stripped",
        "bad-utf8",
        "last-line-over-the-window",
        "last-line-over-the-window-without-newline",
        "whole-appended-file",
        "own-part-only",
        "own-part-byte-cap",
        "offset-mid-line-kept",
        "file-replaced-read-all",
    ],
)
def test_a_logs_tail(tmp_path, content, lines, size, since, tail, cut):
    p = tmp_path / "x.log"
    (p.write_bytes if isinstance(content, bytes) else p.write_text)(content)
    assert log_tail(p, size, since, lines) == (tail.strip("\n"), cut)


def test_a_tail_reads_only_the_end_of_a_big_file(tmp_path):
    p = tmp_path / "big.log"
    p.write_text("".join(f"step {i} loss 0.1 ips 100 samples/s\n" for i in range(100_000)))
    text, cut = log_tail(p, 16 * 1024, lines=80)
    assert cut and text.endswith("step 99999 loss 0.1 ips 100 samples/s")
    assert len(text.splitlines()) == 80 and len(text.encode()) <= 16 * 1024


def test_a_last_line_over_64_kib_shows_its_end_clipped(tmp_path):
    """A Paddle error that prints a whole tensor on its last line: its end is shown, marked as cut."""
    p = tmp_path / "train.log"
    p.write_text("step 1\n" + TENSOR_LINE + "\n")
    text, cut = log_tail(p, 64 * 1024, lines=20)
    assert cut and text.startswith(CLIPPED) and text.endswith(" CUDA error: 700 ...")
    assert len(text.encode()) <= 64 * 1024 + len(CLIPPED.encode())
