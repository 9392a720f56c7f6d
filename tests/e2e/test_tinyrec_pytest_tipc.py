"""The reference target's chains end to end through ``pytest tipc``.

Real paddle training on lite synthetic data: train → eval → export (Student) →
predict at batch sizes 1 and 6 with ``--benchmark True``, and the 2-process CPU
chain through ``paddle.distributed.launch``, in one ``pytest tipc`` run with two
``--config`` values. Asserts on the real artifacts and the parsed figures. Then a second
night of the CPU config (``make demo`` again) in a copy of that folder: its report shows every
benchmark figure's trend over both nights, and judges none of them yet;
and a re-run of its training in another copy, with no data: the trainer exits 0 without writing a
checkpoint (PaddleOCR's contract), and the first night's checkpoint must not make it pass.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.support.htmlq import parse
from tests.support.tinyrec import pytest_tipc_argv
from tipc.history.store import HISTORY_FILE, History

pytestmark = pytest.mark.slow  # `make test` (xdist loadfile) runs the module on one worker: one `run`

LITE = "lite_train_lite_infer"
CPU_CONFIG = "tinyrec/train_linux_cpu_normal_normal_infer_python_linux_cpu.txt"
NPROC2_CONFIG = "tinyrec/train_linux_cpu_nproc2_normal_infer_python_linux_cpu.txt"
INFER_IMAGES = 8  # test_configs/tinyrec/target.yaml: lite infer count
OUT = Path("test_tipc/output/tinyrec") / LITE
# What `tipc prepare` draws into the 8 lite infer images (seed 0), in file order.
LITE_LABELS = ["krd", "s7k", "vrr4", "mmk70", "58nx", "etc3gc", "0kav", "1tv"]


@pytest.fixture(scope="module")
def run(tinyrec, tmp_path_factory):
    """One ``pytest tipc`` run of both configs; rootdir in tmp so reports and caches stay there."""
    here = tmp_path_factory.mktemp("run")
    (here / "pytest.ini").write_text("[pytest]\n")
    argv = pytest_tipc_argv(here, "--config", CPU_CONFIG, "--config", NPROC2_CONFIG, "--mode", LITE,
                            "--tipc-repo", str(tinyrec), "--tipc-device", "cpu", "--tipc-report-dir", str(here / "reports"),
                            "--junitxml", str(here / "junit.xml"))  # fmt: skip
    done = subprocess.run(argv, cwd=here, capture_output=True, text=True, timeout=600)
    records = [json.loads(line) for line in (tinyrec / OUT / "results.jsonl").read_text().splitlines()]
    return done, {r["id"]: r for r in records}, here


def test_every_stage_of_both_chains_passed(run):
    done, records, _ = run
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    ran = {i: r["status"] for i, r in records.items() if r["status"] != "skipped"}
    expected = [
        f"{chain}::{name}"
        for chain in ("norm_train-gpus_-1-fp32", "norm_train-gpus_0,1-fp32")
        for name in (
            "train",
            "eval",
            "export",
            "infer[cpu-mkldnn_False-threads_2-fp32-bs1]",
            "infer[cpu-mkldnn_False-threads_2-fp32-bs6]",
        )
    ]
    # The CPU config ships goldens (test_configs/tinyrec/golden/): its chain ends with their check.
    assert ran == dict.fromkeys([*expected, "norm_train-gpus_-1-fp32::golden"], "passed")


def test_artifacts_are_real(run, tinyrec):
    for save in ("norm_train_gpus_-1_autocast_fp32", "norm_train_gpus_0,1_autocast_fp32"):
        s = tinyrec / OUT / save
        for name in ("latest.pdparams", "latest.pdopt", "train.log"):
            assert (s / name).is_file() and (s / name).stat().st_size > 0, s / name
        for sub in ("Student", "Teacher"):
            assert (s / sub / "inference.json").is_file() and (s / sub / "inference.pdiparams").is_file()
        assert (tinyrec / OUT / f"{save}.log").read_text() == (s / "train.log").read_text()


def test_benchmark_figures_are_parsed_per_batch_size(run):
    _, records, _ = run
    for bs in (1, 6):
        m = records[f"norm_train-gpus_-1-fp32::infer[cpu-mkldnn_False-threads_2-fp32-bs{bs}]"]["metrics"]
        assert (m["batch_size"], m["precision"], m["runtime_device"]) == (bs, "fp32", "cpu")
        assert m["data_num"] == math.ceil(INFER_IMAGES / bs)  # AutoLog's meaning: batches
        assert m["inference_ms"] > 0 and m["total_s"] > 0 and m["cpu_rss_mb"] > 100
        assert m["gpu_rss_mb"] is None


def test_train_and_eval_figures(run):
    _, records, _ = run
    train = records["norm_train-gpus_-1-fp32::train"]["metrics"]
    assert train["ips"] > 0 and train["loss"] > 0 and train["steps"] > 0
    acc = records["norm_train-gpus_-1-fp32::eval"]["metrics"]["acc"]
    assert 0.0 <= acc <= 1.0


def test_two_process_chain_launched_two_workers(run, tinyrec):
    _, records, _ = run
    train = records["norm_train-gpus_0,1-fp32::train"]
    assert "--nproc_per_node=2" in train["argv"] and "--gpus=0,1" not in " ".join(train["argv"])
    launch_log = tinyrec / OUT / "norm_train_gpus_0,1_autocast_fp32_launch_log"
    assert {p.name for p in launch_log.glob("workerlog.*")} == {"workerlog.0", "workerlog.1"}
    assert "epoch: [" in (launch_log / "workerlog.0").read_text()


def test_results_python_log_and_report_and_junit(run, tinyrec):
    done, _, here = run
    lines = (tinyrec / OUT / "results_python.log").read_text().splitlines()
    assert len(lines) == 10
    assert all(line.startswith(" Run successfully with command - tinyrec - ") and line.endswith(" ") for line in lines)
    report = here / "reports" / "tinyrec" / LITE / "latest" / "index.html"
    printed = Path(done.stdout.split("tipc: report: ")[1].split()[0])
    assert printed.resolve() == report.resolve()
    html = report.read_text()
    assert html.count("<svg") >= 2 and "norm_train-gpus_0,1-fp32" in html
    props = {p.get("name") for p in ET.parse(here / "junit.xml").iter("property")}
    assert {"stage", "argv", "log", "duration"} <= props


def test_the_cpu_chain_fine_tunes_the_shipped_weights_and_reads_every_image(run):
    """The CPU config starts from examples/tinyrec/pretrained/ (its golden expects real text); the
    nproc2 config trains from scratch and still predicts nothing, which the report says in words."""
    _, records, here = run
    check = records["norm_train-gpus_-1-fp32::golden"]
    assert check["metrics"]["findings"] == 0
    assert check["metrics"]["goldens"][0].endswith(
        "test_configs/tinyrec/golden/train_linux_cpu_normal_normal_infer_python_linux_cpu/lite_train_lite_infer_fp32.yaml"
    )
    assert "empty" not in check["reason"]
    train_argv = records["norm_train-gpus_-1-fp32::train"]["argv"]
    assert "Global.pretrained_model=./pretrained/rec_tiny_distillation" in train_argv
    assert "norm_train-gpus_0,1-fp32::golden" not in records  # the nproc2 config has no goldens
    html = parse((here / "reports" / "tinyrec" / LITE / "latest" / "index.html").read_text())
    cases = {c.attrs["data-case"]: c for c in html.find_all("div", cls="case")}
    for bs in (1, 6):
        cpu = cases[f"norm_train-gpus_-1-fp32::infer[cpu-mkldnn_False-threads_2-fp32-bs{bs}]"]
        assert cpu.attrs["data-empty"] == "0" and cpu.find_all("p", cls="all-empty") == []
        shown = [span.attrs["data-text"] for span in cpu.find_all("span", cls="pred")]
        assert shown == LITE_LABELS[: len(shown)] and shown
        scratch = cases[f"norm_train-gpus_0,1-fp32::infer[cpu-mkldnn_False-threads_2-fp32-bs{bs}]"]
        assert f"({INFER_IMAGES} of {INFER_IMAGES})" in scratch.find("p", cls="all-empty").text


@pytest.fixture(scope="module")
def second_night(run, tinyrec, tmp_path_factory):
    """``make demo`` again, with ``--tipc-fail-on regression``, in a copy of the first night's folder (its
    history store included): the first night is ``run``'s, which ran the CPU config too."""
    here = tmp_path_factory.mktemp("night2")
    repo = Path(shutil.copytree(tinyrec, here / "tinyrec"))
    (here / "pytest.ini").write_text("[pytest]\n")
    argv = pytest_tipc_argv(here, "--config", CPU_CONFIG, "--mode", LITE, "--tipc-repo", str(repo), "--tipc-device", "cpu",
                            "--tipc-fail-on", "regression")  # fmt: skip
    done = subprocess.run(argv, cwd=here, capture_output=True, text=True, timeout=300)
    return done, repo, here


