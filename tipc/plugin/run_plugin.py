"""The plugin object of an active ``pytest tipc`` run: markers, collection root, the run's lifecycle.

One ``TipcSession`` (``tipc.session``) per pytest session does the work; this
module only maps pytest's hooks onto it: ``sessionstart`` → begin and preflight,
items → stages, ``sessionfinish`` → end and report, terminal summary → the
summary paragraph. Under pytest-xdist the controller owns the run's files and
gives its run id to the workers, which only run stages.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Any

import pytest

from tipc.errors import TipcError
from tipc.plan import StageKind
from tipc.plugin.collect import DroppedItem, StageItem, TipcDirectory, keyword_for
from tipc.plugin.distribution import check_distribution
from tipc.plugin.doctor_item import DoctorItem
from tipc.plugin.order import ChainOrder
from tipc.plugin.pytest_cache import CacheGuard
from tipc.plugin.refusals import refuse, warn_two_word_configs
from tipc.plugin.timeouts import PytestTimeout
from tipc.proc.executor import ProcessExecutor, sigterm_as_interrupt
from tipc.results.outcome import DRY_RUN_EXIT, Outcome
from tipc.results.records import Status
from tipc.run import legacy
from tipc.run.plan_run import DRY_RUN
from tipc.run.summary import run_paragraph
from tipc.schedule.devices import worker_index
from tipc.session.layers import ini_layer
from tipc.session.lifecycle import TipcSession, verdict
from tipc.session.matrix import cause_history, write_matrix
from tipc.session.options import respell
from tipc.session.preflight import failure_message
from tipc.session.problems import no_stage, selection_line, split
from tipc.session.progress import Progress, for_front
from tipc.session.settings import ConfigTarget, Settings, doctor_on, resolve_settings

TIPC_DIR = Path(__file__).resolve().parents[1]
RUN_ID = "tipc_run_id"  # workerinput key: the controller's run id
TIPC_ITEMS = (StageItem, DroppedItem, DoctorItem)


def activate(config: pytest.Config) -> None:
    """Resolve the options (a bad one is a usage error) and register the plugin."""
    for kind in StageKind:
        config.addinivalue_line("markers", f"{kind.value}: tipc {kind.value} stages")
    try:
        ini = ini_layer(config.getini, str(config.inipath) if config.inipath else "pytest's ini")
        settings = resolve_settings(config.getoption, ini=ini)
    except TipcError as exc:
        raise pytest.UsageError(respell(str(exc))) from None
    if settings is None:
        return
    refuse(config)
    warn_two_word_configs(config)
    # A config that cannot be planned fails its own collector; the other configs must still run.
    config.option.continue_on_collection_errors = True
    worker = getattr(config, "workerinput", None)
    if worker is None:
        check_distribution(
            config,
            multi_node=any(t.node and t.node.multi_node for t in settings.targets),
            scheduled=settings.schedule.concurrent,
        )
    config.pluginmanager.register(TipcPlugin(config, settings, worker), "tipc-run")
    config.pluginmanager.register(ChainOrder(config), "tipc-order")
    if config.pluginmanager.hasplugin("timeout"):
        config.pluginmanager.register(PytestTimeout(), "tipc-pytest-timeout")


class TipcPlugin:
    def __init__(self, config: pytest.Config, settings: Settings, workerinput: dict[str, Any] | None) -> None:
        self.config = config
        self.settings = settings
        owner = workerinput is None and not config.option.collectonly
        # `-s` asks pytest to show what tests print: a stage's output is what it prints.
        live = settings.live or config.getoption("capture", "fd") == "no"
        self.progress: Progress | None = None  # made at the session's start, when the terminal is there
        self._live = live
        self.session = TipcSession(
            settings,
            lambda: ProcessExecutor(live=self.write if live else None, progress=self.progress),
            owner=owner,
            run_id=(workerinput or {}).get(RUN_ID),
            echo=(lambda line: self.write(line, legacy_echo=True)) if live else None,
            include_hint=lambda stage: f'include its chain: -k "{keyword_for(stage.chain)}"',
        )
        self.worker = (
            None if workerinput is None else (worker_index(workerinput["workerid"]), workerinput["workercount"])
        )
        self.cache = CacheGuard(config, dry_run=settings.run.dry_run)
        self._signals = contextlib.ExitStack()
        self.reports: list[Path] = []
        self.matrix: Path | None = None
        self._warned = 0  # warnings shown at the start are not repeated in the summary
        self.doctor = doctor_on(settings) and not settings.run.dry_run  # its item comes first
        self._begun = False
        self._ended = False
        self._nothing_ran = False  # every selected stage was skipped before it started

    def write(self, data: str | bytes, legacy_echo: bool = False) -> None:
        """Straight to the terminal, past pytest's capture (``--live``, dry-run commands)."""
        capman = self.config.pluginmanager.getplugin("capturemanager")
        with (
            capman.global_and_fixture_disabled() if capman else contextlib.nullcontext(),
            contextlib.suppress(BrokenPipeError),  # a closed stdout: the stage's record is written already
        ):
            if legacy_echo:
                legacy.echo(data if isinstance(data, str) else data.decode(errors="replace"), sys.stdout)
            elif isinstance(data, bytes):
                sys.stdout.buffer.write(data)
            else:
                sys.stdout.write(data)
            sys.stdout.flush()

    def target(self, path: Path) -> ConfigTarget:
        return next(t for t in self.settings.targets if t.path == path)

    def _selection(self, terminalreporter: Any) -> None:
        """How many configs planned and how many could not, when there was more than one."""
        if self.settings.problems or len(self.settings.targets) > 1:
            planned, problems = split(self.session)
            terminalreporter.write_line(selection_line(len(planned), problems, no_stage(self.session, planned)))

    # --- hooks ---

    @pytest.hookimpl
    def pytest_collect_directory(self, path: Path, parent: pytest.Collector) -> pytest.Collector | None:
        # By identity, and by shape for a checkout that is not the installed package.
        if path.resolve() == TIPC_DIR or (path.name == "tipc" and (path / "plugin" / "hooks.py").is_file()):
            return TipcDirectory.from_parent(parent, path=path, plugin=self)
        return None

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """pytest-xdist: every worker runs its stages as part of the controller's run."""
        node.workerinput[RUN_ID] = self.session.run_id

    def _make_progress(self) -> Progress | None:
        """The status line below pytest's line on a terminal, a heartbeat line off one; none with
        ``-q``, ``--live``/``-s`` (the stages' output is shown), a dry run, or on an xdist worker
        (its output is not shown)."""
        reporter = self.config.pluginmanager.getplugin("terminalreporter")
        if reporter is None or self._live or self.worker is not None or self.settings.run.dry_run:
            return None
        tw = reporter._tw
        return for_front(
            self.write,
            terminal=bool(reporter.isatty),
            quiet=self.config.get_verbosity() < 0,
            heartbeat=self.settings.heartbeat,
            column=lambda: int(tw.width_of_current_line),
            width=lambda: int(tw.fullwidth),
        )

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.progress = self._make_progress()
        self._signals.enter_context(sigterm_as_interrupt())
        self.cache.remember()
        workers = session.config.getoption("numprocesses", None)
        try:
            side_by_side = isinstance(workers, int) and workers > 1  # xdist's controller
            if self.worker is None and (side_by_side or self.settings.schedule.concurrent):
                self.session.refuse_shared_folders(f"pytest-xdist ({workers} workers)" if side_by_side else "--jobs")
        except TipcError as exc:  # two configs would share one folder
            self._signals.close()
            raise pytest.UsageError(respell(str(exc))) from None
        # pytest skips sessionfinish when its own start fails after this (a closed stdout:
        # `pytest tipc | head -1`); its cleanups always run, and end the run there.
        self.config.add_cleanup(self._end_if_unfinished)

    def _begin(self, session: pytest.Session) -> None:
        """The run begins once pytest is about to run its items, not at pytest's start: a pytest that
        stops before (``--strict-config``, a misspelt hook, a collection it cannot finish) leaves no
        run behind, no results folder, history or report."""
        self._begun = True
        try:
            refused = self.session.begin(lambda line: self.write(respell(line) + "\n"))
        except TipcError as exc:  # the results folder is another run's, or the interpreter cannot run
            raise pytest.UsageError(respell(str(exc))) from None
        for warning in self.session.warnings:
            self.write(respell(warning) + "\n")
        self._warned = len(self.session.warnings)
        if self.session.doctor_failed() and session.config.getoption("dist", "no") != "no":
            # Workers would run the stages: they cannot see what the controller blocked.
            self._end()
            pytest.exit("tipc doctor failed; nothing was run", returncode=pytest.ExitCode.TESTS_FAILED)
        if refused:
            # Before any item runs; nothing ran, so no report.
            self._end(report=False)
            pytest.exit(
                respell("\n".join(failure_message(r) for r in refused)), returncode=pytest.ExitCode.TESTS_FAILED
            )

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> None:
        """Before pytest's loop (or xdist's) runs the items: hand tipc the stages it will ask for,
        so that ``--jobs`` runs them side by side (each item then waits for its stage), or give
        this xdist worker its GPU slot. Nothing when pytest will not run them."""
        if session.config.option.collectonly or (
            session.testsfailed and not session.config.option.continue_on_collection_errors
        ):
            return
        # xdist's controller has no items (its workers collect them); a shard whose part has no chain
        # ran its part all the same (tipc merge finds its run).
        if (
            any(isinstance(item, TIPC_ITEMS) for item in session.items)
            or self.config.pluginmanager.has_plugin("dsession")
            or self.session.empty_shard
        ):
            self._begin(session)
        stages = [(item.target, item.stage) for item in session.items if isinstance(item, StageItem)]
        if self.progress is not None:
            self.progress.total = len(stages)
            self.progress.plan(self.session.expected(target, stage) for target, stage in stages)
        self.session.schedule(stages, self.worker)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        properties = dict(report.user_properties)
        if properties.get("status") == Status.BLOCKED.value:
            self.cache.blocked(report.nodeid)
        if properties.get("requires") and properties.get("status") in (Status.FAILED.value, Status.BLOCKED.value):
            chain = report.nodeid.rpartition("::")[0]
            self.cache.with_chain([f"{chain}::{name}" for name in str(properties["requires"]).split("\n")])

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
        """A stage whose item pytest did not run (a skip mark, pytest-dependency, a failed fixture) is
        recorded as not run: it is counted, and the stages after it know why they cannot run."""
        report = yield
        if isinstance(item, StageItem) and report.when == "setup" and not report.passed:
            self.session.not_run(item.target, item.stage, *unrun(report))
        return report

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        # tryfirst: before the cache provider writes what --lf will read next time.
        stopped = session.exitstatus == pytest.ExitCode.INTERRUPTED and self.session.owner and self._begun
        if stopped:  # the scheduler's stop: what it left is listed as not run
            self.session.record_unreached((i.target, i.stage) for i in session.items if isinstance(i, StageItem))
        self._end()
        if stopped and verdict(self.session, interrupted=True, stopped=False, config_errors=False) is Outcome.INFRA:
            session.exitstatus = Outcome.INFRA.exit_status
        if self.session.empty_shard and session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
            session.exitstatus = pytest.ExitCode.OK  # more parts than chains: this one had nothing to run
        if not (self.session.owner or self.settings.run.dry_run) or session.exitstatus != pytest.ExitCode.OK:
            return
        # The same table as tipc run's: --fail-on regression, a selected stage blocked with no failure
        # upstream, a dry run (every item skipped, nothing ran: no green for CI) say so in pytest's status.
        session.exitstatus = verdict(self.session, interrupted=False, stopped=False, config_errors=False).exit_status
        statuses = [r.status for r in self.session.records()]
        if session.exitstatus == pytest.ExitCode.OK and self._begun and statuses and not any(s.ran for s in statuses):
            # Every selected stage was skipped before it started: pytest's own "no tests ran".
            self._nothing_ran = True
            session.exitstatus = pytest.ExitCode.NO_TESTS_COLLECTED

    def _end(self, report: bool = True) -> None:
        """End the run once: its folders, ``run.json``, the watchdog, then its reports."""
        if self._ended:
            return
        self._ended = True
        self._signals.close()
        self.cache.settle()
        self.session.end()  # in a worker, only what ran in the background ends
        if self.session.owner and report and self._begun:
            self.reports = self.session.write_reports(Path.cwd())
            self.matrix = write_matrix(self.session, Path.cwd(), self.reports)

    def _end_if_unfinished(self) -> None:
        if not self._ended:
            self._end()
            if not self._begun:
                return
            print(
                "tipc: pytest stopped before its session's end (a closed stdout?); the run was ended "
                f"and its results kept: {', '.join(str(f.path) for f in self.session.folders())}",
                file=sys.stderr,
            )

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.session.owner and not self.settings.run.dry_run:
            terminalreporter.write_sep("-", "tipc")
        self._selection(terminalreporter)  # --collect-only too: how many configs, how many errors
        if not self.session.owner:
            return
        if self.settings.run.dry_run:
            terminalreporter.write_line(
                "tipc: dry run: every command was printed; nothing ran, nothing written "
                f"(each stage skipped: {DRY_RUN}; exit status {DRY_RUN_EXIT}).",
                yellow=True,
            )
            return
        if not self._begun:
            terminalreporter.write_line("tipc: no stage was run; nothing was written", yellow=True)
            return
        if self._nothing_ran:
            terminalreporter.write_line(
                "tipc: no stage ran: every selected stage was skipped before it started (a skip mark, "
                f"another plugin); exit status {pytest.ExitCode.NO_TESTS_COLLECTED.value}",
                yellow=True,
            )
        if self.session.folders():  # none when not one config could be planned
            earlier = cause_history(self.session, Path.cwd())
            terminalreporter.write_line(run_paragraph(self.session.folders(), self.session.run_id, earlier))
        for report in self.reports:
            terminalreporter.write_line(f"tipc: report: {report}")
        if self.session.night_index is not None:
            terminalreporter.write_line(f"tipc: night index: {self.session.night_index}")
        if self.matrix is not None:
            terminalreporter.write_line(f"tipc: matrix report: {self.matrix}")
        for warning in self.session.warnings[self._warned :]:
            terminalreporter.write_line(respell(warning), yellow=True)
        colour = "red" if self.session.fails_on_findings() else "yellow"
        for line in self.session.finding_lines():
            terminalreporter.write_line(respell(line), **{colour: True})


def unrun(report: pytest.TestReport) -> tuple[Status, str]:
    """How a stage whose item pytest did not run is recorded: skipped (with the skip's reason), or
    blocked when its item's setup failed."""
    if report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        return Status.SKIPPED, f"not run: pytest skipped its item: {reason.removeprefix('Skipped: ')}"
    return Status.BLOCKED, "not run: pytest could not set up its item (see pytest's error for it)"
