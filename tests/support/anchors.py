"""Anchors for a report's parts built in a test from a list of keys, as a report names them one by one."""

from __future__ import annotations

from collections.abc import Iterable

from tipc.report.naming import Anchoring


def make_anchors(keys: Iterable[tuple[str, int]], prefix: str, multi: bool) -> dict[tuple[str, int], str]:
    anchoring = Anchoring(prefix, multi)
    for key in keys:
        anchoring.add(key)
    return anchoring.anchors