def test_the_second_run_shows_trends_and_says_judging_waits(second_night):
    done, repo, here = second_night
    assert done.returncode == 0, done.stdout[-3000:]
    chain = "norm_train-gpus_-1-fp32"
    doc = parse((here / "reports" / "tinyrec" / LITE / "latest" / "index.html").read_text(encoding="utf-8"))
    rows = {
        (tr.attrs["data-stage"], tr.attrs["data-figure"]): tr
        for tr in doc.find(id="trend-table").find("tbody").find_all("tr")
    }
    cases = [f"{chain}::infer[cpu-mkldnn_False-threads_2-fp32-bs{bs}]" for bs in (1, 6)]
    assert set(rows) == {(f"{chain}::train", "train ips"), (f"{chain}::train", "training peak RSS")} | {
        (case, figure) for case in cases for figure in ("inference time", "throughput", "CPU peak RSS")
    }
    for tr in rows.values():
        assert tr.attrs["data-verdict"] == "learning"
        assert len(tr.find("polyline").attrs["points"].split()) == 2  # both nights, this one last
    assert "this config has 1 so far, so nothing is judged yet" in doc.find(id="trend-rule").text
    assert not doc.find_all(id="regressions")
    store = repo / "test_tipc" / "output" / HISTORY_FILE  # the output root's history, not the report's
    assert len({e.run for e in History(store).series("tinyrec", LITE)}) == 2
    assert float(rows[(f"{chain}::train", "train ips")].find_all("td")[3].text.split()[0]) > 0


