"""The target's known-bad dependency releases (``known_bad.json``, data with its sources) and the check.

Some releases of a library a target imports make its stages fail, or hang, whatever tipc does:
NumPy 2.4 and PaddleOCR's detection training is one (``docs/paddleocr-detection.md``). The
doctor asks the stage interpreter for the versions of the packages the table names
(``inspect_env.py --package``) and fails a config whose target and training ymls an entry fits.

An entry may also name the target's commit (its checkout's ``HEAD`` starts with it) and a Paddle flag as the run's
environment sets it (``FLAGS_enable_pir_api=0``: set to 0 or false; ``=1``: unset or set otherwise), for pairs
such as PaddleClas at its published commit and Paddle 3.3.1 (``docs/suites.md``). An entry's ``signature``, a
regular expression, is what a stage failing for that reason prints: the failure's cause line then names the
same fix (``cause_rules``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tipc.doctor.checks import Check, State
from tipc.doctor.compat import version_key

TABLE = Path(__file__).with_name("known_bad.json")
NAME = "known-bad dependencies"


@dataclass(frozen=True, slots=True)
class KnownBad:
    target: str
    marker: str  # a file of the target's checkout, relative to it: the entry is about that target
    uses: str  # a word a training yml must hold for the entry to apply ("": any config)
    package: str
    bad: str  # ">=2.4", "<1.2", "==3.0.1", or both ends comma-joined: ">=2.0,<2.2"
    why: str
    fix: str
    source: str
    commit: str = ""  # the start of the target checkout's commit ("": any)
    flag: str = ""  # "FLAGS_enable_pir_api=0": the flag off in the run's environment; "=1": on or unset ("": any)
    signature: str = ""  # a regular expression a stage failing for this reason prints ("": none known)


OFF = ("0", "false")  # how Paddle reads a flag set off (case aside)
PADDLE = "paddlepaddle"  # the package name the table uses for Paddle, whichever build is installed


def flag_fits(flag: str, environ: Mapping[str, str]) -> bool:
    """Does the run's environment set ``flag`` (``NAME=0`` or ``NAME=1``, "" for any) as the entry says?"""
    if not flag:
        return True
    name, _, wanted = flag.partition("=")
    off = environ.get(name, "").strip().lower() in OFF
    return off if wanted.strip().lower() in OFF else not off


def in_range(version: str, bad: str) -> bool:
    """Is ``version`` inside every bound of ``bad``? An unparsable version is not."""
    have = version_key(version)
    if not have:
        return False
    tests: dict[str, Callable[[tuple[int, ...], tuple[int, ...]], bool]] = {
        ">=": lambda a, b: a >= b,
        "<=": lambda a, b: a <= b,
        "==": lambda a, b: a[: len(b)] == b,
        ">": lambda a, b: a > b,
        "<": lambda a, b: a < b,
    }
    for bound in filter(None, (b.strip() for b in bad.split(","))):
        op = next(o for o in (*tests, "") if bound.startswith(o))
        if not op or not tests[op](have, version_key(bound[len(op) :])):
            return False
    return True


@functools.cache
def load_table(path: Path = TABLE) -> tuple[KnownBad, ...]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return tuple(KnownBad(**{k: str(v) for k, v in e.items()}) for e in data["entries"])


def packages(table: Iterable[KnownBad]) -> tuple[str, ...]:
    """The packages whose versions the doctor asks the stage interpreter for."""
    return tuple(dict.fromkeys(e.package for e in table))


def check_known_bad(
    repo: Path,
    ymls: Iterable[str],
    versions: Mapping[str, str],
    table: Iterable[KnownBad],
    environ: Mapping[str, str] | None = None,
    commit_of: Callable[[Path], str] = lambda repo: "",
) -> tuple[Check, ...]:
    """``ymls``: the texts of the training ymls the plan reads; ``versions``: package -> version
    as the stage interpreter has them ("" when not installed); ``environ``: the run's environment (the flags);
    ``commit_of``: the checkout's commit, asked only when an entry names one ("" when unknown: such an entry
    then applies by its marker)."""
    texts = tuple(ymls)
    found = []
    commits: list[str] = []  # asked once, when needed: git on a large checkout takes a while
    for e in table:
        version = versions.get(e.package, "")
        if not (repo / e.marker).is_file() or not (not e.uses or any(e.uses in t for t in texts)):
            continue
        if e.commit and not commits:
            commits.append(commit_of(repo))
        commit = commits[0] if commits else ""
        if (e.commit and commit and not commit.startswith(e.commit)) or not flag_fits(e.flag, environ or {}):
            continue
        if version and in_range(version, e.bad):
            at = f" at {e.commit[:7]}" + ("" if commit else " (if the checkout is that commit: its commit is unknown)")
            pair = f"{e.package} {version} with {e.target}{at if e.commit else ''}{f' and {e.flag}' if e.flag else ''}"
            found.append(Check(NAME, State.FAIL, f"{pair} ({e.bad} is known bad): {e.why} [{e.source}]", e.fix))
    if found:
        return tuple(found)
    return (Check(NAME, State.PASS, "no package of the stage interpreter is in tipc's table of known-bad releases"),)


def cause_rules(table: Iterable[KnownBad]) -> list[dict[str, Any]]:
    """The entries' signatures as cause rules (``tipc.metrics.causes``): a stage failing so gets the entry's fix
    in its cause line. One rule per signature (entries that share one share its fix)."""
    rules: dict[str, dict[str, Any]] = {}
    for e in table:
        if e.signature:
            rules.setdefault(e.signature, {"kind": "known-bad", "pattern": e.signature, "fix": e.fix})
    return list(rules.values())
