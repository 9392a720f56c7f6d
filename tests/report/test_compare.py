from __future__ import annotations

import json
import os

import pytest

from tipc.errors import ResultsError
from tipc.history.legacy import read_summaries, read_summary
from tipc.history.summaries import RunSummary, StageSummary, previous_run
from tipc.report.compare import compare, summarize
from tipc.results.records import StageRecord, Status


def outcome(sid: str, status: str, node: int = 0, **figures: float) -> StageSummary:
    return StageSummary(sid, node, status, "", tuple(sorted(figures.items())))


def run(*stages: StageSummary) -> RunSummary:
    return RunSummary("m", "mode", "ts", stages)


@pytest.mark.parametrize(
    "before, after, new, fixed, still",
    [
        ("passed", "failed", ["s"], [], []),
        (None, "timeout", ["s"], [], []),
        ("blocked", "failed", ["s"], [], []),
        ("failed", "passed", [], ["s"], []),
        ("hung", "failed", [], [], ["s"]),
        ("failed", "blocked", [], [], []),
        ("passed", "passed", [], [], []),
    ],
    ids=["regressed", "new-stage-failing", "was-blocked", "fixed", "still", "now-blocked", "steady"],
)
def test_status_changes(before, after, new, fixed, still):
    old = run(outcome("s", before)) if before else run()
    c = compare(old, run(outcome("s", after)), {("s", 0): "stage-s"}, against="x")
    assert ([x.label for x in c.new_failures], [x.label for x in c.fixed], [x.label for x in c.still_failing]) == (
        new,
        fixed,
        still,
    )
    for change in c.new_failures + c.fixed + c.still_failing:
        assert change.anchor == "stage-s" and change.before == (before or "")


@pytest.mark.parametrize(
    "figure, before, after, moved, better",
    [
        ("inference_ms", 100.0, 150.0, True, False),
        ("inference_ms", 100.0, 85.0, True, True),
        ("inference_ms", 100.0, 109.0, False, None),
        ("ips", 100.0, 120.0, True, True),
        ("throughput", 16.0, 12.0, True, False),
    ],
    ids=["slower", "faster", "within-threshold", "more-ips", "less-throughput"],
)
def test_figure_moves_beyond_threshold(figure, before, after, moved, better):
    c = compare(
        run(outcome("s", "passed", **{figure: before})),
        run(outcome("s", "passed", **{figure: after})),
        {},
        against="x",
        threshold=0.10,
    )
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
    rec = StageRecord(
        id="c::infer[x]",
        kind="infer",
        chain="c",
        status=Status.PASSED,
        metrics={"inference_ms": 50.0, "batch_size": 6, "cpu_rss_mb": 400},
    )
    s = summarize("m", "mode", "20260101T000000Z", [rec])
    assert dict(s.stages[0].figures) == {"inference_ms": 50.0, "throughput": 120.0, "cpu_rss_mb": 400.0}
    assert RunSummary.from_json(s.to_json(), "x") == s


def test_summary_marks_carried_stages_and_counts_only_this_runs():
    recs = [
        StageRecord(id="c::train", kind="train", chain="c", status=Status.PASSED, run_id="R2"),
        StageRecord(id="c::eval", kind="eval", chain="c", status=Status.FAILED, run_id="R1"),
    ]
    s = summarize("m", "mode", "ts", recs, run_id="R2", config="a.txt", run_ids={(0, ""): "R2"})
    assert [st.carried for st in s.stages] == [False, True]
    d = json.loads(s.to_json())
    assert (d["schema"], d["run_id"], d["config"], d["counts"]["passed"], d["counts"]["failed"]) == (
        2,
        "R2",
        "a.txt",
        1,
        0,
    )
    assert s.verdict() == "passed" and RunSummary.from_json(s.to_json(), "x") == s


def test_schema_1_summaries_still_read():
    text = json.dumps(
        {
            "schema": 1,
            "model": "m",
            "mode": "mode",
            "timestamp": "20260101T000000Z",
            "counts": {},
            "stages": [{"id": "s", "node_rank": 0, "status": "failed", "reason": "", "figures": {"ips": 3}}],
        }
    )
    s = RunSummary.from_json(text, "x")
    assert (s.run_id, s.config, s.order, s.stages[0].carried, s.stages[0].figures) == (
        "",
        "",
        "20260101T000000Z",
        False,
        (("ips", 3.0),),
    )


@pytest.mark.parametrize(
    "before, after, new, still",
    [
        ("passed", ("failed", True), [], []),
        ("failed", ("failed", True), [], []),
        ("failed", ("failed", False), [], ["s"]),
        (("failed", True), ("failed", False), [], ["s"]),
        ("passed", ("failed", False), ["s"], []),
    ],
    ids=["carried-failure-is-not-new", "carried-failure-is-not-still", "own-still", "was-carried-still", "own-new"],
)
def test_only_this_runs_stages_are_compared(before, after, new, still):
    def stage(spec):
        status, carried = spec if isinstance(spec, tuple) else (spec, False)
        return StageSummary("s", 0, status, "", (), carried)

    c = compare(run(stage(before)), run(stage(after)), {}, against="x")
    assert ([x.label for x in c.new_failures], [x.label for x in c.still_failing]) == (new, still)


def _summary(run_id: str = "", timestamp: str = "", config: str = "", model: str = "m") -> RunSummary:
    return RunSummary(model, "mode", timestamp or run_id[:16], (), run_id, config)


