"""The collection tree: the ``tipc`` directory → one node per config → per chain → per stage.

Node ids read ``<config>::<chain>::<stage>``, e.g.
``PP-OCRv3_mobile_rec/train_infer_python.txt::norm_train-gpus_0-fp32::infer[cpu-...-bs1]``.
They are given as strings (parsed by pytest the way ``--lf`` parses its cache),
and no node is a ``pytest.File``: ``--lf`` maps file-like ids back to paths
under the rootdir, which config ids are not, and would drop them.
"""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from tipc.errors import OutputError, TipcError
from tipc.plan.model import Chain, Skipped, Stage, StageKind
from tipc.plan.naming import kind_of
from tipc.plugin.doctor_item import NAME as DOCTOR
from tipc.plugin.doctor_item import DoctorItem
from tipc.plugin.problem_nodes import ProblemNode
from tipc.results.records import StageRecord, Status
from tipc.run.plan_run import command_text
from tipc.run.summary import failure_text
from tipc.session.options import respell

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr, TracebackStyle  # pytest exports neither

    from tipc.plugin.run_plugin import TipcPlugin
    from tipc.session.settings import ConfigTarget
# What a -k identifier may contain (pytest's expression grammar); anything else splits it.
_NOT_IDENT = re.compile(r"[^\w:+\-.\[\]\\/]+")
TAILS = "\n--- last "  # where a failure story's log tails begin (tipc.run.summary.failure_text)


def keyword_for(chain: str) -> str:
    """A ``-k`` expression that selects exactly one chain."""
    return " and ".join(part for part in _NOT_IDENT.split(chain) if part)


class StageFailed(AssertionError):
    """A stage that ran and did not pass: a test's failure, not an error in the test's code (report
    plugins such as allure tell them apart by AssertionError)."""

    def __init__(self, record: StageRecord) -> None:
        super().__init__(record.id)
        self.record = record


class TipcDirectory(pytest.Directory):
    """The ``tipc`` package directory, standing for the configs given with ``--config``."""

    def __init__(self, *, plugin: TipcPlugin, **kw: Any) -> None:
        super().__init__(**kw)
        self.plugin = plugin

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        if self.plugin.doctor:
            yield DoctorItem.from_parent(self, name=DOCTOR, nodeid=DOCTOR, plugin=self.plugin)
        for target in self.plugin.settings.targets:
            yield ConfigNode.from_parent(
                self, name=target.display, path=target.path, nodeid=target.display, target=target, plugin=self.plugin
            )
        for problem in self.plugin.settings.problems:
            yield ProblemNode.from_parent(
                self, name=problem.display, path=problem.path, nodeid=problem.display, problem=problem
            )


class ConfigNode(pytest.Collector):
    """One config; one that cannot be planned fails here, alone: the others are collected all the same."""

    def __init__(self, *, target: ConfigTarget, plugin: TipcPlugin, **kw: Any) -> None:
        super().__init__(**kw)
        self.target = target
        self.plugin = plugin

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        plan = self.plugin.session.plan(self.target)
        chain_ids = {c.id for c in plan.chains}
        for chain in plan.chains:
            dropped = tuple(s for s in plan.skipped if s.id.startswith(chain.id + "::"))
            yield ChainNode.from_parent(
                self,
                name=chain.id,
                nodeid=f"{self.nodeid}::{chain.id}",
                chain=chain,
                dropped=dropped,
                target=self.target,
                plugin=self.plugin,
            )
        for position, skipped in enumerate(plan.skipped):
            if skipped.id.rpartition("::")[0] not in chain_ids:
                yield DroppedItem.from_parent(
                    self,
                    name=skipped.id,
                    nodeid=f"{self.nodeid}::{skipped.id}",
                    skipped=skipped,
                    target=self.target,
                    plugin=self.plugin,
                    position=position,
                )

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: TracebackStyle | None = None
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, TipcError):
            return respell(str(excinfo.value))
        return super().repr_failure(excinfo)  # a Collector's takes no style (it picks its own)


class ChainNode(pytest.Collector):
    def __init__(
        self, *, chain: Chain, dropped: tuple[Skipped, ...], target: ConfigTarget, plugin: TipcPlugin, **kw: Any
    ) -> None:
        super().__init__(**kw)
        self.chain = chain
        self.dropped = dropped
        self.target = target
        self.plugin = plugin

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        for position, stage in enumerate(self.chain.stages):
            yield StageItem.from_parent(
                self,
                name=stage.name,
                nodeid=f"{self.nodeid}::{stage.name}",
                stage=stage,
                target=self.target,
                plugin=self.plugin,
                position=position,
            )
        for position, skipped in enumerate(self.dropped, len(self.chain.stages)):
            name = skipped.id.rpartition("::")[2]
            yield DroppedItem.from_parent(
                self,
                name=name,
                nodeid=f"{self.nodeid}::{name}",
                skipped=skipped,
                target=self.target,
                plugin=self.plugin,
                position=position,
            )


