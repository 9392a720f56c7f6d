"""The one plugin manager both fronts ask (``hookspecs``): the built-in dialects, the ``tipc`` entry points, and
under pytest the pytest plugins that implement a ``pytest_tipc_*`` hook (``adopt``).

Every hook is called through pluggy's hook caller (``tryfirst``, ``trylast``, ``wrapper`` and ``hookwrapper``
work as in pytest), each implementation under the guard (``guard``) with its hook's check of what it answers.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, cast

import pluggy

from tipc.errors import ConfigError
from tipc.plan.model import Plan
from tipc.suites import guard, hookspecs
from tipc.suites.dialect import Dialect

ENTRY_POINT_GROUP = "tipc"
BUILTIN = "builtin"
HOOK_PREFIX = "pytest_tipc_"


def _list_of(check: Callable[[Any], Any], what: str) -> Callable[[Any], list[Any]]:
    def answers(value: Any) -> list[Any]:
        if not isinstance(value, list | tuple):
            raise guard.Junk(f"answered {type(value).__name__}, expected a list of {what}")
        return [check(v) for v in value]

    return answers


def _instance(kind: type, what: str) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if not isinstance(value, kind):
            raise guard.Junk(f"answered {type(value).__name__}, expected {what}")
        return value

    return check


def _section(value: Any) -> tuple[str, str]:
    if not (isinstance(value, list | tuple) and len(value) == 2 and all(isinstance(v, str) for v in value)):
        raise guard.Junk(f"answered a section of {type(value).__name__}, expected (title, text) strings")
    return (value[0], value[1])


def _rule(value: Any) -> dict[str, Any]:
    if not (isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str | int) for k, v in value.items())):
        raise guard.Junk(f"answered a rule of {type(value).__name__}, expected a dict of str or int values")
    return value


def _figures(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise guard.Junk(f"answered {type(value).__name__}, expected a dict of figures")
    clean = guard.strict_json(value, "figures")
    return cast("dict[str, Any]", clean)


def _store(value: Any) -> Path:
    if not isinstance(value, str | os.PathLike):
        raise guard.Junk(f"answered {type(value).__name__}, expected a path")
    return Path(value)


def _unread_log(exc: BaseException) -> str | None:
    """A log the read door refused (a device, a FIFO) is said once, not per parser; a missing one (a stage
    that failed before writing it) needs no word."""
    if isinstance(exc, FileNotFoundError):
        return ""
    if isinstance(exc, OSError):
        return f"metrics not read: {exc.filename} {exc.strerror or exc}"
    return None


def _plugins_fault(exc: BaseException) -> None:
    return None


@dataclass(frozen=True, slots=True)
class Checks:
    answer: Callable[[Any], Any]  # one implementation's answer (not None)
    firstresult: bool = False
    expected: guard.Expected = _plugins_fault

    def whole(self, value: Any) -> Any:
        """A wrapper's result: the hook's whole result (None, or the one answer, or the list of answers)."""
        if self.firstresult:
            return None if value is None else self.answer(value)
        return _list_of(self.answer, "answers")(value)


CHECKS: Mapping[str, Checks] = {
    "pytest_tipc_add_dialects": Checks(_list_of(_instance(Dialect, "a Dialect"), "Dialect")),
    "pytest_tipc_modify_plan": Checks(_instance(Plan, "a Plan"), firstresult=True),
    "pytest_tipc_report_sections": Checks(_list_of(_section, "(title, text) sections")),
    "pytest_tipc_cause_rules": Checks(_list_of(_rule, "rule dicts")),
    "pytest_tipc_stage_figures": Checks(_figures, expected=_unread_log),
    "pytest_tipc_history_store": Checks(_store, firstresult=True),
}


class _Manager(pluggy.PluginManager):
    """Takes plain ``pytest_tipc_*`` functions as implementations, as pytest's manager does, and calls every
    implementation under the guard."""

    def __init__(self, project_name: str) -> None:
        super().__init__(project_name)
        self._guarded: dict[tuple[str, pluggy.HookImpl], pluggy.HookImpl] = {}

    def parse_hookimpl_opts(self, plugin: object, name: str) -> pluggy.HookimplOpts | None:
        if not name.startswith(HOOK_PREFIX):
            return None
        opts = super().parse_hookimpl_opts(plugin, name)
        if opts is not None:
            return opts
        if not inspect.isroutine(getattr(plugin, name, None)):
            return None
        return pluggy.HookimplOpts(
            wrapper=False, hookwrapper=False, optionalhook=False, tryfirst=False, trylast=False, specname=None
        )

    def _hookexec(
        self,
        hook_name: str,
        methods: list[pluggy.HookImpl],  # type: ignore[override]  # pluggy passes its list copy
        kwargs: Mapping[str, object],
        firstresult: bool,
    ) -> object | list[object]:
        checks = CHECKS.get(hook_name)
        if checks is None:  # a hook of that prefix tipc does not specify: never called
            return super()._hookexec(hook_name, methods, kwargs, firstresult)
        impls = []
        for impl in methods:
            key = (hook_name, impl)
            if key not in self._guarded:
                self._guarded[key] = guard.guarded(impl, hook_name, checks.answer, checks.whole, checks.expected)
            impls.append(self._guarded[key])
        return super()._hookexec(hook_name, impls, kwargs, firstresult)


@cache
def manager() -> pluggy.PluginManager:
    from tipc.suites import builtin  # the built-ins implement the same hook as any plugin

    pm = _Manager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    pm.register(builtin, BUILTIN)  # also tipc's own entry point of that name, which pluggy then skips
    pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
    return pm


def adopt(plugin: object, name: str | None = None) -> None:
    """Register a pytest plugin that implements a tipc hook (once: pytest may report it twice)."""
    pm = manager()
    if pm.is_registered(plugin) or not any(n.startswith(HOOK_PREFIX) for n in dir(plugin)):
        return
    pm.register(plugin, name)


def _call(hook: str, **kwargs: Any) -> tuple[Any, guard.Call]:
    """The hook's result (pluggy's: a list of answers, or the first for a firstresult hook) and what its
    implementations did."""
    with guard.recording() as call:
        result = getattr(manager().hook, hook)(**kwargs)
    return result, call


def _owners(call: guard.Call) -> dict[int, str]:
    """Each answered item's plugin, by identity (what a wrapper added has none)."""
    return {id(item): plugin for plugin, answer in call.answers for item in answer}


