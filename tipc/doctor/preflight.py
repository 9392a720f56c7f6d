"""Checks run on every node before any training starts, each with its fix.

Single-node runs only check the device and an explicit start port. Multi-node
runs also check that this node is in the list, that its ports are free, and,
through the rendezvous, that every node arrived and runs the same tipc, config
and paddle. A node whose local checks fail still joins the rendezvous (with its
problems) so that the others stop at once instead of waiting for it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from tipc.cluster.device import detect_device
from tipc.cluster.node import NodeContext
from tipc.cluster.ports import check_ports
from tipc.cluster.rendezvous import Hello, rendezvous
from tipc.doctor.checks import Check, State, Verdicts
from tipc.version import VERSION


@dataclass(frozen=True, slots=True)
class PreflightReport(Verdicts):
    checks: tuple[Check, ...]

    def summary(self) -> str:
        """One paragraph for ``pytest.UsageError`` / stderr."""
        return "\n".join(c.line(PREFLIGHT) for c in self.failures()) or f"{PREFLIGHT}all checks passed"


PREFLIGHT = "tipc preflight: "  # what starts each of its lines
PORT_FIX = (
    "free the port (stop the process holding it) or choose another range with "
    "--start-port / FLAGS_START_PORT, the same on every node"
)
VERSION_FIX = "run the same tipc checkout, config and paddle on every node (same code, same data, same interpreter)"


def run_preflight(
    ctx: NodeContext,
    *,
    config_sha256: str,
    paddle_version: str,
    mode: str = "",
    emit: Callable[[str], None] = print,
    environ: Mapping[str, str] | None = None,
    which: Callable[[str], str | None] = shutil.which,
) -> PreflightReport:
    """Run every check for ``ctx``, printing each line through ``emit`` as it is decided.

    ``paddle_version`` comes from the stage interpreter (the runner asks it);
    tipc itself never imports paddle.
    """
    checks: list[Check] = []

    def record(check: Check) -> None:
        checks.append(check)
        emit(check.line(PREFLIGHT))

    for check in local_checks(ctx, os.environ if environ is None else environ, which):
        record(check)
    if ctx.multi_node:
        local = tuple(c.detail for c in checks if c.state is State.FAIL)
        hello = Hello(
            rank=ctx.node_rank or 0,
            host=ctx.host or "",
            tipc_version=VERSION,
            config_sha256=config_sha256,
            paddle_version=paddle_version,
            mode=mode,
            ips=ctx.ips,
            start_port=ctx.start_port,
            local_problems=local,
        )
        record(_rendezvous_check(ctx, hello))
    return PreflightReport(tuple(checks))


def local_checks(
    ctx: NodeContext, environ: Mapping[str, str], which: Callable[[str], str | None] = shutil.which
) -> tuple[Check, ...]:
    """The checks this node answers alone (device, its place in the node list, free ports): all of
    the preflight but the rendezvous, which waits for the other nodes (``tipc doctor`` runs these)."""
    checks = [_device_check(ctx, environ, which)]
    if ctx.multi_node:
        checks.append(_membership_check(ctx))
    port_check = _port_check(ctx)
    return (*checks, port_check) if port_check else tuple(checks)


def _device_check(ctx: NodeContext, environ: Mapping[str, str], which: Callable[[str], str | None]) -> Check:
    if ctx.device == "gpu":
        found, reason = detect_device(environ, which)
        if found == "cpu":
            return Check(
                "device",
                State.WARN,
                f"gpu requested ({ctx.device_reason}) but {reason}",
                "use --device cpu (or auto) on machines without CUDA",
            )
    return Check("device", State.PASS, f"{ctx.device} ({ctx.device_reason})")


def _membership_check(ctx: NodeContext) -> Check:
    listed = ",".join(ctx.ips)
    if ctx.host in ctx.ips and ctx.ips.index(ctx.host) == ctx.node_rank:
        return Check(
            "node list",
            State.PASS,
            f"{ctx.host} is node {ctx.node_rank} of {listed} (list from "
            f"{ctx.topology_source}, identity from {ctx.identity_source})",
        )
    return Check(
        "node list",
        State.FAIL,
        f"{ctx.host} is not node {ctx.node_rank} of {listed}",
        "pass --host / --node-rank matching --ips",
    )


def _port_check(ctx: NodeContext) -> Check | None:
    if ctx.start_port is None:
        return None
    problems = check_ports(ctx.host, ctx.start_port, ctx.port_count)
    wanted = f"{ctx.start_port}-{ctx.start_port + ctx.port_count - 1}"
    if ctx.multi_node and ctx.node_rank == 0 and ctx.rendezvous_port is not None:
        problems += check_ports(ctx.host, ctx.rendezvous_port, 1)
        wanted += f" and rendezvous {ctx.rendezvous_port}"
    if problems:
        return Check("ports", State.FAIL, "; ".join(problems), PORT_FIX)
    return Check("ports", State.PASS, f"{wanted} free on {ctx.host or 'this machine'} ({ctx.port_source})")


def _rendezvous_check(ctx: NodeContext, hello: Hello) -> Check:
    assert ctx.rendezvous_port is not None
    where = f"{ctx.ips[0]}:{ctx.rendezvous_port}"
    try:
        verdict = rendezvous(hello, ctx.ips, ctx.rendezvous_port, ctx.rendezvous_timeout)
    except OSError as exc:  # node 0 could not listen
        return Check(
            "peers",
            State.FAIL,
            f"cannot listen on {where}: {exc.strerror or exc}",
            "choose a free --rendezvous-port (the same on every node)",
        )
    if verdict.ok:
        return Check(
            "peers",
            State.PASS,
            f"all {len(ctx.ips)} nodes met at {where} with tipc {hello.tipc_version}, "
            f"paddle {hello.paddle_version or '(none)'}, config {hello.config_sha256[:12]}",
        )
    return Check("peers", State.FAIL, "; ".join(verdict.problems), _peer_fix(verdict.problems))


def _peer_fix(problems: tuple[str, ...]) -> str:
    text = " ".join(problems)
    if "never arrived" in text or "did not answer" in text or "no verdict" in text:
        return (
            "start the same command on every node, check that node 0's rendezvous port is "
            "reachable from the others, or raise --rendezvous-timeout"
        )
    if "version" in text or "config_sha256" in text:
        return VERSION_FIX
    return "make every node use the same --ips, --start-port and --mode"
