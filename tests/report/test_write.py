from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.support.htmlq import Element, matrix_cells, parse
from tests.support.recorded_runs import (
    CASES,
    CPU_CHAIN,
    DIST_CHAIN,
    FLEET_CHAIN,
    FPGM_CHAIN,
    HOSTILE,
    ONE_CHAIN,
    PACT_CHAIN,
    T0,
    ResultsWriter,
    bench,
    case,
    label,
    single_node_run,
)
from tipc.cluster.merge import merge_dirs
from tipc.errors import ResultsError
from tipc.history.store import HISTORY_FILE, History
from tipc.report import write_report
from tipc.results.records import Status

MODE_DIR = ("PP-OCRv3_mobile_rec", "lite_train_lite_infer")
DAY = 86_400.0


def render(dirs, out: Path, **kw) -> tuple[Path, Element, str]:
    index = write_report(dirs, out, **kw)
    html = index.read_text(encoding="utf-8")
    return index, parse(html), html


def test_layout_and_latest_pointers(single_run, tmp_path):
    index, _, _ = render([single_run], tmp_path / "reports")
    mode_dir = tmp_path.joinpath("reports", *MODE_DIR)
    assert index == mode_dir / "20260921T141320Z" / "index.html"
    # The report's folder keeps its pages alone: its summary, what later runs compare with, is the store's.
    assert [p.name for p in (mode_dir / "20260921T141320Z").iterdir()] == ["index.html"]
    assert [r.run for r in History(mode_dir / HISTORY_FILE).reports(*MODE_DIR)] == ["20260921T141320Z"]
    assert os.readlink(mode_dir / "latest") == "20260921T141320Z"
    assert (mode_dir / "latest" / "index.html").read_bytes() == index.read_bytes()
    redirect = parse((mode_dir / "latest.html").read_text())
    assert redirect.find("meta", http_equiv="refresh").attrs["content"] == "0; url=20260921T141320Z/index.html"


@pytest.mark.parametrize(
    "row, column, status, shows",
    [
        (CPU_CHAIN, "train", "passed", "passed"),
        (CPU_CHAIN, f"infer[{label(CASES[1])}]", "passed", "passed"),
        (CPU_CHAIN, f"infer[{label(CASES[2])}]", "failed", "FAILED"),
        (CPU_CHAIN, f"infer[{label(CASES[3])}]", "timeout", "TIMEOUT"),
        (PACT_CHAIN, "train", "failed", "FAILED"),
        (PACT_CHAIN, "eval", "blocked", f"blocked{PACT_CHAIN}::train failed"),
        (PACT_CHAIN, f"infer[{label(CASES[1])}]", "none", "—"),
        (DIST_CHAIN, "train", "hung", "HUNG"),
        (FPGM_CHAIN, "train", "skipped", "skipped"),
    ],
    ids=["passed", "infer-passed", "failed", "timeout", "train-failed", "blocked-why", "absent", "hung", "skipped"],
)
def test_matrix_cells(single_run, tmp_path, row, column, status, shows):
    _, doc, _ = render([single_run], tmp_path / "reports")
    td = matrix_cells(doc)[(row, column)]
    assert td.attrs["data-status"] == status
    box = td.find_all("a") or td.find_all("span", cls="box")
    assert f"st-{status}" in box[0].classes
    assert td.text.strip().startswith(shows) or td.text.strip() == shows
    if status in ("blocked", "skipped"):
        why = td.find("span", cls="why").text
        assert why and why.rstrip("…") in box[0].attrs["title"]


def test_every_internal_link_has_a_target(single_run, tmp_path):
    _, doc, _ = render([single_run], tmp_path / "reports")
    ids = {e.attrs["id"] for e in doc.iter() if "id" in e.attrs}
    internal = [e.attrs["href"][1:] for e in doc.find_all("a") if e.attrs.get("href", "").startswith("#")]
    assert len(internal) > 20 and not set(internal) - ids
    cell_targets = [td.find("a").attrs["href"][1:] for td in matrix_cells(doc).values() if td.find_all("a")]
    assert all(doc.find("details", id=t).attrs["data-status"] for t in cell_targets)


def test_hostile_log_text_is_escaped(single_run, tmp_path):
    _, doc, html = render([single_run], tmp_path / "reports")
    scripts = doc.find_all("script")
    assert len(scripts) == 1 and "alert" not in scripts[0].text  # only the report's own progressive script
    assert HOSTILE.replace("<", "&lt;").replace(">", "&gt;") in html
    failed = doc.find("details", id="stage-pact_train-gpus_-1-fp32-train")
    assert "open" in failed.attrs and HOSTILE in failed.find("pre", cls="log").text


