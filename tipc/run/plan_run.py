"""One config's plan within one run (``tipc.session`` drives one per config, for both fronts).

A ``PlanRun`` decides (gating), executes (an ``Executor``), and records:
each stage's ``StageRecord`` in ``results.jsonl`` and its legacy line in
``results_python.log`` the moment the stage ends. It judges a stage only by
what that stage produced: outputs written during it, the part of an appended
log written during it. It knows nothing of pytest.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shlex
import shutil
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from tipc.metrics.logfile import extract_file
from tipc.plan.model import InferCase, Plan, Skipped, Stage, StageKind
from tipc.plan.naming import kind_of
from tipc.results.folder import Interrupted, ResultsDir, Span, archive_interrupted, new_run_id, read_records
from tipc.results.records import RunInfo, StageRecord, Status
from tipc.run import legacy
from tipc.run.endings import describe_exit, memory_limit_kb
from tipc.run.executor import Ending, ExecRequest, ExecResult, Executor, Started
from tipc.run.false_pass import Signature, false_pass, output_signatures
from tipc.run.gating import NOT_RANK0, decide, not_applicable
from tipc.run.limits import Limits
from tipc.run.probe import NO_FACTS, InterpreterFacts, facts_in_background
from tipc.run.watchdog import kill_marked
from tipc.run.workerlogs import failing_workers, file_sizes, launch_log_dir, worker_logs
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


def _status(result: ExecResult) -> tuple[Status, str]:
    if result.ending is Ending.EXITED and result.returncode is not None:
        if result.returncode == 0:
            return Status.PASSED, ""
        return Status.FAILED, describe_exit(result.returncode, result.peak_rss_kb, result.oom_killed, memory_limit_kb())
    if result.ending is Ending.TIMEOUT:
        return Status.TIMEOUT, result.reason
    if result.ending is Ending.HUNG:
        return Status.HUNG, result.reason
    return Status.FAILED, result.reason


def _extract_metrics(kind: str, log: Path, since: int) -> tuple[dict[str, Any], str]:
    """Metrics of a stage's part of a log (``tipc.metrics.extract_file``: bounded memory), and a
    note when that failed. A parser error must not cost the stage its record: it becomes a note."""
    try:
        return dict(extract_file(kind, log, since)), ""
    except OSError:
        return {}, ""
    except Exception as exc:  # noqa: BLE001 - any parser bug
        return {}, f"metrics not parsed ({type(exc).__name__}: {exc})"


def _copy_from(src: Path, dst: Path, since: int) -> None:
    """``src`` from byte ``since`` (all of it when it is now shorter: it was replaced) into ``dst``."""
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        end = fin.seek(0, 2)
        fin.seek(since if since <= end else 0)
        shutil.copyfileobj(fin, fout)


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


class _Flight:
    """A started stage and what judging it needs: its outputs and appended logs as they were."""

    __slots__ = ("before", "offsets", "stage", "started")

    def __init__(self, stage: Stage, started: Started, before: dict[str, Signature | None], offsets: dict[str, int]):
        self.stage = stage
        self.started = started
        self.before = before
        self.offsets = offsets


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
        self._ahead: _Flight | None = None  # the next stage, started as the last one exited
        self._facts: Callable[[], InterpreterFacts] = lambda: NO_FACTS
        self.notes: list[str] = []  # decided during the run (preflight lines), for run.json
        self.warnings: list[str] = []  # for the front to show: an earlier run found interrupted

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
        )

    def begin(self) -> None:
        """Own the results folder for this run and ask the stage interpreter for its versions
        meanwhile (``facts_in_background``: the first stage does not wait for the answer).
        An earlier run found interrupted in the folder is cleaned up and recorded (``warnings``)."""
        self.start = time.time()
        if not self.settings.dry_run:
            self._facts = facts_in_background(self.plan.python)
            found = self.results.begin(self.run_info())
            if found is not None:
                self._clean_up(found)

    def _clean_up(self, found: Interrupted) -> None:
        """An earlier run in this folder never ended: its harness was killed. Stop what it left
        running (only processes carrying its run id) and record the stages it was running."""
        killed = kill_marked(found.run_id)
        for entry in found.stages:
            try:
                record = StageRecord.from_dict(entry)
            except ValueError:
                continue
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

    def block(self, stage: Stage, reason: str) -> StageRecord:
        """Record ``stage`` as BLOCKED without running it (this node cannot give it what it needs)."""
        return self._finish(stage, self._record(stage, Status.BLOCKED, reason), ran=False)

    def end(self) -> None:
        """Carry over the earlier records of stages this run left out, and close the folder."""
        self.stop_ahead()
        self.executor.close()
        if not self.settings.dry_run and self.start:
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
            self.results.take_back(earlier_record, earlier_line)
        self.done[stage.id] = record
        if self.settings.dry_run:
            return record
        line_at: Span | None = None
        if ran:
            line = legacy.stage_line(record.status is Status.PASSED, self.plan.model, stage)
            line_at = self.results.append_legacy(line)
            if self.echo:
                self.echo(line)
            # What was planned, not the devices a scheduler pinned it to: the outputs are the same.
            self.results.stamp(self.plan.stage(stage.id), passed=record.status is Status.PASSED)
        self._written[stage.id] = (record, self.results.append_record(record), line_at)
        return record

    def run_stage(self, stage: Stage, then: Stage | None = None) -> StageRecord:
        """Gate, run and record one stage. Re-raises KeyboardInterrupt after recording it.

        ``then``: the stage of this plan the front will ask for next. When this one exits 0 and
        ``then``'s gate opens on its passing, ``then`` starts at once; this stage is swept, judged
        and recorded while it runs, and the front reports it (a pytest item's protocol) meanwhile:
        the time between two stages' processes is only what starting the next one takes. The next
        ``run_stage`` finds it running; a false pass here takes it back."""
        if self.settings.dry_run:  # every stage "passes" by having its command printed
            skip = not_applicable(stage, self.settings.node_rank)
            status, reason = (Status.SKIPPED, NOT_RANK0) if skip else (Status.PASSED, "dry run")
            return self._finish(stage, self._record(stage, status, reason), ran=False)
        if self._ahead is not None and self._ahead.stage.id != stage.id:
            self.cancel_ahead()  # asked for another stage first (a plugin re-running the last one)
        flight, self._ahead = self._ahead, None
        if stage.kind is StageKind.GOLDEN:
            return self._check_golden(stage)
        if flight is None:
            decision = decide(
                stage, self.plan, self.done, self.results.passed_before, self.settings.node_rank, self.include_hint
            )
            if decision.status is not None:  # not decision.runs, spelled so that the type narrows
                return self._finish(stage, self._record(stage, decision.status, decision.reason), ran=False)
            flight = self._start(stage)
        return self._complete(flight, then)

    def _start(self, stage: Stage) -> _Flight:
        cwd = self.cwd_of(stage)
        before = output_signatures(stage, cwd)
        offsets = file_sizes(self._appended_logs(stage))
        start = time.time()
        started = self.executor.start(self._request(stage))
        try:  # the note follows the start: the time between two stages is only what starting takes
            killed = self._record(
                stage,
                Status.FAILED,
                "interrupted: the harness was killed while this stage ran",
                start=start,
                log_offsets=offsets,
            )
            self.results.note_running(killed.to_json())
        except BaseException:  # a full disk or a Ctrl-C: the stage must not run on unrecorded
            started.finish(stop=True)
            raise
        return _Flight(stage, started, before, offsets)

    def start_ahead(self, stage: Stage | None) -> None:
        """Start ``stage`` now when its gate is open (a closed gate is recorded at its turn): the
        next ``run_stage`` of it finds it running."""
        if stage is None or stage.kind is StageKind.GOLDEN:
            return
        decision = decide(stage, self.plan, self.done, self.results.passed_before, self.settings.node_rank)
        if decision.runs:
            self._ahead = self._start(stage)

    def _complete(self, flight: _Flight, then: Stage | None, stop: bool = False) -> StageRecord:
        stage, offsets = flight.stage, flight.offsets
        # On a clean exit ``then`` starts before the stage is swept, reaped and judged: as if it
        # passed. A stage judged otherwise below takes it back.
        on_clean_exit = None if then is None else functools.partial(self._start_after, stage, then)
        try:
            result = flight.started.finish(stop, on_clean_exit)
        except BaseException:  # a Ctrl-C or a full disk while ``then`` started
            self.stop_ahead()
            raise
        cwd = self.cwd_of(stage)
        metrics_log = self._copy_train_log(stage, offsets)
        status, reason = _status(result)
        if status is Status.PASSED:
            problem = false_pass(stage, cwd, self.log_of(stage), self._owns_outputs(stage), flight.before)
            status, reason = (Status.FAILED, problem) if problem else (status, reason)
        whose = self.outside_limits.get(stage.id, (0.0, ""))[1] if status is Status.TIMEOUT else ""
        reason = "; ".join(
            filter(None, (reason, whose and f"the limit was {whose}", self._launch_story(stage, status, offsets)))
        )
        record = self._record(
            stage,
            status,
            reason,
            returncode=result.returncode,
            start=result.start,
            duration=result.duration,
            log_offsets=offsets,
            peak_rss_mb=None if result.peak_rss_kb is None else round(result.peak_rss_kb / 1024, 1),
        )
        interrupted = result.ending is Ending.INTERRUPTED
        self.done[stage.id] = record
        try:
            if status is not Status.PASSED:  # exit code 0, but a false pass: ``then``'s gate closes
                self.cancel_ahead()
            if self._ahead is None:
                self.results.note_between()
            if result.ending is not Ending.NOT_STARTED:
                record = self._with_metrics(stage, record, result, metrics_log, offsets)
            if interrupted:  # what it left half-written must not stand in for it in a later run
                self.results.stamp(self.plan.stage(stage.id), passed=False)
            self._finish(stage, record, ran=not interrupted)
        except BaseException:  # a Ctrl-C or a full disk: the stage started ahead must not run on alone
            self.stop_ahead()
            raise
        if interrupted:
            raise KeyboardInterrupt(result.reason)
        return record

    def _start_after(self, stage: Stage, then: Stage) -> None:
        """``stage`` exited 0: start ``then`` now if its gate opens once ``stage`` has passed."""
        self.done[stage.id] = self._record(stage, Status.PASSED)  # for the gate; the real record follows
        self.start_ahead(then)

    def _with_metrics(
        self, stage: Stage, record: StageRecord, result: ExecResult, metrics_log: Path, offsets: dict[str, int]
    ) -> StageRecord:
        since = offsets.get(str(metrics_log), 0)
        metrics, note = _extract_metrics(stage.kind.value, metrics_log, since)
        if stage.speed is not None:
            from tipc.run.speedlog import speed_run, write_speed  # benchmark_train's trains only

            run = speed_run(stage.speed, result.duration, os.environ, self.facts.paddle_version)
            speed, speed_note = write_speed(stage.speed, self.cwd_of(stage), metrics_log, since, run)
            metrics, note = {**metrics, **speed}, "; ".join(filter(None, (note, speed_note)))
        return replace(record, metrics=metrics, reason="; ".join(filter(None, (record.reason, note))))

    def cancel_ahead(self) -> None:
        """The stage started ahead will not be asked for now: it is stopped, unrecorded, its log
        removed; its turn, if it comes, starts it anew. What it began to write must not stand in
        for it meanwhile."""
        flight, self._ahead = self._ahead, None
        if flight is not None:
            flight.started.finish(stop=True)
            self.results.stamp(self.plan.stage(flight.stage.id), passed=False)
            with contextlib.suppress(OSError):  # a log of a stage that did not run would mislead
                self.log_of(flight.stage).unlink()

    def stop_ahead(self) -> None:
        """The run ends before the front asked for the stage started ahead (Ctrl-C, ``pytest -x``):
        it is stopped, and recorded as interrupted."""
        flight, self._ahead = self._ahead, None
        if flight is not None:
            with contextlib.suppress(KeyboardInterrupt):  # what an interrupted stage's record raises
                self._complete(flight, None, stop=True)

    def _check_golden(self, stage: Stage) -> StageRecord:
        """In the harness: judge this run's evidence against the chain's golden, write the findings."""
        from tipc.run import golden_check  # the golden modules, only for a plan with golden checks

        start = time.time()
        outcome = golden_check.check(stage, self.plan, self.done, self.settings.golden_fails, self.settings.node_rank)
        reason = outcome.reason
        log = self.log_of(stage)
        try:
            log.parent.mkdir(parents=True, exist_ok=True)
            lines = (f"# golden check of {stage.chain}", *outcome.lines, reason)
            log.write_text("".join(f"{line}\n" for line in lines))
        except OSError as exc:
            reason = f"{reason}; its log could not be written ({exc})"
        record = self._record(
            stage, outcome.status, reason, start=start, duration=time.time() - start, metrics=outcome.metrics
        )
        return self._finish(stage, record, ran=False)

    def _launch_story(self, stage: Stage, status: Status, offsets: dict[str, int]) -> str:
        """What a launch stage that did not pass adds to its reason: the failing rank's log,
        and on several nodes, the peers it depended on (a peer that never came or died
        leaves the others waiting until the stage's time limit)."""
        if status is Status.PASSED:
            return ""
        log_dir = launch_log_dir(stage.argv, self.cwd_of(stage))
        if log_dir is None:
            return ""
        workers = failing_workers(str(self.log_of(stage)), log_dir, offsets)
        story = []
        if status is Status.FAILED and workers:
            story.append("failed rank(s) " + ", ".join(f"{r} (see {p})" for r, p in workers.items()))
        ips = self._chain_ips(stage)
        peers = [f"node {k} ({ip})" for k, ip in enumerate(ips) if k != self.settings.node_rank]
        if peers and status in (Status.TIMEOUT, Status.HUNG):
            story.append(
                f"this node's launch waited for its peers {', '.join(peers)}: a peer that never "
                "arrived or died holds every node until the time limit; check that node's console "
                "and results"
            )
        return "; ".join(story)

    def _owns_outputs(self, stage: Stage) -> bool:
        """Only trainer 0's node writes the model on a multi-node run."""
        return len(self._chain_ips(stage)) < 2 or self.settings.node_rank == 0

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
        self.done[skipped.id] = record
        if not self.settings.dry_run:
            self.results.append_record(record)
        return record

    def _request(self, stage: Stage) -> ExecRequest:
        cwd = self.cwd_of(stage)
        watch = ()
        if stage.copy_train_log:
            # rank 0 writes S/train.log; launch workers write into --log_dir: both are output.
            workers = launch_log_dir(stage.argv, cwd)
            watch = (cwd / stage.copy_train_log[0], *((workers,) if workers else ()))
        return ExecRequest(
            argv=stage.argv,
            cwd=str(cwd),
            env=self._env(stage),
            log=self.log_of(stage),
            timeout=self.outside_limits.get(stage.id, (self.settings.limits.timeout(stage.kind.value),))[0],
            hang_timeout=self.settings.limits.hang,
            watch=watch,
            title=stage.id,
            marker=self.run_id,
        )

    def _env(self, stage: Stage) -> Mapping[str, str | None]:
        if not self.settings.pythonpath or "PYTHONPATH" in stage.env:
            return stage.env
        inherited = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        return {**stage.env, "PYTHONPATH": os.pathsep.join((*self.settings.pythonpath, *inherited))}

    def _appended_logs(self, stage: Stage) -> list[Path]:
        """Logs a stage appends to rather than writes anew: the trainer's train.log and the
        launcher's workerlog.N. Only what follows their size at the stage's start is its own."""
        if not stage.copy_train_log:
            return []
        cwd = self.cwd_of(stage)
        log_dir = launch_log_dir(stage.argv, cwd)
        return [cwd / stage.copy_train_log[0], *(worker_logs(log_dir).values() if log_dir else ())]

    def _copy_train_log(self, stage: Stage, offsets: dict[str, int]) -> Path:
        """This stage's part of S/train.log → S.log, as the bash copied it; returns the log the
        stage's figures come from: rank 0's train.log when there is one (a launcher's stdout holds
        none of the workers' lines), else the stage's own. The trainer appends to train.log, so
        the part before ``offsets`` is an earlier run's (README, "What tipc fixes", 10)."""
        if not stage.copy_train_log:
            return self.log_of(stage)
        src, dst = (self.cwd_of(stage) / p for p in stage.copy_train_log)
        if not src.is_file():
            return self.log_of(stage)
        if dst != self.log_of(stage):
            _copy_from(src, dst, offsets.get(str(src), 0))
        return src
