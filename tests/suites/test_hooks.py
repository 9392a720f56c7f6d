"""The figures and history-store hooks, asked through the one plugin manager both fronts use."""

from __future__ import annotations

import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from tipc.history.store import HISTORY_FILE, history_file
from tipc.plan.model import Stage, StageKind
from tipc.suites import registry

STAGE = Stage("c::infer", "c", "infer", StageKind.INFER, ("python", "infer.py"), {}, ".", "infer.log")
IPS_LINE = "ips: 12.5 samples/s\n"


@pytest.fixture
def plugin() -> Iterator[types.SimpleNamespace]:
    """A plugin module's namespace, registered for the test and taken out after it."""
    module = types.SimpleNamespace()
    yield module
    if registry.manager().is_registered(module):
        registry.manager().unregister(module)


def register(module: types.SimpleNamespace, **hooks: object) -> None:
    for name, function in hooks.items():
        setattr(module, name, function)
    registry.manager().register(module, "test-plugin")


def test_a_plugins_figures_join_tipcs_and_win_on_a_name(tmp_path: Path, plugin: types.SimpleNamespace) -> None:
    log = tmp_path / "infer.log"
    log.write_text("before\n" + IPS_LINE + "accuracy 0.5\n")
    since = len("before\n")

    def figures(stage: Stage, log: Path, since: int, until: int | None) -> dict[str, float]:
        text = log.read_bytes()[since:until].decode()
        return {"accuracy": float(text.split("accuracy ")[1]), "lines": float(text.count("\n"))}

    before, _ = registry.stage_figures(STAGE, log, since, None)
    register(plugin, pytest_tipc_stage_figures=figures)
    found, note = registry.stage_figures(STAGE, log, since, None)
    assert note == ""
    assert found == {**before, "accuracy": 0.5, "lines": 2.0}


def test_a_plugin_that_raises_costs_only_its_own_figures(tmp_path: Path, plugin: types.SimpleNamespace) -> None:
    log = tmp_path / "infer.log"
    log.write_text(IPS_LINE)

    def broken(stage: Stage, log: Path, since: int, until: int | None) -> dict[str, float]:
        raise ValueError("no such figure")

    before, _ = registry.stage_figures(STAGE, log, 0, None)
    register(plugin, pytest_tipc_stage_figures=broken)
    found, note = registry.stage_figures(STAGE, log, 0, None)
    assert found == before
    assert note == "metrics not parsed by test-plugin (ValueError: no such figure)"


@pytest.mark.parametrize(
    ("env", "chosen", "expected"),
    [
        ({}, None, "out/" + HISTORY_FILE),
        ({}, "shared/team.sqlite", "shared/team.sqlite"),
        ({"TIPC_HISTORY": "mine.sqlite"}, "shared/team.sqlite", "mine.sqlite"),
    ],
    ids=["tipcs-choice", "a-plugins-choice", "TIPC_HISTORY-first"],
)
def test_a_plugin_chooses_the_history_store(
    tmp_path: Path, plugin: types.SimpleNamespace, env: dict[str, str], chosen: str | None, expected: str
) -> None:
    asked = []

    def store(results: Path, model: str, mode: str) -> Path | None:
        asked.append((results, model, mode))
        return None if chosen is None else tmp_path / chosen

    register(plugin, pytest_tipc_history_store=store)
    results = tmp_path / "out" / "m" / "lite_train_lite_infer"
    given = {name: str(tmp_path / value) for name, value in env.items()}
    found = history_file(results, "m", "lite_train_lite_infer", tmp_path / "elsewhere", given)
    assert found == tmp_path / expected
    assert asked == ([] if env else [(results, "m", "lite_train_lite_infer")])
