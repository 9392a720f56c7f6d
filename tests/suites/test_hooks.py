"""The figures and history-store hooks, asked through the one plugin manager both fronts use."""

from __future__ import annotations

import json
import math
import threading
import types
from collections.abc import Generator, Iterator
from dataclasses import replace
from pathlib import Path

import pluggy
import pytest

from tests.suites.faulty_plugin.tipc_faulty_plugin import deep_list
from tipc.config.modes import Mode
from tipc.history.store import HISTORY_FILE, history_file
from tipc.plan.model import Plan, Stage, StageKind
from tipc.suites import guard, registry
from tipc.suites.guard import PluginWarning
from tipc.suites.hookspecs import hookimpl

STAGE = Stage("c::infer", "c", "infer", StageKind.INFER, ("python", "infer.py"), {}, ".", "infer.log")
IPS_LINE = "ips: 12.5 samples/s\n"


@pytest.fixture
def plugin() -> Iterator[types.SimpleNamespace]:
    """A plugin module's namespace, registered for the test and taken out after it."""
    module = types.SimpleNamespace()
    yield module
    if registry.manager().is_registered(module):
        registry.manager().unregister(module)


def register(module: types.SimpleNamespace, name: str = "test-plugin", **hooks: object) -> None:
    """``hooks`` as the plugin's; ``name``: a name of its own where a test looks for the warning (each plugin
    and hook is warned once a process)."""
    for hook, function in hooks.items():
        setattr(module, hook, function)
    registry.manager().register(module, name)


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
    with pytest.warns(PluginWarning, match="test-plugin: its pytest_tipc_stage_figures raised ValueError"):
        found, note = registry.stage_figures(STAGE, log, 0, None)
    assert found == before
    assert note == "pytest_tipc_stage_figures of plugin test-plugin left out (raised ValueError: no such figure)"


@pytest.mark.parametrize(
    ("setting", "chosen", "expected"),
    [
        (None, None, "out/" + HISTORY_FILE),
        (None, "shared/team.sqlite", "shared/team.sqlite"),
        ("mine.sqlite", "shared/team.sqlite", "mine.sqlite"),
    ],
    ids=["tipcs-choice", "a-plugins-choice", "the-history-setting-first"],
)
def test_a_plugin_chooses_the_history_store(
    tmp_path: Path, plugin: types.SimpleNamespace, setting: str | None, chosen: str | None, expected: str
) -> None:
    asked = []

    def store(results: Path, model: str, mode: str) -> Path | None:
        asked.append((results, model, mode))
        return None if chosen is None else tmp_path / chosen

    register(plugin, pytest_tipc_history_store=store)
    results = tmp_path / "out" / "m" / "lite_train_lite_infer"
    given = None if setting is None else tmp_path / setting
    found = history_file(results, "m", "lite_train_lite_infer", tmp_path / "elsewhere", given)
    assert found == tmp_path / expected
    assert asked == ([] if setting else [(results, "m", "lite_train_lite_infer")])


PLAN = Plan("c.txt", "m", Mode.LITE_TRAIN_LITE_INFER, ".", "out", "python", ())


def noted(plan: Plan, word: str) -> Plan:
    return replace(plan, notes=(*plan.notes, word))


def test_modify_plan_wrappers_receive_and_return_the_plan_in_pluggys_order(plugin: types.SimpleNamespace) -> None:
    """Plain implementations: the first plan answered is the plan (``tryfirst`` first); each wrapper gets the plan
    so far and returns it changed; an old-style hookwrapper may force another."""

    @hookimpl(wrapper=True)
    def outer(plan: Plan, config: object) -> Generator[None, Plan, Plan]:
        return noted((yield), "outer")

    @hookimpl(hookwrapper=True)
    def old_style(plan: Plan, config: object) -> Generator[None, pluggy.Result[Plan], None]:
        outcome = yield
        outcome.force_result(noted(outcome.get_result(), "old-style"))

    second = types.SimpleNamespace(
        pytest_tipc_modify_plan=hookimpl(tryfirst=True)(lambda plan, config: noted(plan, "first"))
    )
    register(plugin, pytest_tipc_modify_plan=outer)
    registry.manager().register(second, "second-plugin")
    third = types.SimpleNamespace(pytest_tipc_modify_plan=old_style)
    registry.manager().register(third, "third-plugin")
    try:
        # the wrapper registered last is the outermost: its teardown comes last
        assert registry.modify_plan(PLAN, None).notes == ("first", "outer", "old-style")
    finally:
        registry.manager().unregister(second)
        registry.manager().unregister(third)


def test_no_plugin_answering_a_plan_leaves_it_as_built(plugin: types.SimpleNamespace) -> None:
    @hookimpl(wrapper=True)
    def wrapper(plan: Plan, config: object) -> Generator[None, Plan, Plan]:
        return noted((yield), "seen")

    register(plugin, pytest_tipc_modify_plan=wrapper)
    assert registry.modify_plan(PLAN, None).notes == ("seen",)


def raises(*args: object) -> None:
    raise RuntimeError("broken")


def test_a_raising_modify_plan_leaves_the_plan_as_built(plugin: types.SimpleNamespace) -> None:
    """Was an INTERNALERROR under pytest, a traceback from the CLI."""
    register(plugin, "raising-plan", pytest_tipc_modify_plan=lambda plan, config: raises())
    with pytest.warns(PluginWarning, match="raising-plan: its pytest_tipc_modify_plan raised RuntimeError"):
        assert registry.modify_plan(PLAN, None) is PLAN


