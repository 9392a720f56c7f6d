"""When the machine, not the model, ended a stage: the scheduler, the OOM killer, a node that went away.

Such a stage's status is ``infra``: not a failure of the model, and not a pass either. Its record keeps
the evidence (``StageRecord.infra``): the scheduler's job and state and the signal, the kernel's OOM line
and kill counts, or which node went silent and when. ``infra_of`` judges the clues (pure, table-tested);
``gather`` collects them after the stage's process tree is gone.

| clue | outcome |
|---|---|
| a node of the job went silent (``tipc.cluster.watch``) | ``node``: which node and when |
| SIGKILL while the kernel's or the cgroup's OOM kill count rose | ``oom``: the kernel's line when readable |
| SIGTERM or SIGKILL in a Slurm job the scheduler ended (CANCELLED, TIMEOUT, PREEMPTED...) | ``scheduler`` |
| SIGTERM, or the run stopped, in a Slurm job whose state cannot be asked | ``scheduler`` |
| a launcher's log saying a peer or the rendezvous was lost | ``node``: the line |
"""

from __future__ import annotations

import re
import signal
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tipc.proc.child import ask
from tipc.results.records import INFRA_KINDS

SCHEDULER, OOM, NODE = INFRA_KINDS
UNREACHED = "not run: the scheduler stopped the run before it"  # the reason of the stages a cancel left
# The Slurm job states that mean the scheduler ended the job (squeue(1), "JOB STATE CODES"). COMPLETING while a
# stage still runs is one too: a cancelled (or timed out) job reads so until its processes are gone.
ENDED_BY_SCHEDULER = frozenset(
    {"CANCELLED", "TIMEOUT", "PREEMPTED", "DEADLINE", "NODE_FAIL", "BOOT_FAIL", "COMPLETING"}
)
SCONTROL_TIMEOUT = 10.0
CGROUP_EVENTS = Path("/sys/fs/cgroup/memory.events")
_OOM_COUNT = re.compile(r"^oom_kill (\d+)$", re.MULTILINE)
_KERNEL_OOM = re.compile(r"(Out of memory: Killed process \d+.*|Memory cgroup out of memory: Killed process \d+.*)")
# What paddle.distributed.launch and its collectives write when a peer or the rendezvous went away.
LOST_PEER = re.compile(
    r"(.*(?:Connection reset by peer|Connection closed by peer|Broken pipe|remote process exited"
    r"|peer \S+ shut down|[Rr]endezvous.*(?:timed? ?out|lost|failed)|[Ss]ocket [Tt]imeout"
    r"|etcd.*(?:lost|timeout|unavailable)|lost connection to).*)"
)


@dataclass(frozen=True, slots=True)
class Clues:
    """What is known of a stage's end, besides its log."""

    returncode: int | None
    stopped_by: str = ""  # the signal that told tipc itself to stop while the stage ran ("SIGTERM")
    interrupted: bool = False  # the run was stopped while the stage ran (a signal to tipc, seen by another thread)
    env: Mapping[str, str] = field(default_factory=dict)  # tipc's environment: SLURM_JOB_ID and the like
    job_state: str = ""  # the scheduler's word on the job ("CANCELLED"), "" when not asked or not told
    oom_killed: bool = False  # the kernel's OOM kill count rose while it ran
    cgroup_oom_kills: int = 0  # how much the cgroup's oom_kill count rose while it ran
    oom_line: str = ""  # the kernel's "Out of memory: Killed process ..." line, when readable
    lost_node: str = ""  # the node watch's word: "node 1 (127.0.0.3) went silent at 08:41:07"
    launch_lines: tuple[str, ...] = ()  # the last lines of the launcher's worker logs and the stage's log


@dataclass(frozen=True, slots=True)
class Infra:
    kind: str  # SCHEDULER, OOM or NODE
    evidence: dict[str, str]

    def text(self) -> str:
        """The record's reason: who ended it, with the evidence."""
        shown = "; ".join(v if k in (NODE, "log") else f"{k} {v}" for k, v in self.evidence.items())
        who = {SCHEDULER: "the scheduler", OOM: "the out-of-memory killer", NODE: "a lost node"}[self.kind]
        return f"infra: ended by {who} ({shown})"

    def record(self) -> dict[str, str]:
        return {"kind": self.kind, **self.evidence}


def _signal(returncode: int | None) -> str:
    if returncode is None or returncode >= 0:
        return ""
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def infra_of(clues: Clues) -> Infra | None:
    """The machine's hand in a stage's end, or None when the stage (or a person) ended it. Pure."""
    if clues.lost_node:
        return Infra(NODE, {"node": clues.lost_node})
    if _signal(clues.returncode) == "SIGKILL" and (clues.oom_killed or clues.cgroup_oom_kills or clues.oom_line):
        counted = "cgroup oom_kill" if clues.cgroup_oom_kills else "kernel oom_kill count"
        evidence = {"signal": "SIGKILL", "evidence": clues.oom_line or f"the {counted} rose while it ran"}
        return Infra(OOM, evidence)
    job = clues.env.get("SLURM_JOB_ID", "")
    signalled = clues.stopped_by or _signal(clues.returncode)
    if job and (signalled in ("SIGTERM", "SIGKILL") or clues.interrupted):
        state = clues.job_state.upper()
        # A SIGTERM (the signal Slurm sends first) in a job whose state cannot be asked is the scheduler's too;
        # a job the scheduler says still runs was stopped by a person.
        if state in ENDED_BY_SCHEDULER or (not state and (signalled == "SIGTERM" or clues.interrupted)):
            evidence = {"scheduler": "slurm", "job": job, "state": state or "unknown", "signal": signalled}
            return Infra(SCHEDULER, evidence)
    if clues.returncode and not clues.stopped_by:
        for line in reversed(clues.launch_lines):
            if found := LOST_PEER.search(line):
                return Infra(NODE, {"log": found[1].strip()[:300]})
    return None


# --- the clues, read after the stage's tree is gone ---


def cgroup_oom_count(events: Path = CGROUP_EVENTS) -> int | None:
    """The cgroup's count of OOM kills (cgroup v2 ``memory.events``); None where it is not published."""
    try:
        found = _OOM_COUNT.search(events.read_text())
    except OSError:
        return None
    return int(found[1]) if found else None


def job_state(job: str) -> str:
    """The Slurm job's state as ``scontrol`` tells it ("" when it cannot be asked)."""
    answer = ask(["scontrol", "show", "job", "-o", job], timeout=SCONTROL_TIMEOUT)
    found = re.search(r"\bJobState=(\S+)", answer.stdout) if answer.returncode == 0 else None
    return found[1] if found else ""


def kernel_oom_line() -> str:
    """The kernel's last OOM kill line, where this user may read the kernel's log ("" elsewhere)."""
    answer = ask(["dmesg"], timeout=SCONTROL_TIMEOUT)
    found = _KERNEL_OOM.findall(answer.stdout) if answer.returncode == 0 else []
    return found[-1].strip() if found else ""
