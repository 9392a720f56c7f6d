from __future__ import annotations

from pathlib import Path

import pytest

from tipc.report.logtail import failing_worker, file_link, log_tail, offset_of, read_tail, worker_logs
from tipc.results.records import StageRecord, Status


@pytest.mark.parametrize(
    "content, lines, size, tail, cut",
    [
        ("a\nb\nc\n", 80, 1024, "a\nb\nc", False),
        ("".join(f"line {i}\n" for i in range(100)), 3, 1024, "line 97\nline 98\nline 99", True),
        ("x" * 50 + "\nlast line\n", 80, 20, "last line", True),
        ("\x1b[33mRun failed\x1b[0m\n", 80, 1024, "Run failed", False),
        ("caf\xe9\n".encode("latin-1"), 80, 1024, "caf\ufffd", False),
    ],
    ids=["whole-file", "line-cap", "byte-cap-drops-fragment", "ansi-stripped", "bad-utf8"],
)
def test_read_tail(tmp_path, content, lines, size, tail, cut):
    p = tmp_path / "x.log"
    (p.write_bytes if isinstance(content, bytes) else p.write_text)(content)
    assert read_tail(p, lines, size) == (tail, cut)


def test_read_tail_reads_only_the_end_of_a_big_file(tmp_path):
    p = tmp_path / "big.log"
    p.write_text("".join(f"step {i} loss 0.1 ips 100 samples/s\n" for i in range(100_000)))
    text, cut = read_tail(p)
    assert cut and text.endswith("step 99999 loss 0.1 ips 100 samples/s")
    assert len(text.splitlines()) == 80 and len(text.encode()) <= 16 * 1024


@pytest.mark.parametrize(
    "target, report_dir, href",
    [
        ("/data/out/m/train.log", "/data/reports/m/ts", "../../../out/m/train.log"),
        ("/data/out/a b.log", "/data/r", "../out/a%20b.log"),
        ("/var/log/x.log", "/home/u/reports", "file:///var/log/x.log"),
    ],
    ids=["relative", "quoted", "no-common-tree"],
)
def test_file_link(target, report_dir, href):
    assert file_link(Path(target), Path(report_dir)) == href


def test_log_tail_missing_file_says_why(tmp_path):
    tail = log_tail(str(tmp_path / "gone.log"), tmp_path)
    assert tail.text == "" and "cannot read the log" in tail.missing and tail.link.href == "gone.log"
    assert "no log" in log_tail("", tmp_path).missing


def _train(tmp_path: Path, argv=(), metrics=None) -> StageRecord:
    return StageRecord(
        id="c::train",
        kind="train",
        chain="c",
        status=Status.FAILED,
        argv=argv,
        cwd=str(tmp_path),
        log=str(tmp_path / "S" / "train.log"),
        metrics=metrics or {},
    )


@pytest.mark.parametrize("where", ["argv-eq", "argv-sep", "metrics", "beside-log"])
def test_worker_logs_are_found_by_any_clue(tmp_path, where):
    d = tmp_path / "S" / "norm_train_launch_log" if where == "beside-log" else tmp_path / "logs"
    d.mkdir(parents=True)
    for n in (10, 2, 0):
        (d / f"workerlog.{n}").write_text(f"rank {n}\n")
    (d / "endpoints.log").write_text("")
    argv = {
        "argv-eq": ("py", "-m", "paddle.distributed.launch", "--log_dir=logs"),
        "argv-sep": ("py", "-m", "paddle.distributed.launch", "--log_dir", "logs"),
    }.get(where, ())
    metrics = {"launch_log_dir": str(d)} if where == "metrics" else None
    logs = worker_logs(_train(tmp_path, argv, metrics))
    assert [p.name for p in logs] == ["workerlog.0", "workerlog.2", "workerlog.10"]


def test_failing_worker_prefers_a_traceback(tmp_path):
    for n, text in enumerate(["ok\n", "Error: peer lost\n", "Traceback (most recent call last):\nboom\n"]):
        (tmp_path / f"workerlog.{n}").write_text(text)
    logs = tuple(sorted(tmp_path.iterdir()))
    assert failing_worker(logs).name == "workerlog.2"
    assert failing_worker(logs[:1]) is None


EARLIER_PART = "run 1 line\nTraceback (most recent call last):\nold boom\n"


@pytest.mark.parametrize(
    "since, size, tail, cut",
    [
        (0, 1024, "run 1 line\nTraceback (most recent call last):\nold boom\nrun 2 line a\nrun 2 line b", False),
        (len(EARLIER_PART), 1024, "run 2 line a\nrun 2 line b", False),
        (len(EARLIER_PART), 14, "run 2 line b", True),
        (len(EARLIER_PART) + 6, 1024, "line a\nrun 2 line b", False),
        (10_000, 1024, "run 1 line\nTraceback (most recent call last):\nold boom\nrun 2 line a\nrun 2 line b", False),
    ],
    ids=["whole-file", "own-part-only", "own-part-byte-cap", "offset-mid-line-kept", "file-replaced-read-all"],
)
def test_read_tail_reads_only_after_the_offset(tmp_path, since, size, tail, cut):
    p = tmp_path / "workerlog.0"
    p.write_text(EARLIER_PART + "run 2 line a\nrun 2 line b\n")
    assert read_tail(p, 80, size, since) == (tail, cut)


def test_log_tail_and_failing_worker_skip_what_earlier_runs_appended(tmp_path):
    old, new = tmp_path / "workerlog.0", tmp_path / "workerlog.1"
    old.write_text(EARLIER_PART + "waiting for peers\n")
    new.write_text("Error: peer lost\n")
    logs = (old, new)
    assert failing_worker(logs) == old  # the old traceback is the strongest marker in the whole file
    assert failing_worker(logs, {old: len(EARLIER_PART)}) == new
    assert log_tail(str(old), tmp_path, since=len(EARLIER_PART)).text == "waiting for peers"


@pytest.mark.parametrize(
    "logged, asked, offset",
    [
        ("{d}/S/train.log", "{d}/S/train.log", 7),
        ("{d}/S/./train.log", "{d}/S/train.log", 7),
        ("{d}/S_launch_log/workerlog.0", "{d}/S/../S_launch_log/workerlog.0", 7),
        ("{d}/S/train.log", "{d}/S/other.log", 0),
    ],
    ids=["same", "dot-segment", "dotdot-segment", "not-recorded"],
)
def test_offset_of_matches_paths_however_spelt(tmp_path, logged, asked, offset):
    rec = StageRecord(
        id="c::train", kind="train", chain="c", status=Status.FAILED, log_offsets={logged.format(d=tmp_path): 7}
    )
    assert offset_of(rec, asked.format(d=tmp_path)) == offset