@pytest.mark.parametrize("answer", [42, "not a plan", None], ids=["int", "str", "none"])
def test_a_wrapper_that_answers_no_plan_leaves_the_plan(plugin: types.SimpleNamespace, request, answer) -> None:
    @hookimpl(wrapper=True)
    def junk(plan: Plan, config: object) -> Generator[None, Plan, object]:
        yield
        return answer

    register(plugin, request.node.name, pytest_tipc_modify_plan=junk)
    if answer is None:  # a wrapper's None is its answer "keep it", as a plain implementation's
        assert registry.modify_plan(PLAN, None) is PLAN
        return
    with pytest.warns(PluginWarning, match="expected a Plan"):
        assert registry.modify_plan(PLAN, None) is PLAN


def test_a_raising_report_sections_costs_only_its_sections(plugin: types.SimpleNamespace, tmp_path: Path) -> None:
    """A raising implementation lost the whole report."""
    register(plugin, "raising-sections", pytest_tipc_report_sections=lambda results: raises())
    with pytest.warns(PluginWarning, match="raising-sections: its pytest_tipc_report_sections raised"):
        assert registry.report_sections(tmp_path) == ()


def test_a_raising_history_store_leaves_tipcs_choice(plugin: types.SimpleNamespace, tmp_path: Path) -> None:
    """A raising implementation blocked a train that never ran (the store is asked before the run)."""
    register(plugin, "raising-store", pytest_tipc_history_store=lambda results, model, mode: raises())
    results = tmp_path / "out" / "m" / "lite_train_lite_infer"
    with pytest.warns(PluginWarning, match="raising-store: its pytest_tipc_history_store raised"):
        found = history_file(results, "m", "lite_train_lite_infer", tmp_path)
    assert found == tmp_path / "out" / HISTORY_FILE


def test_cause_rules_that_are_not_dicts_cost_only_that_plugins_rules(plugin: types.SimpleNamespace) -> None:
    """A rule that is not a dict lost the failed stage's record."""
    other = types.SimpleNamespace(pytest_tipc_cause_rules=lambda: [{"kind": "mine", "pattern": "(boom)"}])
    register(plugin, "junk-rules", pytest_tipc_cause_rules=lambda: ["not a dict"])
    registry.manager().register(other, "good-rules")
    try:
        with pytest.warns(PluginWarning, match="junk-rules: its pytest_tipc_cause_rules answered a rule of str"):
            found = registry.cause_rules()
    finally:
        registry.manager().unregister(other)
    assert found == [("good-rules", {"kind": "mine", "pattern": "(boom)"})]


@pytest.mark.parametrize(
    "answer",
    [object(), {"deep": deep_list()}, {"set": {1}}, {1: "a key that is no string"}, ["a list"]],
    ids=["object", "100000-deep", "set", "int-key", "list"],
)
def test_figures_json_cannot_hold_cost_only_that_plugins_figures(
    tmp_path: Path, plugin: types.SimpleNamespace, request, answer: object
) -> None:
    """Such figures left results.jsonl empty for the whole run."""
    log = tmp_path / "infer.log"
    log.write_text(IPS_LINE)
    before, _ = registry.stage_figures(STAGE, log, 0, None)
    register(plugin, request.node.name, pytest_tipc_stage_figures=lambda stage, log, since, until: answer)
    with pytest.warns(PluginWarning, match="its pytest_tipc_stage_figures answered"):
        found, note = registry.stage_figures(STAGE, log, 0, None)
    assert found == before and "left out" in note
    json.dumps(found, allow_nan=False)


def test_non_finite_figures_are_written_as_null_with_a_note(tmp_path: Path, plugin: types.SimpleNamespace) -> None:
    """They were written as bare NaN and Infinity tokens, which strict JSON readers refuse."""
    log = tmp_path / "infer.log"
    log.write_text(IPS_LINE)
    figures = {"loss": math.nan, "peak": [1.0, math.inf], "ok": 2.5}
    register(plugin, pytest_tipc_stage_figures=lambda stage, log, since, until: figures)
    found, note = registry.stage_figures(STAGE, log, 0, None)
    assert (found["loss"], found["peak"], found["ok"]) == (None, [1.0, None], 2.5)
    assert (
        note
        == "figures.loss is nan, not a JSON number: written as null; figures.peak[1] is inf, not a JSON number: written as null"
    )
    json.dumps(found, allow_nan=False)


def test_a_hung_implementation_is_given_up_on_and_not_called_again(
    tmp_path: Path, plugin: types.SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()
    calls = []

    def hangs(stage: Stage, log: Path, since: int, until: int | None) -> None:
        calls.append(stage)
        release.wait(60)

    monkeypatch.setenv("TIPC_HOOK_TIMEOUT", "0.2")
    log = tmp_path / "infer.log"
    log.write_text(IPS_LINE)
    before, _ = registry.stage_figures(STAGE, log, 0, None)
    register(plugin, "hanging-figures", pytest_tipc_stage_figures=hangs)
    try:
        with pytest.warns(
            PluginWarning, match=r"hanging-figures: its pytest_tipc_stage_figures did not return within 0.2 s"
        ):
            found, _ = registry.stage_figures(STAGE, log, 0, None)
        again, _ = registry.stage_figures(STAGE, log, 0, None)
    finally:
        release.set()
    assert found == again == before and len(calls) == 1


@pytest.mark.parametrize("given", ["soon", "0", "-1", "inf", "nan"])
def test_a_bad_hook_timeout_is_named_and_the_default_used(monkeypatch: pytest.MonkeyPatch, given: str) -> None:
    monkeypatch.setenv("TIPC_HOOK_TIMEOUT", given)
    with pytest.warns(PluginWarning, match=f"TIPC_HOOK_TIMEOUT='{given}': expected a positive number of seconds"):
        assert guard.limit() == guard.DEFAULT_LIMIT
