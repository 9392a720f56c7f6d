"""One real-browser check: the report opens in headless Chromium with no console error,
no failed load, no dialog and no request leaving the file."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.support.cdp import Browser
from tests.support.recorded_runs import T0, single_node_run
from tipc.report import write_report
from tipc.results.records import Status

SCREENSHOT = os.environ.get("TIPC_REPORT_SCREENSHOT")  # keep the picture somewhere to look at


def test_report_renders_cleanly_in_chromium(chromium, tmp_path):
    out = tmp_path / "reports"
    write_report([single_node_run(tmp_path / "r1", T0 - 86_400, pact=Status.PASSED, cpu_bs6_ms=250.0)], out)
    index = write_report([single_node_run(tmp_path / "r2")], out)
    browser = Browser(chromium, tmp_path / "profile")
    try:
        session = browser.open(index.as_uri())
        shot = Path(SCREENSHOT) if SCREENSHOT else tmp_path / "report.png"
        browser.screenshot(session, shot)
        facts = browser.evaluate(
            session,
            """JSON.stringify({
            cells: document.querySelectorAll('#matrix td.cell').length,
            copy: document.querySelectorAll('button.copy').length,
            points: document.querySelectorAll('svg circle.point').length,
            fits: document.documentElement.scrollWidth <= document.documentElement.clientWidth,
            hostile: document.querySelectorAll('pre.log script').length})""",
        )
    finally:
        browser.close()
    assert browser.problems() == []
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    assert facts == '{"cells":28,"copy":13,"points":4,"fits":true,"hostile":0}'


FIRST_SCREEN = """JSON.stringify((function () {
  var failed = document.querySelector('#matrix td.cell[data-status="failed"] a');
  return {height: window.innerHeight, top: failed ? failed.getBoundingClientRect().top : null,
          href: failed ? failed.getAttribute('href') : null,
          chips: document.querySelectorAll('#counts .chip').length};
})())"""


@pytest.mark.parametrize(
    ("stages", "one_page"),
    [(300, 50), pytest.param(12_000, None, marks=pytest.mark.slow, id="full-size")],
)
def test_a_large_report_opens_with_its_failures_on_the_first_screen(chromium, tmp_path, monkeypatch, stages, one_page):
    """A run of many stages (the full-size case: 12,000) is a report of pages: its first page opens with a
    failing chain in view, and the failing cell's link opens that stage, on its chain's page."""
    import json

    from tests.support.night import results_folder
    from tipc.report import pages

    if one_page is not None:  # pages at a size a test renders in seconds
        monkeypatch.setattr(pages, "ONE_PAGE_STAGES", one_page)
    results_folder(tmp_path / "night", stages, log_bytes=2048)
    index = write_report([tmp_path / "night"], tmp_path / "reports", history=False)
    browser = Browser(chromium, tmp_path / "profile")
    try:
        session = browser.open(index.as_uri())
        browser.screenshot(session, tmp_path / "first.png")
        first = json.loads(browser.evaluate(session, FIRST_SCREEN))
        target = (index.parent / first["href"].partition("#")[0]).as_uri() + "#" + first["href"].partition("#")[2]
        stage = browser.open(target)
        probe = (
            f"(function(){{var d=document.getElementById({first['href'].partition('#')[2]!r});"
            "return d ? d.tagName + ' ' + d.open + ' ' + d.dataset.status : 'missing';})()"
        )
        # A new tab's load event may be its blank page's: the stage's page is asked until it is there.
        deadline = time.monotonic() + 20
        while (opened := browser.evaluate(stage, probe)) == "missing" and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        browser.close()
    assert browser.problems() == []
    assert first["top"] is not None and 0 <= first["top"] < first["height"], first
    assert first["href"].startswith("chains/")
    assert opened == "DETAILS true failed"