SAVE = OUT / "norm_train_gpus_-1_autocast_fp32"


def test_stale_checkpoint_does_not_make_an_empty_training_pass(run, tinyrec, tmp_path):
    _, records, _ = run
    assert records["norm_train-gpus_-1-fp32::train"]["status"] == "passed"  # the first night's, in this folder
    repo = Path(shutil.copytree(tinyrec, tmp_path / "tinyrec"))
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    checkpoint = repo / SAVE / "latest.pdparams"
    stale = checkpoint.stat().st_mtime_ns

    (repo / "train_data/ic15_data/rec_gt_train.txt").write_text("")  # the loader finds no data
    argv = pytest_tipc_argv(tmp_path, "--config", CPU_CONFIG, "--mode", LITE, "-m", "train", "--tipc-repo", str(repo),
                            "--tipc-device", "cpu", "--tipc-no-report")  # fmt: skip
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    lines = (repo / OUT / "results.jsonl").read_text().splitlines()
    info = json.loads((repo / OUT / "run.json").read_text())
    (second,) = [r for r in map(json.loads, lines) if r["kind"] == "train" and r["run_id"] == info["run_id"]]
    assert done.returncode == 1
    assert second["returncode"] == 0 and second["status"] == "failed"
    assert second["reason"] == (
        f"exit code 0 but it did not write ./{SAVE}/latest.pdparams: the file there is "
        "left from an earlier run (unchanged during this stage)"
    )
    assert checkpoint.stat().st_mtime_ns == stale  # the earlier night's checkpoint is left as it was
    assert "No Images in train dataset" in (repo / OUT / second["log"]).read_text()  # relative to <mode>/
    # S.log and the figures are this run's part of the appended train.log: no step of the first run
    this_run = (repo / f"{SAVE}.log").read_text()
    assert "No Images in train dataset" in this_run and "global_step" not in this_run
    assert "global_step" in (repo / SAVE / "train.log").read_text()
    assert second["metrics"].get("steps", 0) == 0
