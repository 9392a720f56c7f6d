"""The project speaks to its users only: no tracked text file cites a tracker's bare issue numbers, which no reader
can follow, and no user document names one machine's home folders. Another project's tracker is fine when named
(``pytest-xdist#1386``), and tests may use such folders as made-up inputs."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

ISSUE_NUMBER = re.compile(r"\bissues?\s+#?\d+", re.I)
HOME_FOLDER = re.compile(r"(?<![\w.~$])/(?:home|root|Users|work)/[\w.-]+/")
TEXT_SUFFIXES = {".py", ".md", ".txt", ".toml", ".yaml", ".yml", ".cfg", ".sh", ".html", ".j2", ".json", ".ini", ""}
# Recorded third-party text kept byte for byte (the suites' config lines, the bash's logs).
KEPT_AS_RECORDED = ("tests/plan/golden/", "tests/fake_target/", "examples/tinyrec/pretrained/")


def user_document(name: str) -> bool:
    return name in ("README.md", "CHANGELOG.md", "Makefile") or name.startswith(("docs/", "nightly/", "examples/"))


def tracked_text_files() -> list[str]:
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [
        name
        for name in names.decode().split("\0")
        if name
        and Path(name).suffix in TEXT_SUFFIXES
        and (ROOT / name).is_file()
        and not name.startswith(KEPT_AS_RECORDED)
        and name not in ("LICENSE", "tests/test_user_facing_text.py")
    ]


@pytest.mark.parametrize(
    ("pattern", "found", "fine"),
    [
        (ISSUE_NUMBER, ["see issue 21", "issues 3, 4"], ["pytest-xdist#1386", "an issue with the config"]),
        (HOME_FOLDER, ["in /home/ann/PaddleOCR/", "(/Users/ann/src/x)"], ["~/PaddleOCR/", "/tmp/out/", "/srv/home/a/"]),
    ],
)
def test_each_pattern_finds_what_it_is_for(pattern, found, fine):
    assert all(pattern.search(line) for line in found)
    assert not any(pattern.search(line) for line in fine)


def test_no_tracked_text_file_cites_an_issue_and_no_user_document_a_home_folder():
    hits = []
    for name in tracked_text_files():
        try:
            text = (ROOT / name).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        patterns = [ISSUE_NUMBER, *([HOME_FOLDER] if user_document(name) else [])]
        hits += [f"{name}:{n}: {line.strip()[:100]}" for n, line in enumerate(text.splitlines(), 1)
                 if any(p.search(line) for p in patterns)]  # fmt: skip
    if hits:
        pytest.fail("\n".join(hits), pytrace=False)
