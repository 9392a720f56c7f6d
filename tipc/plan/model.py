"""The typed plan: what would run, in what order, with which arguments.

A Plan is pure data. Fronts (the CLI, the pytest plugin) build it with
``tipc.plan.build_plan`` and hand its stages to ``tipc.run``; nothing here
touches the disk or starts a process.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Literal

from tipc.config.benchmark import DeviceNum, Selector
from tipc.config.modes import Mode


class StageKind(str, Enum):
    TRAIN = "train"
    EVAL = "eval"
    EXPORT = "export"
    INFER = "infer"
    CONVERT = "convert"  # paddle2onnx: an exported model to an ONNX file (tipc.dialects.paddleocr.plan.paddle2onnx)
    GOLDEN = "golden"  # the check of this chain's outcomes against its golden (in-process, no argv)
    AGREE = "agree"  # paddle2onnx: ONNX Runtime's predictions against Paddle Inference's (in-process, no argv)


# The kinds the harness judges itself, without a process.
IN_HARNESS = (StageKind.GOLDEN, StageKind.AGREE)


TopologyKind = Literal["cpu", "gpu", "multi_gpu", "multi_node"]


@dataclass(frozen=True, slots=True)
class Topology:
    """A ``gpu_list`` entry read by its structure (never by its string length)."""

    kind: TopologyKind
    entry: str  # the config text of this entry, e.g. "0,1" or "10.0.0.1,10.0.0.2;0,1"
    devices: tuple[str, ...] = ()  # GPU ids per node; empty for CPU
    ips: tuple[str, ...] = ()  # node addresses; empty on one node
    nproc: int = 1  # processes per node (CPU retargeting turns --gpus=0,1 into 2)

    @property
    def nodes(self) -> int:
        return max(1, len(self.ips))

    @property
    def gpu_label(self) -> str:
        """The GPU part of the entry as names spell it (after ``;`` on multi-node entries)."""
        return self.entry.rpartition(";")[2]

    @property
    def launches(self) -> bool:
        """Training goes through ``paddle.distributed.launch`` (several processes or nodes)."""
        return self.kind in ("multi_gpu", "multi_node")


@dataclass(frozen=True, slots=True)
class InferCase:
    """One cell of the inference sweep."""

    device: Literal["cpu", "gpu"]
    use_gpu: str  # the config's literal (True/False/gpu/cpu), passed through
    batch_size: str
    precision: str
    enable_mkldnn: str | None = None  # CPU only
    cpu_threads: str | None = None  # CPU only
    use_tensorrt: str | None = None  # GPU only

    @property
    def label(self) -> str:
        """The pytest parameter id, e.g. ``cpu-mkldnn_False-threads_6-fp32-bs1``."""
        if self.device == "cpu":
            return f"cpu-mkldnn_{self.enable_mkldnn}-threads_{self.cpu_threads}-{self.precision}-bs{self.batch_size}"
        return f"gpu-trt_{self.use_tensorrt}-{self.precision}-bs{self.batch_size}"


# The stage name of a benchmark run's profiling pass (benchmark_train.sh's, every suite's alike).
PROFILE = "profile"


@dataclass(frozen=True, slots=True)
class SpeedSpec:
    """What benchmark_train.sh's analysis step is told about one run (``tipc.dialects.paddleocr.plan.benchmark``)."""

    file: str  # the speed JSON, ``<BENCHMARK_LOG_DIR>/index/<name>_speed``
    model_name: str  # ``<model>_bs<bs>_<precision>_<run mode>``
    batch_size: int
    fp_item: str
    run_mode: str
    device_num: str  # ``N1C1``
    cards: int  # the C of ``NxCy``: the per-process figure is multiplied by it
    speed_unit: str


@dataclass(frozen=True, slots=True)
class Stage:
    """One subprocess to run.

    Paths (``log``, ``outputs``, ``legacy_log``) are relative to ``cwd`` exactly as
    the bash would write them (``./test_tipc/output/...``); the runner resolves them.
    """

    id: str  # "<chain id>::<name>", unique in the plan
    chain: str  # chain id, e.g. "norm_train-gpus_0-fp32"
    name: str  # "train" | "eval" | "export" | "infer[<case label>]"
    kind: StageKind
    argv: tuple[str, ...]  # argv[0] is the interpreter; exactly the child's tokens
    env: Mapping[str, str | None]  # overrides; None = remove from the environment
    cwd: str
    log: str  # where the runner writes this stage's output
    requires: tuple[str, ...] = ()  # stage ids that must pass first
    outputs: tuple[str, ...] = ()  # files this stage produces (lets a deselected prerequisite be satisfied from disk)
    # Paths it reads that no stage of the plan makes (a config's model dir): missing, it is blocked.
    inputs: tuple[str, ...] = ()
    status_line: bool = True  # False: a stage tipc adds to the bash's (its status file gets no line)
    legacy_command: str = ""  # the command text as the bash logs it in results_python.log
    legacy_log: str = ""  # the log path as the bash logs it (S.log for train)
    rank0_only: bool = False  # multi-node: only trainer 0's node can run it
    infer: InferCase | None = None
    copy_train_log: tuple[str, str] | None = None  # (S/train.log, S.log) copied after train, as the bash does
    speed: SpeedSpec | None = None  # benchmark_train: the speed JSON written from this train's figures
    golden_dir: str = ""  # golden stages: the folder their goldens are looked up in (tipc.golden.files)
    launch_log: str = ""  # launch stages: the launcher's --log_dir (workerlog.N), relative to cwd


