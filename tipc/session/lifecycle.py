"""One tipc run, as both fronts drive it: begin → preflight → stages → end → report.

``TipcSession`` holds what a run shares across its configs: one run id, one results
folder object per folder (configs with one ``model_name`` share one), one ``PlanRun``
per config, the watchdog that stops the run's processes if the harness is killed.
The fronts only choose the order of stages (pytest's items, or the plan's order) and
how to print; everything else happens here, in the same order for both:

1. ``begin()``: the interpreter is checked, every config's plan is built and its results
   folder taken (another run holding it is refused by name); with ``--doctor`` the environment
   checks run and a config that fails one has its stages recorded as blocked; every other
   multi-node preflight runs before any stage.
2. ``run_stage()`` / ``skip_dropped()``: one stage at a time, gated on its prerequisites; or, once
   ``schedule()`` was given the stages the front will ask for, side by side in the background
   (``--jobs``, ``tipc.schedule``), each ``run_stage`` then waiting for its stage's record.
3. ``end()``: the folders are released and ``run.json`` marked ended.
4. ``write_reports()``: the HTML report of each folder, at the place ``report_root`` decides.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from tipc.errors import ConfigError, OutputError
from tipc.plan import Plan, Skipped, Stage
from tipc.proc.executor import Executor
from tipc.proc.watchdog import Watchdog, start_watchdog
from tipc.results.folder import ResultsDir, new_run_id
from tipc.results.outcome import Outcome, outcome_of
from tipc.results.records import StageRecord, Status
from tipc.run.infra import UNREACHED
from tipc.run.plan_run import PlanRun
from tipc.run.probe import cannot_run
from tipc.schedule import folders, hostlock
from tipc.schedule.runner import SlotRunner, make_scheduler
from tipc.schedule.shard import Sharding, results_folder
from tipc.session.cells import CellStates, cell_states
from tipc.session.doctor import run_doctor
from tipc.session.night_bisect import bisect_new_failures
from tipc.session.preflight import preflight
from tipc.session.report import final_report, night_index, report_root
from tipc.session.settings import ConfigTarget, Settings, check_interpreters, doctor_on
from tipc.suites.downloads import download_refusal

if TYPE_CHECKING:
    from tipc.doctor.checks import Report
    from tipc.doctor.preflight import PreflightReport
    from tipc.doctor.probes import Probes
    from tipc.report.trends import Regression
    from tipc.run.criteria import Criteria
    from tipc.schedule.runner import Runner

Emit = Callable[[str], None]


class TipcSession:
    """``owner``: this process owns the run's files (False on pytest-xdist workers and in
    ``--collect-only``); ``run_id``: given to workers by their controller, else new."""

    def __init__(
        self,
        settings: Settings,
        executor: Callable[[], Executor],
        *,
        owner: bool = True,
        run_id: str | None = None,
        echo: Emit | None = None,
        include_hint: Callable[[Stage], str] | None = None,
    ) -> None:
        self.settings = settings
        self.owner = owner
        self.run_id = run_id or new_run_id()
        self._executor = executor
        self._echo = echo
        self._include_hint = include_hint
        self._targets = {t.path: t for t in settings.targets}  # a zoo's configs each look theirs up
        self._plans: dict[Path, Plan] = {}
        self._runs: dict[Path, PlanRun] = {}
        self._cells: dict[Path, CellStates] = {}  # each config's cells' states across nights
        self._folders: dict[Path, ResultsDir] = {}
        self._watchdog: Watchdog | None = None
        self._runner: Runner | None = None
        self._sharding = (
            Sharding(
                settings.schedule.shard,
                settings.schedule.run_group,
                [t.path for t in settings.targets],
                self._whole_plan,
                settings.run.history,
            )
            if settings.schedule.shard
            else None
        )
        self.warnings: list[str] = []
        self.doctor: dict[Path, Report] = {}  # --doctor's report per config, when it ran
        self.probes: Probes | None = None  # the doctor's probes (None: the machine's)
        self.regressions: list[Regression] = []  # figures the reports found outside their noise band
        self.criteria: list[Criteria] = []  # what each report's verdict rests on
        self.night_index: Path | None = None  # the night's index page, once written (tipc.report.night_write)

    # --- plans and plan runs, one per config ---

    def _whole_plan(self, path: Path) -> Plan:
        target = self._targets[path]
        return target.plan(cannot_run)

    def plan(self, target: ConfigTarget) -> Plan:
        """The config's plan; with ``--shard``, its part of the split matrix."""
        if target.path not in self._plans:
            plan = replace(self._whole_plan(target.path), run_group=self.settings.schedule.run_group)
            self._plans[target.path] = plan if self._sharding is None else self._sharding.restrict(plan)
        return self._plans[target.path]

    def _refuse_downloads(self) -> None:
        """Weights a stage would download stop the run before anything starts (``tipc.suites.downloads``)."""
        for target in self.settings.targets:
            try:
                plan = self.plan(target)
            except ConfigError:
                continue  # left to the front, as in begin()
            refusal = download_refusal(plan, target.options.sets)
            if refusal is not None:
                raise refusal

    def plan_run(self, target: ConfigTarget) -> PlanRun:
        if target.path not in self._runs:
            plan = self.plan(target)
            folder_path = results_folder(plan) if self._sharding is None else self._sharding.folder(plan)
            folder = self._folders.setdefault(folder_path, ResultsDir(folder_path))
            cells = self._cells[target.path] = cell_states(self.settings, folder_path, plan, self.run_id)
            self._runs[target.path] = PlanRun(
                plan,
                self.settings.run,
                self._executor(),
                echo=self._echo,
                include_hint=self._include_hint,
                results=folder,
                run_id=self.run_id,
                states=cells,
            )
        return self._runs[target.path]

    @property
    def plan_runs(self) -> list[PlanRun]:
        return list(self._runs.values())

    # --- the lifecycle ---

    def begin(self, emit: Emit) -> list[PreflightReport]:
        """Take every config's results folder, then preflight every config; return the failed
        preflights (their plans are recorded as blocked). A config that cannot be read is left
        to the front, which reports it where it belongs (its collector, or an exit 2)."""
        if not self.owner:
            return []
        if not self.settings.run.dry_run:
            check_interpreters(self.settings)
            self._refuse_downloads()
            self._warn_without_paddle(emit)
            self._watchdog = start_watchdog(self.run_id)
        runs = []
        for target in self.settings.targets:
            with contextlib.suppress(ConfigError):
                run = self.plan_run(target)
                run.begin()
                self.warnings.extend(run.warnings)
                runs.append((target, run))
        if self._sharding is not None and self._sharding.empty_note():
            self.warnings.append(self._sharding.empty_note())
        if doctor_on(self.settings) and not self.settings.run.dry_run:
            self.doctor = run_doctor(self.settings, runs, emit, self.probes)
        failed = []
        for target, run in runs:
            if self.blocked(target):
                continue
            report = preflight(run, target.node, emit)
            if report is not None and not report.ok:
                failed.append(report)
        return failed

    def _warn_without_paddle(self, emit: Emit) -> None:
        """Said at the start, not found at the end: an interpreter without paddle fails every stage
        that imports it (``tipc doctor`` fails it; ``--doctor`` blocks such a config's stages)."""
        from tipc.run.probe import lacks_paddle

        for python in dict.fromkeys(p.python for p in (self.plan_or_none(t) for t in self.settings.targets) if p):
            why = lacks_paddle(python)
            if why:
                emit(
                    f"tipc: warning: {why}: every stage that imports paddle will fail; give one that has it "
                    f"(--python) or install paddlepaddle into it"
                )

    def plan_or_none(self, target: ConfigTarget) -> Plan | None:
        try:
            return self.plan(target)
        except ConfigError:
            return None  # the front reports it

    def schedule(self, stages: Iterable[tuple[ConfigTarget, Stage]], worker: tuple[int, int] | None = None) -> None:
        """The stages the front will ask for, to run side by side (``--jobs``); ``worker``: this
        process is pytest-xdist worker ``index`` of ``count`` (it pins its chains to its GPU slot).
        A serial run (no option) changes nothing: each ``run_stage`` runs its stage then."""
        if self.settings.run.dry_run or (worker is None and not self.settings.schedule.concurrent):
            return
        if worker is None:
            self.refuse_shared_folders("--jobs")
        if worker is not None:
            self._runner = SlotRunner.for_worker(self.settings.schedule, *worker, self.run_id)
        else:
            selected = [(self.plan_run(t), s) for t, s in stages if not self.blocked(t)]
            self._runner = scheduler = make_scheduler(selected, self.settings.schedule, self.warnings.append)
            scheduler.start()

    def refuse_shared_folders(self, how: str) -> None:
        """``SettingsError`` naming two configs whose chains, run side by side (``how``), would write
        one save dir (configs of one ``model_name``); one after the other they may."""
        planned = [t for t in self.settings.targets if not self.blocked(t)]
        folders.refuse_shared_folders(
            ((self.plan(t).config_path, s) for t in planned for s in self.plan(t).stages()), how
        )

    @property
    def empty_shard(self) -> bool:
        """This run is a shard whose part of the split has no chain: nothing to run is no failure."""
        return self._sharding is not None and bool(self._sharding.empty_note())

    def doctor_failed(self) -> bool:
        """A config failed a ``--doctor`` check: the run fails (its stages were blocked)."""
        return any(not report.ok for report in self.doctor.values())

    def blocked(self, target: ConfigTarget) -> bool:
        """The doctor failed this config: its stages were recorded as blocked at begin."""
        return target.path in self.doctor and not self.doctor[target.path].ok

    def run_stage(self, target: ConfigTarget, stage: Stage) -> StageRecord:
        run = self.plan_run(target)
        if self.blocked(target) and stage.id in run.done:
            return run.done[stage.id]
        return run.run_stage(stage) if self._runner is None else self._runner.run(run, stage)

    def not_run(self, target: ConfigTarget, stage: Stage, status: Status, reason: str) -> None:
        """The front left ``stage`` unrun (pytest skipped its item, or its setup failed): recorded, so
        that it is counted, unless it has a record of this run already."""
        run = self.plan_run(target)
        if stage.id not in run.done:
            run.block(stage, reason, status)

    def record_unreached(self, stages: Iterable[tuple[ConfigTarget, Stage]]) -> None:
        """After the scheduler stopped the run (a cancel, a time limit, a preemption), every one of ``stages``
        it had not reached is recorded as not run: its chains are listed in the results, not lost from the counts."""
        stop = next((r for r in self.records() if r.stopped_by_scheduler), None)
        if stop is None:
            return
        reason = f"{UNREACHED} ({stop.id}: {stop.reason})"
        for target, stage in stages:
            self.not_run(target, stage, Status.BLOCKED, reason)

    def expected(self, target: ConfigTarget, stage: Stage) -> float | None:
        """Seconds the stage took when it last ran (the progress's estimate), None: never."""
        return self.plan_run(target).expected(stage)

    def skip_dropped(self, target: ConfigTarget, skipped: Skipped) -> StageRecord:
        return self.plan_run(target).skip_dropped(skipped)

    def end(self) -> None:
        if self._runner is not None:  # an early end (Ctrl-C, pytest -x) interrupts what still runs
            self._runner.stop()
            self._runner = None
        if not self.owner:
            return
        hostlock.remove(hostlock.lock_path(self.run_id))  # made by xdist workers, if any
        for run in self._runs.values():
            try:
                run.end()
            except OutputError as exc:  # the records are on disk already; run.json could not follow
                self.warnings.append(f"tipc: {exc}; run.json of {run.results.path} is not final")
            self.warnings.extend(w for w in run.warnings if w not in self.warnings)
        if self._watchdog is not None:
            self._watchdog.close()
            self._watchdog = None

    def records(self) -> list[StageRecord]:
        """This run's records, once each, read back from its folders: under pytest-xdist the
        workers ran the stages. Records carried over from earlier runs are not this run's."""
        return [
            r
            for folder in self._folders.values()
            for r in folder.records(self.warnings.append)
            if r.run_id == self.run_id
        ]

    def folders(self) -> list[ResultsDir]:
        return list(self._folders.values())

    def write_reports(self, cwd: Path) -> list[Path]:
        if not self.owner:
            return []
        root = report_root(self.settings, cwd)
        if self.settings.bisect_budget and not self.settings.schedule.shard:
            runs = {run.plan.config_path: (run, self._cells[path]) for path, run in self._runs.items()}
            bisect_new_failures(runs, self.records(), self.settings.bisect_budget, self.warnings.append)
        reports = final_report(
            self.settings, self.folders(), root, self.warnings.append, self.regressions.append, self.criteria.append
        )
        self.night_index = night_index(self.settings, self.folders(), root, self.run_id, self.warnings.append)
        return reports

    def criteria_lines(self) -> list[str]:
        """What the verdict rests on (exit codes only, goldens, regressions) and every infer case that
        predicted nothing: the reports' (they judged the trends), else this run's records'."""
        from tipc.run.criteria import criteria_of

        said = self.criteria or ([criteria_of(self.records())] if self.owner and self.folders() else [])
        lines = [f"tipc: {c.text()}" for c in said]
        lines += [f"tipc: {e.text()}" for c in said for e in c.empty]
        return list(dict.fromkeys(lines))

    def finding_lines(self) -> list[str]:
        """What the verdict rests on, then what the reports found across runs, a line each; the last
        says when it fails the run."""
        lines = self.criteria_lines() + [f"tipc: regression: {r.message()}" for r in self.regressions]
        if self.fails_on_findings():
            lines.append(f"tipc: --fail-on regression: {len(self.regressions)} regression(s) fail this run")
        return lines

    def fails_on_findings(self) -> bool:
        """``--fail-on regression`` and a report found one: the run fails, whatever its stages did."""
        return "regression" in self.settings.fail_on and bool(self.regressions)


def verdict(session: TipcSession, *, interrupted: bool, stopped: bool, config_errors: bool) -> Outcome:
    """The run's outcome once it ended (its exit status: ``Outcome.exit_status``, both fronts): ``stopped``
    before its stages ran out (a preflight, a full disk); ``config_errors``: a config could not be planned."""
    return outcome_of(
        (r.status for r in session.records()),
        regressions=len(session.regressions),
        fail_on_regression="regression" in session.settings.fail_on,
        stopped=stopped or config_errors or session.doctor_failed(),
        dry_run=session.settings.run.dry_run,
        interrupted=interrupted,
    )
