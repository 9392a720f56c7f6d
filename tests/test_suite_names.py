"""The core names no suite: what one suite does lives in its dialect package (``tipc/dialects/<suite>/``), so a
module of ``tipc/`` outside one that names a suite in its code (a string, a name, an import) is a suite's rule
leaking into the core. Docstrings and comments may cite a suite as the reference a rule was taken from: they are
prose, not behaviour.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DIALECTS = ROOT / "tipc" / "dialects"
# The suites whose TIPC tipc reads, and the folders that mark their checkouts (ppocr/, ppcls/, ppdet/ …).
SUITE = re.compile(r"paddle(?:ocr|clas|detection|seg|video|rec|gan|speech|3d)|pp(?:ocr|cls|det)", re.IGNORECASE)


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


# The code words of each kind of node: a string that is not a docstring, a name, an attribute, an import, a
# definition, a keyword or parameter name.
_WORDS = (
    (ast.Constant, lambda node: [node.value] if isinstance(node.value, str) else []),
    (ast.Name, lambda node: [node.id]),
    (ast.Attribute, lambda node: [node.attr]),
    (ast.Import | ast.ImportFrom, lambda node: [a.name for a in node.names] + [getattr(node, "module", None) or ""]),
    (ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, lambda node: [node.name]),
    (ast.keyword | ast.arg, lambda node: [node.arg or ""]),
)


def _words(node: ast.AST, docstrings: set[int]) -> list[str]:
    if id(node) in docstrings:
        return []
    return next((words(node) for kind, words in _WORDS if isinstance(node, kind)), [])


def suite_names(source: str) -> list[tuple[int, str]]:
    """(line, word) for each suite named in the code of ``source``."""
    tree = ast.parse(source)
    docstrings = _docstrings(tree)
    return sorted(
        (getattr(node, "lineno", 0), match.group(0))
        for node in ast.walk(tree)
        for word in _words(node, docstrings)
        for match in SUITE.finditer(word)
    )


@pytest.mark.parametrize(
    ("source", "named"),
    [
        ('"""Read as PaddleOCR reads it."""\nx = 1  # PaddleClas does too\n', []),
        ('def f():\n    """ppdet\'s rule."""\n    return "ppcls"\n', [(3, "ppcls")]),
        ("from tipc.dialects import paddlevideo\n", [(1, "paddlevideo")]),
        ("PADDLESEG = 1\n", [(1, "PADDLESEG")]),
        ("def read_paddlegan_log(*, paddle3d=0): pass\n", [(1, "paddle3d"), (1, "paddlegan")]),
        ('f"{name}: PaddleRec\'s bash"\n', [(1, "PaddleRec")]),
        ('x = "paddle"\ny = "PaddleSlim"\n', []),
    ],
    ids=["prose", "string", "import", "name", "definition", "f-string", "no-suite"],
)
def test_the_scan_sees_code_and_not_prose(source, named):
    assert suite_names(source) == named


def test_no_module_outside_a_dialect_package_names_a_suite():
    found = [
        f"{path.relative_to(ROOT)}:{line}: {word}"
        for path in sorted((ROOT / "tipc").rglob("*.py"))
        if DIALECTS not in path.parents
        for line, word in suite_names(path.read_text(encoding="utf-8"))
    ]
    assert found == [], "a suite's rule belongs in its dialect package (tipc/dialects/<suite>/)"
