"""pytest-xdist: chains run whole on one worker; different chains may run in parallel.

A chain's stages depend on each other through files (train writes what export
reads), so a chain must never be split across workers. ``--dist loadscope``
is the documented way: xdist's scope of ``<config>::<chain>::<stage>`` is
``<config>::<chain>``, so each chain goes to one worker, in order.
(``loadfile`` keeps whole configs together and is accepted too.)
"""

from __future__ import annotations

import pytest

KEEPS_CHAINS_WHOLE = ("no", "loadscope", "loadfile")


def check_distribution(config: pytest.Config) -> None:
    """Refuse any xdist mode that could split a chain (``-n 2`` alone means ``--dist load``)."""
    if not config.pluginmanager.hasplugin("xdist"):
        return
    distributed = config.getoption("numprocesses", None) or config.getoption("tx", None)
    dist = config.getoption("dist", "no")
    if distributed and dist not in KEEPS_CHAINS_WHOLE:
        raise pytest.UsageError(
            f"tipc: --dist {dist} could split a train → export → infer chain across workers; "
            f"use -n N --dist loadscope (each chain stays on one worker, chains run in parallel)")