@dataclass(frozen=True, slots=True)
class Chain:
    """gpu entry × autocast × trainer (or one whole_infer model): a DAG of stages."""

    id: str
    trainer: str
    autocast: str
    topology: Topology
    save_dir: str  # S, relative to cwd ("" for whole_infer chains)
    stages: tuple[Stage, ...]


@dataclass(frozen=True, slots=True)
class Skipped:
    """A case the bash would drop silently, listed with the rule that dropped it."""

    id: str
    reason: str


@dataclass(frozen=True, slots=True)
class BenchmarkOptions:
    """benchmark_train's inputs besides the config: ``--benchmark-params`` and the bash's env variables."""

    selectors: tuple[Selector, ...] = ()  # none: the section's lists on N1C4, as the bash without PARAMS
    log_dir: str = "."  # BENCHMARK_LOG_DIR (default: the directory the stages run in)
    profiling: str = "True"  # PROFILING_TIMER_ONLY: "no" drops the profiling pass, "False" adds timer_only=False


@dataclass(frozen=True, slots=True)
class PlanOptions:
    """Everything a front can override; defaults reproduce the bash."""

    mode: Mode
    repo: str = "."
    python: str | None = None  # --python; None = config's value if on PATH, else sys.executable
    output_root: str = "./test_tipc/output"
    # "cpu": retarget GPU topologies to CPU processes; "npu"/"xpu": the suite's device script's rewrites
    device: Literal["auto", "cpu", "gpu", "npu", "xpu"] = "gpu"
    ips: tuple[str, ...] = ()  # overrides the config's multi-node ip list
    host: str | None = None  # this node's address (passed to launch as --host=)
    node_rank: int | None = None  # multi-node: this node's rank; output goes to <mode>/node<rank>/
    start_port: int | None = None  # launch --start_port= and FLAGS_START_PORT for launch-based trains
    whole_infer_gpu: str | None = None  # the bash's 3rd argument in whole_infer
    notes: tuple[str, ...] = ()  # what a front decided and why (device, node list, ports), shown with the plan
    benchmark: BenchmarkOptions = BenchmarkOptions()
    golden_dir: str = ""  # a golden check closes every chain, with goldens from this folder ("": none)
    suite: str = ""  # --suite: the dialect that reads the config (tipc.suites; "": detected from its checkout)
    sets: tuple[tuple[str, str], ...] = ()  # --set KEY=VALUE: config values changed as the config is read


@dataclass(frozen=True, slots=True)
class Plan:
    config_path: str
    model: str
    mode: Mode
    cwd: str
    output_dir: str  # LOG_PATH, relative to cwd
    python: str
    chains: tuple[Chain, ...]
    skipped: tuple[Skipped, ...] = ()
    notes: tuple[str, ...] = ()
    config_sha256: str = ""
    status_log: str = "results_python.log"  # the bash's status-line file in output_dir
    status_tail: str = " "  # what the suite's status_check writes after the log path (tipc.run.legacy)
    shard: str = ""  # "K/N" when this plan is one part of a matrix split across runs (tipc.schedule.shard)
    partition: str = ""  # the split's fingerprint: shards of one split carry the same
    run_group: str = ""  # the night this shard or node belongs to (tipc.cluster.group)

    def stages(self) -> Iterator[Stage]:
        """Every stage in the order the bash would run it."""
        for chain in self.chains:
            yield from chain.stages

    def stage(self, stage_id: str) -> Stage:
        for s in self.stages():
            if s.id == stage_id:
                return s
        raise KeyError(stage_id)


def speed_spec(file: str, model: str, batch_size: str, precision: str, run_mode: str, device: DeviceNum) -> SpeedSpec:
    """What a benchmark_train.sh's analysis step is told of one run (every suite's script tells it the same):
    ``samples/s`` with one GPU id per node, ``images/s`` with several."""
    return SpeedSpec(
        file=file,
        model_name=f"{model}_bs{batch_size}_{precision}_{run_mode}",
        batch_size=int(batch_size),
        fp_item=precision,
        run_mode=run_mode,
        device_num=device.label,
        cards=device.cards,
        speed_unit="samples/s" if len(device.gpu_ids) == 1 else "images/s",
    )
