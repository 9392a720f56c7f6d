"""benchmark_train: the runs of ``benchmark_train.sh`` as chains (docs/spec.md §6.4).

The script edits a copy of the config by physical line and calls the train harness once per batch
size × precision × ``NxCy``. Here each edit is a ``replace`` on the typed config (eval and norm_export
null, the precision on the autocast line, ``benchmark_train=<bs>``/``=<epoch>`` as the mode's values,
the profiler option on the extra-param line) and the training chain is built as in the other modes,
so the commands are the harness's. A run is one chain: on one card a ``profile`` stage (the script's
profiling pass, unless ``PROFILING_TIMER_ONLY=no``) and the ``train`` stage, whose figures become the
analysis step's speed JSON (``Stage.speed``). Logs go where the script put them, under
``BENCHMARK_LOG_DIR`` (``train_log/``, ``profiling_log/``, ``index/``).

What is kept and what is fixed (plan notes say so):

* kept: the log and speed file names (``<repo>_<model>_bs<bs>_<fp>_<runmode>_<NxCy>_[d2sT_]log``), the
  save dir ``S`` that runs of one precision and card count share, epochs × N × C with PARAMS, the flags
  exported into every run's environment, ``images/s`` as the multi-card unit;
* fixed: the model name is never clobbered (B16); ``fp16`` trains with AMP with or without PARAMS;
  ``timer_only=False`` is added once, not once more per run; the interpreter is tipc's usual choice (the
  script forced ``python``); a multi-node ``NxCy`` (N > 1) trains on N nodes (the script's list had no
  addresses), taken from ``--ips`` or the config's multi-node ``gpu_list`` entry.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from tipc.config.benchmark import DEFAULT_DEVICE, BenchmarkParams, DeviceNum, Selector, benchmark_params
from tipc.config.model import NULL, Field, TipcConfig
from tipc.dialects.paddleocr.config.values import paired
from tipc.dialects.paddleocr.plan.chains import Built, Context, train_chain
from tipc.dialects.paddleocr.plan.trainers import resolve_trainer
from tipc.errors import ConfigError
from tipc.files.write import component, name_part
from tipc.plan.fragments import Fragment
from tipc.plan.lists import distinct_values
from tipc.plan.model import PROFILE, PlanOptions, Skipped, SpeedSpec, Stage, Topology, speed_spec
from tipc.plan.naming import stage_id
from tipc.plan.topology import classify, on_cpu, parse_topology

TO_STATIC_TRAINER = "to_static_train"
_AMP = "amp"


@dataclass(frozen=True, slots=True)
class BenchRun:
    """One iteration of the script's loop."""

    batch_size: str
    train_precision: str  # what goes on the autocast line (fp16 → amp)
    run_mode: str
    device: DeviceNum
    epoch: int
    to_static: bool = False

    @property
    def precision(self) -> str:
        """The script's label: fp16 for AMP, fp32 for anything else."""
        return "fp16" if self.train_precision == _AMP else "fp32"

    @property
    def label(self) -> str:
        return f"bs{self.batch_size}_{self.precision}_{self.run_mode}_{self.device.label}"

    @property
    def one_gpu_each(self) -> bool:
        """The script's single-GPU branch (one id per node, e.g. N1C1 or N2C2): profiled, unit samples/s."""
        return len(self.device.gpu_ids) == 1


def benchmark_runs(params: BenchmarkParams, selectors: tuple[Selector, ...]) -> tuple[BenchRun, ...]:
    """The runs, in the script's order (batch size, then precision, then devices); repeats once."""
    runs: list[BenchRun] = []
    for selector in selectors or (None,):
        if selector is None or selector.batch_size is None:
            to_static = selector is not None and selector.to_static
            runs.extend(
                BenchRun(bs, _trained(fp), "DP", DEFAULT_DEVICE, params.epoch, to_static)
                for bs in params.batch_sizes
                for fp in params.fp_items
            )
        else:
            device = selector.device
            epoch = params.epoch * device.nodes * device.cards
            precision = _trained(selector.precision)
            runs.append(BenchRun(selector.batch_size, precision, selector.run_mode, device, epoch, selector.to_static))
    return tuple(dict.fromkeys(runs))


