"""The flags both fronts take, declared once and cheap to import.

``add_options`` registers them with argparse (``parser.add_argument``) under the
``tipc`` command's names; ``add_pytest_options`` with pytest (``group.addoption``,
which takes the same arguments) under ``--tipc-<name>``, pytest-benchmark's
convention, so that no other plugin's option collides with one of tipc's
(pytest-timeout's ``--timeout``). ``--config`` and ``--mode``, the command on
tipc's card, are kept on the pytest front too, as aliases, where no other plugin
owns them (``add_kept_options``). Both fronts read the same ``dest``s back
(``tipc.session.settings``). pytest imports this module on every run on a
machine with tipc installed (the ``pytest11`` entry point), so it imports
nothing heavy.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import cache
from typing import Any

from tipc.cluster.options import OPTIONS as CLUSTER_OPTIONS
from tipc.cluster.options import add_options as add_cluster_options
from tipc.config.modes import MODES

Option = tuple[tuple[str, ...], dict[str, Any]]

# Which configs: shared by every command that takes configs (`tipc prepare` too).
SELECTION_OPTIONS: tuple[Option, ...] = (
    (
        ("--config",),
        dict(
            dest="tipc_config",
            action="append",
            default=[],
            metavar="CONFIG",
            help="TIPC config: a path, or a name under test_configs/ or test_tipc/configs/; "
            "a directory stands for every train_*.txt below it (repeatable)",
        ),
    ),
    (
        ("--tags",),
        dict(
            dest="tipc_tags",
            action="append",
            default=[],
            metavar="TAG,TAG",
            help="keep the configs whose file name has all these tags: the training hardware (linux_gpu, "
            "linux_cpu ...), fleet, amp, normal (neither fleet nor amp), pact, ptq; "
            "repeat for alternatives (--tags linux_cpu,normal --tags linux_gpu,amp)",
        ),
    ),
    (
        ("--suite",),
        dict(
            dest="tipc_suite",
            default=None,
            metavar="NAME",
            help="the suite whose dialect reads the configs (a name docs/suites.md lists, a plugin's, or generic "
            "for the common layout); default: detected from the checkout's folders",
        ),
    ),
)

# What decides the plan: shared by `tipc plan` and the fronts that run it.
PLAN_OPTIONS: tuple[Option, ...] = (
    *SELECTION_OPTIONS,
    (("--mode",), dict(dest="tipc_mode", default=None, metavar="MODE", help=f"one of {', '.join(MODES)}")),
    (
        ("--repo",),
        dict(
            dest="tipc_repo",
            default=None,
            metavar="DIR",
            help="the target repo the stages run in (default: the config's target.yaml, else cwd)",
        ),
    ),
    (
        ("--python",),
        dict(
            dest="tipc_python",
            default=None,
            metavar="PY",
            help="interpreter for every stage (default: the config's, if on PATH, else this one)",
        ),
    ),
    (
        ("--benchmark-params",),
        dict(
            dest="tipc_benchmark_params",
            default=None,
            metavar="PARAMS[,PARAMS]",
            help="benchmark_train: the runs to make, as benchmark_train.sh's PARAMS "
            "(<modeltype>_bs<N>_<fp32|fp16>_<runmode>_N<n>C<c>, e.g. "
            "dynamic_bs8_fp32_DP_N1C1,dynamic_bs8_fp32_DP_N1C2; dynamicTostatic trains to_static); "
            "default: the config's train_benchmark_params lists on N1C4",
        ),
    ),
    (
        ("--set",),
        dict(
            dest="tipc_set",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="read the config with the line of this key set to VALUE, e.g. pretrain_weights=null or "
            "Global.pretrained_model=null (repeatable; the plan's notes name each line changed)",
        ),
    ),
    (
        ("--output-root",),
        dict(
            dest="tipc_output_root",
            default=None,
            metavar="DIR",
            help="results root inside the repo (default: ./test_tipc/output)",
        ),
    ),
    (
        ("--golden-dir",),
        dict(
            dest="tipc_golden_dir",
            default=None,
            metavar="DIR",
            help="golden results each chain is checked against (default: golden/ beside the config, when "
            "there is one); a suite's test_tipc/results folder of python_*.txt files works as it is",
        ),
    ),
)

# How the plan runs.
RUN_OPTIONS: tuple[Option, ...] = (
    (
        ("--doctor",),
        dict(
            dest="tipc_doctor",
            action="store_true",
            default=None,
            help="run tipc doctor's environment checks first; a failed check blocks its config's stages "
            "(default: on for fleet configs)",
        ),
    ),
    (
        ("--no-doctor",),
        dict(dest="tipc_doctor", action="store_false", default=None, help="skip the doctor's checks"),
    ),
    (
        ("--timeout",),
        dict(
            dest="tipc_timeout",
            action="append",
            default=[],
            metavar="KIND=SECONDS",
            help="per-stage time limit; KIND one of train, eval, export, infer, all (repeatable)",
        ),
    ),
    (
        ("--hang-timeout",),
        dict(
            dest="tipc_hang_timeout",
            default=None,
            metavar="SECONDS",
            help="kill a stage whose log shows no new output for this long (default: off)",
        ),
    ),
    (
        ("--confirm",),
        dict(
            dest="tipc_confirm",
            default=None,
            metavar="N",
            help="run a stage that failed again, up to N times, before the stages after it: one that then "
            "passes is flaky (every attempt kept), never a plain pass (default: 0)",
        ),
    ),
    (
        ("--bisect-budget",),
        dict(
            dest="tipc_bisect_budget",
            default=None,
            metavar="SECONDS",
            help="after the run, search the target's commits (a git checkout) for the change behind each new "
            "failure, for up to SECONDS in all: the report and the night's index name each culprit (default: off)",
        ),
    ),
    (
        ("--dry-run",),
        dict(dest="tipc_dry_run", action="store_true", default=False, help="print every stage's command; run nothing"),
    ),
    (
        ("--live",),
        dict(
            dest="tipc_live",
            action="store_true",
            default=False,
            help="stream each stage's output to the terminal while it runs (pytest's -s does too)",
        ),
    ),
    (
        ("--heartbeat",),
        dict(
            dest="tipc_heartbeat",
            default=None,
            metavar="SECONDS",
            help="off a terminal, print a line on each running stage every SECONDS (default: 60; 0: never)",
        ),
    ),
    (
        ("--report-dir",),
        dict(
            dest="tipc_report_dir",
            default=None,
            metavar="DIR",
            help="where the HTML report goes (default: reports/ under pytest's rootdir)",
        ),
    ),
    (
        ("--history",),
        dict(
            dest="tipc_history",
            default=None,
            metavar="FILE",
            help="the history store: every night's figures, durations and verdicts "
            "(default: tipc-history.sqlite in the output root)",
        ),
    ),
    (
        ("--no-report",),
        dict(
            dest="tipc_no_report", action="store_true", default=False, help="write no HTML report at the end of the run"
        ),
    ),
    (
        ("--fail-on",),
        dict(
            dest="tipc_fail_on",
            action="append",
            default=[],
            metavar="FINDING,FINDING",
            help="which findings make the run fail besides failed stages: golden (mismatches with a golden "
            "file; the default), regression (a figure that shifted for the worse over earlier runs), none",
        ),
    ),
    (
        ("--trend-runs",),
        dict(
            dest="tipc_trend_runs",
            default=None,
            metavar="N",
            help="earlier runs of a config whose figures make a figure's noise band (default: 30)",
        ),
    ),
    (
        ("--noise-k",),
        dict(
            dest="tipc_noise_k",
            default=None,
            metavar="K",
            help="a figure is a regression beyond median ± K·MAD of its earlier runs (default: 3)",
        ),
    ),
    (
        ("--trend-min-runs",),
        dict(
            dest="tipc_trend_min_runs",
            default=None,
            metavar="N",
            help="earlier runs a figure needs before it is judged (default: 10)",
        ),
    ),
    (
        ("--min-effect",),
        dict(
            dest="tipc_min_effect",
            action="append",
            default=[],
            metavar="KIND=PERCENT",
            help="the least change a regression must have; KIND one of time (times, speeds), memory, "
            "accuracy (default: time=6%% memory=2%% accuracy=1%%; repeatable)",
        ),
    ),
    (
        ("--autolog-shim",),
        dict(
            dest="tipc_autolog_shim",
            action="store_true",
            default=False,
            help="let the target's predictors import tipc's drop-in auto_log "
            "(for predictors run with --benchmark True where AutoLog is not installed)",
        ),
    ),
)

# Which chains run side by side, on which devices, on which machine (tipc.schedule): none given,
# one stage at a time, in order, as always.
SCHEDULE_OPTIONS: tuple[Option, ...] = (
    (
        ("--jobs",),
        dict(
            dest="tipc_jobs",
            default=None,
            metavar="N|auto",
            help="run up to N chains side by side (auto: as many as the GPUs, cores and memory allow); "
            "default: one stage at a time",
        ),
    ),
    (
        ("--mem-per-chain",),
        dict(
            dest="tipc_mem_per_chain",
            default=None,
            metavar="SIZE",
            help="memory to assume at least for each running stage, e.g. 6G (implies --jobs auto when "
            "--jobs is not given); default: the peaks earlier runs recorded",
        ),
    ),
    (
        ("--gpus-available",),
        dict(
            dest="tipc_gpus_available",
            default=None,
            metavar="IDS",
            help="GPU ids chains are pinned to, e.g. 0,1,2,3, also to simulate a GPU node "
            "(default: TIPC_GPUS_AVAILABLE, else the NVIDIA driver's list)",
        ),
    ),
    (
        ("--shard",),
        dict(
            dest="tipc_shard",
            default=None,
            metavar="K/N",
            help="run the K-th of N parts of every --config's chains, balanced by recorded durations; "
            "results go to <mode>/shards/<run group>/shard<K>/ (tipc merge joins one group's)",
        ),
    ),
    (
        ("--run-group",),
        dict(
            dest="tipc_run_group",
            default=None,
            metavar="ID",
            help="the night this shard or node belongs to: every part of one night the same id "
            "(default: TIPC_RUN_GROUP, Slurm's array or job id, GitHub's run id, GitLab's pipeline id); "
            "an earlier night's id re-runs one of its shards with its split",
        ),
    ),
)


def add_selection_options(add: Callable[..., Any]) -> None:
    for names, kwargs in SELECTION_OPTIONS:
        add(*names, **kwargs)


def add_plan_options(add: Callable[..., Any]) -> None:
    for names, kwargs in PLAN_OPTIONS:
        add(*names, **kwargs)
    add_cluster_options(add)


JUDGING_FLAGS = ("--fail-on", "--trend-runs", "--noise-k", "--trend-min-runs", "--min-effect", "--history")


def add_judging_options(add: Callable[..., Any]) -> None:
    """``--fail-on`` and the trend policy, as ``tipc run`` declares them: for the commands that judge a
    night they did not run (``tipc merge``, ``tipc report``)."""
    for names, kwargs in RUN_OPTIONS:
        if names[0] in JUDGING_FLAGS:
            add(*names, **kwargs)


def add_options(add: Callable[..., Any]) -> None:
    add_plan_options(add)
    for names, kwargs in (*RUN_OPTIONS, *SCHEDULE_OPTIONS):
        add(*names, **kwargs)


# --- the pytest front's spelling ---

PYTEST_PREFIX = "--tipc-"
KEPT = ("--config", "--mode")  # short on the pytest front too, where no other plugin owns them


def prefixed(flag: str) -> str:
    """The pytest front's name for a ``tipc`` command's flag: ``--timeout`` → ``--tipc-timeout``."""
    return PYTEST_PREFIX + flag.removeprefix("--")


def every_option() -> tuple[Option, ...]:
    """What ``tipc run`` takes; the pytest front takes the same."""
    return (*PLAN_OPTIONS, *CLUSTER_OPTIONS, *RUN_OPTIONS, *SCHEDULE_OPTIONS)


_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]*(?![\w-])")  # simple: pytest's start compiles it


@cache
def _cli_flags() -> frozenset[str]:
    """The flags the pytest front spells ``--tipc-<name>``."""
    return frozenset(n for names, _ in every_option() for n in names if n not in KEPT)


def respell(text: str) -> str:
    """A message of tipc's, with the ``tipc`` command's flags spelt as the pytest front spells them
    (every message names flags one way; the front that shows it spells them its own)."""
    if "--" not in text:
        return text
    flags = _cli_flags()
    return _FLAG.sub(lambda m: prefixed(m[0]) if m[0] in flags else m[0], text)


def add_pytest_options(add: Callable[..., Any]) -> None:
    """Every option as ``--tipc-<name>`` (``--tipc-config`` and ``--tipc-mode`` always work)."""
    for names, kwargs in every_option():
        help_text = kwargs.get("help")
        spelt = {**kwargs, "help": respell(help_text)} if help_text else kwargs
        add(*(prefixed(n) for n in names), **spelt)


def add_kept_options(add: Callable[..., Any], taken: Iterable[str]) -> tuple[str, ...]:
    """``--config`` and ``--mode`` beside ``--tipc-config`` and ``--tipc-mode``, each unless another
    plugin owns it (in ``taken``); returns those it could not add."""
    owned = set(taken)
    kept = {names[0]: kwargs for names, kwargs in PLAN_OPTIONS if names[0] in KEPT}
    for flag in KEPT:
        if flag not in owned:
            add(flag, **{**kept[flag], "help": f"same as {prefixed(flag)}"})
    return tuple(flag for flag in KEPT if flag in owned)


def old_spelling(arg: str) -> str | None:
    """The pytest front's name for ``arg`` when it is a ``tipc`` command's flag the front spells
    otherwise (``--timeout=5`` → ``--tipc-timeout``); None for anything else."""
    flag = arg.partition("=")[0]
    if flag in KEPT or not flag.startswith("--") or flag.startswith(PYTEST_PREFIX):
        return None
    return prefixed(flag) if flag in _cli_flags() else None
