"""One config's plan within one run (``tipc.session`` drives one per config, for both fronts).

A ``PlanRun`` decides (gating), executes (an ``Executor``), and records:
each stage's ``StageRecord`` in ``results.jsonl`` and its legacy line in
``results_python.log`` the moment the stage ends. It judges a stage only by
what that stage produced: outputs written during it, the part of an appended
log written during it. It knows nothing of pytest.
"""

from __future__ import annotations

import functools
import shlex
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from tipc.cluster.options import DEFAULT_NODE_TIMEOUT
from tipc.cluster.watch import NodeWatch
from tipc.history.durations import read_history
from tipc.history.keys import config_key
from tipc.history.provenance import TargetCommit, target_commit
from tipc.plan.model import IN_HARNESS, InferCase, Plan, Skipped, Stage
from tipc.plan.naming import kind_of
from tipc.proc.child import Ending
from tipc.proc.executor import Executor
from tipc.proc.watchdog import kill_marked
from tipc.results.folder import RECORDS, Interrupted, ResultsDir, Span, archive_interrupted, new_run_id, read_records
from tipc.results.records import RunInfo, StageRecord, Status
from tipc.run import golden_check, legacy
from tipc.run.cause import cause_of
from tipc.run.execute import StageContext, StageRun
from tipc.run.gating import NOT_RANK0, decide, not_applicable
from tipc.run.limits import Limits
from tipc.run.probe import NO_FACTS, InterpreterFacts, facts_in_background
from tipc.suites.dialect import Dialect
from tipc.version import VERSION


@dataclass(frozen=True, slots=True)
class RunSettings:
    """How stages run, independent of which plan: resolved once by a front."""

    limits: Limits = field(default_factory=Limits)
    dry_run: bool = False
    node_rank: int = 0
    host: str = field(default_factory=socket.gethostname)
    device: str = ""
    overrides: Mapping[str, str] = field(default_factory=dict)  # option -> value as given, for run.json
    pythonpath: tuple[str, ...] = ()  # put first on every stage's PYTHONPATH (the drop-in auto_log)
    golden_fails: bool = True  # golden findings fail their check stage (--fail-on golden)
    confirm: int = 0  # runs again of a stage that failed, in the same run (--confirm N)
    history: Path | None = None  # the history store the setting names (--history); None: tipc's choice
    watch_port: int | None = None  # multi-node: node 0's port for the watch over the nodes (its rendezvous port)
    node_timeout: float = DEFAULT_NODE_TIMEOUT  # multi-node: how long a node may be silent (--node-timeout)


DRY_RUN = "dry run: not run"


def _mb(kb: int | None) -> float | None:
    return None if kb is None else round(kb / 1024, 1)


@functools.lru_cache(maxsize=64)
def _resolved(path: Path) -> Path:
    """A stage's cwd, resolved once: every record and log path is asked for it."""
    return path.resolve()


@functools.lru_cache(maxsize=256)
def _case_fields(case: InferCase) -> dict[str, Any]:
    """An infer case as its record holds it: ``asdict`` walks and copies every field, and each stage's
    record is made twice (the running note, the result) between two stages' processes."""
    return asdict(case)


def command_text(stage: Stage) -> str:
    """What a dry run prints: the env overrides and the argv, as one shell-readable line."""
    env = " ".join(f"{k}={shlex.quote(v)}" if v is not None else f"-u {k}" for k, v in stage.env.items())
    prefix = f"env {env} " if env else ""
    return f"{prefix}{shlex.join(stage.argv)}"