def benchmark_chains(
    config: TipcConfig, options: PlanOptions, python: Fragment, log_path: str, notes: list[str]
) -> tuple[list[Built], list[Skipped]]:
    """Every run's chain (one per run and trainer of the trainer line), and the trainers the harness drops."""
    params = benchmark_params(config)
    runs = benchmark_runs(params, options.benchmark.selectors)
    notes.append(_runs_note(params, runs, options))
    built: list[Built] = []
    skipped: list[Skipped] = []
    for run in runs:
        for index, name in enumerate(distinct_values(config.trainer, config.path)):
            trainer_name = TO_STATIC_TRAINER if run.to_static and name == "norm_train" else name
            chain_id = f"{trainer_name}-bs{run.batch_size}-{run.train_precision}-{run.run_mode}-{run.device.label}"
            trainer = resolve_trainer(config, trainer_name)
            if trainer.skip_reason:
                skipped.append(Skipped(chain_id, trainer.skip_reason))
                continue
            # The script's one log per run held every trainer's output; here each trainer has its own.
            names = _LogNames(options, config.model_name.value, run, "" if index == 0 else f"{trainer_name}_")
            built.append(_RunChain(config, params, options, python, log_path, run, chain_id, names).build(trainer_name))
    return built, skipped


@dataclass(frozen=True, slots=True)
class _RunChain:
    """One run: the harness's training chain on the edited config, renamed into the run's chain."""

    config: TipcConfig
    params: BenchmarkParams
    options: PlanOptions
    python: Fragment
    log_path: str
    run: BenchRun
    chain_id: str
    names: _LogNames

    def build(self, trainer_name: str) -> Built:
        run, options, flags, names = self.run, self.options, dict(self.params.flags), self.names
        edited = _edited(self.config, run)
        normal = self._harness_chain(edited, trainer_name)
        train = self._retarget(normal.chain.stages[0], "train", names.log("train_log", "log"), flags)
        stages = [replace(train, speed=names.speed())]
        stages.extend(self._retarget(s, s.name, s.log, flags) for s in normal.chain.stages[1:])
        if run.one_gpu_each and options.benchmark.profiling != "no":
            line = _profiler_line(self.params, options, self.config.train_param1.line)
            first = self._harness_chain(replace(edited, train_param1=line), trainer_name).chain.stages[0]
            # Judged by its exit code: PaddleOCR's profiler ends the trainer (0, no checkpoint) after its range.
            first = replace(first, outputs=())
            stages.insert(0, self._retarget(first, PROFILE, names.log("profiling_log", "profiling"), flags))
        skipped = tuple(replace(s, id=self._id(s.id)) for s in normal.skipped)
        return Built(replace(normal.chain, id=self.chain_id, stages=tuple(stages)), skipped)

    def _harness_chain(self, config: TipcConfig, trainer_name: str) -> Built:
        run = self.run
        ctx = Context(config, self.options, self.python, self.log_path, str(run.epoch), run.batch_size)
        topology = _topology(run.device, self.config, self.options)
        use_gpu = paired(self.config.train_use_gpu.values(), 0)
        return train_chain(ctx, topology, use_gpu, run.train_precision, resolve_trainer(config, trainer_name))

    def _id(self, harness_id: str) -> str:
        return stage_id(self.chain_id, harness_id.partition("::")[2])

    def _retarget(self, stage: Stage, name: str, log: str, flags: dict[str, str]) -> Stage:
        """A stage of the harness's chain in the run's chain, with the run's log and the section's flags."""
        return replace(
            stage,
            id=stage_id(self.chain_id, name),
            chain=self.chain_id,
            name=name,
            log=log,
            requires=tuple(self._id(r) for r in stage.requires),
            env={**flags, **stage.env},
        )


