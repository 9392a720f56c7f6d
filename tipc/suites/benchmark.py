"""benchmark_train for a suite dialect: its ``test_tipc/benchmark_train.sh``, planned (PaddleClas's today).

The script copies the config, edits the copy by physical line (``sed``), reads its
``train_benchmark_params`` section (batch sizes, precisions, epoch, model types, ``num_workers``, the
profiler option, env flags) and runs the suite's ``test_train_inference_python.sh`` on the copy in mode
``benchmark_train`` once per batch size × precision × ``NxCy`` × model type: on one card a profiling pass
first (unless ``PROFILING_TIMER_ONLY=no``), then the timed run, whose log the analysis step reads. Here the
same edits are made to the config's text and the dialect's own planner plans the edited copy, so the commands
are the harness's; each run is one chain, its ``profile`` and ``train`` stages with the script's log names
under ``BENCHMARK_LOG_DIR`` and the analysis step's arguments as the train stage's ``speed``.

Kept: the edits, the runs' order, log and speed file names, the env flags on every stage, ``samples/s`` on
one card and ``images/s`` on several. Fixed (the plan's notes say so): the interpreter is tipc's usual choice
(the script writes ``python`` on the config's python line).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, replace

from tipc.config.benchmark import DEFAULT_DEVICE, TO_STATIC_WORD, DeviceNum, Selector
from tipc.config.bounds import read_bounded
from tipc.config.model import NULL
from tipc.errors import ConfigError
from tipc.files.write import component, name_part
from tipc.plan.benchmark import speed_spec
from tipc.plan.model import Chain, PlanOptions, Skipped, Stage
from tipc.plan.naming import stage_id
from tipc.suites.bash import BashLines, ifs_fields
from tipc.suites.plans import PlanDraft, SuiteConfig

SECTION = "train_benchmark_params"
# The section's lines, read by position as the script reads them: one left out shifts every later value into
# the next role. Where that puts the profiler option into num_workers, which the script writes into the train
# line, the harness's eval cuts the train command at the option's ';': tipc refuses that config.
SECTION_KEYS = ("batch_size", "fp_items", "epoch", "model_type", "num_workers")
WORKERS_OFFSET = SECTION_KEYS.index("num_workers")
PROFILE = "profile"
TO_STATIC_TRAINER = "to_static_train"


@dataclass(frozen=True, slots=True)
class Layout:
    """Where a suite's script edits its config copy: physical line numbers (1-based), and its text rewrites."""

    gpu: int
    precision: int
    epoch: int
    batch: int
    profile: int
    trainer: int
    nulled: tuple[int, ...]  # set to 'key:null' once (eval, export, the other trainers)
    rewrites: tuple[tuple[str, str], ...]  # ``sed s/old/new/g`` over the whole copy, before it is read
    workers: tuple[str, str]  # the num_workers rewrite: old, new with ``{}`` for the section's value


@dataclass(frozen=True, slots=True)
class Section:
    batch_sizes: tuple[str, ...]
    fp_items: tuple[str, ...]
    epoch: str
    model_types: tuple[str, ...]
    num_workers: str
    profile_option: str
    flags: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class Run:
    batch_size: str
    precision: str
    run_mode: str
    device: DeviceNum
    model_type: str

    def name(self, repo: str, model: str, suffix: str) -> str:
        to_static = "d2sT_" if self.model_type == TO_STATIC_TRAINER else ""
        label = f"{repo}_{model}_bs{self.batch_size}_{self.precision}_{self.run_mode}_{self.device.label}"
        return component(name_part(f"{label}_{to_static}{suffix}"))


def _sed_line(texts: list[str], number: int, value: str) -> None:
    """``func_sed_params``: line ``number`` becomes ``<its key>:<value>``."""
    if 0 < number <= len(texts):
        fields = ifs_fields(texts[number - 1], ":")
        texts[number - 1] = f"{fields[0] if fields else ''}:{value}"


def _section(lines: BashLines, layout: Layout) -> Section:
    header = lines.header_index(SECTION)
    if header is None:
        raise ConfigError(
            lines.path, 0, f"mode 'benchmark_train': expected a '{SECTION}' section (batch_size, fp_items, epoch, "
            "model_type, num_workers, profiler option, flags), as the suite's benchmark_train.sh reads"
        )  # fmt: skip
    workers = header + WORKERS_OFFSET
    shifted = lines.colon_key(workers) != "num_workers" and ";" in lines.colon_value(workers)
    if shifted and any(layout.workers[0] in t for t in lines.texts):
        raise ConfigError(
            lines.path, lines.line(workers), f"mode 'benchmark_train': expected 'num_workers:<n>' here, found "
            f"'{lines.text(workers)[:80]}': the suite's benchmark_train.sh reads {SECTION} by position "
            f"({', '.join(SECTION_KEYS)}, the profiler option, flags) and would write this text into the train "
            "command, which its harness then cuts at the first ';'"
        )  # fmt: skip
    value = lines.colon_value
    profile = f"{lines.colon_key(header + 5)}:{value(header + 5)}"
    flags = tuple((k, v) for k, _, v in (f.partition("=") for f in ifs_fields(value(header + 6), ";")) if k)
    return Section(
        tuple(ifs_fields(value(header), "|")),
        tuple(ifs_fields(value(header + 1), "|")),
        value(header + 2),
        tuple(ifs_fields(value(header + 3), "|")),
        value(header + 4),
        profile,
        flags,
    )