def dialects() -> tuple[Dialect[Any], ...]:
    """Every registered dialect, in call order: a plugin's before the built-ins (registered first, so called
    last), so a plugin's dialect is detected first; a name twice is an error. Asked once for each set of
    registered plugins (each config asks: every call of a hook costs its guard's threads)."""
    plugins = frozenset(manager().list_name_plugin())
    if plugins not in _DIALECTS:
        _DIALECTS.clear()
        _DIALECTS[plugins] = _collect_dialects()
    return _DIALECTS[plugins]


_DIALECTS: dict[frozenset[tuple[str, object]], tuple[Dialect[Any], ...]] = {}


def _collect_dialects() -> tuple[Dialect[Any], ...]:
    answers, call = _call("pytest_tipc_add_dialects")
    owners = _owners(call)
    found: dict[str, tuple[Dialect[Any], str]] = {}
    for dialect in (d for answer in answers for d in answer):
        owner = owners.get(id(dialect), "a wrapper")
        if dialect.name in found:
            raise ConfigError(
                owner,
                0,
                f"dialect '{dialect.name}' is registered twice (also by "
                f"{found[dialect.name][1]}): expected one dialect per name",
            )
        found[dialect.name] = (dialect, owner)
    return tuple(d for d, _ in found.values())


def modify_plan(plan: Plan, config: Any) -> Plan:
    """``pytest_tipc_modify_plan`` (firstresult): the first plan answered, tipc's own (the plan as built,
    ``trylast``) when no plugin answers one, then as each wrapper changed it."""
    if all(impl.plugin_name == BUILTIN for impl in manager().hook.pytest_tipc_modify_plan.get_hookimpls()):
        return plan  # tipc's own answer: no guard's thread for each of a zoo's configs when no plugin changes plans
    changed, _ = _call("pytest_tipc_modify_plan", plan=plan, config=config)
    return plan if changed is None else cast("Plan", changed)


def report_sections(results: Path) -> tuple[tuple[str, str], ...]:
    found, _ = _call("pytest_tipc_report_sections", results=results)
    return tuple(section for sections in found for section in sections)


def stage_figures(stage: Any, log: Path, since: int, until: int | None) -> tuple[dict[str, Any], str]:
    """``pytest_tipc_stage_figures`` merged, the first implementation called winning on a name (tipc's own,
    registered first, is called last); and the notes of the call: an implementation left out, a figure
    written as null, a log that could not be read."""
    found, call = _call("pytest_tipc_stage_figures", stage=stage, log=log, since=since, until=until)
    figures: dict[str, Any] = {}
    for answer in reversed(found):
        figures.update(answer)
    return figures, "; ".join(call.notes)


def history_store(results: Path, model: str, mode: str) -> Path | None:
    """``pytest_tipc_history_store``: the first plugin's store file, or None (tipc's own choice)."""
    chosen, _ = _call("pytest_tipc_history_store", results=results, model=model, mode=mode)
    return cast("Path | None", chosen)


def cause_rules() -> list[tuple[str, dict[str, Any]]]:
    """``pytest_tipc_cause_rules``: (the plugin's name, a rule) for each rule a plugin adds."""
    found, call = _call("pytest_tipc_cause_rules")
    owners = _owners(call)
    return [(owners.get(id(rule), "a wrapper"), rule) for rules in found for rule in rules]
