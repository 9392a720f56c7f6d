"""What the suite dialects share: their config view, the bash's gpu entry rules, and stages assembled into a Plan."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from tipc.config.bounds import MAX_STAGES, excerpt, read_bounded
from tipc.config.model import Field
from tipc.config.modes import Mode
from tipc.errors import ConfigError
from tipc.files.write import component, name_part
from tipc.plan.devices import VARIANT_DEVICES
from tipc.plan.env import stage_env
from tipc.plan.fragments import Command, Fragment, assemble, command_stage, literal
from tipc.plan.golden import with_golden
from tipc.plan.interpreter import PythonCheck, resolve_python
from tipc.plan.model import Chain, InferCase, Plan, PlanOptions, Skipped, Stage, StageKind, Topology
from tipc.plan.naming import stage_id, within
from tipc.plan.topology import classify
from tipc.suites.bash import BashLines, Entries, ifs_fields
from tipc.suites.layout import Role, check_size

CPU_ENTRY = "-1"
# Whether a config wants an accelerator, whatever the plan's device: any accelerator's word (the sweep takes only
# its plan's, tipc.plan.devices.accelerator_values).
ACCELERATOR_WORDS = ("true", "gpu", *VARIANT_DEVICES)
NO_GPU = "no GPU on this node (device cpu)"
MULTI_NODE_CHARS = 15  # the bash: an entry longer than this is '<ips>;<gpus>'
SINGLE_TRAIN_CHARS = 2  # the bash: a gpu part this short trains without a launch


@dataclass(frozen=True, slots=True)
class SuiteConfig:
    """A config read as its suite's bash reads it: by position. ``dialect`` names the reader."""

    dialect: str
    path: str
    lines: BashLines
    model_name: Field
    python: Field
    notes: tuple[str, ...] = ()
    reading: str = "colon_value"  # the dialect's reading of a value: BashLines.colon_value or first_colon_value

    def value(self, role: Role) -> str:
        """The role's value as the dialect reads it."""
        read: Callable[[int], str] = getattr(self.lines, self.reading)
        return read(role)

    @property
    def gpu_entries(self) -> tuple[str, ...]:
        return tuple(ifs_fields(self.value(Role.GPU_LIST), "|"))

    @property
    def wants_gpu(self) -> bool:
        """A gpu entry other than -1, or a GPU inference value: the bash would use a GPU."""
        infer = ifs_fields(self.value(Role.INFER_USE_GPU), "|")
        return any(e != CPU_ENTRY for e in self.gpu_entries) or any(v.lower() in ACCELERATOR_WORDS for v in infer)

    @property
    def processes(self) -> int:
        """Processes per node the largest entry starts (the ports a launch needs)."""
        return max((len(ifs_fields(e.rpartition(";")[2], ",")) for e in self.gpu_entries), default=1)


@dataclass(frozen=True, slots=True)
class GpuEntry:
    """One ``gpu_list`` entry, classified by the bash's length rules (kept: the commands depend on them)."""

    text: str  # the entry as written
    gpus: str  # the part after ';' on multi-node entries
    ips: str  # "" on one node
    topology: Topology

    @property
    def cpu(self) -> bool:
        return self.topology.kind == "cpu"

    @property
    def single(self) -> bool:
        """Trains without ``paddle.distributed.launch`` (``${#gpu} -le 2``)."""
        return len(self.gpus) <= SINGLE_TRAIN_CHARS

    @property
    def machines(self) -> bool:
        """Trains with ``--ips`` (``${#ips} -gt 15``)."""
        return len(self.ips) > MULTI_NODE_CHARS

    @property
    def nodes(self) -> int:
        return len(ifs_fields(self.ips, ",")) if self.machines else 1


def gpu_entry(text: str, cpu_only: bool) -> GpuEntry:
    if text == CPU_ENTRY or (cpu_only and len(text) <= MULTI_NODE_CHARS):
        return GpuEntry(text, text, "", Topology("cpu", CPU_ENTRY if text == CPU_ENTRY else text))
    ips, gpus = ("", text) if len(text) <= MULTI_NODE_CHARS else _ips_gpus(text)
    devices = tuple(ifs_fields(gpus, ","))
    topology = classify(text, devices, tuple(ifs_fields(ips, ",")))
    if cpu_only:
        topology = Topology("cpu", text)
    return GpuEntry(text, gpus, ips, topology)


