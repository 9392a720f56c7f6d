"""Render the reports of 100 configs, each with 30 earlier runs in its trend history; print the time
beside the same reports without trends, and the ratio.

Each config is one model and mode (one report folder) with a train stage and 12 inference cases
(38 figures); its ``trends.jsonl`` holds 30 earlier nights of those figures, with noise. Budget
(exit 1 when exceeded): trends add under 15 ms per report. The ratio to the report without them
is printed too; it is large because that report is small (13 stages, a few ms), while the
trend table has a row and a sparkline per figure. The best of ``REPEATS`` rounds is taken for
both, so a busy machine does not decide.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path

from tipc.history.reports import TREND_FILE, RunFigures
from tipc.metrics.noise import TrendPolicy
from tipc.report import write_report
from tipc.report.write import report_mode_dir
from tipc.results.records import RunInfo, StageRecord, Status

CONFIGS, NIGHTS, REPEATS = 100, 30, 3
BATCHES, THREADS = (1, 2, 4, 8, 16, 32), (1, 6)
CHAIN = "norm_train-gpus_-1-fp32"
BUDGET_MS = 15.0


def _cases() -> list[tuple[str, dict[str, float]]]:
    """(stage id, figures) of one run: train ips, then per inference case its time, throughput, memory."""
    out = [(f"{CHAIN}::train", {"ips": 120.0, "peak_rss_mb": 900.0})]
    for threads in THREADS:
        for bs in BATCHES:
            ms = 2.0 * bs / threads + 1.0
            figures = {"inference_ms": ms, "throughput": 1000.0 * bs / ms, "cpu_rss_mb": 400.0}
            out.append((f"{CHAIN}::infer[cpu-mkldnn_False-threads_{threads}-fp32-bs{bs}]", figures))
    return out


def _record(root: Path, model: str, stage: str, figures: dict[str, float]) -> StageRecord:
    kind = stage.split("::")[1].split("[", maxsplit=1)[0]
    bs = stage.rsplit("-bs", 1)[-1].rstrip("]") if kind == "infer" else None
    metrics = {"ips": figures["ips"]} if kind == "train" else {**figures, "batch_size": int(bs or 1)}
    metrics.pop("throughput", None)  # the report derives it
    log = root / f"{stage.replace(':', '_').replace('[', '_').replace(']', '')}.log"
    log.write_text("ok\n")
    return StageRecord(
        id=stage,
        kind=kind,
        chain=CHAIN,
        status=Status.PASSED,
        argv=("python3", f"tools/{kind}.py"),
        cwd=str(root),
        log=str(log),
        returncode=0,
        duration=2.0,
        metrics=metrics,
        model=model,
        mode="lite_train_lite_infer",
        config=f"{model}.txt",
        run_id="20261201T013000Z-00000000",
        peak_rss_mb=figures.get("peak_rss_mb"),
    )


def _config(tmp: Path, n: int, rng: random.Random) -> Path:
    """One config's results folder, and its 30 earlier nights in the trend history of ``tmp/reports``."""
    model = f"model{n:03d}"
    results = tmp / "results" / model
    results.mkdir(parents=True)
    cases = _cases()
    records = [_record(results, model, stage, figures) for stage, figures in cases]
    (results / "results.jsonl").write_text("".join(r.to_json() + "\n" for r in records))
    info = RunInfo(model, "lite_train_lite_infer", f"{model}.txt", run_id=records[0].run_id, start=1.79e9)
    (results / "run.json").write_text(info.to_json())
    nights = [
        RunFigures(
            f"202611{d + 1:02d}T013000Z-{d:08x}",
            f"{model}.txt",
            {(s, 0, k): v * rng.gauss(1.0, 0.03) for s, figures in cases for k, v in figures.items()},
        )
        for d in range(NIGHTS)
    ]
    for out in ("with", "without"):
        mode_dir = report_mode_dir(tmp / out, model, "lite_train_lite_infer")
        mode_dir.mkdir(parents=True)
        (mode_dir / TREND_FILE).write_text("".join(e.to_json() + "\n" for e in nights))
    return results


def _render_all(folders: list[Path], out: Path, trends: TrendPolicy | None) -> float:
    start = time.perf_counter()
    for folder in folders:
        write_report([folder], out, trends=trends)
    return time.perf_counter() - start


def main() -> int:
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        rng = random.Random(1)
        folders = [_config(tmp, n, rng) for n in range(CONFIGS)]
        _render_all(folders[:3], tmp / "warm", None)  # jinja2's compiled templates, for both alike
        without = min(_render_all(folders, tmp / "without", None) for _ in range(REPEATS))
        with_trends = min(_render_all(folders, tmp / "with", TrendPolicy()) for _ in range(REPEATS))
        sample = (report_mode_dir(tmp / "with", "model000", "lite_train_lite_infer") / "latest" / "index.html").stat()
    ratio = with_trends / without
    per_report_ms = (with_trends - without) / CONFIGS * 1000
    ok = per_report_ms <= BUDGET_MS
    print(
        f"trend_speed: {CONFIGS} configs × {NIGHTS} earlier runs ({sum(len(f) for _, f in _cases())} figures each): "
        f"{with_trends:.2f} s with trends, {without:.2f} s without, ratio {ratio:.2f}×; "
        f"trends add {per_report_ms:.1f} ms per report (budget {BUDGET_MS:.0f} ms); "
        f"a report with trends is {sample.st_size / 1024:.0f} kB" + ("" if ok else " -- OVER BUDGET")
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
