"""The project speaks to its users only: no tracked text file names a machine's folders, a tracker's bare
issue numbers no user can follow, or the rounds of work it was built in. Another project's tracker is fine
when named (``pytest-xdist#1386``)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

FORBIDDEN = {
    "a bare issue number": re.compile(r"\bissues?\s+#?\d+", re.I),
    "a development machine's folder": re.compile(r"/work/(?:main|shared|checkouts|venvs|wt|run)\b"),
    "a round of work": re.compile(r"\b(?:first|second|third|fourth|this|the|a) wave\b|\bwave on\b", re.I),
    "a machine lent for development": re.compile(r"\blent\b", re.I),
    "a development note's words": re.compile(r"\bclosing note\b", re.I),
}
TEXT_SUFFIXES = {".py", ".md", ".txt", ".toml", ".yaml", ".yml", ".cfg", ".sh", ".html", ".j2", ".json", ".ini", ""}
# Recorded third-party text kept byte for byte (the suites' config lines, the bash's logs).
KEPT_AS_RECORDED = ("tests/plan/golden/", "tests/fake_target/", "examples/tinyrec/pretrained/")


def tracked_text_files() -> list[Path]:
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    paths = [ROOT / n for n in names.decode().split("\0") if n]
    return [
        p
        for p in paths
        if p.suffix in TEXT_SUFFIXES
        and p.is_file()
        and not str(p.relative_to(ROOT)).startswith(KEPT_AS_RECORDED)
        and p.name != "LICENSE"
        and p != Path(__file__).resolve()  # this file: the samples the patterns are tested on
    ]


def test_patterns_catch_what_they_are_for():
    samples = {
        "a bare issue number": ["see issue 21", "(issue 5's done when)", "Issue 12: the yml", "issues 21, 23"],
        "a development machine's folder": ["/work/main/tipc", "in /work/checkouts/PaddleClas"],
        "a round of work": ["Fourth wave on issue 21", "the first wave's run"],
        "a machine lent for development": ["on a lent H200"],
        "a development note's words": ["the closing note says"],
    }
    for what, lines in samples.items():
        assert all(FORBIDDEN[what].search(line) for line in lines), what
    fine = [
        "pytest-xdist#1386",
        "color: #333;",
        "background:#1f6feb",
        "an issue with the config",
        "the pytest session",
        "Slurm's array task 2",
    ]
    assert not any(p.search(line) for p in FORBIDDEN.values() for line in fine)


def test_no_tracked_text_file_speaks_of_how_tipc_was_built():
    found = []
    for path in tracked_text_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            found += [
                f"{path.relative_to(ROOT)}:{number}: {what}: {line.strip()[:100]}"
                for what, pattern in FORBIDDEN.items()
                if pattern.search(line)
            ]
    if found:
        pytest.fail("\n".join(found), pytrace=False)
