"""Options → what to run and how: the one mapping both fronts share.

``tipc.session.options`` declares the flags once; ``resolve_settings(get, cwd)`` reads them back (``get`` is
``config.getoption`` or ``lambda dest: getattr(namespace, dest)``) into one
frozen ``Settings``: a ``PlanOptions`` per config and the ``RunSettings``.
Every bad value raises ``SettingsError`` saying what to type instead; the
pytest front turns it into ``pytest.UsageError``, ``tipc run`` into exit 2.
A config that cannot be read, or a multi-node config on one node, is not a bad
value: it becomes that config's ``ConfigProblem`` and the others still run.
Extend the mapping here, nowhere else.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tipc.cluster.group import run_group
from tipc.cluster.node import ClusterArgs, NodeContext, resolve_node, to_plan_kwargs
from tipc.cluster.options import cluster_args
from tipc.cluster.topology import ips_from_gpu_list
from tipc.compat import shim_path
from tipc.config import TipcConfig
from tipc.config.benchmark import parse_selectors
from tipc.config.locate import CONFIG_DIR, TARGET_CONFIG_DIR, declared_repo
from tipc.config.locate import TIPC_CHECKOUT as CHECKOUT
from tipc.config.modes import MODES, Mode, parse_mode
from tipc.errors import ClusterError, ConfigError, SettingsError
from tipc.metrics.noise import TrendPolicy, parse_min_effect
from tipc.plan import Plan, PlanOptions
from tipc.plan.golden import GOLDEN_DIR
from tipc.plan.interpreter import PythonCheck, on_path
from tipc.plan.model import BenchmarkOptions
from tipc.plan.topology import parse_topology
from tipc.run.limits import parse_seconds, resolve_limits
from tipc.run.plan_run import RunSettings
from tipc.run.probe import cannot_run
from tipc.schedule.devices import available_gpus
from tipc.schedule.policy import AUTO, Schedule, parse_jobs, parse_shard, parse_size
from tipc.session.layers import (
    Layer,
    blamed,
    env_layer,
    layered,
    paddle_flag_notes,
    pyproject_layer,
    source_notes,
)
from tipc.session.options import PLAN_OPTIONS, RUN_OPTIONS, SCHEDULE_OPTIONS
from tipc.session.problems import ConfigProblem, ProblemKind, cluster_problem, error
from tipc.session.selection import Selected, select_configs
from tipc.suites import front as suites
from tipc.suites.plans import SuiteConfig
from tipc.suites.sets import parse_sets

FINDINGS = ("golden", "regression")
MAX_CONFIRM = 10  # a stage that failed ten times more is no flake
DEFAULT_FAIL_ON: frozenset[str] = frozenset({"golden"})


def parse_fail_on(values: Iterable[str]) -> frozenset[str]:
    """``--fail-on`` values (repeatable, comma-separated) as a set; ``none`` alone empties it.
    Not given at all: goldens fail the run, regressions are reported only."""
    given = [v.strip() for value in values for v in value.split(",") if v.strip()]
    if not given:
        return DEFAULT_FAIL_ON
    unknown = sorted(set(given) - {*FINDINGS, "none"})
    if unknown:
        raise SettingsError(f"--fail-on {','.join(unknown)}: expected {', '.join(FINDINGS)} or none")
    if "none" in given:
        if len(set(given)) > 1:
            raise SettingsError("--fail-on none: cannot be combined with other findings")
        return frozenset()
    return frozenset(given)


def _count(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{text}: expected a whole number") from None


def resolve_trends(get: Callable[[str], Any]) -> TrendPolicy:
    """``--trend-runs``, ``--noise-k``, ``--trend-min-runs``, ``--min-effect``: how the report judges
    figures across runs."""
    runs = _parsed(get, "tipc_trend_runs", "--trend-runs", _count)
    k = _parsed(get, "tipc_noise_k", "--noise-k", float)
    min_runs = _parsed(get, "tipc_trend_min_runs", "--trend-min-runs", _count)
    min_effect = _parsed(get, "tipc_min_effect", "--min-effect", parse_min_effect) if get("tipc_min_effect") else None
    given = {"runs": runs, "k": k, "min_runs": min_runs, "min_effect": min_effect}
    policy = TrendPolicy(**{name: value for name, value in given.items() if value is not None})
    if policy.problem():
        raise SettingsError(policy.problem())
    return policy


def resolve_judging(get: Callable[[str], Any], cwd: Path | None = None) -> tuple[frozenset[str], TrendPolicy]:
    """``--fail-on`` and the trend policy for a command that judges a night it did not run (``tipc
    report``, ``tipc merge``): from its command line, else the environment or ``[tool.tipc]``."""

    def given(dest: str) -> Any:
        return None if dest == "tipc_repo" else get(dest)

    lookup, _ = resolve_layers(given, cwd)
    return parse_fail_on(lookup("tipc_fail_on")), resolve_trends(lookup)


def resolve_history(
    get: Callable[[str], Any], cwd: Path | None = None, environ: Mapping[str, str] = os.environ
) -> Path | None:
    """Where the history lives, for a command that runs no config (``tipc report``, ``tipc merge``,
    ``tipc history``): ``--history``, else ``TIPC_HISTORY``, else ``[tool.tipc]`` ``history``; None:
    tipc's choice (``tipc.history.store.history_file``)."""
    cwd = Path.cwd() if cwd is None else cwd

    def given(dest: str) -> Any:
        return get(dest) if dest == "tipc_history" else None

    lookup, _ = resolve_layers(given, cwd, environ=environ)
    return history_path(lookup("tipc_history"), cwd)


