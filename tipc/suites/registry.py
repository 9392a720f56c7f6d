"""The one plugin manager both fronts ask (``hookspecs``): the built-in dialects, the ``tipc`` entry points, and
under pytest the pytest plugins that implement a ``pytest_tipc_*`` hook (``adopt``)."""

from __future__ import annotations

import inspect
from functools import cache
from pathlib import Path
from typing import Any, cast

import pluggy

from tipc.errors import ConfigError
from tipc.suites import hookspecs
from tipc.suites.dialect import Dialect

ENTRY_POINT_GROUP = "tipc"
BUILTIN = "builtin"
HOOK_PREFIX = "pytest_tipc_"


class _Manager(pluggy.PluginManager):
    """Takes plain ``pytest_tipc_*`` functions as implementations, as pytest's manager does."""

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


def dialects() -> tuple[Dialect, ...]:
    """Every registered dialect, built-ins last (a plugin's is detected first); a name twice is an error."""
    pm = manager()
    found: dict[str, tuple[Dialect, str]] = {}
    for impl in pm.hook.pytest_tipc_add_dialects.get_hookimpls()[::-1]:
        added = cast("list[Dialect]", impl.function() or [])
        for dialect in added:
            owner = pm.get_name(impl.plugin) or repr(impl.plugin)
            if dialect.name in found:
                raise ConfigError(
                    owner,
                    0,
                    f"dialect '{dialect.name}' is registered twice (also by "
                    f"{found[dialect.name][1]}): expected one dialect per name",
                )
            found[dialect.name] = (dialect, owner)
    return tuple(d for d, _ in found.values())


def modify_plan(plan: Any, config: Any) -> Any:
    """``pytest_tipc_modify_plan``, each implementation given the previous one's plan."""
    for impl in manager().hook.pytest_tipc_modify_plan.get_hookimpls()[::-1]:
        changed = impl.function(plan=plan, config=config)
        plan = plan if changed is None else changed
    return plan


def report_sections(results: Any) -> tuple[tuple[str, str], ...]:
    return tuple(s for found in manager().hook.pytest_tipc_report_sections(results=results) if found for s in found)


def stage_figures(stage: Any, log: Path, since: int, until: int | None) -> tuple[dict[str, Any], str]:
    """``pytest_tipc_stage_figures`` merged, tipc's own first; and a note naming each implementation that raised
    (a parser's bug must not cost the stage its record, nor the other parsers their figures)."""
    pm = manager()
    figures: dict[str, Any] = {}
    notes = []
    for impl in pm.hook.pytest_tipc_stage_figures.get_hookimpls():
        try:
            found = cast("dict[str, Any] | None", impl.function(stage=stage, log=log, since=since, until=until))
            figures.update(found or {})
        except FileNotFoundError:
            continue  # no log to read (a stage that failed before writing one): nothing to say
        except OSError as exc:  # the read door refused the log (a device, a FIFO): said once, not per parser
            said = f"metrics not read: {exc.filename or log} {exc.strerror or exc}"
            notes += [said] if said not in notes else []
        except Exception as exc:  # noqa: BLE001 - any parser's bug
            owner = "tipc" if impl.plugin_name == BUILTIN else impl.plugin_name
            notes.append(f"metrics not parsed by {owner} ({type(exc).__name__}: {exc})")
    return figures, "; ".join(notes)


def history_store(results: Path, model: str, mode: str) -> Path | None:
    """``pytest_tipc_history_store``: the first plugin's store file, or None (tipc's own choice)."""
    chosen = manager().hook.pytest_tipc_history_store(results=results, model=model, mode=mode)
    return None if chosen is None else Path(chosen)


def cause_rules() -> list[tuple[str, dict[str, Any]]]:
    """``pytest_tipc_cause_rules``: (the plugin's name, a rule) for each rule a plugin adds."""
    pm = manager()
    found: list[tuple[str, dict[str, Any]]] = []
    for impl in pm.hook.pytest_tipc_cause_rules.get_hookimpls()[::-1]:
        owner = pm.get_name(impl.plugin) or repr(impl.plugin)
        found.extend((owner, rule) for rule in cast("list[dict[str, Any]]", impl.function() or []))
    return found