@dataclass(frozen=True, slots=True)
class _LogNames:
    """``${BENCHMARK_LOG_DIR}/<kind>/<repo>_<model>_bs<bs>_<fp>_<mode>_<NxCy>_[d2sT_]<suffix>``."""

    options: PlanOptions
    model: str
    run: BenchRun
    trainer: str = ""  # "<trainer>_" for every trainer of the trainer line but the first

    def name(self, suffix: str) -> str:
        repo = os.path.basename(os.path.normpath(self.options.repo))  # fronts pass an absolute repo
        to_static = "d2sT_" if self.run.to_static else ""
        return component(name_part(f"{repo}_{self.model}_{self.run.label}_{to_static}{self.trainer}{suffix}"))

    def log(self, kind: str, suffix: str) -> str:
        return f"{self.options.benchmark.log_dir.rstrip('/') or '/'}/{kind}/{self.name(suffix)}"

    def speed(self) -> SpeedSpec:
        run = self.run
        return speed_spec(
            self.log("index", "speed"), self.model, run.batch_size, run.precision, run.run_mode, run.device
        )


def _trained(precision: str) -> str:
    return _AMP if precision == "fp16" else precision


def _edited(config: TipcConfig, run: BenchRun) -> TipcConfig:
    """The script's ``sed`` edits of its config copy, as values of the typed config."""
    return replace(
        config,
        eval=_nulled(config.eval),
        norm_export=_nulled(config.norm_export),
        autocast=replace(config.autocast, value=run.train_precision, raw=run.train_precision),
        train_param1=_nulled(config.train_param1),
    )


def _nulled(field: Field) -> Field:
    return replace(field, value=NULL, raw=NULL)


def _profiler_line(params: BenchmarkParams, options: PlanOptions, line: int) -> Field:
    """Line 13 of the profiling pass: the option in double quotes, so that its ``;`` stay in one word."""
    option = params.profiler_option
    if options.benchmark.profiling == "False":
        option += ";timer_only=False"
    key, _, value = option.partition(":")
    return Field(f'"{key}', f'{value}"', line, raw=f'{value}"')


def _topology(device: DeviceNum, config: TipcConfig, options: PlanOptions) -> Topology:
    """The script's ``gpu_list`` for ``NxCy``; several nodes take their addresses from --ips or the config."""
    ids = device.gpu_ids
    if device.nodes == 1:
        topology = classify(",".join(ids), ids, ())
    else:
        ips = options.ips or _config_ips(config)
        if len(ips) != device.nodes:
            field = config.gpu_list
            raise ConfigError(
                config.path,
                field.line,
                f"benchmark run {device.label}: expected {device.nodes} node addresses (--ips, or a multi-node "
                f"'{field.key}' entry), found {len(ips)}",
            )
        topology = classify(f"{','.join(ips)};{','.join(ids)}", ids, ips)
    return on_cpu(topology) if options.device == "cpu" else topology


def _config_ips(config: TipcConfig) -> tuple[str, ...]:
    for entry in distinct_values(config.gpu_list, config.path):
        topology = parse_topology(entry, config.gpu_list, config.path)
        if topology.kind == "multi_node":
            return topology.ips
    return ()


def _runs_note(params: BenchmarkParams, runs: tuple[BenchRun, ...], options: PlanOptions) -> str:
    section = params.lines.batch_size.line
    chosen = ", ".join(s.text for s in options.benchmark.selectors) or "none: the section's lists on N1C4"
    flags = " ".join(f"{k}={v}" for k, v in params.flags) or "none"
    profiling = "off (PROFILING_TIMER_ONLY=no)" if options.benchmark.profiling == "no" else "on one card"
    return (
        f"benchmark_train: {len(runs)} runs from train_benchmark_params (line {section}) and --benchmark-params "
        f"({chosen}); eval and export are null; env flags {flags}; profiling pass {profiling}; speed JSON under "
        f"{options.benchmark.log_dir}/index"
    )
