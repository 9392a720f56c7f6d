"""A night at full size, made fast: results folders of thousands of stages whose logs are hard links of
one file (a report reads each log's end, whatever its name; distinct logs would only measure the disk)."""

from __future__ import annotations

import os
from pathlib import Path

from tipc.results.records import RunInfo, StageRecord, Status

MODE = "lite_train_lite_infer"
CASES = 24  # inference cases per chain: 2 devices x 2 precisions x 6 batch sizes / threads
LOG_BYTES = 1 << 20
LINE = "[2026/11/30 02:34:48] ppcls INFO: epoch: [1/1], global_step: {i}, lr: 0.001, loss: 12.3, ips: 101.2 samples/s\n"
# One stage in 40 fails and one in 200 times out: a bad night, so the failures have to be found.
FAILED_EVERY, TIMEOUT_EVERY = 40, 200
LINKS = 50_000


def status_of(n: int) -> Status:
    if n % TIMEOUT_EVERY == TIMEOUT_EVERY - 1:
        return Status.TIMEOUT
    return Status.FAILED if n % FAILED_EVERY == FAILED_EVERY - 1 else Status.PASSED


def record(n: int, log: str, shard: str = "") -> StageRecord:
    chain, case = f"norm_train-gpus_{n // (CASES + 1)}-fp32", n % (CASES + 1)
    name = "train" if case == 0 else f"infer[gpu-trt_False-fp32-bs{case}]"
    status = status_of(n)
    metrics: dict[str, object] = (
        {"ips": 100.0 + n % 7, "loss": 1.5}
        if case == 0
        else {"inference_ms": 3.0 + case, "preprocess_ms": 0.8, "postprocess_ms": 3.0, "batch_size": case}
    )
    return StageRecord(
        id=f"{chain}::{name}",
        kind=name.split("[", maxsplit=1)[0],
        chain=chain,
        status=status,
        argv=("python3", "tools/infer.py", "-c", f"ppcls/configs/{chain}.yaml", f"-o Global.batch_size={case}"),
        cwd=str(Path(log).parent),
        log=log,
        returncode=0 if status is Status.PASSED else 1,
        duration=3.0,
        reason="" if status is Status.PASSED else "exit code 1",
        metrics=metrics,
        model="zoo",
        mode=MODE,
        shard=shard,
    )


def results_folder(folder: Path, stages: int, shard: str = "", first: int = 0, log_bytes: int = LOG_BYTES) -> None:
    """A results folder of ``stages`` records, written one line at a time, with hard-linked logs."""
    folder.mkdir(parents=True)
    logs = folder / "logs"
    logs.mkdir()
    line = LINE.format(i=0)
    text = line * max(1, log_bytes // len(line))
    with (folder / "results.jsonl").open("w") as out:
        for n in range(first, first + stages):
            # one folder per chain, as a suite's output folder per model: a stage's log has ~25 beside it
            log = logs / str(n // (CASES + 1)) / f"{n}.log"
            log.parent.mkdir(exist_ok=True)
            one = logs / f"one-{n // LINKS}.log"  # a file has at most some 65,000 links
            if not one.exists():
                one.write_text(text)
            os.link(one, log)
            out.write(record(n, str(log), shard).to_json() + "\n")
    (folder / "run.json").write_text(RunInfo("zoo", MODE, "zoo.txt", start=1.79e9, shard=shard).to_json())