def history_path(value: str | None, cwd: Path) -> Path | None:
    """The ``history`` setting as a file, relative to the folder tipc was started in; "" is unset."""
    return (cwd / value).resolve() if value else None


@dataclass(frozen=True, slots=True)
class ConfigTarget:
    path: Path  # the config file
    display: str  # how node ids spell it: relative to test_configs/ when it lives there
    options: PlanOptions
    node: NodeContext | None = None  # this node's place in the job (ips == () on one node)
    # The config as the settings read it, which the plan reads again only without it: a zoo's configs are read once.
    loaded: suites.Loaded | None = field(default=None, compare=False, repr=False)

    def plan(self, check: PythonCheck = on_path) -> Plan:
        """The config's whole plan (before ``--shard`` takes its part)."""
        if self.loaded is None:
            return suites.plan_path(self.path, self.options, check)
        return suites.plan(self.loaded, self.options, check)


@dataclass(frozen=True, slots=True)
class Settings:
    targets: tuple[ConfigTarget, ...]
    run: RunSettings
    live: bool = False
    heartbeat: float = 60.0  # seconds between progress lines off a terminal; 0: none
    report_dir: Path | None = None  # None: the front's default place
    report: bool = True
    problems: tuple[ConfigProblem, ...] = ()  # the selection's configs that cannot run here, each with why
    schedule: Schedule = field(default_factory=Schedule)  # the default: one stage at a time, in order
    fail_on: frozenset[str] = DEFAULT_FAIL_ON  # findings that fail the run (--fail-on)
    doctor: bool | None = None  # --doctor / --no-doctor; None: on for fleet configs (tipc.session.doctor)
    trends: TrendPolicy = field(default_factory=TrendPolicy)  # --trend-runs, --noise-k, --trend-min-runs, --min-effect
    bisect_budget: float = 0.0  # seconds a night spends bisecting its new failures (--bisect-budget); 0: none


FLEET = "fleet"


def doctor_on(settings: Settings) -> bool:
    """``--doctor`` / ``--no-doctor``; neither: on when a config is a fleet config (its file name
    says ``fleet``, or its node list names several nodes): where a wrong driver costs a night."""
    if settings.doctor is not None:
        return settings.doctor
    return any(
        FLEET in suites.tags(t.path, t.options.suite or None) or (t.node is not None and t.node.multi_node)
        for t in settings.targets
    )