class PlanRun:
    """``results``: the folder, shared with the run's other configs that write there (else its own).
    ``run_id``: the run this plan is part of (xdist workers get their controller's)."""

    def __init__(
        self,
        plan: Plan,
        settings: RunSettings,
        executor: Executor,
        echo: Callable[[str], None] | None = None,
        include_hint: Callable[[Stage], str] | None = None,
        results: ResultsDir | None = None,
        run_id: str | None = None,
        states: Callable[[StageRecord, str], StageRecord] | None = None,
    ) -> None:
        self.plan = plan
        self.settings = settings
        self.executor = executor
        self.echo = echo
        self.include_hint = include_hint or (lambda s: f"run {s.id} too")
        self.cwd = Path(plan.cwd).resolve()
        self.results = results or ResultsDir(self.cwd / plan.output_dir)
        self.run_id = run_id or new_run_id()
        self.done: dict[str, StageRecord] = {}
        # stage id -> its record as written, and where it and its results_python.log line went
        self._written: dict[str, tuple[StageRecord, Span, Span | None]] = {}
        # stage id -> a time limit another plugin set (pytest-timeout's), and whose it is
        self.outside_limits: dict[str, tuple[float, str]] = {}
        self.start = 0.0
        self._facts: Callable[[], InterpreterFacts] = lambda: NO_FACTS
        self.notes: list[str] = []  # decided during the run (preflight lines), for run.json
        self.warnings: list[str] = []  # for the front to show: an earlier run found interrupted
        self._history: dict[str, float] | None = None  # stage id -> its last duration, read once
        self.target = TargetCommit()  # the target repo's commit, asked once when the run begins
        self._owns = False  # begin took the results folder: only then may end write there
        # A record with its cell's state across nights (tipc.session.cells), given the target's commit.
        self._states = states or (lambda record, commit: record)

    # --- run files: written by the one process that owns the run (not by xdist workers) ---

    @property
    def facts(self) -> InterpreterFacts:
        """The stage interpreter's versions (waits for the background probe the first time)."""
        return self._facts()

    def run_info(self, duration: float = 0.0, facts: InterpreterFacts = NO_FACTS) -> RunInfo:
        nodes = sorted({ip for chain in self.plan.chains for ip in chain.topology.ips})
        return RunInfo(
            model=self.plan.model,
            mode=self.plan.mode,
            config=self.plan.config_path,
            config_sha256=self.plan.config_sha256,
            overrides=dict(self.settings.overrides),
            tipc_version=VERSION,
            paddle_version=facts.paddle_version,
            python=self.plan.python,
            python_version=facts.python_version,
            device=self.settings.device,
            host=self.settings.host,
            node_rank=self.settings.node_rank,
            nodes=tuple(nodes),
            start=self.start,
            duration=duration,
            notes=(*self.plan.notes, *self.notes),
            run_id=self.run_id,
            configs=(self.plan.config_path,),
            shard=self.plan.shard,
            partition=self.plan.partition,
            run_group=self.plan.run_group,
            target_commit=self.target.sha,
            target_dirty=self.target.dirty,
        )

    def begin(self) -> None:
        """Own the results folder for this run and ask the stage interpreter for its versions
        meanwhile (``facts_in_background``: the first stage does not wait for the answer).
        An earlier run found interrupted in the folder is cleaned up and recorded (``warnings``)."""
        self.start = time.time()
        if not self.settings.dry_run:
            self._facts = facts_in_background(self.plan.python)
            self.target = target_commit(self.cwd)
            found = self.results.begin(self.run_info())
            self._owns = True
            if found is not None:
                self._clean_up(found)

    def _clean_up(self, found: Interrupted) -> None:
        """An earlier run in this folder never ended: its harness was killed. Stop what it left
        running (only processes carrying its run id) and record the stages it was running."""
        killed = kill_marked(found.run_id)
        recorded = {
            (r.id, r.start) for r in read_records(self.results.runs_dir / found.run_id / RECORDS, warn=lambda _: None)
        }
        for entry in found.stages:
            try:
                record = StageRecord.from_dict(entry)
            except ValueError:
                continue
            if any(sid == record.id and start >= record.start for sid, start in recorded):
                continue  # killed after its record was written, before its note was taken back
            archive_interrupted(self.results, found, replace(record, duration=max(0.0, time.time() - record.start)))
        stages = ", ".join(str(e.get("id", "?")) for e in found.stages) or "no stage"
        self.warnings.append(
            f"tipc: an earlier run ({found.run_id}) in {self.results.path} was interrupted (its harness was "
            f"killed) while running {stages}; {killed} process(es) it left running were stopped; its results "
            f"are in {self.results.runs_dir / found.run_id}"
        )

    def block_all(self, reason: str) -> None:
        """Record every stage of the plan as BLOCKED (the run stops before its first stage)."""
        for stage in self.plan.stages():
            if stage.id not in self.done:
                self.block(stage, reason)

    def block(self, stage: Stage, reason: str, status: Status = Status.BLOCKED) -> StageRecord:
        """Record ``stage`` as BLOCKED without running it (this node cannot give it what it needs), or
        as another status of a stage that did not run (SKIPPED: the front's test runner skipped it)."""
        return self._finish(stage, self._record(stage, status, reason), ran=False)

    def end(self) -> None:
        """Carry over the earlier records of stages this run left out, and close the folder. A run
        refused the folder (another run holds it) touches nothing there: that run's files are its own."""
        if self._owns:
            facts = self.facts
            if facts.problem:
                self.notes.append(f"interpreter not asked for versions: {facts.problem}")
            elif not facts.paddle_version:
                self.warnings.append(
                    f"tipc: the stage interpreter {self.plan.python} cannot import paddle: stages "
                    "that need it fail; install paddlepaddle there (pip install 'tipc[cpu]') or "
                    "pass --python PY"
                )
            self._carry_over()
            self.results.end(self.run_info(time.time() - self.start, facts))

    def _carry_over(self) -> None:
        """A run of part of the plan (``-k``, ``--lf``) keeps the latest record of every stage it did
        not run, with the run id of the run that made it: the folder always tells the whole plan."""
        previous = self.results.previous_run_dir()
        if previous is None:
            return
        wanted = {
            (self.plan.config_path, sid, self.settings.node_rank)
            for sid in (*(s.id for s in self.plan.stages()), *(s.id for s in self.plan.skipped))
            if sid not in self.done
        }
        for record in read_records(previous / self.results.records_file.name, warn=lambda _: None):
            if record.key in wanted:
                wanted.discard(record.key)
                self.results.append_record(record)

    # --- stages ---

    def _record(self, stage: Stage, status: Status, reason: str = "", **kw: Any) -> StageRecord:
        case = stage.infer
        return StageRecord(
            id=stage.id,
            kind=stage.kind.value,
            chain=stage.chain,
            status=status,
            argv=stage.argv,
            env=dict(stage.env),
            cwd=str(self.cwd_of(stage)),
            log=str(self.log_of(stage)),
            reason=reason,
            node_rank=self.settings.node_rank,
            host=self.settings.host,
            model=self.plan.model,
            mode=self.plan.mode,
            config=self.plan.config_path,
            infer=None if case is None else dict(_case_fields(case)),
            run_id=self.run_id,
            shard=self.plan.shard,
            **kw,
        )

    def cwd_of(self, stage: Stage) -> Path:
        return _resolved(self.cwd / stage.cwd)

    def log_of(self, stage: Stage) -> Path:
        return self.cwd_of(stage) / stage.log

    def _finish(self, stage: Stage, record: StageRecord, ran: bool) -> StageRecord:
        if stage.id in self._written:  # run again (pytest-rerunfailures, pytest-retry): one stage, its attempts
            earlier, earlier_record, earlier_line = self._written.pop(stage.id)
            record = replace(record, attempts=(*(earlier.attempts or (earlier.attempt(),)), record.attempt()))
            self.results.take_back(earlier_record, earlier_line, self.plan.status_log)
        if record.status.is_failure and not self.settings.dry_run:
            cause = cause_of(record, self._warn_once)
            record = replace(record, cause_kind=cause.kind, cause=cause.signature)
        if self.settings.dry_run:
            self.done[stage.id] = record
            return record
        record = self._states(record, self.target.sha)
        self.done[stage.id] = record
        line, line_at = "", None
        if ran and stage.status_line:
            line = legacy.stage_line(record.status is Status.PASSED, self.plan.model, stage, self.plan.status_tail)
            # the legacy line and the record, one after the other: nothing in between may fail
            line_at = self.results.append_legacy(line, self.plan.status_log)
        self._written[stage.id] = (record, self.results.append_record(record), line_at)
        if ran:
            # What was planned, not the devices a scheduler pinned it to: the outputs are the same.
            self.results.stamp(self.plan.stage(stage.id), passed=record.status is Status.PASSED)
            if self.echo and line:
                self.echo(line)
        return record

    def _warn_once(self, text: str) -> None:
        if text not in self.warnings:
            self.warnings.append(text)

    def run_stage(self, stage: Stage) -> StageRecord:
        """Gate, run, judge and record one stage: its record and its legacy line are written before
        this returns. Re-raises KeyboardInterrupt after recording it. With ``confirm``, a stage that
        failed runs again, up to that many times, before anything after it: one that then passes is
        flaky (its record keeps every attempt), and the stages after it run on its outputs."""
        record = self._run_once(stage)
        for _ in range(self.settings.confirm):
            if not record.status.is_failure or stage.kind in IN_HARNESS:  # a check judges the same evidence again
                break
            record = self._run_once(stage)
        return record

    def _run_once(self, stage: Stage) -> StageRecord:
        if self.settings.dry_run:  # its command is printed; nothing ran, so nothing passed
            skip = not_applicable(stage, self.settings.node_rank)
            reason = NOT_RANK0 if skip else DRY_RUN
            return self._finish(stage, self._record(stage, Status.SKIPPED, reason), ran=False)
        if stage.kind in IN_HARNESS:
            return self._check_golden(stage)
        decision = decide(
            stage, self.plan, self.done, self.results.passed_before, self.settings.node_rank, self.include_hint
        )
        if decision.status is not None:  # not decision.runs, spelled so that the type narrows
            return self._finish(stage, self._record(stage, decision.status, decision.reason), ran=False)
        execution = StageRun(stage, self._context(stage), self.log_of(stage))
        # What the next run records if this harness dies before this stage's record is written.
        killed = self._record(
            stage,
            Status.FAILED,
            "interrupted: the harness was killed while this stage ran",
            start=time.time(),
            log_offsets=execution.offsets,
        )
        self.results.note_running(killed.to_json())
        judged = execution.run(self.executor)
        result = judged.result
        record = self._record(
            stage,
            judged.status,
            self._with_whose_limit(stage, judged.status, judged.reason),
            returncode=result.returncode,
            start=result.start,
            duration=result.duration,
            log_offsets=execution.offsets,
            metrics=judged.metrics,
            peak_rss_mb=_mb(result.stage_peak_kb),
            process_peak_rss_mb=_mb(result.peak_rss_kb),
            infra=judged.infra,
        )
        interrupted = result.ending is Ending.INTERRUPTED
        if interrupted:  # what it left half-written must not stand in for it in a later run
            self.results.stamp(self.plan.stage(stage.id), passed=False)
        record = self._finish(stage, record, ran=not interrupted)
        self.results.note_between()
        if interrupted:
            raise KeyboardInterrupt(result.reason)
        return record

    def _with_whose_limit(self, stage: Stage, status: Status, reason: str) -> str:
        """A timeout under another plugin's limit (pytest-timeout's) says whose limit it was."""
        whose = self.outside_limits.get(stage.id, (0.0, ""))[1] if status is Status.TIMEOUT else ""
        return "; ".join(filter(None, (reason, whose and f"the limit was {whose}")))

    def _context(self, stage: Stage) -> StageContext:
        return StageContext(
            cwd=self.cwd_of(stage),
            limits=self.settings.limits,
            timeout=self.outside_limits.get(stage.id, (None, ""))[0],
            marker=self.run_id,
            node_rank=self.settings.node_rank,
            chain_ips=self._chain_ips(stage),
            pythonpath=self.settings.pythonpath,
            paddle_version=lambda: self.facts.paddle_version,
            label=f"{self.plan.model}: {stage.id}",
            expected=self.expected(stage),
            dialect=self.dialect,
            node_watch=lambda: self._node_watch(stage),
        )

    @functools.cached_property
    def dialect(self) -> Dialect[Any]:
        """The config's dialect, as its checkout names it (``tipc.suites.front``)."""
        from tipc.suites.front import dialect_for  # the dialects: plugins' included

        return dialect_for(Path(self.plan.config_path))[0]

    def _node_watch(self, stage: Stage) -> NodeWatch | None:
        """A stage every node of its chain runs is watched: a node that goes silent stops it on the others."""
        ips, port = self._chain_ips(stage), self.settings.watch_port
        if len(ips) < 2 or port is None or stage.rank0_only:
            return None
        return NodeWatch(ips, self.settings.node_rank, port, self.settings.node_timeout)

    def expected(self, stage: Stage) -> float | None:
        """Seconds the stage took when it last ran in this folder (``tipc.history.durations``), None: never."""
        if self._history is None:
            config = config_key(self.plan.config_path)
            measured = read_history([self.results.path], store=self.settings.history).items()
            self._history = {sid: m.duration for (key, sid), m in measured if key == config}
        return self._history.get(stage.id)

    def _check_golden(self, stage: Stage) -> StageRecord:
        """In the harness: judge this run's evidence against the chain's golden (or, for an agreement
        check, ONNX Runtime's predictions against Paddle Inference's), write the findings."""
        start = time.time()
        outcome = golden_check.check(stage, self.plan, self.done, self.settings.golden_fails, self.settings.node_rank)
        reason = outcome.reason
        log = self.log_of(stage)
        try:
            log.parent.mkdir(parents=True, exist_ok=True)
            lines = (f"# {stage.kind.value} check of {stage.chain}", *outcome.lines, reason)
            log.write_text("".join(f"{line}\n" for line in lines))
        except OSError as exc:
            reason = f"{reason}; its log could not be written ({exc})"
        record = self._record(
            stage, outcome.status, reason, start=start, duration=time.time() - start, metrics=outcome.metrics
        )
        return self._finish(stage, record, ran=False)

    def _chain_ips(self, stage: Stage) -> tuple[str, ...]:
        return next((c.topology.ips for c in self.plan.chains if c.id == stage.chain), ())

    def skip_dropped(self, skipped: Skipped) -> StageRecord:
        """A case the plan dropped by rule: recorded as SKIPPED with that rule."""
        chain, _, name = skipped.id.rpartition("::")
        kind = kind_of(name)
        record = StageRecord(
            id=skipped.id,
            kind=kind.value if kind else "",
            chain=chain,
            status=Status.SKIPPED,
            reason=skipped.reason,
            node_rank=self.settings.node_rank,
            host=self.settings.host,
            model=self.plan.model,
            mode=self.plan.mode,
            config=self.plan.config_path,
            run_id=self.run_id,
            shard=self.plan.shard,
        )
        if not self.settings.dry_run:
            record = self._states(record, self.target.sha)
            self.results.append_record(record)
        self.done[skipped.id] = record
        return record
