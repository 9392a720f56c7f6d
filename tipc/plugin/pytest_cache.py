"""What ``--lf`` remembers of a tipc run, made to mean what people rely on it for.

pytest's last-failed cache drops every item that passed or was skipped. Two tipc
items must not be dropped: a dry run's (it printed a command; nothing was judged, so
the cache stays as it was), and a blocked stage's (it never ran: the next ``--lf``
must run it again together with the failure that blocked it). A golden check that did not
pass brings its chain with it: it judges only its own run's evidence, so alone it could only be
blocked.
"""

from __future__ import annotations

from typing import Any

import pytest

LF_PLUGIN = "lfplugin"  # the name pytest's cacheprovider registers its LFPlugin under


class CacheGuard:
    def __init__(self, config: pytest.Config, dry_run: bool) -> None:
        self.config = config
        self.dry_run = dry_run
        self._before: dict[str, Any] | None = None
        self._blocked: set[str] = set()

    def _lastfailed(self) -> dict[str, Any] | None:
        plugin = self.config.pluginmanager.get_plugin(LF_PLUGIN)
        return None if plugin is None else plugin.lastfailed

    def remember(self) -> None:
        """At session start: what a dry run must leave as it found it."""
        lastfailed = self._lastfailed()
        if self.dry_run and lastfailed is not None:
            self._before = dict(lastfailed)

    def blocked(self, nodeid: str) -> None:
        self._blocked.add(nodeid)

    def with_chain(self, nodeids: list[str]) -> None:
        """A golden check's prerequisites: the next ``--lf`` runs them with it."""
        self._blocked.update(nodeids)

    def settle(self) -> None:
        """At session finish, before the cache provider writes the cache."""
        lastfailed = self._lastfailed()
        if lastfailed is None:
            return
        if self._before is not None:
            lastfailed.clear()
            lastfailed.update(self._before)
            return
        for nodeid in self._blocked:
            lastfailed[nodeid] = True