def _ips_gpus(text: str) -> tuple[str, str]:
    """``IFS=";"; array=(${gpu}); ips=${array[0]}; gpu=${array[1]}``: an entry without ``;`` has no gpu part."""
    parts = ifs_fields(text, ";")
    return (parts[0] if parts else "", parts[1] if len(parts) > 1 else "")


def checked_entries(config: SuiteConfig, cpu_only: bool) -> list[GpuEntry]:
    """The ``gpu_list`` entries (entry 3) as the bash splits them, each checked first: one the bash would misread
    (longer than 15 characters without ``<ips>;``, a gpu part that is not a list of ids) is a ``ConfigError`` at
    the line, not a run on the wrong devices."""
    lines = config.lines
    texts = config.gpu_entries
    for text in texts:
        why = _entry_problem(text)
        if why:
            raise ConfigError(
                config.path,
                lines.line(Role.GPU_LIST),
                f"gpu_list entry '{excerpt(text)}' {why}: expected -1 (CPU), a GPU id or a comma list of ids "
                f"(at most {MULTI_NODE_CHARS} characters), or '<ip>,<ip>;<ids>'",
            )
    return [gpu_entry(text, cpu_only) for text in texts]


@dataclass(frozen=True, slots=True)
class TrainCell:
    """One chain the bash trains: a ``gpu_list`` entry, the train use_gpu line's value at the entry's place ("" past
    the line's end: the bash pairs the two lists by index), an autocast value and a trainer."""

    entry: GpuEntry
    use_gpu: str
    autocast: str
    trainer: str


def train_cells(plan: PlanDraft, cfg: Entries) -> Iterator[TrainCell]:
    """Every chain the bash trains, in its loop order: each checked entry, each autocast, each trainer."""
    use_gpu_values = ifs_fields(cfg.value(Role.USE_GPU), "|")
    for index, entry in enumerate(checked_entries(plan.config, plan.options.device == "cpu")):
        use_gpu = use_gpu_values[index] if index < len(use_gpu_values) else ""
        for autocast in ifs_fields(cfg.value(Role.AUTOCAST), "|"):
            for trainer in ifs_fields(cfg.value(Role.TRAINER), "|"):
                yield TrainCell(entry, use_gpu, autocast, trainer)


def _entry_problem(text: str) -> str:
    """Why the bash would misread a gpu entry ("" when it reads it as meant)."""
    if text == CPU_ENTRY:
        return ""
    if len(text) > MULTI_NODE_CHARS:
        if ";" not in text:
            return f"is over {MULTI_NODE_CHARS} characters, which the bash reads as '<ips>;<gpus>', and has no ';'"
        ips, gpus = _ips_gpus(text)
        if not all(ifs_fields(ips, ",")) or not ips:
            return "has an empty ip"
        text = gpus
    if not text or not all(part.isdigit() for part in text.split(",")):
        return "names a GPU that is not a number"
    return ""


def suite_config(dialect: str, path: str, lines: BashLines, value: str, notes: tuple[str, ...] = ()) -> SuiteConfig:
    """The fields every dialect checks: model_name (entry 1) and python (entry 2); ``value`` is the reader's
    ``colon_value`` or ``first_colon_value`` name."""

    def read(index: int, role: str) -> Field:
        found = getattr(lines, value)(index)
        if not found:
            raise ConfigError(
                path, lines.line(index), f"expected '{role}:<value>' as entry {index}, found '{lines.text(index)[:80]}'"
            )
        return lines.field(index, role, found)

    return SuiteConfig(
        dialect, path, lines, read(Role.MODEL_NAME, "model_name"), read(Role.PYTHON, "python"), notes, value
    )