def runs(section: Section, selectors: tuple[Selector, ...]) -> tuple[Run, ...]:
    """The script's loops: without PARAMS the section's lists on N1C4; a PARAMS word one run of its trainer."""
    found: list[Run] = []
    for selector in selectors or (None,):
        if selector is None:
            found.extend(
                Run(bs, fp, "DP", DEFAULT_DEVICE, mt)
                for bs in section.batch_sizes
                for fp in section.fp_items
                for mt in section.model_types
            )
        elif selector.batch_size is not None:
            precision = "fp32" if selector.precision == NULL else selector.precision
            trainer = TO_STATIC_TRAINER if selector.model_type == TO_STATIC_WORD else "norm_train"
            found.append(Run(selector.batch_size, precision, selector.run_mode, selector.device, trainer))
    return tuple(dict.fromkeys(found))


def _edited(text: str, layout: Layout, section: Section | None, run: Run | None, profile: str | None) -> str:
    """The config copy as the script leaves it for one pass (``section`` None: the edits before it is read)."""
    for old, new in layout.rewrites:
        text = text.replace(old, new)
    if section is None or run is None:
        return text
    texts = text.split("\n")
    for number in layout.nulled:
        _sed_line(texts, number, NULL)
    workers = "\n".join(texts).replace(layout.workers[0], layout.workers[1].format(section.num_workers))
    texts = workers.split("\n")
    for number, value in (
        (layout.precision, run.precision),
        (layout.batch, run.batch_size),
        (layout.epoch, section.epoch),
        (layout.trainer, run.model_type),
    ):
        _sed_line(texts, number, value)
    ids = run.device.gpu_ids
    _sed_line(texts, layout.gpu, "0" if len(ids) == 1 else ",".join(ids))
    if profile is not None and 0 < layout.profile <= len(texts):
        texts[layout.profile - 1] = f'"{profile}"'
    else:
        _sed_line(texts, layout.profile, NULL)
    return "\n".join(texts)


Harness = Callable[[PlanDraft], None]  # the dialect's training chains of its draft's config, into the draft


@dataclass(frozen=True, slots=True)
class Bench:
    """One suite's benchmark_train: its layout, and how to read and plan an edited copy."""

    layout: Layout
    read: Callable[[str, BashLines], SuiteConfig]  # (config path, edited lines) -> the dialect's config
    chains: Harness


def plan_runs(bench: Bench, config: SuiteConfig, plan: PlanDraft) -> None:
    """Every run's chain into ``plan`` (a draft of the original config, in mode benchmark_train)."""
    options = plan.options
    raw = read_bounded(config.path).decode("utf-8-sig", errors="replace")
    before = _edited(raw, bench.layout, None, None, None)
    section = _section(BashLines.parse(before, config.path), bench.layout)
    selected = runs(section, options.benchmark.selectors)
    if not selected:
        plan.skipped.append(
            Skipped(
                "benchmark_train",
                "--benchmark-params dynamicTostatic alone: the suite's script then loops "
                "over no model type and runs nothing",
            )
        )
    repo = os.path.basename(os.path.normpath(options.repo))
    flags = dict(section.flags)
    for run in selected:
        profile = None
        if len(run.device.gpu_ids) == 1 and options.benchmark.profiling != "no":
            profile = section.profile_option + (";timer_only=False" if options.benchmark.profiling == "False" else "")
        chain_id = f"{run.model_type}-bs{run.batch_size}-{run.precision}-{run.run_mode}-{run.device.label}"
        stages: list[Stage] = []
        if profile is not None:
            profiled = _harness_train(bench, config, plan, before, section, run, profile)
            if profiled is not None:
                log = _log(options, "profiling_log", run.name(repo, config.model_name.value, "profiling"))
                # Judged by its exit code: a profiler may end the trainer (no checkpoint) after its range.
                stages.append(_retarget(replace(profiled.stages[0], outputs=()), chain_id, PROFILE, log, flags))
        harness = _harness_train(bench, config, plan, before, section, run, None)
        if harness is None:
            plan.skipped.append(Skipped(chain_id, f"model type '{run.model_type}': its train script is null"))
            continue
        name = run.name(repo, config.model_name.value, "log")
        model = config.model_name.value
        speed_file = _log(options, "index", run.name(repo, model, "speed"))
        speed = speed_spec(speed_file, model, run.batch_size, run.precision, run.run_mode, run.device)
        timed = _retarget(harness.stages[0], chain_id, "train", _log(options, "train_log", name), flags)
        stages.append(replace(timed, speed=speed))
        plan.chains.append(replace(harness, id=chain_id, stages=tuple(stages)))
    plan.notes.append(
        f"benchmark_train: {len(selected)} runs from {SECTION} and --benchmark-params "
        f"({', '.join(s.text for s in options.benchmark.selectors) or 'none: the section lists on N1C4'}); eval and "
        f"export are null; env flags {' '.join(f'{k}={v}' for k, v in section.flags) or 'none'}; logs under "
        f"{options.benchmark.log_dir}"
    )


def _harness_train(
    bench: Bench, config: SuiteConfig, plan: PlanDraft, before: str, section: Section, run: Run, profile: str | None
) -> Chain | None:
    """The chain the suite's harness plans for the copy of one pass, its train stage only (None: the trainer's
    script is null)."""
    edited = BashLines.parse(_edited(before, bench.layout, section, run, profile), config.path)
    draft = replace(plan, config=bench.read(config.path, edited), chains=[], skipped=[], notes=[])
    bench.chains(draft)
    return next((replace(c, stages=c.stages[:1]) for c in draft.chains if c.stages[:1]), None)


def _log(options: PlanOptions, kind: str, name: str) -> str:
    return f"{options.benchmark.log_dir.rstrip('/') or '/'}/{kind}/{name}"


def _retarget(stage: Stage, chain_id: str, name: str, log: str, flags: dict[str, str]) -> Stage:
    return replace(
        stage,
        id=stage_id(chain_id, name),
        chain=chain_id,
        name=name,
        log=log,
        env={**flags, **stage.env},
    )