def display_name(config: Path, cwd: Path, within: Path | None = None) -> str:
    """``within``: the directory ``--config`` named, the last base tried (a checkout elsewhere)."""
    return _display(config.resolve(), cwd.resolve(), within.resolve() if within else None)


def _display(config: Path, here: Path, within: Path | None) -> str:
    """``display_name`` of a resolved config, from the resolved folder tipc was started in and ``within``."""
    bases = (CHECKOUT / CONFIG_DIR, here / CONFIG_DIR, here / TARGET_CONFIG_DIR, here)
    for base in (*bases, *([within] if within else [])):
        if config.is_relative_to(base):
            return config.relative_to(base).as_posix()
    return config.as_posix()


def _repo(given: str | None, config: Path, here: Path) -> Path:
    """``here``: the resolved folder tipc was started in."""
    if given is not None:
        repo = (here / given).resolve()
        if not repo.is_dir():
            raise SettingsError(f"--repo {given}: not a directory; give the target repo's root")
        return repo
    return declared_repo(config) or here


def _process_count(config: object) -> int:
    """Processes per node the config's largest gpu_list entry starts (ports launch needs); a KL
    quantization or paddle2onnx config launches nothing, nor does a plugin's config as far as tipc can tell."""
    if isinstance(config, SuiteConfig):
        return config.processes
    if isinstance(config, TipcConfig):
        return max(parse_topology(e, config.gpu_list, config.path).nproc for e in config.gpu_list.values())
    return 1


def _config_ips(config: object) -> tuple[str, ...]:
    if isinstance(config, SuiteConfig):
        return ips_from_gpu_list(config.gpu_entries)
    return ips_from_gpu_list(config.gpu_list.values()) if isinstance(config, TipcConfig) else ()


def _target(
    selected: Selected, get: Callable[[str], Any], mode: Mode, where: _Where, notes: tuple[str, ...]
) -> ConfigTarget | ConfigProblem:
    """The config's target, or its problem; ``SettingsError`` when the run's own options are at fault."""
    cwd, here = where.cwd, where.here
    path = selected.path
    real = path.resolve()
    display = _display(real, here, where.resolved(selected.within))
    try:
        sets = parse_sets(get("tipc_set"))
        loaded = suites.load(real, selected.suite, sets, get("tipc_device") or "")
        config = loaded.config
        if selected.within is not None and mode not in suites.modes(loaded):
            # A directory's KL quantization configs in a training mode: not this mode's matter.
            modes = ", ".join(suites.modes(loaded))
            return ConfigProblem(real, display, mode, ProblemKind.NOT_APPLICABLE, f"in {mode}: it runs only in {modes}")
        suites.check_mode(loaded, mode)  # named on its own, the wrong mode is the user's to fix
        repo = _repo(get("tipc_repo"), real, here)
        config_ips = _config_ips(config)
        port_count = _process_count(config)
    except (ConfigError, ClusterError) as exc:  # the config's text: its gpu_list's addresses included
        return error(real, display, mode, exc)
    try:
        node = where.node(config_ips, port_count)
    except ClusterError as exc:
        fault = cluster_problem(exc, replace(where.cluster, port_count=port_count), config_ips)
        if fault is None:
            raise SettingsError(str(exc)) from None
        return ConfigProblem(real, display, mode, *fault)
    node_fields = to_plan_kwargs(node)
    node_fields["notes"] = (*node_fields["notes"], *notes)
    options = PlanOptions(
        mode=mode,
        repo=str(repo),
        suite=selected.suite or "",
        sets=sets,
        python=_python(get("tipc_python"), cwd),
        golden_dir=_golden_dir(get("tipc_golden_dir"), real, here),
        **({"output_root": get("tipc_output_root")} if get("tipc_output_root") else {}),
        **node_fields,
        benchmark=benchmark_options(get("tipc_benchmark_params"), os.environ, cwd),
    )
    # The plan reads the config as read here: a device with a script of its own (npu, xpu) is never detected, only
    # named, and named it was read as that script rewrites it.
    return ConfigTarget(path=real, display=display, options=options, node=node, loaded=loaded)