PAST = {  # report directory name → its summary
    "20260101T000000Z": _summary(timestamp="20260101T000000Z"),  # schema 1: no run id, no config
    "20260102T000000Z-aaaaaaaa": _summary("20260102T000000Z-aaaaaaaa", config="a.txt"),
    "20260102T000000Z-bbbbbbbb": _summary("20260102T000000Z-bbbbbbbb", config="b.txt"),
    "20260103T000000Z-cccccccc": _summary("20260103T000000Z-cccccccc", config="a.txt"),
    "20260103T000000Z-dddddddd": _summary("20260103T000000Z-dddddddd", config="a.txt", model="other"),
    # A folder name that sorts last but a run id that is old: the id decides, not the name.
    "zz-renamed": _summary("20260101T120000Z-eeeeeeee", config="b.txt"),
}


@pytest.mark.parametrize(
    "current, expected",
    [
        (_summary("20260104T000000Z-ffffffff", config="a.txt"), "20260103T000000Z-cccccccc"),
        (_summary("20260104T000000Z-ffffffff", config="b.txt"), "20260102T000000Z-bbbbbbbb"),
        (_summary("20260103T000000Z-cccccccc", config="a.txt"), "20260102T000000Z-aaaaaaaa"),
        (_summary("20260103T000000Z-00000000", config="a.txt"), "20260102T000000Z-aaaaaaaa"),
        (_summary("20260102T000000Z-bbbbbbbb", config="b.txt"), "zz-renamed"),
        (_summary("20260101T120000Z-eeeeeeee", config="b.txt"), "20260101T000000Z"),
        (_summary("20260104T000000Z-ffffffff", config="c.txt"), "20260101T000000Z"),
        (_summary("20260104T000000Z-ffffffff"), "20260103T000000Z-cccccccc"),
        (_summary(timestamp="20260101T000000Z"), None),
    ],
    ids=[
        "same-config-a",
        "same-config-b",
        "same-second-earlier-id",
        "same-second-id-sorts-first",
        "by-id-not-by-folder-name",
        "falls-back-to-summary-without-config",
        "unknown-config-falls-back",
        "current-without-config-takes-any",
        "nothing-older",
    ],
)
def test_previous_run_is_the_newest_earlier_run_of_the_same_config(tmp_path, current, expected):
    for name, summary in PAST.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "summary.json").write_text(summary.to_json())
    (tmp_path / "20260105T000000Z-99999999").mkdir()  # no summary: a report being written
    os.symlink("20260101T000000Z", tmp_path / "latest")
    found = previous_run(read_summaries(tmp_path, "", pytest.fail), current)
    assert (found.dir.name if found else None) == expected


@pytest.mark.parametrize(
    "content, why",
    [
        (b"{not json", "not a tipc report summary"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b"[]", "summary is [], expected dict"),
        (b'{"model": "m", "mode": "x", "stages": {}}', "stages is {}, expected list"),
        (b'{"model": "m", "mode": "x", "stages": ["s"]}', "stage is 's', expected dict"),
        (b'{"model": "m", "mode": "x", "stages": [{"id": "s", "status": "exploded"}]}', "'exploded' is not a valid"),
        (
            b'{"model": "m", "mode": "x", "stages": [{"id": "s", "status": "passed", "figures": {"ips": "fast"}}]}',
            "figure ips is 'fast'",
        ),
        (
            b'{"model": "m", "mode": "x", "stages": [{"id": "s", "status": "passed", "node_rank": true}]}',
            "node_rank is True",
        ),
        (b'{"model": 3, "mode": "x", "stages": []}', "model is 3"),
        (b'{"schema": 9, "model": "m", "mode": "x", "stages": []}', "newer than this tipc reads"),
        (None, "cannot be read"),
    ],
    ids=[
        "bad-json",
        "not-utf8",
        "not-an-object",
        "stages-not-a-list",
        "stage-not-an-object",
        "unknown-status",
        "figure-not-a-number",
        "bool-node-rank",
        "model-not-text",
        "newer-schema",
        "a-directory",
    ],
)
def test_read_summary_names_the_file_and_why(tmp_path, content, why):
    path = tmp_path / "summary.json"
    path.mkdir() if content is None else path.write_bytes(content)
    with pytest.raises(ResultsError) as exc:
        read_summary(path)
    assert exc.value.path == str(path) and why in str(exc.value)


@pytest.mark.parametrize(
    ("before", "after", "why"),
    [
        ("passed", "failed", "not compared: training failed in this run"),
        ("passed", "timeout", "not compared: training timeout in this run"),
        ("failed", "passed", "not compared: training failed in the earlier run"),
        ("failed", "failed", "not compared: training failed in this run"),
    ],
    ids=["failed-now", "timed-out-now", "failed-before", "failed-both"],
)
def test_a_failed_stages_figures_are_no_improvement_nor_regression(before, after, why):
    # The OOM-killed training of the issue: 4808.6 MB before, 485.3 MB when it died; never "-89.9 %".
    c = compare(
        run(outcome("c::train", before, peak_rss_mb=4808.6, ips=90.0)),
        run(outcome("c::train", after, peak_rss_mb=485.3, ips=3.0)),
        {("c::train", 0): "stage-c"},
        against="x",
    )
    assert c.moves == ()
    assert [(n.label, n.anchor, n.why) for n in c.not_compared] == [("c::train", "stage-c", why)]


def test_figures_of_two_passes_are_compared_and_stages_without_figures_are_not_listed():
    c = compare(
        run(outcome("c::train", "passed", ips=100.0), outcome("c::export", "passed")),
        run(outcome("c::train", "passed", ips=50.0), outcome("c::export", "failed")),
        {},
        against="x",
    )
    assert [m.label for m in c.moves] == ["c::train"] and c.not_compared == ()
