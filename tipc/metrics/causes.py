"""Why a stage failed, as a signature that many failures can share.

A nightly over a model zoo fails for a handful of reasons at once: forty configs with one
``ModuleNotFoundError``, a few with a CUDA error. Reading forty logs one by one hides that, so every
failed stage gets a *cause*: a kind (``missing-module``, ``cuda``, ``python-exception``, ``timeout``,
…) and a signature, the line that says what went wrong with the parts that differ between machines,
models and nights (paths, numbers, addresses) normalised. Failures with one signature are one group
in the console, the report and the matrix.

Where the cause comes from, in order: the harness's own evidence (timed out, hung, killed by the
OOM killer or a signal), then the log's lines, searched from the end, against the rules of
``cause_rules.json`` (data: more can be added through the ``pytest_tipc_cause_rules`` hook), then the last
exception a Python traceback names; failing all that, the exit code. Pure: text in, cause out.

A rule may carry a ``fix``: what is known to cure that cause (a known-bad pair of a suite and a Paddle release,
``tipc.doctor.known_bad``). Its cause's signature then ends with it, the same for every failure of that cause, so
the console, the report and the matrix say what to do; such a rule is also tried on the stage's reason (an export
tipc failed on its evidence prints no error).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Protocol

MAX_SIGNATURE = 160  # characters: a message, not a paragraph
# A rule judges each line by its first and its last MAX_RULE_LINE characters: a line may be a whole
# tensor (64 KiB), and what a rule costs grows with the length of what it is run on.
MAX_RULE_LINE = 1024


@dataclass(frozen=True, slots=True)
class Rule:
    kind: str
    pattern: re.Pattern[str]
    group: int = 1
    fix: str = ""  # what cures this cause, said after its signature ("" for none known)

    def cause(self, found: re.Match[str]) -> Cause:
        signature = normalise(found[self.group] or found[0])
        return Cause(self.kind, f"{signature} (fix: {self.fix})" if self.fix else signature)


@dataclass(frozen=True, slots=True)
class Cause:
    kind: str  # what it is about: "cuda", "missing-module", "timeout", "exit-code", ...
    signature: str  # normalised: equal for one cause wherever and whenever it happened

    def __str__(self) -> str:
        return self.signature


def rule_from_dict(d: dict[str, object], where: str = "a cause rule") -> Rule:
    """A rule from its JSON form; ``ValueError`` says what is wrong with it."""
    kind, pattern, group, fix = d.get("kind"), d.get("pattern"), d.get("group", 1), d.get("fix", "")
    if not (isinstance(kind, str) and kind and isinstance(pattern, str) and isinstance(group, int)) or not isinstance(
        fix, str
    ):
        raise ValueError(f"{where}: expected {{'kind': str, 'pattern': str[, 'group': int, 'fix': str]}}, found {d!r}")
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"{where}: pattern {pattern!r} is not a regular expression: {exc}") from None
    if nested_repeat(pattern):
        raise ValueError(
            f"{where}: pattern {pattern!r} repeats a group that itself repeats without bound (like (a+)+): such a "
            "pattern can take minutes on one short line; expected each repeated group to match a bounded text "
            "(write (a+)+ as a+)"
        )
    if group > compiled.groups:
        raise ValueError(f"{where}: pattern {pattern!r} has no group {group}")
    return Rule(kind, compiled, group, fix)


# What repeats the atom before it: unbounded (*, +, {n,}) or up to a count ({n}, {n,m}); ``?`` does not.
_UNBOUNDED = re.compile(r"[*+]|\{\d*,\}")
_REPEAT = re.compile(r"[*+]|\{\d*(?:,\d*)?\}")


def nested_repeat(pattern: str) -> bool:
    r"""Whether ``pattern`` repeats a group that holds an unbounded repeat (``(a+)+``, ``(\w+\s?)*``,
    ``(x*){2,}``): Python's ``re`` backtracks through every way of splitting a line among them, which
    is exponential in the line's length (``^(a+)+$`` took 79 s on 31 characters). Such a rule is refused
    when it is loaded: a thread cannot stop ``re`` once it runs, a process per rule and line costs more
    than the judging. Repeated alternatives that overlap (``(a|a)+``) are not found: they are rare."""
    holds: list[bool] = []  # per open group: it holds an unbounded repeat
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
        elif char == "[":
            i = _class_end(pattern, i)
        elif char == "(":
            holds.append(False)
            i += 1
        elif char == ")":
            held = holds.pop() if holds else False
            i += 1
            if held and _REPEAT.match(pattern, i):
                return True
            if held and holds:
                holds[-1] = True
        elif (found := _UNBOUNDED.match(pattern, i)) is not None:
            if holds:
                holds[-1] = True
            i = found.end()
        else:
            i += 1
    return False


def _class_end(pattern: str, start: int) -> int:
    """Where the character class opened at ``start`` ends (a ``]`` first in it is a literal)."""
    i = start + 1
    if pattern[i : i + 1] == "^":
        i += 1
    if pattern[i : i + 1] == "]":
        i += 1
    while i < len(pattern) and pattern[i] != "]":
        i += 2 if pattern[i] == "\\" else 1
    return i + 1


@cache
def builtin_rules() -> tuple[Rule, ...]:
    text = resources.files("tipc.metrics").joinpath("cause_rules.json").read_text(encoding="utf-8")
    return tuple(rule_from_dict(d, f"cause_rules.json rule {i}") for i, d in enumerate(json.loads(text)["rules"]))


# Normalising: what differs between two occurrences of one cause.
_ABS_PATH = re.compile(r"(?:[A-Za-z]:)?(?:/[\w.@+~-]+){2,}/?|(?:\.{1,2}/)(?:[\w.@+~-]+/?)+")
_HEX = re.compile(r"\b0x[0-9a-fA-F]+\b")
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w])")
_SPACES = re.compile(r"\s+")


def _short_path(match: re.Match[str]) -> str:
    """A path as its last two parts: the file that matters, not where the checkout lives."""
    parts = [p for p in match.group().split("/") if p not in ("", ".", "..")]
    return ".../" + "/".join(parts[-2:]) if len(parts) > 2 else "/".join(parts)


def normalise(text: str) -> str:
    text = _ABS_PATH.sub(_short_path, text)
    text = _HEX.sub("0x…", text)
    text = _NUMBER.sub("N", text)
    text = _SPACES.sub(" ", text).strip()
    return text if len(text) <= MAX_SIGNATURE else text[: MAX_SIGNATURE - 1] + "…"


# "ValueError: (InvalidArgument) …", "paddle.base.core.EnforceNotMet: …", "KeyError: 'x'".
_EXCEPTION = re.compile(
    r"^\s*((?:[A-Za-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt|NotMet|Fault)\b(?::.*)?)$"
)
_TRACEBACK = "Traceback (most recent call last):"
_SUMMARY = "Error Message Summary:"  # paddle's C++ errors: the message follows this banner


def _last_exception(lines: Sequence[str]) -> str | None:
    """The exception line of the last traceback (Python's, or paddle's C++ summary)."""
    for i in range(len(lines) - 1, -1, -1):
        line = lines[i].strip()
        if line == _SUMMARY:
            following = [x.strip() for x in lines[i + 1 :] if x.strip() and not set(x.strip()) <= set("-=")]
            if following:
                return following[0]
        if line == _TRACEBACK:
            for later in lines[i + 1 :]:
                found = _EXCEPTION.match(later)
                if found:
                    return found[1]
    return None


def _ends(line: str) -> tuple[str, ...]:
    """What a rule judges of a line: all of it, or of a longer one its first and its last ``MAX_RULE_LINE``
    characters (where an error's name and its message's end are)."""
    return (line,) if len(line) <= MAX_RULE_LINE else (line[:MAX_RULE_LINE], line[-MAX_RULE_LINE:])


def from_log(text: str, rules: Iterable[Rule] = ()) -> Cause | None:
    """The cause a log states, or None when it states none (see the module's docstring)."""
    lines = text.splitlines()
    for rule in (*rules, *builtin_rules()):
        for line in reversed(lines):
            for part in _ends(line):
                found = rule.pattern.search(part)
                if found:
                    return rule.cause(found)
    exception = _last_exception(lines)
    return Cause("python-exception", normalise(exception)) if exception else None


def _fixed(reason: str, rules: Sequence[Rule]) -> Cause | None:
    """The cause a rule with a fix finds in a stage's reason (tipc's own verdict on its evidence)."""
    for rule in rules:
        found = rule.pattern.search(reason[:MAX_RULE_LINE]) if rule.fix else None
        if found:
            return rule.cause(found)
    return None


def of_failure(status: str, reason: str, logs: Iterable[str], rules: Iterable[Rule] = ()) -> Cause:
    """The cause of a failed stage: ``status`` and ``reason`` as its record holds them, ``logs`` the
    texts of its own part of its logs (a failing rank's log first: that is where a launch's error is)."""
    if status == "timeout":
        return Cause("timeout", "timed out: " + normalise(reason or "over its time limit"))
    if status == "hung":
        return Cause("hung", "hung: " + normalise(reason or "no new output"))
    if "out-of-memory killer" in reason:
        return Cause("out-of-memory", "killed by the kernel's out-of-memory killer")
    rules = tuple(rules)
    cause = next((c for text in logs if (c := from_log(text, rules)) is not None), None) or _fixed(reason, rules)
    if cause is not None:
        return cause
    if reason.startswith("killed by"):
        return Cause("signal", reason.split(":", maxsplit=1)[0])
    return Cause("exit-code", normalise(reason) if reason else "failed")


class StageRecordLike(Protocol):
    """What a record holds of its failure (``tipc.results.records.StageRecord``)."""

    @property
    def id(self) -> str: ...
    @property
    def cause_kind(self) -> str: ...
    @property
    def cause(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Failure:
    config: str  # what names the config to a reader: its repo-relative path
    stage: str
    cause: Cause


def failure_of(config: str, record: StageRecordLike) -> Failure:
    """A failed stage's record as a member of its cause's group (``cause_kind``/``cause`` as recorded)."""
    return Failure(config, record.id, Cause(record.cause_kind or "unknown", record.cause or "no cause recorded"))


@dataclass(frozen=True, slots=True)
class CauseGroup:
    cause: Cause
    failures: tuple[Failure, ...]
    since: str | None  # the earliest run of the unbroken series of earlier runs with this cause; None: new

    @property
    def configs(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(f.config for f in self.failures))

    def line(self, history: bool = True) -> str:
        """``history``: earlier runs were read (without any, new and recurring cannot be told apart)."""
        configs = self.configs
        who = f"{len(configs)} configs" if len(configs) > 1 else configs[0]
        stages = f", {len(self.failures)} stages" if len(self.failures) > len(configs) else ""
        when = "" if not history else f"; since {self.since}" if self.since else "; new in this run"
        return f"{who}{stages}: {self.cause.signature} ({self.cause.kind}{when})"


def group(failures: Iterable[Failure], earlier: Sequence[tuple[str, frozenset[str]]] = ()) -> list[CauseGroup]:
    """Failures with one signature as one group, the largest first. ``earlier`` is the history:
    (run id, the signatures of its failures) per earlier run, oldest first; a group recurs *since*
    the first run of the unbroken series that ends with the latest earlier run."""
    by_signature: dict[Cause, list[Failure]] = {}
    for failure in failures:
        by_signature.setdefault(failure.cause, []).append(failure)
    groups = [
        CauseGroup(cause, tuple(members), _since(cause.signature, earlier)) for cause, members in by_signature.items()
    ]
    return sorted(groups, key=lambda g: (-len(g.configs), -len(g.failures), g.cause.signature))


def _since(signature: str, earlier: Sequence[tuple[str, frozenset[str]]]) -> str | None:
    since = None
    for run_id, signatures in reversed(earlier):
        if signature not in signatures:
            break
        since = run_id
    return since
