from __future__ import annotations

from pathlib import Path

import pytest

from tipc.report.logtail import file_link, log_tail


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
