"""``tipc bisect``: the first commit of the target repo at which a stage fails.

git does the searching (``git bisect run``); tipc says, at each commit, whether the stage failed
(``tipc.triage.step``). Everything happens in a clone of the target that shares its objects
(``git clone --shared``), in a folder of its own: the user's checkout, its index and its refs are never
touched. Before the search both ends are tried, so that a stage that does not fail at ``--bad`` (or
already fails at ``--good``) is said at once instead of naming an innocent commit.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from tipc.errors import UsageError
from tipc.proc.child import Ending, Limits, ask, run_child
from tipc.triage import step

GIT_TIMEOUT = 120.0  # a clone of a large repository over a local path; a question to git takes far less


@dataclass(frozen=True, slots=True)
class Commit:
    sha: str
    subject: str
    author: str
    date: str  # ISO 8601, the author's


@dataclass(frozen=True, slots=True)
class Bisection:
    """What a bisection found: the first bad commit (None when git could not tell), and every commit tried."""

    stage: str
    good: str
    bad: str
    first_bad: Commit | None
    steps: tuple[step.Step, ...]
    commands: tuple[tuple[str, ...], ...]  # what was run, in order: a user can repeat it by hand
    problem: str = ""  # why there is no culprit

    def to_json(self) -> str:
        body = asdict(self)
        body["first_bad"] = self.first_bad.sha if self.first_bad else None
        body["culprit"] = asdict(self.first_bad) if self.first_bad else None
        return json.dumps(body, indent=2)


def git(repo: Path, *args: str) -> str:
    """``git -C repo args``'s output; a UsageError saying what git said when it fails."""
    answer = ask(["git", "-C", str(repo), *args], timeout=GIT_TIMEOUT)
    if answer.returncode != 0:
        said = answer.error or answer.last_line(answer.stderr) or f"exit code {answer.returncode}"
        raise UsageError(f"git {' '.join(args)} (in {repo}): {said}")
    return answer.stdout.strip()


def target_repo(config: Path, repo: Path | None) -> Path:
    """The git repository the config belongs to: ``--repo``, else the one holding the config."""
    where = repo if repo is not None else config.parent
    try:
        return Path(git(where, "rev-parse", "--show-toplevel"))
    except UsageError:
        problem = "not inside a git repository; bisect searches the target's commits (--repo DIR)"
        raise UsageError(f"{where}: {problem}") from None


def commit(repo: Path, rev: str, option: str) -> str:
    try:
        return git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    except UsageError:
        raise UsageError(f"{option} {rev}: no such commit in {repo}") from None


def describe(repo: Path, sha: str) -> Commit:
    sha, subject, author, date = git(repo, "show", "-s", "--format=%H%n%s%n%an <%ae>%n%aI", sha).split("\n", 3)
    return Commit(sha, subject, author, date)


def search_range(config: Path, repo: Path | None, good: str, bad: str) -> tuple[Path, Path, str, str]:
    """The target's repository, the config's path inside it, and the full shas of ``good`` and ``bad``."""
    config = config.resolve()
    source = target_repo(config, repo)
    try:
        inside = config.relative_to(source)
    except ValueError:
        raise UsageError(f"--config {config}: not inside the target repository {source}") from None
    return source, inside, commit(source, good, "--good"), commit(source, bad, "--bad")


def bisect(
    config: Path,
    mode: str,
    stage: str,
    good: str,
    bad: str,
    *,
    repo: Path | None = None,
    run_args: Sequence[str] = (),
    work: Path | None = None,
    say: Callable[[str], None] = lambda line: None,
    deadline: float | None = None,
) -> Bisection:
    """Search the commits between ``good`` and ``bad`` for the first at which ``stage`` fails; by ``deadline``
    (``time.monotonic``'s) when given: a search still going then is stopped, and names no culprit."""
    source, inside, good_sha, bad_sha = search_range(config, repo, good, bad)
    if good_sha == bad_sha:
        raise UsageError(f"--good and --bad are the same commit ({good_sha[:12]})")
    if git(source, "rev-list", "--count", f"{good_sha}..{bad_sha}") == "0":
        raise UsageError(f"--bad {bad} is not a descendant of --good {good}: nothing between them to search")
    folder = Path(tempfile.mkdtemp(prefix="tipc-bisect-")) if work is None else work
    folder.mkdir(parents=True, exist_ok=True)
    clone, steps_file = folder / "target", folder / "steps.jsonl"
    try:
        cloning = ("git", "clone", "--quiet", "--shared", "--no-checkout", str(source), str(clone))
        git(folder, *cloning[1:])
        tried = step.command(inside, mode, stage, steps_file, run_args)
        commands: list[tuple[str, ...]] = [cloning]

        def attempt(sha: str) -> step.Step:
            git(clone, "checkout", "--quiet", "--detach", "--force", sha)
            commands.append(("git", "checkout", "--detach", sha, "&&", *tried))
            outcome = step.run(inside, mode, stage, steps_file, clone, run_args, step.left(deadline))
            say(f"tipc bisect: {sha[:12]} {outcome.outcome} ({outcome.status})")
            return outcome

        for sha, wanted in ((bad_sha, step.BAD), (good_sha, step.GOOD)):
            end = attempt(sha)
            if end.outcome != wanted:
                which = "--bad" if wanted == step.BAD else "--good"
                problem = (
                    f"{which} {sha[:12]}: {stage} is {end.status}, not {'failed' if wanted == step.BAD else 'passed'}"
                )
                return Bisection(stage, good_sha, bad_sha, None, step.recorded(steps_file), tuple(commands), problem)
        git(clone, "bisect", "start", bad_sha, good_sha)
        search = ("git", "bisect", "run", *tried)
        commands += [("git", "bisect", "start", bad_sha, good_sha), search]
        with (folder / "bisect.log").open("wb") as log:
            ended = run_child(search, cwd=str(clone), env=os.environ, stdout=log, stderr=log,
                              limits=Limits(step.left(deadline), None))  # fmt: skip
        steps = step.recorded(steps_file)
        if ended.ending is Ending.TIMEOUT:
            problem = f"the time for bisecting ran out after {len(steps)} commit(s) tried"
            return Bisection(stage, good_sha, bad_sha, None, steps, tuple(commands), problem)
        first = git(clone, "rev-parse", "--verify", "--quiet", "refs/bisect/bad")
        skipped = {s.commit for s in steps if s.outcome == step.SKIP}
        if first in skipped or not first:
            problem = "git could not tell: the commits around the change could not be tested (see the steps)"
            return Bisection(stage, good_sha, bad_sha, None, steps, tuple(commands), problem)
        return Bisection(stage, good_sha, bad_sha, describe(clone, first), steps, tuple(commands))
    finally:
        if work is None:
            shutil.rmtree(folder, ignore_errors=True)


def text(found: Bisection) -> str:
    lines = [f"tipc bisect: {found.stage}, good {found.good[:12]}, bad {found.bad[:12]}"]
    lines += [f"  {s.commit[:12]} {s.outcome:4} {s.status}" for s in found.steps]
    c = found.first_bad
    named = (
        [f"first bad commit: {c.sha}", f"  {c.subject}", f"  author: {c.author}", f"  date:   {c.date}"] if c else []
    )
    return "\n".join(lines + verdict_lines(named, found.problem, found.commands))


def verdict_lines(named: list[str], problem: str, commands: Sequence[Sequence[str]]) -> list[str]:
    """A bisection's end in words (of commits or releases): the culprit ``named``, else the ``problem``; then
    the commands that found it."""
    return [*(named or [f"no culprit: {problem}"]), "commands:", *("  " + " ".join(c) for c in commands)]
