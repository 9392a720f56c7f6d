"""The matrix report: one row per config of a run, its figures, its previous run; the page as HTML."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.support.htmlq import Element, parse
from tipc.history.store import HISTORY_FILE, History
from tipc.report.overview import (
    Batch,
    ConfigOutcome,
    Earlier,
    batches,
    build_page,
    eval_metric,
    overall,
    train_ips,
    verdict,
)
from tipc.report.overview_write import write_overview
from tipc.results.records import StageRecord, Status

RUN = "20261201T013000Z-5f3a9c1e"
MODE = "lite_train_lite_infer"


def rec(sid: str, status: Status = Status.PASSED, start: float = 0.0, duration: float = 1.0, **metrics) -> StageRecord:
    chain, name = sid.split("::")
    infer = None
    if name.startswith("infer["):
        label = name[len("infer[") : -1]
        infer = {"device": "cpu", "batch_size": label.rsplit("bs", 1)[1], "precision": "fp32"}
    return StageRecord(
        id=sid,
        kind=name.split("[")[0],
        chain=chain,
        status=status,
        start=start,
        duration=duration,
        infer=infer,
        metrics=metrics,
    )


def infer(chain: str, threads: int, bs: int, ms: float) -> StageRecord:
    case = f"cpu-mkldnn_False-threads_{threads}-fp32-bs{bs}"
    return rec(f"{chain}::infer[{case}]", inference_ms=ms, batch_size=bs, cpu_threads=threads, runtime_device="cpu")


@pytest.mark.parametrize(
    ("outcome", "expected"),
    [
        (ConfigOutcome("a", MODE, records=(rec("c::train"), rec("c::eval"))), "passed"),
        (ConfigOutcome("a", MODE, records=(rec("c::train", Status.FAILED), rec("c::eval", Status.BLOCKED))), "failed"),
        (ConfigOutcome("a", MODE, records=(rec("c::train", Status.BLOCKED),)), "incomplete"),
        (ConfigOutcome("a", MODE), "empty"),
        (ConfigOutcome("a", MODE, problem="a.txt:1: empty file"), "error"),
        (ConfigOutcome("a", MODE, problem="on a single node: …", applicable=False), "not applicable"),
    ],
    ids=["passed", "failed", "incomplete", "no-stages", "error", "not-applicable"],
)
def test_verdict(outcome, expected):
    assert verdict(outcome) == expected


@pytest.mark.parametrize(
    ("records", "expected"),
    [
        ((rec("c::train", ips=120.5), rec("d::train", ips=99.0)), 120.5),
        ((rec("c::train", Status.FAILED, ips=80.0),), 80.0),
        ((rec("c::train"), rec("d::train", ips="n/a"), rec("e::train", ips=7)), 7.0),
        ((rec("c::eval", ips=1.0),), None),
    ],
    ids=["first-train", "a-failed-train-logged-some", "first-numeric", "only-train-stages"],
)
def test_train_ips(records, expected):
    assert train_ips(records) == expected


@pytest.mark.parametrize(
    ("metrics", "expected"),
    [
        ({"norm_edit_dis": 0.8, "acc": 0.9}, ("acc", 0.9)),
        ({"precision": 0.7, "recall": 0.6, "hmean": 0.65}, ("hmean", 0.65)),
        ({"psnr": 23.1, "ssim": 0.7}, ("psnr", 23.1)),
        ({"exp_rate": 0.4, "fps": 3.0}, ("exp_rate", 0.4)),
        ({"acc": "nan?", "norm_edit_dis": 0.8}, ("norm_edit_dis", 0.8)),
        ({}, None),
    ],
    ids=["recognition", "detection", "super-resolution", "unknown-first", "non-numbers-skipped", "none"],
)
def test_eval_metric(metrics, expected):
    assert eval_metric([rec("c::train"), rec("c::eval", **metrics)]) == expected


@pytest.mark.parametrize(
    ("records", "expected"),
    [
        (
            (infer("c", 1, 6, 40.0), infer("c", 1, 1, 9.0), infer("c", 6, 1, 3.0), infer("c", 6, 6, 20.0)),
            (Batch(1, 9.0), Batch(6, 40.0)),
        ),
        ((infer("c", 2, 1, 5.0),), (Batch(1, 5.0), None)),
        ((infer("c", 1, 1, 9.0), infer("d", 1, 6, 30.0)), (Batch(1, 9.0), None)),
        ((rec("c::train"),), (None, None)),
    ],
    ids=["first-series-only", "one-batch-size", "other-chains-are-other-series", "no-benchmark"],
)
def test_smallest_and_largest_batch(records, expected):
    assert batches(records) == expected


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [
        (("passed", "failed", "error"), "error"),
        (("passed", "incomplete"), "incomplete"),
        (("passed", "not applicable"), "passed"),
        (("not applicable",), "empty"),
    ],
    ids=["errors-first", "incomplete", "not-applicable-tells-nothing", "nothing-told"],
)
def test_overall(verdicts, expected):
    assert overall(verdicts) == expected


def test_rows_compare_each_config_with_its_previous_run(tmp_path):
    now = ConfigOutcome(
        "m/a.txt",
        MODE,
        records=(rec("c::train"), rec("c::eval", Status.FAILED), rec("c::export", Status.TIMEOUT)),
    )
    fresh = ConfigOutcome("m/b.txt", MODE, records=(rec("c::train", Status.FAILED),))
    history = {("m/a.txt", MODE): Earlier("20261130T013000Z-00000000", "failed", ("c::export",))}
    a, b = build_page(RUN, [now, fresh], tmp_path, history).rows
    assert (a.previous, a.new_failures, a.failures) == (
        history[("m/a.txt", MODE)],
        ("c::eval",),
        ("c::eval", "c::export"),
    )
    assert (b.previous, b.new_failures) == (None, ())  # nothing to compare with: nothing is "new"


def row_cells(doc: Element, config: str) -> tuple[Element, dict[str, str]]:
    (tr,) = [
        tr for tr in doc.find("table", id="overview").find("tbody").find_all("tr") if tr.attrs["data-config"] == config
    ]
    return tr, {td.attrs["data-figure"]: td.text for td in tr.find_all("td") if "data-figure" in td.attrs}


def zoo(root: Path, n: int) -> list[ConfigOutcome]:
    """n configs of one mode: each with a report page, a train, an eval and a sweep; every 10th failed,
    every 25th could not be planned, every 50th not applicable."""
    outcomes = []
    for i in range(n):
        name = f"model_{i:03d}/train_linux_gpu_normal_normal_infer_python_linux_gpu_cpu.txt"
        if i % 50 == 49:
            outcomes.append(ConfigOutcome(name, MODE, ("linux_gpu",), problem="on a single node: …", applicable=False))
            continue
        if i % 25 == 24:
            outcomes.append(ConfigOutcome(name, MODE, problem=f"/c/{name}:17: expected key 'pact_train'"))
            continue
        report = root / f"model_{i:03d}" / MODE / RUN / "index.html"
        records = (
            rec(
                "norm::train", Status.FAILED if i % 10 == 3 else Status.PASSED, start=1.0, duration=60.0, ips=100.0 + i
            ),
            rec("norm::eval", start=61.0, acc=0.5),
            *(infer("norm", 1, bs, bs * 10.0) for bs in (1, 2, 4, 8)),
        )
        outcomes.append(ConfigOutcome(name, MODE, ("linux_gpu", "normal"), f"model_{i:03d}", records, report))
    return outcomes


def test_the_page_names_every_config_with_its_figures_and_links(tmp_path):
    outcomes = zoo(tmp_path / "reports", 50)
    index = write_overview(outcomes, tmp_path / "reports", RUN)
    assert index == tmp_path / "reports" / "matrix" / RUN / "index.html"
    assert (tmp_path / "reports" / "matrix" / "latest" / "index.html").read_text() == index.read_text()
    # The page's folder keeps the page alone: its rows, what the next page compares with, are the store's.
    assert [p.name for p in index.parent.iterdir()] == ["index.html"]
    ((run, rows),) = History(tmp_path / "reports" / "matrix" / HISTORY_FILE).matrix()
    assert (run, len(rows)) == (RUN, 50)
    doc = parse(index.read_text())
    assert doc.find(id="verdict").attrs["data-overall"] == "error"
    chips = {c.attrs["data-verdict"]: int(c.attrs["data-count"]) for c in doc.find(id="counts").find_all("span")}
    assert chips == {"error": 1, "failed": 5, "passed": 43, "not applicable": 1}
    tr, figures = row_cells(doc, "model_000/train_linux_gpu_normal_normal_infer_python_linux_gpu_cpu.txt")
    assert tr.find("a").attrs["href"] == f"../../model_000/{MODE}/{RUN}/index.html"
    assert figures == {
        "train_ips": "100",
        "eval": "acc 0.5000",
        "infer_smallest": "bs1 · 10 ms",
        "infer_largest": "bs8 · 80 ms",
    }
    bad, _ = row_cells(doc, "model_024/train_linux_gpu_normal_normal_infer_python_linux_gpu_cpu.txt")
    assert bad.attrs["data-verdict"] == "error" and not bad.find_all("a")
    assert bad.find("td", cls="problem").text.endswith(":17: expected key 'pact_train'")
    na, _ = row_cells(doc, "model_049/train_linux_gpu_normal_normal_infer_python_linux_gpu_cpu.txt")
    assert na.attrs["data-verdict"] == "not applicable"


def test_the_next_run_compares_with_this_one(tmp_path):
    outcomes = zoo(tmp_path, 12)
    write_overview(outcomes, tmp_path, RUN)
    later = "20261202T013000Z-5f3a9c1e"
    broken = [
        ConfigOutcome(o.config, o.mode, o.tags, o.model, (rec("norm::train", Status.FAILED),), o.report)
        for o in outcomes
    ]
    doc = parse(write_overview(broken, tmp_path, later).read_text())
    tr, _ = row_cells(doc, "model_000/train_linux_gpu_normal_normal_infer_python_linux_gpu_cpu.txt")
    previous, new = tr.find_all("td")[-2:]
    assert previous.attrs["data-previous"] == "passed" and previous.find("a").attrs["href"] == f"../{RUN}/index.html"
    assert (new.attrs["data-new-failures"], new.text) == ("1", "norm::train")
    tr, _ = row_cells(doc, "model_003/train_linux_gpu_normal_normal_infer_python_linux_gpu_cpu.txt")
    assert tr.find_all("td")[-1].attrs["data-new-failures"] == "0"  # it failed the night before too


def test_a_hundred_configs_stay_fast_and_small(tmp_path):
    outcomes = zoo(tmp_path, 100)
    for night in range(5):  # some history to read
        write_overview(outcomes, tmp_path, f"2026113{night}T013000Z-00000000")
    start = time.perf_counter()
    index = write_overview(outcomes, tmp_path, RUN)
    seconds = time.perf_counter() - start
    size = index.stat().st_size
    assert len(parse(index.read_text()).find("tbody").find_all("tr")) == 100
    assert seconds < 1.0, f"{seconds:.2f} s"
    assert size < 150_000, f"{size} bytes"


@pytest.mark.parametrize(
    ("regressions", "report", "cell"),
    [(0, True, ("–", False)), (3, True, ("3", True)), (2, False, ("2", False))],
    ids=["none", "linked-to-the-reports-list", "no-report-to-link"],
)
def test_a_row_counts_its_regressions(tmp_path, regressions, report, cell):
    page = tmp_path / "reports" / "a" / MODE / RUN / "index.html"
    outcome = ConfigOutcome(
        "a.txt", MODE, records=(rec("c::train", ips=100.0),), report=page if report else None, regressions=regressions
    )
    doc = parse(write_overview([outcome, ConfigOutcome("b.txt", MODE)], tmp_path / "reports", RUN).read_text())
    td = doc.find("tr", data_config="a.txt").find("td", data_regressions=str(regressions))
    hrefs = [a.attrs["href"] for a in td.find_all("a")]
    assert td.text.strip() == cell[0]
    assert hrefs == ([f"../../a/{MODE}/{RUN}/index.html#regressions"] if cell[1] else [])
