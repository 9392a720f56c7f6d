"""Trends in the report, through ``write_report`` over synthetic nights: the regressions listed first,
the sparklines with their band and this run's point, learning before enough runs, one config's
history apart from another's."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.htmlq import Element, parse
from tests.support.recorded_runs import CASES, CPU_CHAIN, T0, ResultsWriter, label, single_node_run
from tipc.history.keys import config_key
from tipc.history.store import HISTORY_FILE
from tipc.metrics.noise import Band, TrendPolicy
from tipc.report import write_report
from tipc.report.sparkline import HEIGHT, PAD, WIDTH, sparkline
from tipc.report.trends import Regression
from tipc.results.records import Status

BS6 = f"{CPU_CHAIN}::infer[{label(CASES[1])}]"
DAY = 86_400.0
CONFIG_A = "test_tipc/configs/rec/train_infer_python.txt"
OTHER_CONFIG = "test_tipc/configs/rec/train_pact_infer_python.txt"


def run_id(night: int) -> str:
    return f"202609{night + 1:02d}T013000Z-{night:08x}"


def nights(tmp_path: Path, bs6_ms: list[float], **kw) -> tuple[Element, list[Regression]]:
    """Reports of one night per value (the bs6 inference time); the last night's page and regressions."""
    out, found = tmp_path / "reports", []
    index = None
    for night, ms in enumerate(bs6_ms):
        results = single_node_run(tmp_path / f"r{night}", T0 + night * DAY, cpu_bs6_ms=ms, run_id=run_id(night))
        found = []
        index = write_report([results], out, regression=found.append, **kw)
    assert index is not None
    return parse(index.read_text(encoding="utf-8")), found


def rows(doc: Element) -> list[tuple[str, str, str]]:
    return [
        (tr.attrs["data-verdict"], tr.attrs["data-stage"], tr.attrs["data-figure"])
        for tr in doc.find(id="trend-table").find("tbody").find_all("tr")
    ]


STABLE = [374.8] * 10
SHIFT = 3  # nights a shift shows before it is judged (tipc.history.changes.MIN_AFTER)


@pytest.mark.parametrize(
    ("history", "new", "verdict"),
    [
        (STABLE, 520.0, "regression"),
        (STABLE, 376.0, "steady"),
        (STABLE, 250.0, "improvement"),
        ([374.8, 390.1, 360.3, 381.7, 369.9, 385.2, 372.0, 388.0, 365.5, 379.0], 395.0, "steady"),  # +5 %: noise
        ([374.8] * 3, 900.0, "learning"),
    ],
    ids=["step-up", "stable", "faster", "noisy-inside", "too-few-runs"],
)
def test_the_bs6_inference_time_is_judged_against_its_nights(tmp_path, history, new, verdict):
    doc, found = nights(tmp_path, [*history, *[new] * SHIFT])
    judged = {(s, f): v for v, s, f in rows(doc)}
    assert judged[(BS6, "inference time")] == verdict
    assert judged[(BS6, "throughput")] == {"regression": "regression", "improvement": "improvement"}.get(
        verdict, verdict
    )
    assert judged[(f"{CPU_CHAIN}::train", "train ips")] == ("learning" if len(history) < 10 else "steady")
    assert bool(found) == (verdict == "regression")


def test_regressions_come_first_at_the_top_of_the_page_and_name_the_night_they_began(tmp_path):
    doc, found = nights(tmp_path, [*STABLE, *[520.0] * SHIFT])
    main = doc.find("main")
    first = next(c for c in main.children if isinstance(c, Element))
    assert first.attrs["id"] == "regressions"  # before the facts, the matrix and everything else
    items = [(li.attrs["data-stage"], li.attrs["data-figure"]) for li in first.find_all("li")]
    assert items == [(BS6, "inference time"), (BS6, "throughput")]
    assert rows(doc)[:2] == [("regression", BS6, "inference time"), ("regression", BS6, "throughput")]
    slow = found[0]
    assert (slow.stage, slow.figure, slow.value, slow.runs, slow.began) == (
        BS6,
        "inference time",
        520.0,
        12,
        run_id(10),
    )
    assert slow.message() == (
        "rec/train_infer_python.txt "  # the config as the history knows it: wherever it was checked out
        f"{BS6}: inference time 520 ms shifted +38.7% since run {run_id(10)} (from a median of 374.8 ms; 12 earlier runs)"
    )
    assert "520 ms" in first.find("li").text and f"since run {run_id(10)}" in first.find("li").text
    stage = doc.find(id=first.find("li").find("a").attrs["href"][1:])
    assert stage.tag == "details" and stage.attrs["data-status"] == "passed"  # the link leads to the stage
    spark = doc.find(id="trend-table").find("tr", data_verdict="regression").find("svg", cls="spark")
    assert spark.find("rect", cls="band") and "v-regression" in spark.find("circle", cls="now").classes
    assert len(spark.find("polyline").attrs["points"].split()) == 13  # twelve nights and this one


