"""The promises table (docs/promises.md) names tests that exist: a renamed or deleted test would leave a
promise that nothing keeps."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# `tests/a/test_b.py`, `tests/a/test_b.py::test_c`, `…::test_d` (same file as the one before), and `a/test_b.py`
# where a column's header says `tests/…`.
REF = re.compile(r"`(?:tests/)?((?:[a-z_]+/)*test_[a-z_0-9]+\.py)?(?:(?:::|…::)(test_[a-z_0-9]+))?`")


def named_tests(text: str) -> list[tuple[str, str]]:
    """(test file, test name or "") of each reference, in order; a ``…::name`` takes the last file."""
    found, last = [], ""
    for match in REF.finditer(text):
        path, name = match[1] or last, match[2] or ""
        if path:
            found.append((path, name))
            last = path
    return found


def _table(path: str, heading: str) -> str:
    text = (ROOT / path).read_text(encoding="utf-8")
    return text[text.index(heading) :].split("\n\n#", 1)[0]


TABLES = {
    "promises": ("docs/promises.md", "| Surface |"),
}


@pytest.mark.parametrize(("path", "heading"), TABLES.values(), ids=TABLES.keys())
def test_every_test_a_promises_table_names_exists(path, heading):
    refs = named_tests(_table(path, heading))
    assert len(refs) >= 13  # one surface a row at least
    for file, name in refs:
        source = ROOT / "tests" / file
        assert source.is_file(), f"{path} names tests/{file}, which does not exist"
        assert not name or re.search(rf"^def {name}\(", source.read_text(), re.M), f"{path}: no {file}::{name}"
