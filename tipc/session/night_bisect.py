"""The night's own bisection of its new failures (``--bisect-budget``), after the run and before its reports.

This module only gathers what ``tipc.triage.night`` searches: each new failure of the run's records, its
config and checkout, the last night it passed (``tipc.session.cells``) and tonight's commit; what is found goes
into each results folder's ``culprits.json``, where the report and the night's index read it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from tipc.results.records import StageRecord
from tipc.run.plan_run import PlanRun
from tipc.session.cells import CellStates
from tipc.triage.culprits import Culprit, write_culprits
from tipc.triage.night import Wanted, bisect_night, good_commit
from tipc.triage.states import State


def bisect_new_failures(
    runs: Mapping[str, tuple[PlanRun, CellStates]],
    records: Sequence[StageRecord],
    budget: float,
    say: Callable[[str], None],
) -> None:
    """``runs``: each config's plan run and its cells' states, by the config as records name it."""
    wanted: list[tuple[Path, Wanted]] = []
    for r in records:
        if r.state != State.NEW_FAILURE.value or r.config not in runs:
            continue
        run, cells = runs[r.config]
        good = good_commit(cells.nights().get((r.id, r.node_rank), ()))
        python = ("--python", run.plan.python) if run.plan.python else ()
        w = Wanted(Path(run.plan.config_path), run.cwd, run.plan.mode, r.id, good, run.target.sha, python)
        wanted.append((run.results.path, w))
    if not wanted:
        return
    found = bisect_night([w for _, w in wanted], budget, say)
    per_folder: dict[Path, list[Culprit]] = {}
    for (folder, _), culprit in zip(wanted, found, strict=True):
        per_folder.setdefault(folder, []).append(culprit)
    for folder, culprits in per_folder.items():
        write_culprits(folder, culprits)