@dataclass
class _Where:
    """What every config of a selection shares: where tipc was started (``here``: resolved once), the folders
    ``--config`` named, and this node's place in the job, found once for each node list and process count (a
    zoo's configs mostly share both, and finding it looks at the machine: its devices, addresses and ports)."""

    cwd: Path
    here: Path
    cluster: ClusterArgs
    _nodes: dict[tuple[tuple[str, ...], int], NodeContext] = field(default_factory=dict)
    _folders: dict[Path, Path] = field(default_factory=dict)

    def resolved(self, folder: Path | None) -> Path | None:
        """A folder ``--config`` named, resolved once for all its configs."""
        if folder is None:
            return None
        if folder not in self._folders:
            self._folders[folder] = folder.resolve()
        return self._folders[folder]

    def node(self, config_ips: tuple[str, ...], port_count: int) -> NodeContext:
        key = (config_ips, port_count)
        if key not in self._nodes:
            self._nodes[key] = resolve_node(replace(self.cluster, port_count=port_count), config_ips=config_ips)
        return self._nodes[key]


def benchmark_options(params: str | None, environ: Mapping[str, str], cwd: Path) -> BenchmarkOptions:
    """``--benchmark-params``, and benchmark_train.sh's ``BENCHMARK_LOG_DIR`` and ``PROFILING_TIMER_ONLY``
    (a relative log dir is taken from where tipc was started, as the script took it from its cwd)."""
    log_dir = environ.get("BENCHMARK_LOG_DIR")
    return BenchmarkOptions(
        selectors=parse_selectors(params) if params is not None else (),
        log_dir=str((cwd / log_dir).resolve()) if log_dir else ".",
        profiling=environ.get("PROFILING_TIMER_ONLY", "True"),
    )


def _golden_dir(given: str | None, config: Path, cwd: Path) -> str:
    """``--golden-dir``, else ``golden/`` beside the config when it holds this config's folder
    (``golden/<config stem>/``); "" for no golden checks (a config nobody wrote goldens for)."""
    if given is None:
        beside = config.parent / GOLDEN_DIR  # the config is resolved
        return str(beside) if (beside / config.stem).is_dir() else ""
    folder = (cwd / given).resolve()
    if not folder.is_dir():
        raise SettingsError(f"--golden-dir {given}: not a directory; give the folder that holds the goldens")
    return str(folder)


def _python(given: str | None, cwd: Path) -> str | None:
    """A ``--python`` path is made absolute (stages run in the repo, not here); a bare name is
    left to PATH. Not resolved through symlinks: a venv's python is one, and must stay it."""
    if given is None or os.sep not in given:
        return given
    return os.path.abspath(cwd / given)


def check_interpreters(settings: Settings) -> None:
    """Before a run: a ``--python`` that cannot run stops it here, with the fix, rather than
    failing every stage with exit 127. (``tipc plan`` may plan for another machine: no check.)"""
    for target in settings.targets:
        python = target.options.python
        problem = cannot_run(python) if python else ""
        if problem:
            raise SettingsError(
                f"--python {python}: {problem}; give an interpreter that runs, e.g. --python {sys.executable}"
            )


def _given(get: Callable[[str], Any]) -> dict[str, str]:
    """Options the user set, by flag, as typed: run.json's ``overrides``."""
    out = {}
    for names, kwargs in (*PLAN_OPTIONS, *RUN_OPTIONS, *SCHEDULE_OPTIONS):
        value = get(kwargs["dest"])
        if value not in (None, False, []):
            out[names[0]] = " ".join(value) if isinstance(value, list) else str(value)
    return out


