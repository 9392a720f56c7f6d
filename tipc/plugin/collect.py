"""The collection tree: the ``tipc`` directory → one node per config → per chain → per stage.

Node ids read ``<config>::<chain>::<stage>``, e.g.
``PP-OCRv3_mobile_rec/train_infer_python.txt::norm_train-gpus_0-fp32::infer[cpu-...-bs1]``.
They are given as strings (parsed by pytest the way ``--lf`` parses its cache),
and no node is a ``pytest.File``: ``--lf`` maps file-like ids back to paths
under the rootdir, which config ids are not, and would drop them.
"""

from __future__ import annotations

import re
import shlex
from typing import TYPE_CHECKING, Iterator

import pytest

from tipc.config import ConfigError
from tipc.plan.model import Chain, Skipped, Stage
from tipc.plan.naming import kind_of
from tipc.run.record import Status
from tipc.run.session import command_text
from tipc.run.summary import failure_text

if TYPE_CHECKING:
    from tipc.plugin.hooks import TipcPlugin
    from tipc.plugin.settings import ConfigTarget

PLUGIN_KEY = pytest.StashKey["TipcPlugin"]()
# What a -k identifier may contain (pytest's expression grammar); anything else splits it.
_NOT_IDENT = re.compile(r"[^\w:+\-.\[\]\\/]+")


def keyword_for(chain: str) -> str:
    """A ``-k`` expression that selects exactly one chain."""
    return " and ".join(part for part in _NOT_IDENT.split(chain) if part)


class StageFailed(Exception):
    def __init__(self, record) -> None:
        super().__init__(record.id)
        self.record = record


class TipcDirectory(pytest.Directory):
    """The ``tipc`` package directory, standing for the configs given with ``--config``."""

    def collect(self) -> Iterator[pytest.Collector]:
        for target in self.config.stash[PLUGIN_KEY].settings.targets:
            yield ConfigNode.from_parent(self, name=target.display, path=target.path, nodeid=target.display,
                                         target=target)


class _TipcNode(pytest.Collector):
    @property
    def plugin(self) -> TipcPlugin:
        return self.config.stash[PLUGIN_KEY]


class ConfigNode(_TipcNode):
    def __init__(self, *, target: ConfigTarget, **kw) -> None:
        super().__init__(**kw)
        self.target = target

    def collect(self) -> Iterator[pytest.Node]:
        plan = self.plugin.plan(self.target)
        chain_ids = {c.id for c in plan.chains}
        for chain in plan.chains:
            dropped = tuple(s for s in plan.skipped if s.id.startswith(chain.id + "::"))
            yield ChainNode.from_parent(self, name=chain.id, nodeid=f"{self.nodeid}::{chain.id}", chain=chain,
                                        dropped=dropped)
        for skipped in plan.skipped:
            if skipped.id.rpartition("::")[0] not in chain_ids:
                yield DroppedItem.from_parent(self, name=skipped.id, nodeid=f"{self.nodeid}::{skipped.id}",
                                              skipped=skipped)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ConfigError):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)


class ChainNode(_TipcNode):
    def __init__(self, *, chain: Chain, dropped: tuple[Skipped, ...], **kw) -> None:
        super().__init__(**kw)
        self.chain = chain
        self.dropped = dropped

    def collect(self) -> Iterator[pytest.Item]:
        for stage in self.chain.stages:
            yield StageItem.from_parent(self, name=stage.name, nodeid=f"{self.nodeid}::{stage.name}", stage=stage)
        for skipped in self.dropped:
            name = skipped.id.rpartition("::")[2]
            yield DroppedItem.from_parent(self, name=name, nodeid=f"{self.nodeid}::{name}", skipped=skipped)

    @property
    def target(self) -> ConfigTarget:
        return self.parent.target


def _skip(reason: str) -> None:
    """Skip, reported at the item (config::chain::stage), not at this file's line."""
    raise pytest.skip.Exception(reason, _use_item_location=True)


class StageItem(pytest.Item):
    def __init__(self, *, stage: Stage, **kw) -> None:
        super().__init__(**kw)
        self.stage = stage
        self.add_marker(stage.kind.value)

    def runtest(self) -> None:
        plugin = self.config.stash[PLUGIN_KEY]
        session = plugin.session(self.parent.target)
        if plugin.settings.run.dry_run:
            plugin.write(f"\n{self.nodeid}\n    {command_text(self.stage)}\n")
        record = session.run_stage(self.stage)
        self.user_properties += [("stage", self.stage.id), ("status", record.status.value),
                                 ("argv", shlex.join(self.stage.argv)), ("log", record.log),
                                 ("duration", f"{record.duration:.3f}")]
        if record.status is Status.PASSED:
            return
        if record.status in (Status.BLOCKED, Status.SKIPPED):
            _skip(record.reason)
        raise StageFailed(record)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, StageFailed):
            return failure_text(excinfo.value.record)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, 0, f"{self.stage.kind.value} {self.stage.id}"


class DroppedItem(pytest.Item):
    """A case the plan drops by rule (null script, a skip rule of the sweep): visible, skipped."""

    def __init__(self, *, skipped: Skipped, **kw) -> None:
        super().__init__(**kw)
        self.skipped = skipped
        kind = kind_of(self.name)
        if kind:
            self.add_marker(kind.value)

    def runtest(self) -> None:
        self.config.stash[PLUGIN_KEY].session(self.parent.target).skip_dropped(self.skipped)
        _skip(f"not run: {self.skipped.reason}")

    def reportinfo(self):
        return self.path, 0, f"dropped {self.skipped.id}"
