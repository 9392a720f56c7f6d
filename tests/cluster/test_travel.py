"""Results that travel: shards written on two runners' checkouts, merged, then the output tree copied
to another machine (another path) and reported there: logs and predictions still found."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from PIL import Image

from tests.support.htmlq import parse
from tests.support.recorded_runs import CPU_CHAIN, case
from tipc.cluster.merge import merge
from tipc.report import write_report
from tipc.results.folder import ResultsDir, read_records, shard_folder
from tipc.results.records import RunInfo, StageRecord, Status

MODEL, MODE, GROUP = "PP-OCRv3_mobile_rec", "lite_train_lite_infer", "gitlab-77"
PREDICTS = "[2026/12/01 01:52:42] ppocr INFO: Predicts of inference/w{k}.png:('word{k}', 0.9{k})\n"


def run_shard(output: Path, checkout: Path, k: int, appended: Path | None = None) -> None:
    """Shard ``k`` of 2 as the runner writes it: its logs in ``<mode>/``, its records in its folder;
    ``appended``: a log outside it the stage appended to (the target's ``train.log``)."""
    mode_dir = output / MODEL / MODE
    chain = f"{CPU_CHAIN}{k}"
    log = mode_dir / f"{chain}_infer.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(PREDICTS.format(k=k))
    offsets = {str(log): 0, **({str(appended): 0} if appended else {})}
    info = RunInfo(
        model=MODEL,
        mode=MODE,
        config=str(checkout / "c.txt"),
        run_id=f"R{k}",
        start=100.0 + k,
        shard=f"{k}/2",
        partition="p",
        run_group=GROUP,
    )
    folder = ResultsDir(shard_folder(mode_dir, GROUP, k))
    folder.begin(info)
    folder.append_record(
        StageRecord(
            id=f"{chain}::infer[cpu-bs1]",
            kind="infer",
            chain=chain,
            status=Status.PASSED,
            cwd=str(checkout),
            log=str(log),
            log_offsets=offsets,
            start=100.0 + k,
            duration=1.0,
            model=MODEL,
            mode=MODE,
            config=str(checkout / "c.txt"),
            infer=case(1),
            run_id=f"R{k}",
            shard=f"{k}/2",
        )
    )
    folder.end(info)


def test_a_report_rendered_from_a_copied_tree_has_its_logs_and_predictions(tmp_path):
    output = tmp_path / "runner" / "PaddleOCR" / "test_tipc" / "output"
    for k in (1, 2):  # each shard checked out somewhere else; their outputs land in one tree (CI artifacts)
        run_shard(output, tmp_path / f"build{k}" / "PaddleOCR", k)
    merged = merge([output / MODEL / MODE])
    assert merged.gaps == () and merged.records == 2
    raw = [json.loads(line) for line in (merged.path / "results.jsonl").read_text().splitlines()]
    assert [r["log"] for r in raw] == [f"{CPU_CHAIN}{k}_infer.log" for k in (1, 2)]  # relative to <mode>/
    assert json.loads((merged.path / "run.json").read_text())["folder"] == str(merged.path)  # provenance
    elsewhere = tmp_path / "laptop" / "copy"
    shutil.copytree(output, elsewhere)
    shutil.rmtree(tmp_path / "runner")  # nothing of the first machine is left
    records = read_records(elsewhere / MODEL / MODE / "results.jsonl")
    assert [Path(r.log).is_file() for r in records] == [True, True]
    assert all(Path(k).is_file() for r in records for k in r.log_offsets)
    doc = parse(write_report([elsewhere / MODEL / MODE], tmp_path / "reports").read_text(encoding="utf-8"))
    logs = [p.text for p in doc.find_all("pre", cls="log")]
    assert any("Predicts of inference/w1.png" in t for t in logs) and any("w2.png" in t for t in logs)
    predicted = [s.attrs["data-text"] for s in doc.find_all("span", cls="pred")]
    assert sorted(predicted) == ["word1", "word2"]


def test_a_checkout_moved_with_its_results_keeps_its_images(tmp_path):
    checkout = tmp_path / "build1" / "PaddleOCR"  # a runner's build directory, results under the checkout
    output = checkout / "test_tipc" / "output"
    (checkout / "inference").mkdir(parents=True)
    (checkout / "output").mkdir()
    (checkout / "output" / "train.log").write_text("epoch 1\n")
    for k in (1, 2):
        Image.new("RGB", (32, 8), "white").save(checkout / "inference" / f"w{k}.png")
        run_shard(output, checkout, k, appended=checkout / "output" / "train.log")
    merged = merge([output / MODEL / MODE])
    raw = [json.loads(line) for line in (merged.path / "results.jsonl").read_text().splitlines()]
    assert {r["cwd"] for r in raw} == {"../../../.."}  # the checkout, seen from <mode>/
    assert {k for r in raw for k in r["log_offsets"]} >= {"../../../../output/train.log"}
    moved = tmp_path / "laptop" / "PaddleOCR"
    shutil.copytree(checkout, moved)
    shutil.rmtree(tmp_path / "build1")
    records = read_records(moved / "test_tipc" / "output" / MODEL / MODE / "results.jsonl")
    assert {r.cwd for r in records} == {str(moved)}
    assert all(Path(k).is_file() for r in records for k in r.log_offsets)
    doc = parse(write_report([moved / "test_tipc" / "output" / MODEL / MODE], tmp_path / "reports").read_text())
    assert len(doc.find_all("image")) == 2  # both images found where the checkout is now


def test_records_written_before_relative_paths_still_read(tmp_path):
    folder = tmp_path / MODEL / MODE
    folder.mkdir(parents=True)
    old = StageRecord(id="c::train", kind="train", chain="c", status=Status.PASSED, log="/old/machine/train.log")
    (folder / "results.jsonl").write_text(old.to_json() + "\n")
    assert read_records(folder / "results.jsonl") == [old]
