"""The plan's order is tipc's: each chain's stages run in the order the plan gave them.

A chain's stages depend on each other through files (train writes what export reads), so an
order another plugin chose (pytest-randomly's shuffle, pytest-order's marks, pytest-random-order,
``--ff``, one's own ``pytest_collection_modifyitems``) would block the later stages of the
chain. Once every plugin has ordered the items, each chain's items are put back together, in
the plan's order, where the chain's first item stood: the order between chains (and of any
other test) stays the one the plugins chose, and the doctor's item stays first.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from tipc.plugin.collect import DroppedItem, StageItem
from tipc.plugin.doctor_item import DoctorItem

Ordered = StageItem | DroppedItem


def plan_order(items: Sequence[pytest.Item]) -> list[pytest.Item]:
    chains: dict[str, list[Ordered]] = {}
    for item in items:
        if isinstance(item, (StageItem, DroppedItem)):
            chains.setdefault(_chain(item), []).append(item)
    doctor = [item for item in items if isinstance(item, DoctorItem)]
    out: list[pytest.Item] = []
    for item in items:
        if isinstance(item, (StageItem, DroppedItem)):
            stages = chains.pop(_chain(item), None)
            if stages is not None:  # the chain's first item: the whole chain goes here
                chain: list[Ordered] = sorted(stages, key=_position)
                out.extend(chain)
        elif not isinstance(item, DoctorItem):
            out.append(item)
    return doctor + out


def _position(item: Ordered) -> int:
    return item.position


def _chain(item: Ordered) -> str:
    """The chain's node id (a dropped case of no chain of the plan: its config's)."""
    return item.nodeid.rpartition("::")[0]


def reorderers(config: pytest.Config) -> list[str]:
    """The plugins besides pytest's own and tipc that implement ``pytest_collection_modifyitems``, and
    pytest's own options that reorder (``--ff``, ``--nf``): whoever changed the order is among them."""
    impls = config.pluginmanager.hook.pytest_collection_modifyitems.get_hookimpls()
    names = []
    for impl in impls:
        plugin = impl.plugin
        module = getattr(plugin, "__module__", None) if not isinstance(plugin, type(pytest)) else plugin.__name__
        if not str(module).startswith(("_pytest", "tipc.", "xdist")):
            names.append(impl.plugin_name)
    # pytest's own cache provider reorders for these (its hook is left out above with pytest's own).
    names += [
        flag for flag, dest in (("--ff", "failedfirst"), ("--nf", "newfirst")) if getattr(config.option, dest, False)
    ]
    return names


class ChainOrder:
    """Registered beside ``TipcPlugin``: puts each chain back in the plan's order once collected."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """After every plugin's ``pytest_collection_modifyitems`` (and before an xdist worker
        reports what it collected, or pytest lists the items)."""
        ordered = plan_order(session.items)
        if ordered == session.items:
            return
        session.items[:] = ordered
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None and not hasattr(self.config, "workerinput"):
            who = ", ".join(reorderers(self.config))
            reporter.ensure_newline()
            reporter.write_line(
                f"tipc: another plugin reordered the items{f' (one of: {who})' if who else ''}; "
                "each chain's stages run in the plan's order"
            )
