"""pytest-xdist: chains run whole on one worker; different chains may run in parallel.

A chain's stages depend on each other through files (train writes what export
reads), so a chain must never be split across workers. Multi-node runs refuse
xdist altogether: their chains share one launch port range across nodes. ``--dist loadscope``
is the documented way: xdist's scope of ``<config>::<chain>::<stage>`` is
``<config>::<chain>``, so each chain goes to one worker, in order.
(``loadfile`` keeps whole configs together and is accepted too.)
"""

from __future__ import annotations

import pytest

KEEPS_CHAINS_WHOLE = ("no", "loadscope", "loadfile")


def check_distribution(config: pytest.Config, multi_node: bool = False, scheduled: bool = False) -> None:
    """Refuse any xdist mode that could split a chain (``-n 2`` alone means ``--dist load``),
    any xdist at all on a multi-node run, and xdist beside tipc's own scheduler (``--tipc-jobs``)."""
    if not config.pluginmanager.hasplugin("xdist"):
        return
    distributed = config.getoption("numprocesses", None) or config.getoption("tx", None)
    dist = config.getoption("dist", "no")
    if distributed and scheduled:
        # Each worker would schedule its share against the whole machine's GPUs and memory.
        raise pytest.UsageError(
            "tipc: --tipc-jobs/--tipc-mem-per-chain run chains side by side in this process; -n does it with "
            "xdist workers (each pinned to its slot of the GPUs): use one of them"
        )
    if distributed and multi_node:
        # Each worker would resolve the node (ports, identity) again, and two chains in
        # parallel would both launch on the one start port every node agreed on.
        raise pytest.UsageError(
            "tipc: a multi-node run cannot use pytest-xdist (-n/--tx): every node runs its chains "
            "one at a time on the start port all nodes share; drop -n"
        )
    if distributed and dist not in KEEPS_CHAINS_WHOLE:
        raise pytest.UsageError(
            f"tipc: --dist {dist} could split a train → export → infer chain across workers; "
            f"use -n N --dist loadscope (each chain stays on one worker, chains run in parallel)"
        )
