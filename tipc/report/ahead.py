"""Parts of a run's report made while the run runs, so that its end only puts them together.

Each stage's details (its view, with its log's tail, and their HTML) depend on nothing but its
record once it has ended. The session has them made in the harness's idle moments
(``tipc.run.idle``) while the next stage runs, as the final report will ask for them: this run's
record of a single-node run. A report that asks otherwise (a carried record, several nodes, an
anchor made unique) makes its own, as it always did.
"""

from __future__ import annotations

from pathlib import Path

from tipc.report.naming import make_anchors, stage_key
from tipc.report.render import stage_html
from tipc.report.stages import stage_view
from tipc.results.records import StageRecord


def prepare_stage(record: StageRecord, report_dir: Path) -> None:
    key = stage_key(record)
    stage_html(stage_view(record, make_anchors([key], "stage", False)[key], report_dir, False))
