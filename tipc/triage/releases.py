"""``tipc bisect --paddle-good V --paddle-bad W``: the first Paddle release at which a stage fails.

The target stays as it is; what changes is the ``paddlepaddle`` the stages run with. Each candidate release
is installed into a virtual environment of its own (``python -m venv``, made from the stage interpreter with
its site packages visible, so the target's other requirements are found; the venv's own ``paddlepaddle``
comes first), and the chain runs up to the stage with ``--python`` that venv's interpreter. The releases
between the two ends come from the package index (``pip index versions``, with the same pip options as
the installs) or are given; the search halves that list, after trying both ends, so that a stage that
does not fail at the bad end (or fails at the good one) is said at once.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from packaging.version import InvalidVersion, Version

from tipc.errors import UsageError
from tipc.proc.child import ask
from tipc.triage import step
from tipc.triage.bisect import verdict_lines

PIP_TIMEOUT = 1800.0  # one install of a large wheel over a slow mirror


@dataclass(frozen=True, slots=True)
class Tried:
    version: str
    outcome: str  # step.GOOD, step.BAD or step.SKIP
    status: str  # the stage's status with that release, or why it has none


@dataclass(frozen=True, slots=True)
class ReleaseBisection:
    stage: str
    package: str
    good: str
    bad: str
    first_bad: str | None  # the first release at which the stage fails
    last_good: str | None  # the release before it
    tried: tuple[Tried, ...]
    commands: tuple[tuple[str, ...], ...]  # what was run, in order: a user can repeat it by hand
    problem: str = ""  # why there is no culprit

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2)

    def text(self) -> str:
        lines = [f"tipc bisect: {self.stage}, {self.package} good {self.good}, bad {self.bad}"]
        lines += [f"  {t.version:12} {t.outcome:4} {t.status}" for t in self.tried]
        culprit = f"first bad release: {self.package} {self.first_bad} (last good: {self.last_good})"
        return "\n".join(lines + verdict_lines([culprit] if self.first_bad else [], self.problem, self.commands))


def _version(text: str, option: str) -> Version:
    try:
        return Version(text)
    except InvalidVersion:
        raise UsageError(f"{option} {text}: not a release number (e.g. 3.0.0)") from None


def listed_versions(package: str, pip_options: Sequence[str]) -> list[str]:
    """Every release of ``package`` the index offers (``pip index versions``)."""
    argv = [sys.executable, "-m", "pip", "index", "versions", package, "--disable-pip-version-check", *pip_options]
    answer = ask(argv, timeout=PIP_TIMEOUT)
    found = re.search(r"^Available versions: (.+)$", answer.stdout, re.MULTILINE)
    if answer.returncode != 0 or found is None:
        said = answer.error or answer.last_line(answer.stderr)
        raise UsageError(f"pip index versions {package}: no release listed ({said}); give them with --paddle-versions")
    return [v.strip() for v in found[1].split(",")]


def between(versions: Sequence[str], good: str, bad: str) -> list[str]:
    """The releases from ``good`` to ``bad``, both included, oldest first (pre-releases only where named). Pure."""
    low, high = _version(good, "--paddle-good"), _version(bad, "--paddle-bad")
    if low >= high:
        raise UsageError(f"--paddle-good {good} is not older than --paddle-bad {bad}: nothing between them to search")
    known = {Version(v): v for v in versions if _parses(v)}
    known.setdefault(low, good)
    known.setdefault(high, bad)
    return [known[v] for v in sorted(known) if low <= v <= high and (not v.is_prerelease or v in (low, high))]


def _parses(text: str) -> bool:
    try:
        Version(text)
    except InvalidVersion:
        return False
    return True


def bisect_releases(
    config: Path,
    mode: str,
    stage: str,
    good: str,
    bad: str,
    *,
    versions: Sequence[str] = (),
    package: str = "paddlepaddle",
    python: str = sys.executable,
    pip_options: Sequence[str] = (),
    run_args: Sequence[str] = (),
    work: Path | None = None,
    say: Callable[[str], None] = lambda line: None,
) -> ReleaseBisection:
    """Search the releases of ``package`` between ``good`` and ``bad`` for the first at which ``stage`` fails."""
    if "--python" in run_args:
        raise UsageError("--python is the bisection's own option here (each release's venv is made from it)")
    releases = between(versions or listed_versions(package, pip_options), good, bad)
    folder = Path(tempfile.mkdtemp(prefix="tipc-bisect-paddle-")) if work is None else work
    folder.mkdir(parents=True, exist_ok=True)
    history = folder / "history.sqlite"  # the user's history never sees a bisection
    tried: list[Tried] = []
    commands: list[tuple[str, ...]] = []

    def attempt(version: str) -> str:
        venv = folder / "venvs" / version
        making = (python, "-m", "venv", "--without-pip", "--system-site-packages", str(venv))
        installing = (sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--quiet",
                      "--disable-pip-version-check", *pip_options, f"{package}=={version}")  # fmt: skip
        commands.extend((making, installing))
        for argv in (making, installing):
            answer = ask(list(argv), timeout=PIP_TIMEOUT)
            if answer.returncode != 0:
                why = answer.error or answer.last_line(answer.stderr)
                tried.append(Tried(version, step.SKIP, f"not installed: {why}"))
                say(f"tipc bisect: {package} {version} skip (not installed: {why})")
                return step.SKIP
        chain = ("--python", str(venv / "bin" / "python"), *run_args)
        commands.append(("tipc", "run", "--config", str(config), "--mode", mode, *chain))
        where = f"{package} {version}"
        outcome, status, _ = step.run_chain(str(config), mode, stage, folder / "runs" / version, chain, where, history)
        tried.append(Tried(version, outcome, status))
        say(f"tipc bisect: {package} {version} {outcome} ({status})")
        return outcome

    try:
        for end, wanted, option in ((bad, step.BAD, "--paddle-bad"), (good, step.GOOD, "--paddle-good")):
            if attempt(end) != wanted:
                expected = "failed" if wanted == step.BAD else "passed"
                problem = f"{option} {end}: {stage} is {tried[-1].status}, not {expected}"
                return ReleaseBisection(stage, package, good, bad, None, None, tuple(tried), tuple(commands), problem)
        first, last = _halve(releases, attempt)
        return ReleaseBisection(stage, package, good, bad, first, last, tuple(tried), tuple(commands))
    finally:
        if work is None:
            shutil.rmtree(folder, ignore_errors=True)


def _halve(releases: Sequence[str], attempt: Callable[[str], str]) -> tuple[str, str]:
    """(first bad, last good) between ``releases[0]`` (good) and ``releases[-1]`` (bad): halving the list, a
    release that cannot be judged (its install failed, the stage did not run) set aside."""
    candidates = list(releases)
    low, high = 0, len(candidates) - 1
    while high - low > 1:
        middle = (low + high) // 2
        outcome = attempt(candidates[middle])
        if outcome == step.SKIP:
            del candidates[middle]
            high -= 1
        elif outcome == step.GOOD:
            low = middle
        else:
            high = middle
    return candidates[high], candidates[low]