@dataclass(slots=True)
class PlanDraft:
    """Chains and skips as a dialect builds them, in the bash's order."""

    config: SuiteConfig
    options: PlanOptions
    python: str
    python_note: str
    output_dir: str
    chains: list[Chain] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    made: int = 0  # stages made so far: past MAX_STAGES the plan is refused, whatever list multiplied them

    @property
    def interpreter(self) -> Fragment:
        return literal(self.python)

    def stage(
        self,
        chain: str,
        name: str,
        kind: StageKind,
        command: Command,
        env: Mapping[str, str | None],
        log: str,
        *,
        cwd: str | None = None,
        requires: tuple[str, ...] = (),
        outputs: tuple[str, ...] = (),
        infer: InferCase | None = None,
        rank0_only: bool = False,
    ) -> Stage:
        cwd = self.options.repo if cwd is None else cwd
        self.made += 1
        if self.made > MAX_STAGES:
            raise ConfigError(
                self.config.path, 0, f"the plan makes more than {MAX_STAGES} stages: expected shorter '|' lists"
            )
        return command_stage(
            chain, name, kind, command, env, log, cwd, requires=requires, outputs=outputs, rank0_only=rank0_only,
            infer=infer,
        )  # fmt: skip

    def plan(self) -> Plan:
        chains = tuple(self.chains)
        if self.options.golden_dir and self.options.mode != Mode.BENCHMARK_TRAIN:  # speed runs: nothing to hold
            chains = tuple(with_golden(c, self.output_dir, self.options.golden_dir) for c in chains)
        return Plan(
            config_path=self.config.path,
            model=self.config.model_name.value,
            mode=self.options.mode,
            cwd=self.options.repo,
            output_dir=self.output_dir,
            python=self.python,
            chains=chains,
            skipped=tuple(self.skipped),
            notes=(self.python_note, *self.options.notes, *self.config.notes, *self.notes),
            config_sha256=_sha256(self.config.path),
        )


def draft(config: SuiteConfig, options: PlanOptions, output_dir: str, check: PythonCheck) -> PlanDraft:
    check_size(config)
    python, note = resolve_python(config.python, options.python, check)
    return PlanDraft(config, options, python, note, output_dir)


def env_of(entry: GpuEntry, kind: StageKind, options: PlanOptions) -> dict[str, str | None]:
    """tipc's rule for every suite (the bash's leaks one entry's CUDA_VISIBLE_DEVICES into the next, B6)."""
    topology = entry.topology
    if kind is StageKind.TRAIN and not entry.single and not entry.cpu:
        topology = Topology("multi_gpu", entry.text, topology.devices, topology.ips, max(2, topology.nproc))
    return stage_env(topology, kind, options.start_port)


def inside(config: SuiteConfig, folder: str, role: Role) -> str:
    """``folder/<the role's value>``: a path the config names inside a folder tipc made (``naming.within``)."""
    return within(folder, config.value(role), config.path, config.lines.line(role), role.name.lower())


def command(*fragments: Fragment) -> Command:
    return assemble(fragments)


def refuse(config: SuiteConfig, index: int, mode: Mode | str, why: str) -> ConfigError:
    return ConfigError(config.path, config.lines.line(index), f"mode {mode}: {why}")


def _sha256(path: str) -> str:
    try:
        return hashlib.sha256(read_bounded(path)).hexdigest()
    except ConfigError:
        return ""


def infer_stages(
    plan: PlanDraft,
    chain: str,
    cells: list[tuple[InferCase, str, Command]],
    env: Mapping[str, str | None],
    requires: tuple[str, ...],
    cwd: str | None = None,
) -> list[Stage]:
    """The sweep's stages from its (case, log name, command) cells; GPU cells on a CPU-only run are skipped."""
    stages = []
    for case, log, run in cells:
        name = f"infer[{case.label}]"
        if case.device == "gpu" and plan.options.device == "cpu":
            plan.skipped.append(Skipped(stage_id(chain, name), NO_GPU))
            continue
        log_path = f"{plan.output_dir}/{component(name_part(log))}"  # the sweep's values are config text
        stage = plan.stage(chain, name, StageKind.INFER, run, env, log_path, cwd=cwd,
                           requires=requires, infer=case)  # fmt: skip
        stages.append(stage)
    return stages