def test_hostile_text_outside_logs_is_escaped_too(tmp_path):
    """Every record field the page shows (reason, argv, env, metrics in table, SVG legend and title,
    notes, overrides, host) is data from a run, so none of it may become markup."""
    w = ResultsWriter(tmp_path / "r")
    hostile_case = case(1, precision=HOSTILE)
    w.add(
        CPU_CHAIN,
        "train",
        Status.PASSED,
        metrics={"ips": 1.0, HOSTILE: 2.0},
        argv=("python3", HOSTILE),
        env={HOSTILE: HOSTILE},
        returncode=0,
    )
    w.add(
        CPU_CHAIN,
        f"infer[{label(hostile_case)}]",
        Status.PASSED,
        infer=hostile_case,
        returncode=0,
        metrics=bench(hostile_case, 10.0),
    )
    w.add(CPU_CHAIN, "eval", Status.BLOCKED, None, reason=HOSTILE)
    _, doc, html = render([w.write(notes=(HOSTILE,), overrides={HOSTILE: HOSTILE}, host=HOSTILE)], tmp_path / "reports")
    assert len(doc.find_all("script")) == 1 and "<script>alert" not in html
    legend = doc.find("svg", id="plot-1-inference-ms").find("circle", cls="point").find("title").text
    assert HOSTILE in legend and HOSTILE in doc.find("table", id="perf").text


def test_stage_details(single_run, tmp_path):
    _, doc, _ = render([single_run], tmp_path / "reports")
    hung = doc.find("details", id="stage-norm_train-gpus_0-1-fp32-train")
    cmd = hung.find("pre", cls="cmd").text
    assert cmd.startswith("python3 -m paddle.distributed.launch --gpus=0,1 --log_dir=")
    assert "no log output for 300 s" in hung.find("div", cls="reason").text
    assert [a.text for a in hung.find_all("a") if a.text.startswith("workerlog")] == ["workerlog.0", "workerlog.1"]
    tails = hung.find_all("pre", cls="log")
    assert tails[-1].text.endswith("NCCL rank 1 died") and "failing rank: workerlog.1" in hung.text
    passed = doc.find("details", id="stage-norm_train-gpus_-1-fp32-train")
    assert "open" not in passed.attrs
    figures = passed.find("dl", cls="figures")
    assert {d.find("dt").text: d.find("dd").text for d in figures.find_all("div")} == {
        "ips": "120.5",
        "loss": "12.3",
        "steps": "4",
    }
    assert hung.find_all("dl", cls="figures") == []  # nothing parsed, nothing shown
    log_link = next(a for a in passed.find_all("a") if a.text.startswith("full log"))
    assert log_link.attrs["href"] == "../../../../results/norm_train-gpus_-1-fp32/train.log"


def test_verdict_and_header(single_run, tmp_path):
    _, doc, _ = render([single_run], tmp_path / "reports")
    assert doc.find(id="verdict").attrs["data-overall"] == "failed"
    counts = {c.attrs["data-status"]: int(c.attrs["data-count"]) for c in doc.find(id="counts").find_all("span")}
    assert counts == {"passed": 5, "failed": 2, "timeout": 1, "hung": 1, "blocked": 3, "skipped": 1}
    facts = {div.find("dt").text: div.find("dd").text.strip() for div in doc.find(id="facts").find_all("div")}
    assert {
        k: facts[k] for k in ("config", "config sha256", "overrides", "tipc", "paddle", "device", "node", "duration")
    } == {
        "config": "test_tipc/configs/rec/train_infer_python.txt",
        "config sha256": "ab" * 8,
        "overrides": "--device=cpu",
        "tipc": "0.1.0",
        "paddle": "3.3.1",
        "device": "cpu",
        "node": "127.0.0.1",
        "duration": "2m 00s",
    }
    assert facts["python"].split() == ["3.11.2", "/usr/bin/python3"]
    assert facts["started"].startswith(time.strftime("%Y-%m-%d", time.localtime(T0)))
    h1 = doc.find("h1").text
    assert "PP-OCRv3_mobile_rec" in h1 and "lite_train_lite_infer" in h1


def test_svg_plots_carry_the_benchmark_points(single_run, tmp_path):
    _, doc, _ = render([single_run], tmp_path / "reports")
    time_plot, tput_plot = doc.find("svg", id="plot-1-inference-ms"), doc.find("svg", id="plot-1-throughput")
    titles = [c.find("title").text for c in time_plot.find_all("circle", cls="point")]
    assert titles == [
        "cpu fp32 mkldnn=False threads=1: batch size 1 → 60.2 ms",
        "cpu fp32 mkldnn=False threads=1: batch size 6 → 374.8 ms",
    ]
    tput = [c.find("title").text for c in tput_plot.find_all("circle", cls="point")]
    assert tput == [
        "cpu fp32 mkldnn=False threads=1: batch size 1 → 16.61 samples/s",
        "cpu fp32 mkldnn=False threads=1: batch size 6 → 16.01 samples/s",
    ]
    rows = doc.find("table", id="perf").find("tbody").find_all("tr")
    assert len(rows) == 2
    # each row names the chain it measured and links to that infer stage's details
    links = [row.find("a") for row in rows]
    assert {a.text for a in links} == {CPU_CHAIN}
    assert all(doc.find("details", id=a.attrs["href"][1:]).attrs["data-status"] == "passed" for a in links)


