"""A config of the selection that cannot run here, and why: the one config's story, not the run's.

Two kinds. An *error*: the config cannot be read or planned (an empty file, a key out of place,
a bad ``target.yaml``); the fronts report it by the config's name, run every other config, and
end with a status that says errors occurred. *Not applicable*: a multi-node config (its
``gpu_list`` names the nodes) on a run that is not multi-node, which says how it would run.

What is wrong with the run's own options (``--ips``, ``--host``, a scheduler's list) stays the
run's error: every config would repeat it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

from tipc.cluster.identity import local_addresses, this_node
from tipc.cluster.node import ClusterArgs
from tipc.cluster.topology import ClusterSpec, Resolver, default_resolver, node_list
from tipc.errors import ClusterError, TipcError

if TYPE_CHECKING:
    from tipc.plan import Plan
    from tipc.session.lifecycle import TipcSession
    from tipc.session.settings import ConfigTarget


class ProblemKind(str, Enum):
    ERROR = "error"
    NOT_APPLICABLE = "not applicable"


@dataclass(frozen=True, slots=True)
class ConfigProblem:
    path: Path
    display: str  # as node ids spell the config
    mode: str  # the mode it was to run in
    kind: ProblemKind
    reason: str  # an error's message (path:line: what and where), or what would run it

    @property
    def is_error(self) -> bool:
        return self.kind is ProblemKind.ERROR

    def line(self) -> str:
        """What the command line prints for it."""
        what = "could not be planned" if self.is_error else "not applicable"
        return f"tipc: {self.display}: {what}: {self.reason}"


def error(path: Path, display: str, mode: str, exc: Exception) -> ConfigProblem:
    return ConfigProblem(path, display, mode, ProblemKind.ERROR, str(exc))


def not_applicable_reason(ips: Sequence[str], unresolved: str = "") -> str:
    listed = ",".join(ips)
    nowhere = f", {unresolved!r} does not resolve here" if unresolved else ""
    return (
        f"on a single node: it trains on {len(ips)} nodes ({listed}, its gpu_list{nowhere}) and this run has no "
        f"node list; start the same command on each of them with --ips {listed} --host <that node's address>"
    )


def cluster_problem(
    exc: ClusterError,
    cluster: ClusterArgs,
    config_ips: Sequence[str],
    environ: Mapping[str, str] | None = None,
    local: Iterable[str] | None = None,
    resolver: Resolver = default_resolver,
) -> tuple[ProblemKind, str] | None:
    """Whose fault a node-resolution error is, retraced step by step. None: the run's (its options
    or its scheduler gave the node list, or this node was identified and the failure came later,
    e.g. ports: every config would fail alike). Otherwise the config's: a list that does not
    hold together is its error; a list this machine cannot place itself in, on a run that never
    said it is multi-node, is not applicable (a host that does not resolve here, the suites'
    placeholder ``xx.xx.xx.xx`` included, is not this machine); --host or --node-rank at odds
    with it is its error."""
    environ = os.environ if environ is None else environ
    try:
        if not config_ips or node_list(cluster.ips, environ).ips:
            return None
    except ClusterError:
        return None
    spec, unresolved = _config_spec(environ, config_ips, resolver)
    told = cluster.host is not None or cluster.node_rank is not None
    if spec is None and unresolved and not told:
        return ProblemKind.NOT_APPLICABLE, not_applicable_reason(config_ips, unresolved)
    if spec is None or told:
        return ProblemKind.ERROR, str(exc)
    try:
        this_node(
            spec,
            host=None,
            node_rank=None,
            environ=environ,
            local=local_addresses() if local is None else local,
            resolver=resolver,
        )
    except ClusterError:
        return ProblemKind.NOT_APPLICABLE, not_applicable_reason(spec.ips)
    return None


def _config_spec(
    environ: Mapping[str, str], config_ips: Sequence[str], resolver: Resolver
) -> tuple[ClusterSpec | None, str]:
    """The config's node list, or None and the first name that did not resolve ("": it failed otherwise)."""
    unresolved: list[str] = []

    def resolving(name: str) -> str:
        try:
            return resolver(name)
        except ClusterError:
            unresolved.append(name)
            raise

    try:
        return node_list((), environ, config_ips, resolving), ""
    except ClusterError:
        return None, next(iter(unresolved), "")


def plan_or_problem(session: TipcSession, target: ConfigTarget) -> Plan | ConfigProblem:
    """The target's plan, or the error that kept it from being planned (cheap to ask again:
    plans are kept, and a config that fails fails within milliseconds)."""
    try:
        return session.plan(target)
    except TipcError as exc:
        return error(target.path, target.display, target.options.mode, exc)


def split(session: TipcSession) -> tuple[list[ConfigTarget], list[ConfigProblem]]:
    """The targets that plan, and every config problem of the run: the selection's, then the plans'."""
    planned: list[ConfigTarget] = []
    problems = list(session.settings.problems)
    for target in session.settings.targets:
        outcome = plan_or_problem(session, target)
        if isinstance(outcome, ConfigProblem):
            problems.append(outcome)
        else:
            planned.append(target)
    return planned, problems


def no_stage(session: TipcSession, planned: Sequence[ConfigTarget]) -> list[str]:
    """The configs among ``planned`` whose plan holds no stage (every case dropped in this mode)."""
    return [t.display for t in planned if next(session.plan(t).stages(), None) is None]


NAMED = 3  # configs with no stage named in the line; more are counted


def selection_line(planned: int, problems: Sequence[ConfigProblem], empty: Sequence[str] = ()) -> str:
    """``tipc: 106 configs: 88 planned, 1 planned to no stage (a.txt), 16 could not be planned,
    1 not applicable here``; ``empty``: the configs among ``planned`` whose plan holds no stage:
    a config that will run nothing is not counted as planned."""
    errors = sum(p.is_error for p in problems)
    parts = [f"{planned - len(empty)} planned"]
    if empty:
        more = f" and {len(empty) - NAMED} more" if len(empty) > NAMED else ""
        parts.append(f"{len(empty)} planned to no stage ({', '.join(empty[:NAMED])}{more})")
    if errors:
        parts.append(f"{errors} could not be planned")
    if len(problems) > errors:
        parts.append(f"{len(problems) - errors} not applicable here")
    total = planned + len(problems)
    return f"tipc: {total} config{'' if total == 1 else 's'}: {', '.join(parts)}"