def test_two_runs_show_trends_but_judge_nothing_and_say_so(tmp_path):
    doc, found = nights(tmp_path, [374.8, 900.0])
    assert found == [] and not doc.find_all(id="regressions")
    assert {v for v, _, _ in rows(doc)} == {"learning"}
    assert "judged once it has 10 earlier runs; this config has 1 so far" in doc.find(id="trend-rule").text
    assert "1 earlier run(s): 11 more night(s) to judge" in doc.find(id="trend-table").text  # each figure says it too
    spark = doc.find(id="trend-table").find("svg", cls="spark")
    assert len(spark.find("polyline").attrs["points"].split()) == 2 and not spark.find_all("rect")
    assert doc.find("nav", cls="toc").find("a", href="#trends")


def test_another_configs_nights_are_not_this_ones_history(tmp_path):
    out = tmp_path / "reports"
    for night in range(6):  # the same model and mode, another config: a slow one
        other = single_node_run(
            tmp_path / f"o{night}", T0 + night * DAY, cpu_bs6_ms=900.0, run_id=run_id(night), config=OTHER_CONFIG
        )
        write_report([other], out)
    mine = single_node_run(tmp_path / "mine", T0 + 7 * DAY, cpu_bs6_ms=374.8, run_id=run_id(7))
    doc = parse(write_report([mine], out).read_text(encoding="utf-8"))
    assert {v for v, _, _ in rows(doc)} == {"learning"}
    assert "this config has 0 so far" in doc.find(id="trend-rule").text


@pytest.mark.parametrize(
    ("kw", "section"),
    [
        ({"trends": None}, False),
        ({"history": False}, False),
        ({"trends": TrendPolicy(runs=5, k=2.0, min_runs=2)}, True),
    ],
    ids=["trends-off", "no-history", "own-policy"],
)
def test_trends_follow_the_options(tmp_path, kw, section):
    doc, _ = nights(tmp_path, [374.8, 374.8, 380.0], **kw)
    assert bool(doc.find_all(id="trends")) == section
    # results kept outside a <model>/<mode> folder: the store is the report's mode folder's; it keeps
    # the run's summary with trends off too (the baseline of the next report)
    store = tmp_path / "reports" / "PP-OCRv3_mobile_rec" / "lite_train_lite_infer" / HISTORY_FILE
    assert store.is_file() == ("history" not in kw)
    if section:
        assert "last 5 runs" in doc.find(id="trend-rule").text and "median ± 2 × MAD" in doc.find(id="trend-rule").text


@pytest.mark.parametrize(
    ("values", "band", "points", "last"),
    [
        ([5.0], None, 1, (WIDTH / 2, HEIGHT / 2)),
        ([1.0, 2.0], None, 2, (WIDTH - PAD, PAD)),
        ([2.0, 2.0, 9.0], (1.0, 3.0), 3, (WIDTH - PAD, PAD)),
    ],
    ids=["one-run-centred", "rising", "band-drawn-whole"],
)
def test_sparkline_geometry(values, band, points, last):
    s = sparkline(values, Band(2.0, *band) if band else None)
    assert len(s.polyline.split()) == points and (s.last_x, s.last_y) == pytest.approx(last)
    if band:
        assert s.band_top is not None and s.band_bottom is not None
        assert PAD <= s.band_top < s.band_bottom == pytest.approx(HEIGHT - PAD)  # the low edge is the scale's floor


def test_configs_that_share_a_folder_keep_their_own_histories(tmp_path):
    """Two configs of one model in one run: one report, two histories; a regression names its config."""
    out, found = tmp_path / "reports", []
    for night in range(13):
        w = ResultsWriter(tmp_path / f"r{night}", start=T0 + night * DAY, run_id=run_id(night), config=CONFIG_A)
        w.add("norm_train-gpus_-1-fp32", "train", Status.PASSED, metrics={"ips": 100.0}, returncode=0)
        w.config = OTHER_CONFIG  # the second config's chain writes the same folder
        ips = 50.0 if night >= 10 else 100.0
        w.add("pact_train-gpus_-1-fp32", "train", Status.PASSED, metrics={"ips": ips}, returncode=0)
        found = []
        index = write_report([w.write()], out, regression=found.append)
    assert [(g.config, g.stage, g.figure) for g in found] == [
        (config_key(OTHER_CONFIG), "pact_train-gpus_-1-fp32::train", "train ips")
    ]
    verdicts = {s: v for v, s, f in rows(parse(index.read_text(encoding="utf-8"))) if f == "train ips"}
    assert verdicts == {"pact_train-gpus_-1-fp32::train": "regression", "norm_train-gpus_-1-fp32::train": "steady"}