def resolve_layers(
    get: Callable[[str], Any],
    cwd: Path | None = None,
    ini: Layer | None = None,
    environ: Mapping[str, str] = os.environ,
) -> tuple[Callable[[str], Any], dict[str, str]]:
    """The command line's ``get`` with the settings it left at their defaults taken from the
    environment, pytest's ini (``ini``) or ``[tool.tipc]`` (``tipc.session.layers``), and where
    each value came from."""
    cwd = Path.cwd() if cwd is None else cwd
    repo = get("tipc_repo")
    layers = [env_layer(environ), *([ini] if ini else []), pyproject_layer(cwd / repo if repo else cwd)]
    return layered(get, layers)


def resolve_targets(
    get: Callable[[str], Any], cwd: Path | None = None, ini: Layer | None = None
) -> tuple[ConfigTarget | ConfigProblem, ...]:
    """Every selected config, in the selection's order: its target (the ``PlanOptions`` this node
    runs it with), or its problem (why it cannot run here); () without ``--config``. Settings the
    command line leaves out come from the environment or a file: each plan's notes say which."""
    if not get("tipc_config"):
        return ()
    get, sources = resolve_layers(get, cwd, ini)
    return _resolve_targets(get, Path.cwd() if cwd is None else cwd, source_notes(sources))


def _resolve_targets(
    get: Callable[[str], Any], cwd: Path, notes: tuple[str, ...]
) -> tuple[ConfigTarget | ConfigProblem, ...]:
    notes = (*notes, *paddle_flag_notes(os.environ))
    configs = get("tipc_config")
    mode = get("tipc_mode")
    if mode is None:
        raise SettingsError(f"--mode (missing): --config needs --mode, one of {', '.join(MODES)}")
    selected = select_configs(configs, get("tipc_tags"), cwd, get("tipc_suite"))
    try:
        run_mode = parse_mode(mode, str(selected[0].path))
        cluster = cluster_args(get)
    except (ConfigError, ClusterError) as exc:
        raise SettingsError(str(exc)) from None
    where = _Where(cwd, cwd.resolve(), cluster)
    return tuple(_target(s, get, run_mode, where, notes) for s in selected)


def _node_fields(target: ConfigTarget) -> dict[str, Any]:
    """What every config's stages share about this node, from the first config's options."""
    first, node = target.options, target.node
    return {
        "node_rank": first.node_rank or 0,
        "device": str(first.device),
        **({"host": first.host} if first.host else {}),
        **({"watch_port": node.rendezvous_port, "node_timeout": node.node_timeout} if node is not None else {}),
    }


def resolve_settings(get: Callable[[str], Any], cwd: Path | None = None, ini: Layer | None = None) -> Settings | None:
    """None when no ``--config`` was given (tipc stays inert). ``ini``: pytest's ini settings."""
    if not get("tipc_config"):
        return None
    cwd = Path.cwd() if cwd is None else cwd
    get, sources = resolve_layers(get, cwd, ini)
    try:
        return _resolve(get, cwd, sources)
    except SettingsError as exc:
        raise SettingsError(blamed(str(exc), sources)) from None


