from __future__ import annotations

import pytest

from tipc.report.compare import RunSummary, StageSummary, compare, previous_in_history, summarize
from tipc.results.records import Status, StageRecord


def outcome(sid: str, status: str, node: int = 0, **figures: float) -> StageSummary:
    return StageSummary(sid, node, status, "", tuple(sorted(figures.items())))


def run(*stages: StageSummary) -> RunSummary:
    return RunSummary("m", "mode", "ts", stages)


@pytest.mark.parametrize("before, after, new, fixed, still", [
    ("passed", "failed", ["s"], [], []),
    (None, "timeout", ["s"], [], []),
    ("blocked", "failed", ["s"], [], []),
    ("failed", "passed", [], ["s"], []),
    ("hung", "failed", [], [], ["s"]),
    ("failed", "blocked", [], [], []),
    ("passed", "passed", [], [], []),
], ids=["regressed", "new-stage-failing", "was-blocked", "fixed", "still", "now-blocked", "steady"])
def test_status_changes(before, after, new, fixed, still):
    old = run(outcome("s", before)) if before else run()
    c = compare(old, run(outcome("s", after)), {("s", 0): "stage-s"}, against="x")
    assert ([x.label for x in c.new_failures], [x.label for x in c.fixed], [x.label for x in c.still_failing]) == (
        new, fixed, still)
    for change in c.new_failures + c.fixed + c.still_failing:
        assert change.anchor == "stage-s" and change.before == (before or "")


@pytest.mark.parametrize("figure, before, after, moved, better", [
    ("inference_ms", 100.0, 150.0, True, False),
    ("inference_ms", 100.0, 85.0, True, True),
    ("inference_ms", 100.0, 109.0, False, None),
    ("ips", 100.0, 120.0, True, True),
    ("throughput", 16.0, 12.0, True, False),
], ids=["slower", "faster", "within-threshold", "more-ips", "less-throughput"])
def test_figure_moves_beyond_threshold(figure, before, after, moved, better):
    c = compare(run(outcome("s", "passed", **{figure: before})), run(outcome("s", "passed", **{figure: after})),
                {}, against="x", threshold=0.10)
    assert bool(c.moves) == moved
    if moved:
        (m,) = c.moves
        assert (m.before, m.after, m.better) == (before, after, better)
        assert m.change == pytest.approx((after - before) / before)


def test_nodes_are_compared_separately():
    old = run(outcome("s", "passed", 0), outcome("s", "failed", 1))
    new = run(outcome("s", "failed", 0), outcome("s", "failed", 1))
    c = compare(old, new, {}, against="x")
    assert [x.label for x in c.new_failures] == ["s (node 0)"]
    assert [x.label for x in c.still_failing] == ["s (node 1)"]


def test_summary_round_trips_through_json():
    rec = StageRecord(id="c::infer[x]", kind="infer", chain="c", status=Status.PASSED,
                      metrics={"inference_ms": 50.0, "batch_size": 6, "cpu_rss_mb": 400})
    s = summarize("m", "mode", "20260101T000000Z", [rec])
    assert dict(s.stages[0].figures) == {"inference_ms": 50.0, "throughput": 120.0, "cpu_rss_mb": 400.0}
    assert RunSummary.from_json(s.to_json(), "x") == s


def test_previous_in_history_takes_the_newest_older_report(tmp_path):
    for name in ("20260101T000000Z", "20260102T000000Z", "20260104T000000Z"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "summary.json").write_text(run().to_json())
    (tmp_path / "20260102T120000Z").mkdir()  # no summary: an interrupted write
    assert previous_in_history(tmp_path, "20260103T000000Z").name == "20260102T000000Z"
    assert previous_in_history(tmp_path, "20260101T000000Z") is None
