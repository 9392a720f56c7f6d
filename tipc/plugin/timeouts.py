"""pytest-timeout's timeout of a stage is tipc's: the stage's whole process tree ends, recorded.

pytest-timeout's own ways of ending a test (a signal that raises in the main thread, or a thread
that dumps the stacks and ends pytest's process) would leave the stage's processes running and
its record unwritten. It lets a plugin set the timer instead (``pytest_timeout_set_timer``, a
first-result hook): for a stage's item tipc takes the limit as that stage's time limit, so tipc's
executor kills the tree at the limit and records a timeout that names pytest-timeout; other tests
keep pytest-timeout's own timer.
"""

from __future__ import annotations

from typing import Any

import pytest

from tipc.plugin.collect import StageItem

BY = "pytest-timeout"


def sets_limits(config: pytest.Config) -> bool:
    """pytest-timeout is there with a timeout for every test (its option or ini key): each item's
    limit is known only when it starts, so no stage may start before its item (a ``timeout``
    mark alone is not seen here)."""
    if not config.pluginmanager.hasplugin("timeout"):
        return False
    return bool(config.getoption("timeout", None) or config.getini("timeout"))


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
