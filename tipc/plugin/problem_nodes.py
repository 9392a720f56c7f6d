"""A config that cannot run here, as a node of the collection tree where its stages would be.

A config that cannot be read or planned is that node's collection error, named with its reason
(pytest prints it, junit records it, the exit status is 1), and collection goes on with the next
config. A multi-node config on a single node is one skipped item that says how it would run.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from tipc.session.options import respell

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr, TracebackStyle  # pytest exports neither

    from tipc.session.problems import ConfigProblem

NOT_APPLICABLE = "not_applicable"


class ConfigUnplannable(Exception):
    """Raised by a problem node's ``collect``: pytest's way of failing one collector."""


class ProblemNode(pytest.Collector):
    def __init__(self, *, problem: ConfigProblem, **kw: Any) -> None:
        super().__init__(**kw)
        self.problem = problem

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        if self.problem.is_error:
            raise ConfigUnplannable(self.problem.reason)
        yield NotApplicableItem.from_parent(
            self, name=NOT_APPLICABLE, nodeid=f"{self.nodeid}::{NOT_APPLICABLE}", problem=self.problem
        )

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: TracebackStyle | None = None
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, ConfigUnplannable):
            return respell(self.problem.reason)
        return super().repr_failure(excinfo)  # a Collector's takes no style (it picks its own)


class NotApplicableItem(pytest.Item):
    def __init__(self, *, problem: ConfigProblem, **kw: Any) -> None:
        super().__init__(**kw)
        self.problem = problem

    def runtest(self) -> None:
        raise pytest.skip.Exception(f"not applicable {respell(self.problem.reason)}", _use_item_location=True)

    def reportinfo(self) -> tuple[Any, int, str]:
        return self.path, 0, f"not applicable {self.problem.display}"
