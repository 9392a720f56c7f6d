"""The error a multi-node setup problem raises: what was found, and the fix."""

from __future__ import annotations


class ClusterError(ValueError):
    """Bad or contradictory cluster input (options, scheduler environment, node list).

    Fronts turn it into ``pytest.UsageError`` or exit status 2; the message already
    names the source of the bad value and the option that fixes it.
    """
