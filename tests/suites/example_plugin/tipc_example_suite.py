"""An example tipc plugin, as a suite tipc does not know would ship one: it adds a dialect, a report section, a
figure of its infer stage's log, and chooses where the history store lives.

The "TinySuite" dialect reads ``test_tipc/configs/*_tiny.txt`` files of ``key:value`` lines (``model_name``,
``python``, ``train``, ``infer``) in a checkout that has a ``tinysuite/`` folder, and plans one chain: the train
script, then the infer script on what it saved; a ``wrapper=True`` implementation of ``pytest_tipc_modify_plan``
notes each such plan. It imports only from ``tipc`` itself (its public API); nothing in tipc names it.
Registered for pytest with ``-p tipc_example_suite``, for the CLI through a ``tipc`` entry point.
"""

from __future__ import annotations

import shlex
from collections.abc import Generator
from dataclasses import replace
from pathlib import Path

from tipc import (
    Chain,
    ConfigError,
    Dialect,
    Mode,
    Plan,
    PlanOptions,
    PythonCheck,
    Stage,
    StageKind,
    Topology,
    hookimpl,
    log_lines,
)

MODES = (Mode.LITE_TRAIN_LITE_INFER,)
SECTION_TITLE = "TinySuite notes"
FIGURE = "tiny_predictions"  # how many images the infer script says it predicted
WRAPPED = "TinySuite: seen by the example plugin's wrapper"  # the note its modify_plan wrapper adds
HISTORY = "tiny-history.sqlite"  # beside the output root's folders, where a TinySuite team keeps it


def load(path: str) -> dict[str, str]:
    values: dict[str, str] = {"path": path}
    for number, line in enumerate(Path(path).read_text().splitlines(), start=1):
        key, colon, value = line.partition(":")
        if not colon:
            raise ConfigError(path, number, f"expected 'key:value', found {line!r}")
        values[key.strip()] = value.strip()
    for key in ("model_name", "python", "train", "infer"):
        if key not in values:
            raise ConfigError(path, 0, f"expected a '{key}:' line")
    return values


def modes(config: dict[str, str]) -> tuple[Mode, ...]:
    return MODES


def build(config: dict[str, str], options: PlanOptions, check: PythonCheck) -> Plan:
    python = options.python or config["python"]
    out = f"{options.output_root}/{config['model_name']}/{options.mode}"
    save = f"{out}/model"

    def stage(name: str, kind: StageKind, script: str, *extra: str, requires: tuple[str, ...] = ()) -> Stage:
        argv = (python, *shlex.split(script), *extra)
        return Stage(f"tiny::{name}", "tiny", name, kind, argv, {}, options.repo, f"{out}/{name}.log",
                     requires=requires, legacy_command=" ".join(argv))  # fmt: skip

    train = stage("train", StageKind.TRAIN, config["train"], f"--save_dir={save}")
    infer = stage("infer[cpu]", StageKind.INFER, config["infer"], f"--model_dir={save}", requires=(train.id,))
    chain = Chain("tiny", "train", "", Topology("cpu", "-1"), save, (train, infer))
    return Plan(config["path"], config["model_name"], options.mode, options.repo, out, python, (chain,),
                notes=("TinySuite: planned by the example plugin",))  # fmt: skip


TINYSUITE = Dialect("TinySuite", ("tinysuite",), load, modes, build, patterns=("*_tiny.txt",), excludes=())


def pytest_tipc_add_dialects() -> list[Dialect]:
    return [TINYSUITE]


@hookimpl(wrapper=True)
def pytest_tipc_modify_plan(plan: Plan, config: object) -> Generator[None, Plan, Plan]:
    """A wrapper: a TinySuite plan, as built or as another plugin answered it, gets the plugin's note."""
    plan = yield
    return replace(plan, notes=(*plan.notes, WRAPPED)) if TINYSUITE.is_config(Path(plan.config_path).name) else plan


def pytest_tipc_report_sections(results: Path) -> list[tuple[str, str]]:
    return [(SECTION_TITLE, f"{len(list(results.glob('*.jsonl')))} record files in {results.name}")]


def pytest_tipc_stage_figures(stage: Stage, log: Path, since: int, until: int | None) -> dict[str, float] | None:
    if not stage.id.startswith("tiny::") or stage.kind is not StageKind.INFER:
        return None
    return {FIGURE: sum(line.startswith("predicted with") for line in log_lines(log, since, until))}


def pytest_tipc_history_store(results: Path, model: str, mode: str) -> Path | None:
    return results.parent.parent / HISTORY if (results.parent.name, results.name) == (model, mode) else None
