"""The report's cells by state, and the night's index built from many models: pure, records in."""

from __future__ import annotations

from dataclasses import replace

from tipc.report.night import SHOWN, FolderNight, build_night
from tipc.report.states import build_states
from tipc.results.records import StageRecord, Status
from tipc.triage.culprits import Culprit


def rec(sid: str, state: str, status: Status = Status.PASSED, **kw) -> StageRecord:
    return replace(StageRecord(sid, "train", "c", status), state=state, **kw)


def test_the_report_counts_every_state_and_lists_the_news_a_new_failure_first():
    records = [
        rec("a", "passing"),
        rec("b", "fixed"),
        rec("c", "still_failing", Status.FAILED, state_since="r1", state_nights=3, reason="exit code 1"),
        rec("d", "new_failure", Status.FAILED, cause_kind="missing-module", cause="No module named 'x'"),
        rec("e", "not_run", Status.BLOCKED),
        rec("f", "flaky"),
        rec("g", ""),  # a record from before states
        rec("h", "jailed"),  # a state this tipc does not know (a newer one's): counted nowhere, never a crash
    ]
    culprit = Culprit("d", "g" * 40, "b" * 40, "c" * 40, "Speed up", "Bob", "2026-12-05")
    view = build_states(records, {("d", 0): "stage-d"}, {"d": culprit})
    assert view is not None
    assert view.counts == (("new_failure", 1), ("flaky", 1), ("still_failing", 1), ("not_run", 1), ("fixed", 1),
                           ("passing", 1))  # fmt: skip
    assert [(line.stage, line.text) for line in view.lines] == [
        ("d", "new failure"), ("f", "flaky"), ("c", "still failing: 3 nights, since r1"), ("b", "fixed")
    ]  # fmt: skip
    assert view.lines[0].anchor == "stage-d" and view.lines[0].culprit == culprit
    assert view.lines[0].why == "missing-module: No module named 'x'" and view.lines[2].why == "exit code 1"
    assert build_states([rec("g", "")], {}) is None


def test_the_nights_first_page_keeps_its_lists_short_and_models_that_failed_first():
    failing = FolderNight("zoo", "m1", tuple(rec(f"s{n}", "new_failure", Status.FAILED) for n in range(SHOWN + 10)),
                          "zoo/m1/r/index.html", {("s0", 0): "#stage-s0"})  # fmt: skip
    passing = FolderNight("aaa", "m1", (rec("t", "passing"),), "aaa/m1/r/index.html")
    page = build_night("night-1", [passing, failing])
    (section,) = page.sections
    assert (section.state, len(section.lines), section.total, section.page) == (
        "new_failure", SHOWN, SHOWN + 10, "new_failure.html"
    )  # fmt: skip
    assert section.lines[0].href == "zoo/m1/r/index.html#stage-s0"
    assert [(row.model, row.verdict) for row in page.models] == [("zoo", "failed"), ("aaa", "passed")]
    assert page.counts == (("new_failure", SHOWN + 10), ("passing", 1))


def test_the_night_index_names_each_regression_with_the_night_it_began(tmp_path):
    from tests.report.test_trends import STABLE, nights, run_id
    from tipc.report.night_write import write_night

    nights(tmp_path, [*STABLE, 520.0, 521.0, 522.0])  # steady nights, then three slower: a shift since the first
    index = write_night([tmp_path / f"r{len(STABLE) + 2}"], tmp_path / "reports")
    html = index.read_text(encoding="utf-8")
    assert '<section id="regressions"' in html
    assert f'data-since="{run_id(len(STABLE))}"' in html and "inference time" in html