def test_a_figure_this_run_lost_shows_its_past_without_a_point_for_this_run(tmp_path):
    out = tmp_path / "reports"
    for night in range(3):
        write_report([single_node_run(tmp_path / f"r{night}", T0 + night * DAY, run_id=run_id(night))], out)
    w = ResultsWriter(tmp_path / "lost", start=T0 + 3 * DAY, run_id=run_id(3))
    w.add(CPU_CHAIN, "train", Status.PASSED, metrics={"ips": 120.5}, returncode=0)  # no inference this night
    doc = parse(write_report([w.write()], out).read_text(encoding="utf-8"))
    lost = doc.find(id="trend-table").find("tr", data_stage=BS6, data_figure="inference time")
    assert lost.attrs["data-verdict"] == "no value"
    spark = lost.find("svg", cls="spark")
    assert len(spark.find("polyline").attrs["points"].split()) == 3 and not spark.find_all("circle")


def test_a_shards_own_report_is_judged_but_only_the_merged_run_is_recorded(tmp_path):
    out = tmp_path / "reports"
    nights(tmp_path, STABLE)  # the merged runs of earlier nights
    for night in (10, 11):  # two slower ones: the shard's night is the third, when a shift is judged
        slow = ResultsWriter(tmp_path / f"slow{night}", start=T0 + night * DAY, run_id=run_id(night))
        slow.add(CPU_CHAIN, "train", Status.PASSED, metrics={"ips": 60.0}, returncode=0)
        write_report([slow.write()], out)
    history = out / "PP-OCRv3_mobile_rec" / "lite_train_lite_infer" / HISTORY_FILE
    before = history.read_bytes()
    w = ResultsWriter(tmp_path / "shard2", start=T0 + 12 * DAY, run_id=run_id(12))
    w.add(CPU_CHAIN, "train", Status.PASSED, metrics={"ips": 60.0}, returncode=0, shard="2/4")
    found: list[Regression] = []
    doc = parse(write_report([w.write(shard="2/4")], out, regression=found.append).read_text(encoding="utf-8"))
    assert [(g.stage, g.figure) for g in found] == [(f"{CPU_CHAIN}::train", "train ips")]
    assert ("regression", f"{CPU_CHAIN}::train", "train ips") in rows(doc)
    assert history.read_bytes() == before


def test_a_run_whose_training_failed_shows_the_configs_history_and_compares_nothing(tmp_path):
    out = tmp_path / "reports"
    for night in range(2):
        write_report([single_node_run(tmp_path / f"r{night}", T0 + night * DAY, run_id=run_id(night))], out)
    w = ResultsWriter(tmp_path / "failed", start=T0 + 2 * DAY, run_id=run_id(2))
    w.add(CPU_CHAIN, "train", Status.FAILED, "Killed\n", returncode=-9, peak_rss_mb=485.3, reason="killed by SIGKILL")
    w.add(CPU_CHAIN, "eval", Status.BLOCKED, None, reason=f"{CPU_CHAIN}::train failed")
    doc = parse(write_report([w.write()], out).read_text(encoding="utf-8"))
    rule = doc.find(id="trend-rule").text
    assert "this config has 2 so far" in rule  # not "0 so far": the history holds two runs
    assert "No benchmark figures" not in doc.find(id="trends").text
    train = [
        tr
        for tr in doc.find(id="trend-table").find("tbody").find_all("tr")
        if tr.attrs["data-stage"] == f"{CPU_CHAIN}::train"
    ]
    assert {tr.attrs["data-figure"] for tr in train} == {"train ips"}
    assert all(tr.attrs["data-verdict"] == "no value" for tr in train)
    assert all("not compared: training failed in this run" in tr.text for tr in train)
    # the comparison with the night before lists it as not compared, never as a move
    assert not doc.find_all(id="cmp-moves")
    (item,) = [
        li for li in doc.find(id="cmp-not-compared").find_all("li") if li.attrs["data-stage"] == f"{CPU_CHAIN}::train"
    ]
    assert "not compared: training failed in this run" in item.text