def _resolve(get: Callable[[str], Any], cwd: Path, sources: dict[str, str]) -> Settings:
    resolved = _resolve_targets(get, cwd, source_notes(sources))
    targets = tuple(t for t in resolved if isinstance(t, ConfigTarget))
    try:
        limits = resolve_limits(
            get("tipc_mode"),
            tuple(get("tipc_timeout")),
            None if get("tipc_hang_timeout") is None else parse_seconds(get("tipc_hang_timeout")),
        )
    except ValueError as exc:
        raise SettingsError(f"--timeout/--hang-timeout: {exc}") from None
    overrides = _given(get)
    fail_on = parse_fail_on(get("tipc_fail_on"))
    run = RunSettings(
        limits=limits,
        dry_run=bool(get("tipc_dry_run")),
        overrides=overrides,
        pythonpath=(shim_path(),) if get("tipc_autolog_shim") else (),
        golden_fails="golden" in fail_on,
        confirm=_confirm(get("tipc_confirm")),
        history=history_path(get("tipc_history"), cwd),
        **(_node_fields(targets[0]) if targets else {}),  # none runs: its problems are still told
    )
    report_dir = get("tipc_report_dir")
    return Settings(
        targets=targets,
        run=run,
        live=bool(get("tipc_live")),
        heartbeat=_heartbeat(get("tipc_heartbeat")),
        report_dir=None if report_dir is None else (cwd / report_dir).resolve(),
        report=not get("tipc_no_report"),
        problems=tuple(p for p in resolved if isinstance(p, ConfigProblem)),
        schedule=resolve_schedule(get, targets),
        doctor=get("tipc_doctor"),
        fail_on=fail_on,
        trends=resolve_trends(get),
        bisect_budget=_bisect_budget(get("tipc_bisect_budget")),
    )


def _bisect_budget(value: str | None) -> float:
    if value is None or str(value).strip() in ("", "0"):
        return 0.0
    try:
        return parse_seconds(str(value))
    except ValueError as exc:
        raise SettingsError(f"--bisect-budget: {exc}") from None


def _confirm(value: str | int | None) -> int:
    try:
        runs = int(value or 0)
    except ValueError:
        runs = -1
    if not 0 <= runs <= MAX_CONFIRM:
        expected = f"expected how many times to run a failed stage again, 0 to {MAX_CONFIRM}"
        raise SettingsError(f"--confirm {value!r}: {expected}")
    return runs


def _heartbeat(value: str | None) -> float:
    if value is None:
        return 60.0
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0 or seconds == float("inf"):
        raise SettingsError(f"--heartbeat {value!r}: expected a number of seconds, 0 for none")
    return seconds


def _parsed(get: Callable[[str], Any], dest: str, flag: str, parse: Callable[[str], Any]) -> Any:
    value = get(dest)
    if value is None:
        return None
    try:
        return parse(value)
    except ValueError as exc:
        raise SettingsError(f"{flag} {exc}") from None


def resolve_schedule(get: Callable[[str], Any], targets: tuple[ConfigTarget, ...]) -> Schedule:
    """``--jobs``, ``--mem-per-chain`` (alone it means ``--jobs auto``), the GPU list, ``--shard``
    and the run group it belongs to (``--run-group``, else the scheduler's: a shard needs one)."""
    jobs = _parsed(get, "tipc_jobs", "--jobs", parse_jobs)
    mem = _parsed(get, "tipc_mem_per_chain", "--mem-per-chain", parse_size)
    shard = _parsed(get, "tipc_shard", "--shard", parse_shard)
    try:
        gpus = available_gpus(get("tipc_gpus_available"), os.environ)
    except ValueError as exc:
        raise SettingsError(str(exc)) from None
    if jobs is None and mem is not None:
        jobs = AUTO
    try:
        group, _ = run_group(get("tipc_run_group"), os.environ)
    except ValueError as exc:
        raise SettingsError(f"--run-group {exc}") from None
    if shard is not None and not group:
        raise SettingsError(
            "--shard: no run group says which night this shard belongs to; pass --run-group ID (the "
            "same on every shard of one night, e.g. nightly-2026-12-01), or run under Slurm, GitHub "
            "Actions or GitLab CI (docs/nightly.md)"
        )
    if (jobs is not None or shard is not None) and any(t.node and t.node.multi_node for t in targets):
        # Every chain of a multi-node run launches on the one start port all nodes agreed on.
        raise SettingsError(
            "--jobs/--mem-per-chain/--shard: not on a multi-node run (every node runs every chain, one "
            "at a time, on the start port all nodes share); drop them"
        )
    return Schedule(jobs=jobs, mem_per_chain_mb=mem, gpus=gpus, shard=shard, run_group=group)