def test_comparison_with_the_previous_run_from_history(tmp_path):
    out = tmp_path / "reports"
    earlier = single_node_run(tmp_path / "r1", T0 - DAY, pact=Status.PASSED, cpu_bs6_ms=250.0)
    write_report([earlier], out)
    now = single_node_run(tmp_path / "r2", T0, mkldnn_bs1=Status.PASSED)
    _, doc, _ = render([now], out)
    items = {
        k: [li.attrs["data-stage"] for li in doc.find(id=f"cmp-{k}").find_all("li")] for k in ("new", "fixed", "still")
    }
    assert items == {
        "new": [f"{PACT_CHAIN}::train"],
        "fixed": [f"{CPU_CHAIN}::infer[{label(CASES[2])}]"],
        "still": [f"{CPU_CHAIN}::infer[{label(CASES[3])}]", f"{DIST_CHAIN}::train"],
    }
    moves = {
        tr.attrs["data-figure"]: tr.find_all("td")[-1]
        for tr in doc.find(id="cmp-moves").find_all("tr")
        if "data-figure" in tr.attrs
    }
    assert moves["inference time"].text == "+49.9%" and "worse" in moves["inference time"].classes
    assert moves["throughput"].text == "-33.3%"
    assert doc.find(id="history").find("a").attrs["href"] == "../20260920T141320Z/index.html"
    assert "20260920T141320Z" in doc.find(id="comparison").find("h2").text
    # Comparing with the earlier *results* directory gives the same lists.
    _, again, _ = render([now], tmp_path / "other", compare=earlier)
    assert [li.attrs["data-stage"] for li in again.find(id="cmp-new").find_all("li")] == items["new"]


def test_no_comparison_without_history(single_run, tmp_path):
    _, doc, _ = render([single_run], tmp_path / "reports", history=False)
    assert not doc.find_all(id="comparison")


def test_multi_node_merged_view(multi_run, tmp_path):
    _, doc, _ = render(list(multi_run), tmp_path / "reports")
    cells = matrix_cells(doc)
    infer = f"infer[{label(CASES[0])}]"
    assert cells[(FLEET_CHAIN + " @node 0 · 127.0.0.2", infer)].attrs["data-status"] == "passed"
    n1 = cells[(FLEET_CHAIN + " @node 1 · 127.0.0.3", "export")]
    assert n1.attrs["data-status"] == "skipped" and "trainer 0 owns the model" in n1.text
    assert cells[(ONE_CHAIN + " @node 0 · 127.0.0.2", "export")].attrs["data-status"] == "none"
    assert [tr.find("td").text for tr in doc.find("table", id="nodes").find("tbody").find_all("tr")] == ["0", "1"]
    speedup = doc.find("table", id="speedup").find("tbody").find("tr").find_all("td")
    assert speedup[2].text == FLEET_CHAIN and speedup[-1].text == "2.44×"  # (100 + 95) / 80


def test_a_mode_dir_with_node_subdirs_is_expanded(multi_run, tmp_path):
    _, doc, _ = render([multi_run[0].parent], tmp_path / "reports")
    assert len(doc.find("table", id="nodes").find("tbody").find_all("tr")) == 2


def test_a_merged_results_dir_shows_every_node(multi_run, tmp_path):
    for d in multi_run:
        (d / "results_python.log").write_text("Run successfully with command - m - cmd - log\n")
    merged = merge_dirs(list(multi_run), tmp_path / "merged")
    _, doc, _ = render([merged], tmp_path / "reports")
    nodes = [[td.text for td in tr.find_all("td")[:2]] for tr in doc.find("table", id="nodes").find_all("tr")[1:]]
    assert nodes == [["0", "127.0.0.2"], ["1", "127.0.0.3"]]
    assert matrix_cells(doc)[(FLEET_CHAIN + " @node 1 · 127.0.0.3", "export")].attrs["data-status"] == "skipped"


@pytest.mark.parametrize(
    "breakage, message",
    [
        ("no-run-json", "run.json: missing; expected a tipc results directory"),
        ("bad-line", "results.jsonl:2: not a stage record"),
    ],
    ids=["missing-file", "bad-line"],
)
def test_bad_results_dir_names_file_and_line(single_run, tmp_path, breakage, message):
    if breakage == "no-run-json":
        (single_run / "run.json").unlink()
    else:
        lines = (single_run / "results.jsonl").read_text().splitlines()
        (single_run / "results.jsonl").write_text("\n".join([lines[0], "{not json", *lines[1:]]))
    with pytest.raises(ResultsError) as exc:
        write_report([single_run], tmp_path / "reports")
    assert message in str(exc.value)
