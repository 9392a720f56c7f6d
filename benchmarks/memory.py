"""The harness's peak memory with huge stage logs: a training that logs ``--size-mb`` (default 1024)
to its stdout and to its ``train.log``, and a predictor whose log is as big, run through ``PlanRun``.

Prints the harness process's peak RSS (its children's memory is theirs) beside the log sizes.
Target: under 300 MB with a 1 GB stage log. Run in a fresh process: the peak is the
process's high-water mark.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_MB = 300.0
# A stage that writes N MiB of PaddleOCR-shaped step lines to stdout and to S/train.log.
WRITER = """
import os, sys
save, mib = sys.argv[1], int(sys.argv[2])
os.makedirs(save, exist_ok=True)
line = ("[2026/11/30 02:34:48] ppocr INFO: epoch: [1/1], global_step: {}, lr: 0.001, loss: 1.5, "
        "avg_reader_cost: 0.001 s, avg_batch_cost: 0.01 s, avg_samples: 4.0, ips: 401.0 samples/s\\n")
with open(os.path.join(save, "train.log"), "w") as log:
    written, step = 0, 0
    while written < mib << 20:
        chunk = "".join(line.format(step + i) for i in range(1000))
        step += 1000
        sys.stdout.write(chunk)
        log.write(chunk)
        written += len(chunk)
with open(os.path.join(save, "latest.pdparams"), "w") as f:
    f.write("weights")
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=1024)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from tipc.dialects.paddleocr.config import load_config
    from tipc.dialects.paddleocr.plan import build_plan
    from tipc.plan import PlanOptions
    from tipc.proc.executor import ProcessExecutor
    from tipc.run.plan_run import PlanRun, RunSettings

    fake = ROOT / "tests" / "fake_target"
    config = fake / "configs" / "fake_rec" / "train_linux_cpu_normal_normal_infer_python_linux_cpu.txt"
    with tempfile.TemporaryDirectory() as tmp:
        plan = build_plan(
            load_config(str(config)), PlanOptions(mode="lite_train_lite_infer", repo=tmp, python=sys.executable)
        )
        chain = plan.chains[0]
        train = replace(chain.stages[0], argv=(sys.executable, "-c", WRITER, chain.save_dir, str(args.size_mb)))
        infer = replace(
            chain.stages[3],
            argv=(sys.executable, "-c", WRITER, f"{chain.save_dir}_infer", str(args.size_mb)),
            requires=(),
        )
        plan = replace(plan, chains=(replace(chain, stages=(train, infer)),))
        run = PlanRun(plan, RunSettings(), ProcessExecutor())
        run.begin()
        records = [run.run_stage(stage) for stage in plan.stages()]
        run.end()
        logs = [Path(r.log).stat().st_size >> 20 for r in records]
        train_log = (Path(tmp) / chain.save_dir / "train.log").stat().st_size >> 20
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"stage logs: train {logs[0]} MiB (+ train.log {train_log} MiB), infer {logs[1]} MiB; "
        f"statuses: {', '.join(r.status.value for r in records)}; train steps parsed: "
        f"{records[0].metrics.get('steps')}"
    )
    print(
        f"harness peak RSS: {peak_mb:.0f} MB (target < {TARGET_MB:g} MB: {'met' if peak_mb < TARGET_MB else 'NOT met'})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
