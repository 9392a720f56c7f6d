"""Render the matrix report of 100 configs with 30 nights of history; print the time and the HTML size.

Budget (exit 1 when exceeded): under 1 s, HTML under 150 kB. The time is a run's: the template
compiled once, the history read. Each config is a row of a few figures (the per-config reports
hold the detail), and history is one small summary per night, read newest first for at most
``LOOK_BACK`` nights.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from tipc.history.matrix import remember
from tipc.history.store import HISTORY_FILE
from tipc.report.overview import ConfigOutcome, build_page
from tipc.report.overview_write import MATRIX, write_overview
from tipc.results.records import StageRecord, Status

CONFIGS = 100
NIGHTS = 30
BUDGET_SECONDS = 1.0
BUDGET_BYTES = 150_000
MODE = "lite_train_lite_infer"


def stage(sid: str, status: Status, **metrics: object) -> StageRecord:
    chain, name = sid.split("::")
    return StageRecord(
        id=sid, kind=name.split("[")[0], chain=chain, status=status, start=1.79e9, duration=30.0, metrics=metrics
    )


def config(root: Path, i: int) -> ConfigOutcome:
    name = f"model_{i:03d}/train_linux_gpu_normal_normal_infer_python_linux_gpu_cpu.txt"
    if i % 20 == 19:
        return ConfigOutcome(name, MODE, problem=f"/zoo/{name}:17: expected key 'pact_train', found 'quant_train'")
    chain = "norm_train-gpus_0-fp32"
    records = [
        stage(f"{chain}::train", Status.FAILED if i % 10 == 3 else Status.PASSED, ips=100.0 + i),
        stage(f"{chain}::eval", Status.PASSED, acc=0.9, norm_edit_dis=0.95),
        stage(f"{chain}::export", Status.PASSED),
    ]
    for bs in (1, 6):
        for threads in (1, 6):
            case = f"cpu-mkldnn_True-threads_{threads}-fp32-bs{bs}"
            records.append(
                stage(f"{chain}::infer[{case}]", Status.PASSED, inference_ms=10.0 * bs / threads, batch_size=bs)
            )
    report = root / f"model_{i:03d}" / MODE / "latest" / "index.html"
    return ConfigOutcome(name, MODE, ("linux_gpu", "normal"), f"model_{i:03d}", tuple(records), report)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        outcomes = [config(root, i) for i in range(CONFIGS)]
        rows = build_page("", outcomes, root, {}).rows
        store = root / HISTORY_FILE
        for night in range(NIGHTS):
            remember(store, root / MATRIX, f"202611{night + 1:02d}T013000Z-00000000", rows, print)
        start = time.perf_counter()
        index = write_overview(outcomes, root, "20261201T013000Z-00000000", store=store)
        seconds = time.perf_counter() - start
        size = index.stat().st_size
    ok = seconds <= BUDGET_SECONDS and size <= BUDGET_BYTES
    print(
        f"matrix_speed: {CONFIGS} configs with {NIGHTS} nights of history rendered in {seconds * 1000:.0f} ms "
        f"(budget {BUDGET_SECONDS:.0f} s); HTML {size / 1000:.0f} kB (budget {BUDGET_BYTES // 1000} kB)"
        + ("" if ok else " -- OVER BUDGET")
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
