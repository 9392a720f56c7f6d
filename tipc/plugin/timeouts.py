"""pytest-timeout's timeout of a stage is tipc's: the stage's whole process tree ends, recorded.

pytest-timeout's own ways of ending a test (a signal that raises in the main thread, or a thread
that dumps the stacks and ends pytest's process) would leave the stage's processes running and
its record unwritten. It lets a plugin set the timer instead (``pytest_timeout_set_timer``, a
first-result hook): for a stage's item tipc takes the limit as that stage's time limit, so tipc's
executor kills the tree at the limit and records a timeout that names pytest-timeout; other tests
keep pytest-timeout's own timer. Under ``--tipc-jobs`` a stage starts in the background before
pytest reaches its item (and its timer): each stage's limit is taken from pytest-timeout's settings
for its item as soon as the items are collected.
"""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from tipc.plugin.collect import StageItem

BY = "pytest-timeout"


class PytestTimeout:
    @pytest.hookimpl(tryfirst=True, optionalhook=True)
    def pytest_timeout_set_timer(self, item: pytest.Item, settings: Any) -> bool | None:
        if not isinstance(item, StageItem):
            return None
        run = item.plugin.session.plan_run(item.target)
        run.outside_limits[item.stage.id] = (float(settings.timeout), f"{BY}'s timeout ({settings.method} method)")
        return True

    @pytest.hookimpl(tryfirst=True, optionalhook=True)
    def pytest_timeout_cancel_timer(self, item: pytest.Item) -> bool | None:
        return True if isinstance(item, StageItem) else None

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # pytest-timeout's own reading of its option, ini key, environment and marks for an item.
        settings_of = importlib.import_module("pytest_timeout")._get_item_settings
        for item in session.items:
            if not isinstance(item, StageItem):
                continue
            try:
                settings = settings_of(item)
            except (TypeError, ValueError):  # a bad timeout mark: pytest-timeout names it at its item
                continue
            if settings.timeout and settings.timeout > 0:
                self.pytest_timeout_set_timer(item, settings)
