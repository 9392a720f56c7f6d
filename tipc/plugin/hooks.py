"""pytest entry point (``pytest11``) for tipc: ``pytest tipc --config … --mode …``.

Inert unless ``--config`` is given. Then ``pytest_configure`` resolves the
options once into frozen ``Settings`` (``config.stash``) and registers a
``TipcPlugin``, which turns the ``tipc`` package directory into the configs'
collection tree and owns the run: one ``RunSession`` per config, shared by
the items, and the results files (written by the controller only when
pytest-xdist distributes chains to workers).
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import pytest

from tipc.config import ConfigError, load_config
from tipc.plan import Plan, StageKind, build_plan
from tipc.plugin.collect import PLUGIN_KEY, TipcDirectory, keyword_for
from tipc.plugin.distribution import check_distribution
from tipc.plugin.final_report import final_report
from tipc.plugin.preflight import failure_message, preflight
from tipc.plugin.settings import ConfigTarget, Settings, SettingsError, add_options, resolve_settings
from tipc.run import legacy
from tipc.run.executor import ProcessExecutor, sigterm_as_interrupt
from tipc.run.session import RunSession
from tipc.run.summary import run_paragraph

TIPC_DIR = Path(__file__).resolve().parents[1]
SETTINGS_KEY = pytest.StashKey[Settings]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tipc", "tipc: run a TIPC config as tests (pytest tipc --config … --mode …)")
    add_options(group.addoption)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    """``pytest tipc`` from any directory: a ``tipc`` argument that is not a path here names the
    installed package (in tipc's own checkout it is that directory anyway)."""
    for index, arg in enumerate(args):
        name, sep, rest = arg.partition("::")
        if name == "tipc" and not Path(name).exists():
            args[index] = f"{TIPC_DIR}{sep}{rest}"


def pytest_configure(config: pytest.Config) -> None:
    for kind in StageKind:
        config.addinivalue_line("markers", f"{kind.value}: tipc {kind.value} stages")
    try:
        settings = resolve_settings(config.getoption)
    except SettingsError as exc:
        raise pytest.UsageError(str(exc)) from None
    if settings is None:
        return
    if not hasattr(config, "workerinput"):
        check_distribution(config, multi_node=any(t.node and t.node.multi_node for t in settings.targets))
    config.stash[SETTINGS_KEY] = settings
    plugin = TipcPlugin(config, settings)
    config.stash[PLUGIN_KEY] = plugin
    config.pluginmanager.register(plugin, "tipc-run")


class TipcPlugin:
    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        self.owner = not (hasattr(config, "workerinput") or config.option.collectonly)
        # `-s` asks pytest to show what tests print: a stage's output is what it prints.
        self.live = settings.live or config.getoption("capture", "fd") == "no"
        self._plans: dict[Path, Plan] = {}
        self._sessions: dict[Path, RunSession] = {}
        self._signals = contextlib.ExitStack()
        self.report: Path | None = None
        self.warnings: list[str] = []  # shown in the terminal summary

    # --- plans and sessions, one per config ---

    def plan(self, target: ConfigTarget) -> Plan:
        if target.path not in self._plans:
            self._plans[target.path] = build_plan(load_config(str(target.path)), target.options)
        return self._plans[target.path]

    def session(self, target: ConfigTarget) -> RunSession:
        if target.path not in self._sessions:
            executor = ProcessExecutor(live=self.write if self.live else None)
            self._sessions[target.path] = RunSession(
                self.plan(target), self.settings.run, executor,
                echo=(lambda line: self.write(line, legacy_echo=True)) if self.live else None,
                include_hint=lambda stage: f'include its chain: -k "{keyword_for(stage.chain)}"')
        return self._sessions[target.path]

    def write(self, data: str | bytes, legacy_echo: bool = False) -> None:
        """Straight to the terminal, past pytest's capture (``--live``, dry-run commands)."""
        capman = self.config.pluginmanager.getplugin("capturemanager")
        with capman.global_and_fixture_disabled() if capman else contextlib.nullcontext():
            if legacy_echo:
                legacy.echo(data, sys.stdout)
            elif isinstance(data, bytes):
                sys.stdout.buffer.write(data)
            else:
                sys.stdout.write(data)
            sys.stdout.flush()

    # --- hooks ---

    @pytest.hookimpl
    def pytest_collect_directory(self, path: Path, parent: pytest.Collector) -> pytest.Collector | None:
        # By identity, and by shape for a checkout that is not the installed package.
        if path.resolve() == TIPC_DIR or (path.name == "tipc" and (path / "plugin" / "hooks.py").is_file()):
            return TipcDirectory.from_parent(parent, path=path)
        return None

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self._signals.enter_context(sigterm_as_interrupt())
        if not self.owner:
            return
        failed = []
        for target in self.settings.targets:
            with contextlib.suppress(ConfigError):  # a bad config is reported by its collector
                run = self.session(target)
                run.begin()
                report = preflight(run, target.node, lambda line: self.write(line + "\n"))
                if report is not None and not report.ok:
                    failed.append(report)
        if failed:
            # Before collection, so nothing runs; sessionfinish is not called after an exit here.
            self._signals.close()
            for run in self._sessions.values():
                run.end()
            pytest.exit("\n".join(failure_message(r) for r in failed), returncode=pytest.ExitCode.TESTS_FAILED)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self._signals.close()
        if not self.owner:
            return
        for run in self._sessions.values():
            run.end()
        self.report = final_report(self.settings, [run.results for run in self._sessions.values()],
                                   self.config.rootpath / "reports", self.warnings.append)

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if not self.owner:
            return
        if self.settings.run.dry_run:
            terminalreporter.write_line("tipc: dry run: every command was printed; nothing ran, nothing written.")
            return
        terminalreporter.write_sep("-", "tipc")
        terminalreporter.write_line(run_paragraph([run.results for run in self._sessions.values()]))
        if self.report:
            terminalreporter.write_line(f"tipc: report: {self.report}")
        for warning in self.warnings:
            terminalreporter.write_line(warning, yellow=True)
