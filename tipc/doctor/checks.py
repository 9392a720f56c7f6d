"""A doctor check's verdict and a config's report: what both fronts print and ``--json`` writes."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

JSON_SCHEMA = 1  # bumped when a field of ``Report.to_json`` changes meaning or goes away


class State(str, Enum):
    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    NA = "na"  # not applicable: this run does not need what the check looks at


@dataclass(frozen=True, slots=True)
class Check:
    """One verdict of a check, with its fix: the doctor's, and the multi-node preflight's
    (``tipc.doctor.preflight``, whose lines start with ``tipc preflight:``)."""

    name: str
    state: State
    detail: str
    fix: str = ""  # one line; shown for warn and fail

    def line(self, prefix: str = "") -> str:
        label = "N/A" if self.state is State.NA else self.state.value.upper()
        text = f"{prefix}{label:4} {self.name}: {self.detail}"
        if self.fix and self.state in (State.WARN, State.FAIL):
            text += f"\n     fix: {self.fix}"
        return text

    def reason(self) -> str:
        """Why the stages are blocked, when this check failed."""
        return f"tipc doctor: {self.name} failed: {self.detail}" + (f"; fix: {self.fix}" if self.fix else "")


class Verdicts:
    """What a set of checks says as a whole: a config's doctor report, a node's preflight."""

    __slots__ = ()
    checks: tuple[Check, ...]

    @property
    def ok(self) -> bool:
        return not self.failures()

    def failures(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if c.state is State.FAIL)


@dataclass(frozen=True, slots=True)
class Report(Verdicts):
    config: str  # as the user named it
    python: str  # the stage interpreter the checks asked
    checks: tuple[Check, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "config": self.config,
            "python": self.python,
            "ok": self.ok,
            "checks": [{"name": c.name, "state": c.state.value, "detail": c.detail, "fix": c.fix} for c in self.checks],
        }


@dataclass(frozen=True, slots=True)
class GpuNeed:
    """Whether the GPU checks apply, and how bad a GPU problem is for this run.

    ``severity`` is FAIL when the stages will run on a GPU (``--device gpu``, or auto on a machine
    showing one); WARN when the config asks for GPUs but ``--device auto`` found none, so the stages
    will run on the CPU (a broken driver reads the same as no GPU); NA when nothing needs a GPU
    (``--device cpu``, or a CPU config)."""

    severity: State
    why: str

    @property
    def applies(self) -> bool:
        return self.severity is not State.NA

    def missing(self, name: str, detail: str, fix: str) -> Check:
        """``name``'s verdict for something a GPU run needs and this machine lacks."""
        return Check(name, self.severity, f"{detail} ({self.why})", fix)

    def not_applicable(self, name: str) -> Check:
        return Check(name, State.NA, self.why)


def gpu_need(config_wants_gpu: bool, device: str, device_reason: str) -> GpuNeed:
    """``device``: the run's device (cpu, gpu, npu, xpu) as decided with ``device_reason`` (tipc.cluster.device)."""
    if not config_wants_gpu:
        return GpuNeed(State.NA, "the config runs on the CPU only")
    if device == "gpu":
        return GpuNeed(State.FAIL, f"the stages run on the GPU: {device_reason}")
    if device in ("npu", "xpu"):
        runtime = "CANN" if device == "npu" else "XRE"
        return GpuNeed(
            State.NA,
            f"the stages run on an {device.upper()} ({device_reason}): tipc checks no {device.upper()} driver or "
            f"{runtime} runtime; paddle's own run_check says whether this machine's paddle sees one",
        )
    if device_reason.startswith("--device auto"):
        return GpuNeed(State.WARN, f"the config asks for a GPU but the stages will run on the CPU: {device_reason}")
    return GpuNeed(State.NA, f"the stages run on the CPU: {device_reason}")
