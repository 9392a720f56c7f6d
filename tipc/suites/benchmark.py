"""benchmark_train for a suite dialect: its ``test_tipc/benchmark_train.sh``, planned (PaddleClas's, PaddleSeg's
and PaddleDetection's, each a ``Layout``).

The script copies the config, edits the copy by physical line (``sed``), reads its
``train_benchmark_params`` section by position (batch sizes, precisions, epoch, the profiler option, env flags;
PaddleClas also model types and ``num_workers``, PaddleDetection a dataset ``repeat``) and runs the suite's
``test_train_inference_python.sh`` on the copy in mode ``benchmark_train`` once per batch size × precision ×
``NxCy`` × model type: on one card a profiling pass first (unless ``PROFILING_TIMER_ONLY=no``), then the timed
run, whose log the analysis step reads. PaddleClas writes the model type into the trainer line; PaddleSeg and
PaddleDetection switch to to-static by rewriting ``trainer:norm_train`` in the whole copy. Here the
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
from tipc.config.bounds import MAX_STAGES, excerpt, read_bounded
from tipc.config.model import NULL
from tipc.errors import ConfigError
from tipc.files.write import component, name_part
from tipc.plan.model import Chain, PlanOptions, Skipped, Stage, speed_spec
from tipc.plan.naming import stage_id
from tipc.suites.bash import BashLines, ifs_fields
from tipc.suites.plans import PlanDraft, SuiteConfig

SECTION = "train_benchmark_params"
PROFILE = "profile"
FLAGS = "flags"
WORKERS = "num_workers"
MODEL_TYPE = "model_type"
# PaddleClas's section lines, read by position as its script reads them: one left out shifts every later value
# into the next role. Where that puts the profiler option into num_workers, which the script writes into the
# train line, the harness's eval cuts the train command at the option's ';': tipc refuses that config.
SECTION_KEYS = ("batch_size", "fp_items", "epoch", MODEL_TYPE, WORKERS, PROFILE, FLAGS)
NORM_TRAINER = "norm_train"
TO_STATIC_TRAINER = "to_static_train"
ONE_CARD_UNIT = "samples/s"
TRAINER_REWRITE = ("trainer:norm_train", f"trainer:{TO_STATIC_TRAINER}")  # PaddleSeg's and PaddleDetection's


@dataclass(frozen=True, slots=True)
class Layout:
    """Where a suite's script edits its config copy: physical line numbers (1-based), and its text rewrites;
    the roles of its section's lines in order, and the runs it makes without PARAMS."""

    # The lines every suite's script edits: gpu ids, precision, epoch, batch size, the profiler option.
    gpu: int = 4
    precision: int = 6
    epoch: int = 7
    batch: int = 9
    profile: int = 13
    trainer: int = 0  # the line the model type is written to; 0: none (``to_static`` rewrites the copy instead)
    nulled: tuple[int, ...] = (24, 30)  # set to 'key:null' once (eval, export; PaddleClas's other trainers too)
    rewrites: tuple[tuple[str, str], ...] = ()  # ``sed s/old/new/g`` over the whole copy, before it is read
    workers: tuple[str, str] | None = None  # the num_workers rewrite: old, new with ``{}`` for the section's value
    section: tuple[str, ...] = SECTION_KEYS
    devices: tuple[DeviceNum, ...] = (DEFAULT_DEVICE,)
    by_mode: bool = False  # batch size and epoch written as ``benchmark_train=<value>``
    to_static: tuple[str, str] | None = None  # the rewrite of a to-static run (a bare dynamicTostatic: every run)
    one_card_unit: str = ONE_CARD_UNIT  # the analysis step's unit with one GPU id (several: images/s)
    first_colon: bool = False  # the section's values are everything after a line's first colon (``${line#*:}``)


