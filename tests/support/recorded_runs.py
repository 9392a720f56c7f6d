"""Recorded results, written the way the runner writes them, for the report tests and the browser check."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from tipc.results.records import RunInfo, StageRecord, Status

T0 = 1_790_000_000.0  # a fixed "now" so timestamps (and report directories) are stable
HOSTILE = "<script>alert(1)</script>"
CPU_CHAIN = "norm_train-gpus_-1-fp32"
PACT_CHAIN = "pact_train-gpus_-1-fp32"
DIST_CHAIN = "norm_train-gpus_0,1-fp32"
FPGM_CHAIN = "fpgm_train-gpus_-1-fp32"
FLEET_CHAIN = "norm_train-gpus_127.0.0.2,127.0.0.3;0-fp32"
ONE_CHAIN = "norm_train-gpus_0-fp32"


def case(bs: int, mkldnn: bool = False, threads: int = 1, precision: str = "fp32") -> dict[str, Any]:
    return {
        "device": "cpu",
        "use_gpu": "False",
        "batch_size": str(bs),
        "precision": precision,
        "enable_mkldnn": str(mkldnn),
        "cpu_threads": str(threads),
        "use_tensorrt": None,
    }


def label(c: dict[str, Any]) -> str:
    return f"cpu-mkldnn_{c['enable_mkldnn']}-threads_{c['cpu_threads']}-{c['precision']}-bs{c['batch_size']}"


def bench(c: dict[str, Any], inference_ms: float, rss: float = 400.0) -> dict[str, Any]:
    bs = int(c["batch_size"])
    return {
        "preprocess_ms": 0.8,
        "inference_ms": inference_ms,
        "postprocess_ms": 3.1,
        "total_s": 0.75,
        "cpu_rss_mb": rss,
        "gpu_rss_mb": None,
        "gpu_util": None,
        "batch_size": bs,
        "data_num": 2,
        "precision": c["precision"],
        "runtime_device": "cpu",
        "enable_mkldnn": c["enable_mkldnn"] == "True",
        "cpu_threads": int(c["cpu_threads"]),
        "enable_tensorrt": False,
        "paddle_version": "3.3.1",
        "model_name": "rec",
    }


class ResultsWriter:
    """Builds one node's results directory: records with real log files next to them."""

    def __init__(
        self,
        root: Path,
        node_rank: int = 0,
        host: str = "127.0.0.1",
        start: float = T0,
        run_id: str = "",
        config: str = "test_tipc/configs/rec/train_infer_python.txt",
    ) -> None:
        self.root, self.node_rank, self.host, self.start = root, node_rank, host, start
        self.run_id, self.config = run_id, config  # a record's own run_id (kw) marks it carried over
        self.records: list[StageRecord] = []
        root.mkdir(parents=True, exist_ok=True)

    def add(self, chain: str, name: str, status: Status, log_text: str | None = "ok\n", **kw: Any) -> StageRecord:
        kind = name.split("[", 1)[0]
        log = ""
        if log_text is not None:
            log_path = self.root / chain.replace(";", "_").replace(",", "_") / f"{name}.log"
            log_path.parent.mkdir(parents=True, exist_ok=True)
            log_path.write_text(log_text, encoding="utf-8")
            log = str(log_path)
        argv = kw.pop("argv", ("python3", f"tools/{kind}.py", "-c", "configs/rec.yml", "-o", "Global.epoch_num=1"))
        kw.setdefault("run_id", self.run_id)
        rec = StageRecord(
            id=f"{chain}::{name}",
            kind=kind,
            chain=chain,
            status=status,
            argv=tuple(argv),
            cwd=str(self.root),
            log=log,
            start=self.start + len(self.records),
            duration=kw.pop("duration", 2.5),
            node_rank=self.node_rank,
            host=self.host,
            model="PP-OCRv3_mobile_rec",
            mode="lite_train_lite_infer",
            config=self.config,
            **kw,
        )
        self.records.append(rec)
        return rec

    def write(self, **info: Any) -> Path:
        run = RunInfo(
            model="PP-OCRv3_mobile_rec",
            mode="lite_train_lite_infer",
            config=self.config,
            configs=(self.config,),
            run_id=self.run_id,
            config_sha256="ab" * 32,
            overrides={"--device": "cpu"},
            tipc_version="0.1.0",
            paddle_version="3.3.1",
            python="/usr/bin/python3",
            python_version="3.11.2",
            device="cpu",
            host=self.host,
            node_rank=self.node_rank,
            start=self.start,
            duration=120.0,
        )
        run = replace(run, **info)
        (self.root / "run.json").write_text(run.to_json(), encoding="utf-8")
        (self.root / "results.jsonl").write_text("".join(r.to_json() + "\n" for r in self.records), encoding="utf-8")
        return self.root


CASES = (case(1), case(6), case(1, True, 2), case(6, True, 2))


