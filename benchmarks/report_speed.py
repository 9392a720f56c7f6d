"""Render a report of 500 stages whose logs are 1 MB each; print the time and the HTML size.

Budget (exit 1 when exceeded): render under 5 s, HTML under 4 MiB. Log tails are read
with a seek from the end, so the logs' size must not matter; the page stays small
because tails are capped (80 lines / 16 KiB when a stage did not pass, 20 lines / 4 KiB
when it did) and stage details are collapsed.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from tipc.report import write_report
from tipc.results.records import RunInfo, StageRecord, Status

STAGES = 500
LOG_BYTES = 1 << 20
BUDGET_SECONDS = 5.0
BUDGET_BYTES = 4 << 20
LINE = "[2026/11/30 02:34:48] ppocr INFO: epoch: [1/1], global_step: {i}, lr: 0.001, loss: 12.3, ips: 101.2 samples/s\n"


def write_log(path: Path, i: int) -> None:
    line = LINE.format(i=i)
    path.write_text(line * (LOG_BYTES // len(line)))


def stage(root: Path, n: int) -> StageRecord:
    chain, case = f"norm_train-gpus_{n // 25}-fp32", n % 25
    bs, threads = (1, 2, 4, 8, 16)[case % 5], (1, 2, 4, 6, 8)[case // 5]
    name = "train" if case == 0 else f"infer[cpu-mkldnn_False-threads_{threads}-fp32-bs{bs}]"
    status = (
        Status.PASSED,
        Status.PASSED,
        Status.PASSED,
        Status.FAILED,
        Status.PASSED,
        Status.PASSED,
        Status.PASSED,
        Status.PASSED,
        Status.PASSED,
        Status.TIMEOUT,
    )[n % 10]
    log = root / f"{n}.log"
    write_log(log, n)
    metrics = (
        {"ips": 100.0}
        if case == 0
        else {
            "inference_ms": 10.0 * bs / threads,
            "preprocess_ms": 0.8,
            "postprocess_ms": 3.0,
            "total_s": 1.0,
            "batch_size": bs,
            "cpu_threads": threads,
            "precision": "fp32",
            "runtime_device": "cpu",
            "enable_mkldnn": False,
            "cpu_rss_mb": 400.0,
        }
    )
    return StageRecord(
        id=f"{chain}::{name}",
        kind=name.split("[", maxsplit=1)[0],
        chain=chain,
        status=status,
        argv=("python3", "tools/infer/predict_rec.py", f"--rec_batch_num={bs}"),
        cwd=str(root),
        log=str(log),
        returncode=0 if status is Status.PASSED else 1,
        duration=3.0,
        reason="" if status is Status.PASSED else "exit code 1",
        metrics=metrics,
        model="bench",
        mode="lite_train_lite_infer",
    )


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp) / "results"
        results.mkdir()
        records = [stage(results, n) for n in range(STAGES)]
        (results / "results.jsonl").write_text("".join(r.to_json() + "\n" for r in records))
        info = RunInfo("bench", "lite_train_lite_infer", "bench.txt", start=1.79e9)
        (results / "run.json").write_text(info.to_json())
        start = time.perf_counter()
        index = write_report([results], Path(tmp) / "reports", history=False)
        seconds = time.perf_counter() - start
        size = index.stat().st_size
    ok = seconds <= BUDGET_SECONDS and size <= BUDGET_BYTES
    print(
        f"report_speed: {STAGES} stages with {LOG_BYTES >> 20} MB logs rendered in {seconds:.2f} s "
        f"(budget {BUDGET_SECONDS:.0f} s); HTML {size / (1 << 20):.2f} MiB (budget {BUDGET_BYTES >> 20} MiB)"
        + ("" if ok else " -- OVER BUDGET")
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
