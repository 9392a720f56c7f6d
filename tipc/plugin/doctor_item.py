"""``--doctor``'s verdict as the first item of a ``pytest tipc`` session.

The checks ran when the session began (``tipc.session.doctor``), before any stage could start
(``--jobs`` starts stages before the first item runs); this item shows them: it fails, with every
failed check and its fix, when a config failed one (that config's stages are then skipped as
blocked, their reason naming the check), and passes otherwise, its warnings in its report.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from tipc.session.options import respell

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr, TracebackStyle  # pytest exports neither

    from tipc.plugin.run_plugin import TipcPlugin

NAME = "doctor"


class DoctorFailed(Exception):
    """A check failed: the message is the failed configs' checks."""


class DoctorItem(pytest.Item):
    def __init__(self, *, plugin: TipcPlugin, **kw: Any) -> None:
        super().__init__(**kw)
        self.plugin = plugin

    def runtest(self) -> None:
        session = self.plugin.session
        if not session.owner:
            raise pytest.skip.Exception("the doctor ran where the run began (the controller)", _use_item_location=True)
        from tipc.doctor.render import report_lines  # loaded by the doctor's run already

        reports = list(session.doctor.values())
        self.add_report_section("call", "tipc doctor", "\n".join(line for r in reports for line in report_lines(r)))
        self.user_properties += [(f"doctor {r.config}", "ok" if r.ok else "failed") for r in reports]
        failed = [r for r in reports if not r.ok]
        if failed:
            raise DoctorFailed(
                "\n".join(f"{r.config}: {c.line()}" for r in failed for c in r.failures())
                + "\nthe stages of these configs were not run (blocked)"
            )

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: TracebackStyle | None = None
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, DoctorFailed):
            return respell(str(excinfo.value))
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Any, int, str]:
        return self.path, 0, "tipc doctor"