def single_node_run(
    root: Path,
    start: float = T0,
    *,
    pact: Status = Status.FAILED,
    mkldnn_bs1: Status = Status.FAILED,
    cpu_bs6_ms: float = 374.8,
    run_id: str = "",
    config: str = "test_tipc/configs/rec/train_infer_python.txt",
) -> Path:
    """Every status once: passed, failed (hostile log), blocked, timeout, hung (launch), skipped."""
    w = ResultsWriter(root, start=start, run_id=run_id, config=config)
    w.add(CPU_CHAIN, "train", Status.PASSED, metrics={"ips": 120.5, "loss": 12.3, "steps": 4}, returncode=0)
    w.add(CPU_CHAIN, "eval", Status.PASSED, metrics={"acc": 0.25, "norm_edit_dis": 0.61}, returncode=0)
    w.add(CPU_CHAIN, "export", Status.PASSED, returncode=0)
    for c, ms in zip(CASES, (60.2, cpu_bs6_ms, 45.0, 200.0), strict=False):
        name = f"infer[{label(c)}]"
        if c is CASES[2]:
            w.add(
                CPU_CHAIN,
                name,
                mkldnn_bs1,
                f"Traceback (most recent call last):\nValueError: {HOSTILE}\n",
                infer=c,
                returncode=1,
                reason="exit code 1",
            )
        elif c is CASES[3]:
            w.add(
                CPU_CHAIN,
                name,
                Status.TIMEOUT,
                "predicting...\n",
                infer=c,
                returncode=-9,
                reason="timed out after 600 s",
            )
        else:
            w.add(CPU_CHAIN, name, Status.PASSED, "Predicts...\n", infer=c, returncode=0, metrics=bench(c, ms))
    w.add(
        PACT_CHAIN,
        "train",
        pact,
        f"{HOSTILE}\nTraceback (most recent call last):\nRuntimeError: boom\n",
        returncode=1 if pact is Status.FAILED else 0,
        metrics={} if pact is Status.FAILED else {"ips": 99.0},
    )
    for name in ("eval", "export", f"infer[{label(CASES[0])}]"):
        if pact is Status.FAILED:
            w.add(PACT_CHAIN, name, Status.BLOCKED, None, reason=f"{PACT_CHAIN}::train failed (see train.log)")
        else:
            w.add(PACT_CHAIN, name, Status.PASSED, returncode=0)
    launch_dir = root / "dist_save" / "norm_train_launch_log"
    launch_dir.mkdir(parents=True)
    (launch_dir / "workerlog.0").write_text("step 1\nstep 2\n", encoding="utf-8")
    (launch_dir / "workerlog.1").write_text(
        "step 1\nTraceback (most recent call last):\nNCCL rank 1 died\n", encoding="utf-8"
    )
    w.add(
        DIST_CHAIN,
        "train",
        Status.HUNG,
        "waiting for peers\n",
        reason="no log output for 300 s",
        argv=(
            "python3",
            "-m",
            "paddle.distributed.launch",
            "--gpus=0,1",
            f"--log_dir={launch_dir}",
            "tools/train.py",
            "-c",
            "configs/rec.yml",
        ),
    )
    w.add(FPGM_CHAIN, "train", Status.SKIPPED, None, reason="fpgm_train is null in this config: not applicable")
    return w.write(start=start)


def multi_node_runs(root: Path, run_ids: tuple[str, str] = ("", "")) -> tuple[Path, Path]:
    """Two nodes: a 2-node chain on both, export/infer only on trainer 0, plus a 1-node chain on node 0.
    ``run_ids``: each node's (every node of a run draws its own)."""
    dirs = []
    for rank, host in ((0, "127.0.0.2"), (1, "127.0.0.3")):
        w = ResultsWriter(root / f"node{rank}", rank, host, start=T0 + rank, run_id=run_ids[rank])
        w.add(
            FLEET_CHAIN,
            "train",
            Status.PASSED,
            metrics={"ips": 100.0 - 5 * rank},
            argv=(
                "python3",
                "-m",
                "paddle.distributed.launch",
                "--ips=127.0.0.2,127.0.0.3",
                "--gpus=0",
                "--log_dir=S_launch_log",
                "tools/train.py",
            ),
        )
        for name in ("export", f"infer[{label(CASES[0])}]"):
            if rank == 0:
                w.add(
                    FLEET_CHAIN,
                    name,
                    Status.PASSED,
                    infer=CASES[0] if "infer" in name else None,
                    metrics=bench(CASES[0], 50.0) if "infer" in name else {},
                )
            else:
                w.add(FLEET_CHAIN, name, Status.SKIPPED, None, reason="not applicable: trainer 0 owns the model")
        if rank == 0:
            w.add(ONE_CHAIN, "train", Status.PASSED, metrics={"ips": 80.0})
        dirs.append(w.write(nodes=("127.0.0.2", "127.0.0.3")))
    return dirs[0], dirs[1]