@functools.cache
def _mark(kind: StageKind) -> pytest.MarkDecorator:
    """The stage kind's marker (``-m infer``), made once: a zoo's items are tens of thousands."""
    return getattr(pytest.mark, kind.value)  # type: ignore[no-any-return]


def _skip(reason: str) -> None:
    """Skip, reported at the item (config::chain::stage), not at this file's line."""
    raise pytest.skip.Exception(reason, _use_item_location=True)


class StageItem(pytest.Item):
    def __init__(self, *, stage: Stage, target: ConfigTarget, plugin: TipcPlugin, position: int = 0, **kw: Any) -> None:
        super().__init__(**kw)
        self.position = position  # in its chain: the plan's order (tipc.plugin.order)
        self.stage = stage
        self.target = target
        self.plugin = plugin
        self.add_marker(_mark(stage.kind))

    def runtest(self) -> None:
        if self.plugin.settings.run.dry_run:
            self.plugin.write(f"\n{self.nodeid}\n    {command_text(self.stage)}\n")
        try:
            record = self.plugin.session.run_stage(self.target, self.stage)
        except OutputError as exc:  # a full disk: nothing later could be recorded either
            pytest.exit(
                f"tipc: {exc}; the run stopped here, the results written so far are kept",
                returncode=pytest.ExitCode.TESTS_FAILED,
            )
        self.user_properties += [
            ("stage", self.stage.id),
            ("status", record.status.value),
            ("argv", shlex.join(self.stage.argv)),
            ("log", record.log),
            ("duration", f"{record.duration:.3f}"),
            ("state", record.state),  # across nights (tipc.triage.states): new_failure, still_failing, ...
            *figures(record),
        ]
        if self.stage.kind is StageKind.GOLDEN:  # what --lf must run with it (pytest_cache)
            plan = self.plugin.session.plan(self.target)
            self.user_properties.append(("requires", "\n".join(plan.stage(r).name for r in self.stage.requires)))
        if record.status in (Status.PASSED, Status.DIFFERS):  # differs: reported, --fail-on does not name golden
            return
        if record.status in (Status.BLOCKED, Status.SKIPPED, Status.NO_GOLDEN):
            _skip(record.reason)
        raise StageFailed(record)

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: TracebackStyle | None = None
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, StageFailed):
            return for_style(failure_text(excinfo.value.record), self.config.getoption("tbstyle", "auto"))
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Any, int, str]:
        return self.path, 0, f"{self.stage.kind.value} {self.stage.id}"

    def _initrequest(self) -> None:
        """pytest-retry resets a test function's fixtures before it runs it again (a private method of
        ``pytest.Function`` it calls on every item): a stage has no fixtures to reset."""


def figures(record: StageRecord) -> list[tuple[str, str]]:
    """What else of a stage's record reaches pytest-html, JUnit XML and json reports: why it ended,
    its exit code, its peak memory, its attempts and every figure read from its log (``metric.<name>``)."""
    fields = {
        "reason": record.reason,
        "returncode": "" if record.returncode is None else str(record.returncode),
        "cause": record.cause,
        "peak_rss_mb": "" if record.peak_rss_mb is None else str(record.peak_rss_mb),
        "attempts": str(len(record.attempts)) if record.attempts else "",
    }
    fields.update({f"metric.{name}": str(value) for name, value in sorted(record.metrics.items())})
    return [(name, value) for name, value in fields.items() if value]


def for_style(text: str, style: str) -> str:
    """A stage's failure story as pytest's ``--tb`` asks: ``line`` its first line, ``short`` without
    the log's tail, ``no`` nothing; the whole story otherwise (a stage has no traceback to show)."""
    if style == "no":
        return ""
    if style == "line":
        return text.partition("\n")[0]
    if style == "short":
        return text.partition(TAILS)[0]
    return text


class DroppedItem(pytest.Item):
    """A case the plan drops by rule (null script, a skip rule of the sweep): visible, skipped."""

    def __init__(
        self, *, skipped: Skipped, target: ConfigTarget, plugin: TipcPlugin, position: int = 0, **kw: Any
    ) -> None:
        super().__init__(**kw)
        self.position = position  # after its chain's stages
        self.skipped = skipped
        self.target = target
        self.plugin = plugin
        kind = kind_of(self.name)
        if kind:
            self.add_marker(_mark(kind))

    def runtest(self) -> None:
        self.plugin.session.skip_dropped(self.target, self.skipped)
        _skip(f"not run: {self.skipped.reason}")

    def reportinfo(self) -> tuple[Any, int, str]:
        return self.path, 0, f"dropped {self.skipped.id}"
