"""The night's index in a real browser (headless Chromium, as the report is checked): it opens with no console
error, failed load or request leaving the file; the new failures are on the first screen; their links open
the stage in its model's report; and at 100 models × 4 modes its first page stays small."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import pytest

from tests.support.cdp import Browser
from tests.support.night import record
from tipc.report import write_report
from tipc.report.night_write import write_night
from tipc.results.records import RunInfo, Status
from tipc.triage.culprits import Culprit, write_culprits

MODES = ("lite_train_lite_infer", "whole_train_whole_infer", "lite_train_whole_infer", "whole_infer")
STAGES = 12  # per model and mode
# Cell n of a folder: its state (the one new failure of a folder is its stage 5).
STATES = {5: ("new_failure", Status.FAILED), 7: ("still_failing", Status.FAILED), 9: ("flaky", Status.PASSED),
          10: ("fixed", Status.PASSED), 11: ("infra", Status.FAILED)}  # fmt: skip


def night(output: Path, reports: Path, models: int, failing_every: int) -> None:
    """``models`` × 4 modes of one night; every ``failing_every``-th folder has failures, the others pass."""
    for m in range(models):
        for k, mode in enumerate(MODES):
            folder = output / f"model{m:03d}" / mode
            logs = folder / "logs"
            logs.mkdir(parents=True)
            bad = (m * len(MODES) + k) % failing_every == 0
            run_id = f"20261206T013000Z-{m:03d}{k}"
            lines = []
            for n in range(STAGES):
                log = logs / f"{n}.log"
                log.write_text("step 1\n")
                state, status = STATES.get(n, ("passing", Status.PASSED)) if bad else ("passing", Status.PASSED)
                r = replace(record(n, str(log)), status=status, model=f"model{m:03d}", mode=mode, run_id=run_id,
                            state=state, reason="exit code 1" if status is Status.FAILED else "")  # fmt: skip
                if state == "still_failing":
                    r = replace(r, state_since="20261201T013000Z-0", state_nights=5)
                lines.append(r.to_json())
            (folder / "results.jsonl").write_text("\n".join(lines) + "\n")
            info = RunInfo(f"model{m:03d}", mode, "zoo.txt", start=1.79e9, run_id=run_id, run_group="night-42")
            (folder / "run.json").write_text(info.to_json())
            if bad:
                commands = ("git clone --shared target", "git bisect run python -m tipc.triage.step")
                write_culprits(folder, [Culprit(record(5, "").id, "a" * 40, "b" * 40, "c" * 40, "Speed up the export",
                                                "Bob <bob@example.org>", "2026-12-05T10:00:00+00:00", commands)])  # fmt: skip
            write_report([folder], reports, history=False)


FIRST = """JSON.stringify((function () {
  var line = document.querySelector('#new_failure li a');
  var culprit = document.querySelector('#new_failure [data-culprit]');
  return {height: window.innerHeight, top: line ? line.getBoundingClientRect().top : null,
          href: line ? line.getAttribute('href') : null, culprit: culprit ? culprit.dataset.culprit : null,
          model: document.querySelector('#night-models tbody th a').getAttribute('href'),
          counts: Array.from(document.querySelectorAll('#counts .chip')).map(function (c) {
            return c.dataset.state + '=' + c.dataset.count; }),
          sections: Array.from(document.querySelectorAll('main > section')).map(function (s) { return s.id; })};
})())"""


def opened(browser: Browser, url: str, probe: str) -> str:
    """What ``probe`` says of a page opened in a new tab (its load event may be its blank page's: asked until
    it answers)."""
    tab = browser.open(url)
    deadline = time.monotonic() + 20
    while (found := browser.evaluate(tab, probe)) == "missing" and time.monotonic() < deadline:
        time.sleep(0.2)
    return str(found)


def target(page: Path, href: str) -> str:
    path, _, anchor = href.partition("#")
    return (page.parent / path).resolve().as_uri() + (f"#{anchor}" if anchor else "")


@pytest.mark.parametrize(
    ("models", "failing_every"),
    [(3, 2), pytest.param(100, 7, marks=pytest.mark.slow, id="100-models-4-modes")],
)
def test_the_night_index_opens_with_its_new_failures_first_and_its_links_work(chromium, tmp_path, models,
                                                                             failing_every):  # fmt: skip
    output, reports = tmp_path / "output", tmp_path / "reports"
    night(output, reports, models, failing_every)
    index = write_night([output], reports, trends=None)
    assert index == reports / "night" / "night-42" / "index.html"
    assert "<script" not in index.read_text() and "http" not in index.read_text().replace("http-equiv", "")
    browser = Browser(chromium, tmp_path / "profile")
    try:
        first = json.loads(browser.evaluate(browser.open(index.as_uri()), FIRST))
        stage_id = first["href"].partition("#")[2]
        probe = f"(function(){{var d=document.getElementById({stage_id!r});return d ? d.tagName + ' ' + d.dataset.status : 'missing';}})()"
        stage = opened(browser, target(index, first["href"]), probe)
        model = opened(
            browser, target(index, first["model"]), "document.getElementById('matrix') ? 'report' : 'missing'"
        )
    finally:
        browser.close()
    assert browser.problems() == []
    assert first["top"] is not None and 0 <= first["top"] < first["height"], first
    assert first["sections"][0] == "new_failure" and first["sections"][-1] == "models"
    assert first["culprit"] == "c" * 40
    bad = -(-models * len(MODES) // failing_every)
    assert f"new_failure={bad}" in first["counts"] and f"still_failing={bad}" in first["counts"]
    assert stage == "DETAILS failed"
    assert model == "report"
    pages = sorted(p.name for p in index.parent.iterdir())
    if models == 100:
        # Every list capped (50 lines each, 100 models): a small part of the 5 MB a first page may take.
        assert index.stat().st_size < 500_000, index.stat().st_size
        assert {"models-1.html", "models-4.html", "new_failure.html"} <= set(pages)