@dataclass(frozen=True, slots=True)
class Section:
    batch_sizes: tuple[str, ...]
    fp_items: tuple[str, ...]
    epoch: str
    model_types: tuple[str, ...]
    num_workers: str
    profile_option: str
    flags: tuple[tuple[str, str], ...]
    others: tuple[tuple[str, str], ...] = ()  # the roles the generic part does not use (PaddleDetection's repeat)

    def other(self, role: str) -> str:
        return dict(self.others).get(role, "")


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
    roles = layout.section
    if header is None:
        raise ConfigError(
            lines.path, 0, f"mode 'benchmark_train': expected a '{SECTION}' section ({', '.join(roles)}), as the "
            "suite's benchmark_train.sh reads"
        )  # fmt: skip
    at = {role: header + offset for offset, role in enumerate(roles)}
    if WORKERS in at and layout.workers is not None:
        workers = at[WORKERS]
        shifted = lines.colon_key(workers) != WORKERS and ";" in lines.colon_value(workers)
        if shifted and any(layout.workers[0] in t for t in lines.texts):
            raise ConfigError(
                lines.path, lines.line(workers), f"mode 'benchmark_train': expected 'num_workers:<n>' here, found "
                f"'{lines.text(workers)[:80]}': the suite's benchmark_train.sh reads {SECTION} by position "
                f"({', '.join(roles)}) and would write this text into the train command, which its harness then "
                "cuts at the first ';'"
            )  # fmt: skip
    key, read = (lines.first_colon_key, lines.first_colon_value) if layout.first_colon else (
        lines.colon_key, lines.colon_value)  # fmt: skip
    value = {role: read(index) for role, index in at.items()}
    # ``export null`` (PaddleSeg's 'flags:null') sets nothing: only NAME=VALUE words are flags.
    flags = tuple((k, v) for k, eq, v in (f.partition("=") for f in ifs_fields(value[FLAGS], ";")) if k and eq)
    known = {"batch_size", "fp_items", "epoch", MODEL_TYPE, WORKERS, PROFILE, FLAGS}
    batch_sizes = tuple(ifs_fields(value["batch_size"], "|"))
    wrong = next((b for b in batch_sizes if not b.strip().isdigit()), None)
    if wrong is not None:  # the analysis step takes it as a number
        raise ConfigError(
            lines.path, lines.line(at["batch_size"]), f"mode 'benchmark_train': batch size '{excerpt(wrong)}' is "
            f"not a whole number: expected {key(at['batch_size'])}:<n>|<n>…"
        )  # fmt: skip
    return Section(
        batch_sizes,
        tuple(ifs_fields(value["fp_items"], "|")),
        value["epoch"],
        tuple(ifs_fields(value[MODEL_TYPE], "|")) if MODEL_TYPE in value else (NORM_TRAINER,),
        value.get(WORKERS, ""),
        f"{key(at[PROFILE])}:{value[PROFILE]}",
        flags,
        tuple((role, v) for role, v in value.items() if role not in known),
    )


def runs(section: Section, selectors: tuple[Selector, ...], layout: Layout) -> tuple[Run, ...]:
    """The script's loops: without PARAMS the section's lists on the layout's devices; a PARAMS word one run of
    its trainer; a bare dynamicTostatic the section's lists to-static where the layout rewrites the copy for it
    (else none: PaddleClas's script then loops over no model type)."""
    found: list[Run] = []
    for selector in selectors or (None,):
        if selector is None or (selector.batch_size is None and layout.to_static is not None):
            model_types = section.model_types if selector is None else (TO_STATIC_TRAINER,)
            found.extend(
                Run(bs, fp, "DP", device, mt)
                for bs in section.batch_sizes
                for fp in section.fp_items
                for device in layout.devices
                for mt in model_types
            )
        elif selector.batch_size is not None:
            precision = "fp32" if selector.precision == NULL else selector.precision
            trainer = TO_STATIC_TRAINER if selector.model_type == TO_STATIC_WORD else NORM_TRAINER
            found.append(Run(selector.batch_size, precision, selector.run_mode, selector.device, trainer))
    return tuple(dict.fromkeys(found))


def _check_size(section: Section, layout: Layout, lines: BashLines) -> None:
    """The section's lists multiply into runs of two stages each (a profile and a timed train): past
    ``MAX_STAGES`` the config is refused at the section before one run is listed."""
    count = len(section.batch_sizes) * len(section.fp_items) * len(layout.devices) * len(section.model_types)
    if 2 * count > MAX_STAGES:
        raise ConfigError(
            lines.path,
            lines.header_index(SECTION) or 0,
            f"mode 'benchmark_train': the {SECTION} lists make {count} runs of 2 stages, over the limit of "
            f"{MAX_STAGES} stages: expected shorter lists",
        )


