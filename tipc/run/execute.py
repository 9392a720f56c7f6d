"""Execute one stage and judge it: its request, its process (``tipc.proc``), its evidence.

A stage is judged only by what it produced in this run: its exit, the outputs it declares
(changed during it, ``false_pass``), and its own part of the logs it appends to (``train.log``,
``workerlog.N``): from their size when it started to their size when its process tree was gone.
The end is read at once, before anything else may write there (the next stage of a benchmark
chain appends to the same ``train.log``), and every figure, the copy ``S.log`` and the speed
JSON come from that part.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tipc.cluster.watch import NodeWatch
from tipc.files.read import tail
from tipc.plan.model import Stage
from tipc.proc.child import Ending
from tipc.proc.executor import ExecRequest, ExecResult, Executor
from tipc.results.records import Status
from tipc.run.endings import describe_exit, memory_limit_kb
from tipc.run.false_pass import Signature, false_pass, output_signatures
from tipc.run.infra import Clues, Infra, cgroup_oom_count, infra_of, job_state, kernel_oom_line
from tipc.run.limits import Limits
from tipc.run.speedlog import speed_run, write_speed
from tipc.run.workerlogs import file_sizes, rank_of, shown_workers, worker_logs
from tipc.suites.registry import stage_figures

if TYPE_CHECKING:
    from tipc.suites.dialect import Dialect


@dataclass(frozen=True, slots=True)
class StageContext:
    """What judging a stage needs of its plan and run, besides the stage."""

    cwd: Path  # the stage's cwd, resolved
    limits: Limits
    marker: str  # the run's id
    node_rank: int = 0
    chain_ips: tuple[str, ...] = ()  # the nodes of the stage's chain (empty on one node)
    pythonpath: tuple[str, ...] = ()  # put first on the stage's PYTHONPATH
    paddle_version: Callable[[], str] = lambda: ""  # for benchmark_train's speed JSON
    label: str = ""  # what a progress line calls the stage (its id where empty)
    expected: float | None = None  # seconds it took when it last ran, None: never (the progress's estimate)
    timeout: float | None = None  # a limit another plugin set for this stage (pytest-timeout's), else the mode's
    dialect: Dialect[Any] | None = None  # its config's: the manifests it judges and the figures it reads
    node_watch: Callable[[], NodeWatch | None] = lambda: None  # multi-node: the watch over the job's other nodes


@dataclass(frozen=True, slots=True)
class Judged:
    status: Status
    reason: str
    result: ExecResult
    metrics: dict[str, Any]
    infra: dict[str, str]  # the machine's hand in its end (tipc.run.infra), {} when there was none


def _status(result: ExecResult) -> tuple[Status, str]:
    if result.ending is Ending.EXITED and result.returncode is not None:
        if result.returncode == 0:
            return Status.PASSED, ""
        return Status.FAILED, describe_exit(
            result.returncode, result.stage_peak_kb, result.oom_killed, memory_limit_kb()
        )
    if result.ending is Ending.TIMEOUT:
        return Status.TIMEOUT, result.reason
    if result.ending is Ending.HUNG:
        return Status.HUNG, result.reason
    return Status.FAILED, result.reason


def _copy_part(src: Path, dst: Path, since: int, until: int | None) -> None:
    """``src`` from byte ``since`` to ``until`` (all of it when it is now shorter: it was replaced) into ``dst``."""
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        end = fin.seek(0, 2)
        start = since if since <= end else 0
        fin.seek(start)
        left = (until if until is not None and until >= start else end) - start
        while left > 0 and (chunk := fin.read(min(left, 1 << 20))):
            fout.write(chunk)
            left -= len(chunk)


class StageRun:
    """One stage from its start to its judgment. Made just before it starts: ``offsets`` (where
    its part of each appended log begins) and the outputs' signatures are read then."""

    def __init__(self, stage: Stage, context: StageContext, log: Path) -> None:
        self.stage = stage
        self.context = context
        self.log = log
        self.log_dir = context.cwd / stage.launch_log if stage.launch_log else None
        self.before: dict[str, Signature | None] = output_signatures(stage, context.cwd)
        self.offsets = file_sizes(self._appended_logs())
        self.cgroup_ooms = cgroup_oom_count()
        self.lost_node = ""

    def _appended_logs(self) -> list[Path]:
        """The trainer's train.log and the launcher's workerlog.N: a stage appends to them."""
        if not self.stage.copy_train_log:
            return []
        workers = worker_logs(self.log_dir).values() if self.log_dir else ()
        return [self.context.cwd / self.stage.copy_train_log[0], *workers]

    def request(self) -> ExecRequest:
        stage, cwd = self.stage, self.context.cwd
        watch: tuple[Path, ...] = ()
        if stage.copy_train_log:  # rank 0 writes S/train.log; launch workers write into --log_dir
            watch = (cwd / stage.copy_train_log[0], *((self.log_dir,) if self.log_dir else ()))
        return ExecRequest(
            argv=stage.argv,
            cwd=str(cwd),
            env=self._env(),
            log=self.log,
            timeout=self.context.timeout or self.context.limits.timeout(stage.kind.value),
            hang_timeout=self.context.limits.hang,
            watch=watch,
            title=stage.id,
            marker=self.context.marker,
            label=self.context.label,
            expected=self.context.expected,
        )

    def _env(self) -> Mapping[str, str | None]:
        stage, pythonpath = self.stage, self.context.pythonpath
        if not pythonpath or "PYTHONPATH" in stage.env:
            return stage.env
        inherited = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        return {**stage.env, "PYTHONPATH": os.pathsep.join((*pythonpath, *inherited))}

    def run(self, executor: Executor) -> Judged:
        watch = self.context.node_watch()
        with watch or contextlib.nullcontext():
            result = executor.run(replace(self.request(), abort=watch.silent if watch else None))
        self.lost_node = watch.silent() if watch else ""
        # Its tree is gone: nothing of it writes any more, and nothing else has written yet.
        ends = file_sizes(self._appended_logs())
        status, reason = _status(result)
        found = self._infra(result) if status is not Status.PASSED else None
        if found is not None:
            # a lost node's stop says only what the evidence says already
            status, reason = Status.INFRA, "; ".join(filter(None, (found.text(), "" if self.lost_node else reason)))
        if status is Status.PASSED:
            manifests = self.context.dialect.manifests if self.context.dialect else None
            problem = false_pass(
                self.stage, self.context.cwd, self.log, self._owns_outputs(), self.before, manifests, result.start
            )
            status, reason = (Status.FAILED, problem) if problem else (status, reason)
        reason = "; ".join(filter(None, (reason, self._launch_story(status))))
        metrics: dict[str, Any] = {}
        if result.ending is not Ending.NOT_STARTED:
            metrics, note = self._metrics(result, ends)
            reason = "; ".join(filter(None, (reason, note)))
        return Judged(status, reason, result, metrics, found.record() if found else {})

    def _infra(self, result: ExecResult) -> Infra | None:
        """Whether the machine ended the stage: the clues are read only for a stage that did not pass."""
        code, job = result.returncode, os.environ.get("SLURM_JOB_ID", "")
        killed = code is not None and code < 0
        after = cgroup_oom_count() if killed else None
        cgroup_ooms = after - self.cgroup_ooms if after is not None and self.cgroup_ooms is not None else 0
        oom = killed and (result.oom_killed or cgroup_ooms > 0)
        clues = Clues(
            returncode=code,
            stopped_by=result.stopped_by,
            interrupted=result.ending is Ending.INTERRUPTED,
            env=os.environ,
            job_state=job_state(job) if job and (killed or result.ending is Ending.INTERRUPTED) else "",
            oom_killed=result.oom_killed,
            cgroup_oom_kills=cgroup_ooms,
            oom_line=kernel_oom_line() if oom else "",
            lost_node=self.lost_node,
            launch_lines=self._last_lines() if code else (),
        )
        return infra_of(clues)

    def _last_lines(self) -> tuple[str, ...]:
        """The end of the stage's own log and of each launch worker's part: where a lost peer is said."""
        logs = [self.log, *(worker_logs(self.log_dir).values() if self.log_dir else ())]
        lines: list[str] = []
        for log in logs:
            with contextlib.suppress(OSError):
                text, _ = tail(log, 16 << 10, self.offsets.get(str(log), 0))
                lines += text.decode(errors="replace").splitlines()
        return tuple(lines)

    def _metrics(self, result: ExecResult, ends: dict[str, int]) -> tuple[dict[str, Any], str]:
        stage = self.stage
        log = self._copy_train_log(ends)
        since, until = self.offsets.get(str(log), 0), ends.get(str(log))
        metrics, note = stage_figures(stage, log, since, until)  # tipc's and plugins'
        own, own_note = self._dialect_figures(log, since, until)
        metrics, note = {**own, **metrics}, "; ".join(filter(None, (note, own_note)))
        if stage.speed is not None:
            run = speed_run(stage.speed, result.duration, os.environ, self.context.paddle_version())
            speed, speed_note = write_speed(stage.speed, self.context.cwd, log, since, run, until)
            metrics, note = {**metrics, **speed}, "; ".join(filter(None, (note, speed_note)))
        return metrics, note

    def _dialect_figures(self, log: Path, since: int, until: int | None) -> tuple[dict[str, Any], str]:
        """The figures the config's dialect reads from its suite's log, and why none when it could not."""
        dialect = self.context.dialect
        if dialect is None or dialect.figures is None:
            return {}, ""
        try:
            return dict(dialect.figures(self.stage, log, since, until)), ""
        except (OSError, ValueError) as exc:
            return {}, f"{dialect.name}'s figures not read: {exc}"

    def _copy_train_log(self, ends: dict[str, int]) -> Path:
        """This stage's part of S/train.log → S.log, as the bash copied it; returns the log the
        stage's figures come from: rank 0's train.log when there is one (a launcher's stdout holds
        none of the workers' lines), else the stage's own."""
        if not self.stage.copy_train_log:
            return self.log
        src, dst = (self.context.cwd / p for p in self.stage.copy_train_log)
        if not src.is_file():
            return self.log
        if dst != self.log:
            # A full disk: S.log stays short, the figures come from train.log all the same, and the
            # record, written next (from the results folder's reserve), keeps the stage's verdict.
            with contextlib.suppress(OSError):
                _copy_part(src, dst, self.offsets.get(str(src), 0), ends.get(str(src)))
        return src

    def _owns_outputs(self) -> bool:
        """Only trainer 0's node writes the model on a multi-node run."""
        return len(self.context.chain_ips) < 2 or self.context.node_rank == 0

    def _launch_story(self, status: Status) -> str:
        """What a launch stage that did not pass adds to its reason: the failing rank's log,
        and on several nodes, the peers it depended on (a peer that never came or died
        leaves the others waiting until the stage's time limit)."""
        if status is Status.PASSED or self.log_dir is None:
            return ""
        workers = shown_workers(self.log, worker_logs(self.log_dir).values(), self.offsets)
        story = []
        if status is Status.FAILED and workers:
            story.append("failed rank(s) " + ", ".join(f"{rank_of(p)} (see {p})" for p in workers))
        rank = self.context.node_rank
        peers = [f"node {k} ({ip})" for k, ip in enumerate(self.context.chain_ips) if k != rank]
        if peers and status in (Status.TIMEOUT, Status.HUNG):
            story.append(
                f"this node's launch waited for its peers {', '.join(peers)}: a peer that never "
                "arrived or died holds every node until the time limit; check that node's console "
                "and results"
            )
        return "; ".join(story)
