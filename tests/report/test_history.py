"""Report history by run id: one report directory per run, baselines of the same config chosen by
run id, history that survives corrupt summaries, records carried over from earlier runs marked."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from tests.support.htmlq import Element, matrix_cells, parse
from tests.support.recorded_runs import (
    CASES,
    CPU_CHAIN,
    PACT_CHAIN,
    T0,
    ResultsWriter,
    label,
    multi_node_runs,
    single_node_run,
)
from tipc.cluster.merge import merge_dirs
from tipc.errors import ResultsError
from tipc.history.keys import config_key
from tipc.history.store import HISTORY_FILE, History
from tipc.report import write_report
from tipc.report.load import load_runs
from tipc.report.write import summarize_runs
from tipc.results.records import Status

MODE_DIR = ("PP-OCRv3_mobile_rec", "lite_train_lite_infer")
DAY = 86_400.0
ID_A = "20260921T141320Z-1a2b3c4d"
ID_B = "20260921T141320Z-9f8e7d6c"  # the same second as ID_A, sorting after it
ID_LATER = "20260922T141320Z-00aa11bb"
CONFIG_A = "test_tipc/configs/rec/train_infer_python.txt"
CONFIG_B = "test_tipc/configs/rec/train_pact_infer_python.txt"


def doc_of(index: Path) -> Element:
    return parse(index.read_text(encoding="utf-8"))


def cmp_items(doc: Element) -> dict[str, list[str]]:
    return {
        k: [li.attrs["data-stage"] for li in doc.find(id=f"cmp-{k}").find_all("li")] for k in ("new", "fixed", "still")
    }


# --- one directory per run, named by its run id ---


@pytest.mark.parametrize(
    "first, second, first_dir, second_dir",
    [
        ((ID_A, T0), (ID_B, T0), ID_A, ID_B),
        ((ID_A, T0), (ID_LATER, T0 + DAY), ID_A, ID_LATER),
        (("", T0), ("", T0 + 1), "20260921T141320Z", "20260921T141321Z"),
    ],
    ids=["same-second", "a-day-apart", "before-run-ids-by-start-time"],
)
def test_each_run_gets_its_own_report_and_compares_with_the_one_before(tmp_path, first, second, first_dir, second_dir):
    out = tmp_path / "reports"
    mode_dir = out.joinpath(*MODE_DIR)
    one = write_report([single_node_run(tmp_path / "r1", first[1], run_id=first[0])], out)
    two = write_report([single_node_run(tmp_path / "r2", second[1], run_id=second[0], pact=Status.PASSED)], out)
    assert (one, two) == (mode_dir / first_dir / "index.html", mode_dir / second_dir / "index.html")
    assert one.is_file() and "tipc" in one.read_text()  # the first run's report is still there
    assert [p.name for p in two.parent.iterdir()] == ["index.html"]  # its summary is the store's
    summary = json.loads(History(mode_dir / HISTORY_FILE).reports(*MODE_DIR)[0].text)
    assert (summary["schema"], summary["run_id"], summary["config"]) == (2, second[0], config_key(CONFIG_A))
    doc = doc_of(two)
    assert first_dir in doc.find(id="comparison").find("h2").text
    assert cmp_items(doc)["fixed"] == [f"{PACT_CHAIN}::train"]
    assert [a.attrs["href"] for a in doc.find(id="history").find_all("a")] == [f"../{first_dir}/index.html"]
    assert os.readlink(mode_dir / "latest") == second_dir
    redirect = parse((mode_dir / "latest.html").read_text())
    assert redirect.find("meta", http_equiv="refresh").attrs["content"] == f"0; url={second_dir}/index.html"
    facts = {div.find("dt").text: div.find("dd").text.strip() for div in doc.find(id="facts").find_all("div")}
    assert facts["run"] == (second[0] or "–")


@pytest.mark.parametrize(
    "config, against",
    [
        (CONFIG_A, "20260921T141320Z-aaaaaaaa"),
        (CONFIG_B, "20260921T141321Z-bbbbbbbb"),
    ],
    ids=["config-a", "config-b"],
)
def test_two_configs_in_one_mode_folder_compare_with_their_own(tmp_path, config, against):
    """A and B share model and mode; the newest earlier report is B's, but A compares with A's."""
    out = tmp_path / "reports"
    write_report([single_node_run(tmp_path / "a1", T0, run_id="20260921T141320Z-aaaaaaaa", config=CONFIG_A)], out)
    write_report(
        [
            single_node_run(
                tmp_path / "b1",
                T0 + 1,
                run_id="20260921T141321Z-bbbbbbbb",
                config=CONFIG_B,
                pact=Status.PASSED,
                mkldnn_bs1=Status.PASSED,
            )
        ],
        out,
    )
    index = write_report([single_node_run(tmp_path / "now", T0 + DAY, run_id=ID_LATER, config=config)], out)
    doc = doc_of(index)
    assert against in doc.find(id="comparison").find("h2").text
    # A failed the PACT train before, B passed it: "still failing" against A, "new" against B.
    expected = "still" if config == CONFIG_A else "new"
    assert f"{PACT_CHAIN}::train" in cmp_items(doc)[expected]


# --- history survives corrupt summaries ---

CORRUPT = {
    "bad-json": b'{"schema": 2, "model": ',
    "wrong-types": b'{"schema": 2, "model": "PP-OCRv3_mobile_rec", "mode": "lite_train_lite_infer", "stages": "all"}',
    "unknown-status": (
        b'{"model": "PP-OCRv3_mobile_rec", "mode": "lite_train_lite_infer", '
        b'"stages": [{"id": "x", "status": "on fire"}]}'
    ),
    "invalid-utf8": b'{"model": "\xff\xfe"}',
    "empty-file": b"",
    "newer-schema": b'{"schema": 99, "model": "PP-OCRv3_mobile_rec", "mode": "lite_train_lite_infer", "stages": []}',
    "a-directory": None,
}


def corrupt_summary(report_dir: Path, kind: str) -> Path:
    path = report_dir / "summary.json"
    report_dir.mkdir(parents=True, exist_ok=True)
    path.mkdir() if CORRUPT[kind] is None else path.write_bytes(CORRUPT[kind])
    return path


def old_report(results: Path, out: Path, run_id: str) -> Path:
    """A report as tipcs before the history store wrote it: its page and, beside it, its summary."""
    write_report([single_node_run(results, T0, run_id=run_id)], out)
    mode_dir = out.joinpath(*MODE_DIR)
    (mode_dir / HISTORY_FILE).unlink()
    (mode_dir / run_id / "summary.json").write_text(summarize_runs(load_runs([results])).to_json())
    return mode_dir / run_id


@pytest.mark.parametrize("kind", list(CORRUPT))
def test_a_corrupt_summary_in_history_is_skipped_with_a_warning(tmp_path, kind):
    out = tmp_path / "reports"
    mode_dir = out.joinpath(*MODE_DIR)
    old_report(tmp_path / "r1", out, ID_A)
    bad = corrupt_summary(mode_dir / ID_B, kind)  # between the good one and this run
    warnings: list[str] = []
    index = write_report([single_node_run(tmp_path / "r2", T0 + DAY, run_id=ID_LATER)], out, warn=warnings.append)
    assert index.is_file() and not (index.parent / "summary.json").exists()  # read once, never written again
    assert len(warnings) == 1 and str(bad) in warnings[0]
    doc = doc_of(index)
    assert ID_A in doc.find(id="comparison").find("h2").text
    assert [a.text for a in doc.find(id="history").find_all("a")] == [ID_A]
    assert [r.run for r in History(mode_dir / HISTORY_FILE).reports(*MODE_DIR)] == [ID_LATER, ID_A]  # imported


def test_deleting_old_reports_loses_no_history(tmp_path):
    out = tmp_path / "reports"
    mode_dir = out.joinpath(*MODE_DIR)
    write_report([single_node_run(tmp_path / "r1", T0, run_id=ID_A)], out)
    write_report([single_node_run(tmp_path / "r2", T0 + 1, run_id=ID_B)], out)
    shutil.rmtree(mode_dir / ID_A)
    shutil.rmtree(mode_dir / ID_B)
    doc = doc_of(write_report([single_node_run(tmp_path / "r3", T0 + DAY, run_id=ID_LATER)], out))
    assert ID_B in doc.find(id="comparison").find("h2").text  # the baseline, from the store
    earlier = doc.find(id="history")
    assert [a.text for a in earlier.find_all("span", cls="run")] == [ID_B, ID_A]  # pages gone: named, not linked
    assert not earlier.find_all("a")


def test_without_a_warn_sink_history_warnings_go_to_stderr(tmp_path, capsys):
    out = tmp_path / "reports"
    bad = corrupt_summary(out.joinpath(*MODE_DIR, ID_A), "bad-json")
    index = write_report([single_node_run(tmp_path / "r", T0 + DAY, run_id=ID_LATER)], out)
    assert index.is_file()
    assert f"skipped report history entry {bad}" in capsys.readouterr().err


@pytest.mark.parametrize("via", ["report-dir", "mode-dir"])
@pytest.mark.parametrize("kind", list(CORRUPT))
def test_a_corrupt_compare_target_is_an_error_naming_the_file(tmp_path, kind, via):
    mode_dir = tmp_path / "old" / "m" / "mode"
    bad = corrupt_summary(mode_dir / ID_A, kind)
    if via == "mode-dir":
        os.symlink(ID_A, mode_dir / "latest")
    target = mode_dir / ID_A if via == "report-dir" else mode_dir
    with pytest.raises(ResultsError) as exc:
        write_report([single_node_run(tmp_path / "r", run_id=ID_B)], tmp_path / "reports", compare=target)
    assert Path(exc.value.path).resolve() == bad.resolve() and str(exc.value).startswith(exc.value.path)


@pytest.mark.parametrize("via", ["report-dir", "mode-dir", "latest-link", "report-dir-from-before-the-store"])
def test_compare_with_a_report_folder_finds_its_run_in_the_history(tmp_path, via):
    """The folder keeps its page alone: its run (the folder's name) is found in the store beside it, or in
    the summary an older tipc wrote there."""
    old = tmp_path / "old"
    if via == "report-dir-from-before-the-store":
        target = old_report(tmp_path / "r1", old, ID_A)
    else:
        target = write_report([single_node_run(tmp_path / "r1", T0, run_id=ID_A)], old).parent
    target = {"mode-dir": target.parent, "latest-link": target.parent / "latest"}.get(via, target)
    now = single_node_run(tmp_path / "r2", T0 + DAY, run_id=ID_LATER, pact=Status.PASSED)
    doc = doc_of(write_report([now], tmp_path / "reports", compare=target))
    assert ID_A in doc.find(id="comparison").find("h2").text
    assert cmp_items(doc)["fixed"] == [f"{PACT_CHAIN}::train"]


def test_compare_with_a_report_the_history_does_not_keep_says_what_to_give(tmp_path):
    earlier = write_report([single_node_run(tmp_path / "r1", T0, run_id=ID_A)], tmp_path / "old", history=False)
    with pytest.raises(ResultsError) as exc:
        write_report([single_node_run(tmp_path / "r2", T0 + DAY, run_id=ID_LATER)], tmp_path / "reports",
                     compare=earlier.parent)  # fmt: skip
    assert exc.value.path == str(earlier.parent)
    assert "--no-history is not kept: give its results directory" in str(exc.value)


# --- records carried over from earlier runs ---

EARLIER = "20260920T080000Z-0badcafe"


def carried_run(root: Path, carried: dict[str, tuple[Status, str]], own: dict[str, Status]) -> Path:
    """One chain: ``carried`` stages (status, the run id that made them), then this run's ``own``."""
    w = ResultsWriter(root, run_id=ID_B)
    for name, status in own.items():
        w.add(CPU_CHAIN, name, status, metrics={"ips": 50.0} if name == "train" else {})
    for name, (status, run_id) in carried.items():
        w.add(
            CPU_CHAIN,
            name,
            status,
            run_id=run_id,
            reason="earlier reason",
            metrics={"ips": 10.0} if name == "train" else {},
        )
    return w.write()


INFER = f"infer[{label(CASES[0])}]"


@pytest.mark.parametrize(
    "carried, own, verdict, counts",
    [
        (
            {"eval": (Status.FAILED, EARLIER), "export": (Status.BLOCKED, "")},
            {"train": Status.PASSED, INFER: Status.PASSED},
            "passed",
            {"passed": 2},
        ),
        (
            {"train": (Status.PASSED, EARLIER)},
            {"eval": Status.FAILED, "export": Status.BLOCKED},
            "failed",
            {"failed": 1, "blocked": 1},
        ),
        ({"train": (Status.FAILED, EARLIER)}, {"eval": Status.BLOCKED}, "incomplete", {"blocked": 1}),
        ({"train": (Status.PASSED, EARLIER), "eval": (Status.PASSED, EARLIER)}, {}, "empty", {}),
    ],
    ids=[
        "carried-failure-does-not-fail-the-run",
        "own-failure-fails-it",
        "own-blocked-is-incomplete",
        "nothing-of-its-own",
    ],
)
def test_carried_records_are_marked_and_not_counted(tmp_path, carried, own, verdict, counts):
    index = write_report([carried_run(tmp_path / "r", carried, own)], tmp_path / "reports")
    doc = doc_of(index)
    assert doc.find(id="verdict").attrs["data-overall"] == verdict
    assert verdict in doc.find("header").attrs["class"].split()
    assert doc.find("title").text.endswith({"empty": "no stages"}.get(verdict, verdict))
    chips = {
        c.attrs["data-status"]: int(c.attrs["data-count"])
        for c in doc.find(id="counts").find_all("span")
        if "data-status" in c.attrs
    }
    assert {s: n for s, n in chips.items() if n} == counts
    assert doc.find(id="carried").attrs["data-count"] == str(len(carried))
    assert f"+ {len(carried)} from earlier runs" in doc.find(id="carried").text
    cells = matrix_cells(doc)
    for name, (status, run_id) in carried.items():
        td = cells[(CPU_CHAIN, name)]
        said = f"from earlier run {run_id}" if run_id else "from an earlier run (before run ids)"
        assert "carried" in td.classes and td.attrs["data-status"] == status.value
        assert said in td.find("span", cls="why").text and said in td.find("a").attrs["title"]
        details = doc.find("details", id=td.find("a").attrs["href"][1:])
        assert "carried" in details.classes and said in details.find("span", cls="from").text
        assert "open" not in details.attrs
    for name in own:
        assert "carried" not in cells[(CPU_CHAIN, name)].classes
    train_rows = doc.find_all("table", id="train")  # figures are this run's only
    ips = [tr.find_all("td")[2].text for tr in train_rows[0].find("tbody").find_all("tr")] if train_rows else []
    assert ips == (["50"] if "train" in own else [])
    summary = json.loads(History(index.parent.parent / HISTORY_FILE).reports(*MODE_DIR)[0].text)
    assert {s["id"].split("::")[1]: s["carried"] for s in summary["stages"]} == {
        **dict.fromkeys(carried, True),
        **dict.fromkeys(own, False),
    }


def test_comparison_counts_only_this_runs_records(tmp_path):
    out = tmp_path / "reports"
    before = ResultsWriter(tmp_path / "r0", start=T0 - DAY, run_id=EARLIER)
    for name in ("train", "eval", "export"):
        before.add(CPU_CHAIN, name, Status.PASSED)
    write_report([before.write()], out)
    now = carried_run(
        tmp_path / "r1",
        {"eval": (Status.FAILED, "20260920T090000Z-12345678")},
        {"train": Status.PASSED, "export": Status.FAILED},
    )
    assert cmp_items(doc_of(write_report([now], out))) == {"new": [f"{CPU_CHAIN}::export"], "fixed": [], "still": []}


def test_a_merged_folder_counts_every_nodes_own_run(tmp_path):
    """Each node draws its own run id; the merged run.json carries node 0's only."""
    nodes = multi_node_runs(tmp_path / "results", (ID_A, "20260921T141321Z-77777777"))
    for d in nodes:
        (d / "results_python.log").write_text("Run successfully with command - m - cmd - log\n")
    doc = doc_of(write_report([merge_dirs(list(nodes), tmp_path / "merged")], tmp_path / "reports"))
    assert not doc.find_all(id="carried") and not doc.find_all("td", cls="carried")
    assert doc.find(id="verdict").attrs["data-overall"] == "passed"


# --- fresh log parts ---


def test_stage_details_show_only_this_stages_part_of_appended_logs(tmp_path):
    w = ResultsWriter(tmp_path / "r", run_id=ID_B)
    earlier = "step 1\nTraceback (most recent call last):\nOLD FAILURE of an earlier run\n"
    launch = tmp_path / "r" / "S_launch_log"
    launch.mkdir(parents=True)
    (launch / "workerlog.0").write_text(earlier + "NEW rank 0 waiting\n")
    (launch / "workerlog.1").write_text("step 1\nNEW Traceback (most recent call last):\nrank 1 died\n")
    rec = w.add(
        CPU_CHAIN,
        "train",
        Status.FAILED,
        earlier + "NEW train output\n",
        returncode=1,
        argv=("python3", "-m", "paddle.distributed.launch", f"--log_dir={launch}", "tools/train.py"),
    )
    w.records[-1] = replace(
        rec,
        log_offsets={rec.log: len(earlier), str(launch / "workerlog.0"): len(earlier), str(launch / "workerlog.1"): 0},
    )
    doc = doc_of(write_report([w.write()], tmp_path / "reports"))
    details = doc.find("details", id=f"stage-{CPU_CHAIN.replace(',', '-')}-train")
    own_log, worker = (pre.text for pre in details.find_all("pre", cls="log"))
    assert own_log == "NEW train output"
    assert "failing rank: workerlog.1" in details.text and worker.endswith("rank 1 died")