def _edited(
    text: str, layout: Layout, section: Section | None, run: Run | None, profile: str | None, epoch: str = ""
) -> str:
    """The config copy as the script leaves it for one pass (``section`` None: the edits before it is read)."""
    for old, new in layout.rewrites:
        text = text.replace(old, new)
    if section is None or run is None:
        return text
    if layout.to_static is not None and run.model_type == TO_STATIC_TRAINER:
        text = text.replace(*layout.to_static)
    texts = text.split("\n")
    for number in layout.nulled:
        _sed_line(texts, number, NULL)
    if layout.workers is not None:
        workers = "\n".join(texts).replace(layout.workers[0], layout.workers[1].format(section.num_workers))
        texts = workers.split("\n")
    prefix = "benchmark_train=" if layout.by_mode else ""
    for number, value in (
        (layout.precision, run.precision),
        (layout.batch, prefix + run.batch_size),
        (layout.epoch, prefix + (epoch or section.epoch)),
    ):
        _sed_line(texts, number, value)
    if layout.trainer:
        _sed_line(texts, layout.trainer, run.model_type)
    ids = run.device.gpu_ids
    _sed_line(texts, layout.gpu, "0" if len(ids) == 1 else ",".join(ids))
    if profile is not None and 0 < layout.profile <= len(texts):
        texts[layout.profile - 1] = f'"{profile}"'
    else:
        _sed_line(texts, layout.profile, NULL)
    return "\n".join(texts)


Harness = Callable[[PlanDraft], None]  # the dialect's training chains of its draft's config, into the draft
Epoch = Callable[[str, Section, DeviceNum], str]  # (model name, section, the run's NxCy) -> the epoch written


def section_epoch(model: str, section: Section, device: DeviceNum) -> str:
    del model, device  # the section's epoch, as PaddleClas and PaddleSeg write it
    return section.epoch


@dataclass(frozen=True, slots=True)
class Bench:
    """One suite's benchmark_train: its layout, and how to read and plan an edited copy."""

    layout: Layout
    read: Callable[[str, BashLines], SuiteConfig]  # (config path, edited lines) -> the dialect's config
    chains: Harness
    epoch: Epoch = section_epoch


def plan_runs(bench: Bench, config: SuiteConfig, plan: PlanDraft) -> Section:
    """Every run's chain into ``plan`` (a draft of the original config, in mode benchmark_train); the section
    read, for the dialect's own notes."""
    options = plan.options
    raw = read_bounded(config.path).decode("utf-8-sig", errors="replace")
    before = _edited(raw, bench.layout, None, None, None)
    lines = BashLines.parse(before, config.path)
    section = _section(lines, bench.layout)
    _check_size(section, bench.layout, lines)
    selected = runs(section, options.benchmark.selectors, bench.layout)
    if not selected:
        plan.skipped.append(
            Skipped(
                "benchmark_train",
                "--benchmark-params dynamicTostatic alone: the suite's script then loops "
                "over no model type and runs nothing",
            )
        )
    repo = os.path.basename(os.path.normpath(options.repo))
    devices = " ".join(d.label for d in bench.layout.devices)
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
        if len(run.device.gpu_ids) == 1:
            speed = replace(speed, speed_unit=bench.layout.one_card_unit)
        timed = _retarget(harness.stages[0], chain_id, "train", _log(options, "train_log", name), flags)
        stages.append(replace(timed, speed=speed))
        plan.chains.append(replace(harness, id=chain_id, stages=tuple(stages)))
    plan.notes.append(
        f"benchmark_train: {len(selected)} runs from {SECTION} and --benchmark-params "
        f"({', '.join(s.text for s in options.benchmark.selectors) or 'none: the section lists on ' + devices}); "
        f"eval and export are null; env flags {' '.join(f'{k}={v}' for k, v in section.flags) or 'none'}; logs "
        f"under {options.benchmark.log_dir}"
    )
    return section


def _harness_train(
    bench: Bench, config: SuiteConfig, plan: PlanDraft, before: str, section: Section, run: Run, profile: str | None
) -> Chain | None:
    """The chain the suite's harness plans for the copy of one pass, its train stage only (None: the trainer's
    script is null); the harness's notes go into ``plan``."""
    epoch = bench.epoch(config.model_name.value, section, run.device)
    edited = BashLines.parse(_edited(before, bench.layout, section, run, profile, epoch), config.path)
    draft = replace(plan, config=bench.read(config.path, edited), chains=[], skipped=[], notes=[])
    bench.chains(draft)
    plan.notes.extend(n for n in draft.notes if n not in plan.notes)  # the harness's own (PaddleDetection's dino)
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
