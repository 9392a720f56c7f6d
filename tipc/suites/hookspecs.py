"""tipc's extension points, as pluggy hook specifications (docs/hooks.md).

Named ``pytest_tipc_*`` as pytest's convention for a plugin's own hooks (``pytest_xdist_…``), so one plugin
module serves both fronts: ``pytest tipc`` adds these specs through ``pytest_addhooks`` and takes implementations
from any pytest plugin (``conftest.py``, ``-p``, a ``pytest11`` entry point); the ``tipc`` CLI loads the
modules of the ``tipc`` entry-point group (``[project.entry-points.tipc]``). Plain functions of those names
are implementations (as pytest takes them); ``tipc.hookimpl`` (``pytest.hookimpl``, the same marker) options
(``tryfirst``, ``trylast``, ``wrapper``, ``hookwrapper``) work as in pytest: every hook is called through
pluggy's hook caller (``tipc.suites.registry``).
The dialects tipc ships come through ``pytest_tipc_add_dialects`` like any other (``tipc.suites.builtin``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from tipc.plan.model import Plan, Stage
    from tipc.suites.dialect import Dialect

PROJECT = "pytest"  # the markers' project: pytest's, so pytest's plugin manager reads the same specs
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def pytest_tipc_add_dialects() -> list[Dialect[Any]]:  # type: ignore[empty-body]
    """Dialects this plugin adds: how a suite's configs are found, read and planned (``tipc.suites.dialect``).

    A dialect whose name is already taken is an error naming both plugins."""


@hookspec(firstresult=True)
def pytest_tipc_modify_plan(plan: Plan, config: Any) -> Plan | None:
    """The plan to run (``dataclasses.replace`` of ``plan``), or None to leave the answer to others. Called
    once per plan, after it is built; the first plan answered is the plan (tipc's own implementation, ``trylast``,
    answers ``plan`` unchanged). Plugins that each change the plan write a ``wrapper=True`` implementation:
    ``plan = yield`` receives the plan so far, and what it returns is the plan. What it changed is the
    plugin's to say in the plan's notes."""


@hookspec
def pytest_tipc_report_sections(results: Path) -> list[tuple[str, str]] | None:
    """(title, plain text) sections to add to the report of the results folder ``results``."""


@hookspec
def pytest_tipc_cause_rules() -> list[dict[str, Any]] | None:
    """More rules that name a failed stage's cause (``tipc.metrics.causes``), tried before the built-in ones:
    ``{"kind": "my-kind", "pattern": "a regular expression", "group": 1}`` (``group``: which group of the
    match is the signature, 0 for all of it; default 1; ``"fix"``: what cures it, said after the signature). A bad
    rule is an error naming the plugin."""


@hookspec
def pytest_tipc_stage_figures(stage: Stage, log: Path, since: int, until: int | None) -> dict[str, Any] | None:
    """Figures of a stage that ran, from its part of ``log``: bytes ``since`` .. ``until`` (None: the end;
    ``tipc.metrics.logfile.log_lines(log, since, until)`` reads just that part). The results of every
    implementation are merged into the stage's record, tipc's own (``tipc.suites.builtin``) first, so a plugin's
    figure of the same name wins. An implementation that raises costs only its own figures (the stage's reason
    says so)."""


@hookspec(firstresult=True)
def pytest_tipc_history_store(results: Path, model: str, mode: str) -> Path | None:
    """The history store file (tipc's SQLite store, ``tipc.history.store``) for the runs of ``model`` in ``mode``
    whose results folder is ``results``, or None for tipc's choice. The ``history`` setting (``--history``,
    ``TIPC_HISTORY``, pytest's ini, ``[tool.tipc]``), when set, comes first; the first implementation to return a
    path decides."""
