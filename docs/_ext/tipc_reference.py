"""Reference pages made from the code, so that they cannot drift from it.

``{tipc-help} plan`` prints what ``tipc plan --help`` prints (argparse's own text, from the one
declaration of the options), ``{tipc-pytest-help}`` the tipc group of ``pytest --help`` and its ini
keys, ``{tipc-fields} tipc.results.records.StageRecord`` a table of a record's fields with their
types and the comments written beside them, and ``{tipc-exit-statuses}`` the one table from a run's
outcome to its exit status.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import importlib
import inspect
import io
import subprocess
import sys
import textwrap
import typing

from docutils import nodes
from docutils.parsers.rst import Directive


def _literal(text: str) -> list[nodes.Node]:
    block = nodes.literal_block(text, text)
    block["language"] = "text"
    return [block]


class TipcHelp(Directive):
    """The ``--help`` of ``tipc`` or one of its commands."""

    optional_arguments = 1

    def run(self) -> list[nodes.Node]:
        from tipc.cli.main import main

        argv = [*self.arguments, "--help"]
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            main(argv)
        return _literal(out.getvalue().replace("usage: __main__.py", "usage: tipc").rstrip())


class TipcPytestHelp(Directive):
    """tipc's part of ``pytest --help``: its option group and its ini keys."""

    def run(self) -> list[nodes.Node]:
        text = subprocess.run(
            [sys.executable, "-m", "pytest", "--help", "-p", "no:cacheprovider"],
            capture_output=True,
            text=True,
            check=True,
            env={"COLUMNS": "100", "PATH": ""},
        ).stdout
        return _literal("\n\n".join(_sections(text)))


def _sections(text: str) -> list[str]:
    """The option group titled ``tipc…`` and the ini lines whose key starts with ``tipc``."""
    group: list[str] = []
    ini: list[str] = []
    lines = text.splitlines()
    inside = False
    for i, line in enumerate(lines):
        if line and not line.startswith(" "):
            inside = line.lower().startswith("tipc")
            if inside:
                group.append(line)
            continue
        if inside:
            group.append(line)
        stripped = line.strip()
        if stripped.startswith("tipc_"):
            ini.append(stripped)
            for more in lines[i + 1 :]:
                if more.startswith(" " * 24) and not more.strip().startswith(("tipc_", "-")):
                    ini.append("    " + more.strip())
                else:
                    break
    if not group:
        raise RuntimeError("pytest --help shows no tipc option group: is tipc installed in this interpreter?")
    sections = ["\n".join(group).rstrip()]
    if ini:
        sections.append("[pytest] ini keys:\n" + "\n".join(ini))
    return sections


class TipcFields(Directive):
    """A dataclass's fields: name, type, default and the comment written beside the field."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        module_name, _, name = self.arguments[0].rpartition(".")
        cls = getattr(importlib.import_module(module_name), name)
        comments = _field_comments(cls)
        hints = typing.get_type_hints(cls)
        rows = []
        for f in dataclasses.fields(cls):
            default = ""
            if f.default is not dataclasses.MISSING:
                default = repr(f.default)
            elif f.default_factory is not dataclasses.MISSING:
                default = repr(f.default_factory())
            rows.append((f.name, _type_name(hints.get(f.name, f.type)), default, comments.get(f.name, "")))
        return [_table(("field", "type", "default", "what it holds"), rows)]


class TipcExitStatuses(Directive):
    """Every outcome of a run or a night, its exit status and the comment written beside the outcome."""

    def run(self) -> list[nodes.Node]:
        from tipc.results.outcome import EXIT_STATUS, Outcome

        comments = _member_comments(Outcome)
        rows = [(o.value, str(status), comments.get(o.name, "")) for o, status in EXIT_STATUS.items()]
        return [_table(("outcome", "exit status", "when"), rows)]


def _member_comments(cls: type) -> dict[str, str]:
    """``NAME = value  # comment`` → {NAME: comment}, read from the class's source."""
    lines = textwrap.dedent(inspect.getsource(cls)).splitlines()
    found = {}
    for line in lines:
        name, eq, rest = line.strip().partition(" = ")
        if eq and name.isidentifier() and "#" in rest:
            found[name] = rest.split("#", 1)[1].strip()
    return found


def _type_name(hint: object) -> str:
    text = hint if isinstance(hint, str) else getattr(hint, "__name__", None) or repr(hint)
    return str(text).replace("typing.", "")


def _field_comments(cls: type) -> dict[str, str]:
    """``name: type = default  # comment`` → {name: comment}, read from the class's source."""
    source = textwrap.dedent(inspect.getsource(cls))
    lines = source.splitlines()
    found = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            line = lines[node.lineno - 1]
            if "#" in line:
                found[node.target.id] = line.split("#", 1)[1].strip()
    return found


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> nodes.table:
    table = nodes.table()
    group = nodes.tgroup(cols=len(header))
    table += group
    for _ in header:
        group += nodes.colspec(colwidth=1)
    head = nodes.thead()
    group += head
    body = nodes.tbody()
    group += body
    for part, part_rows in ((head, [header]), (body, rows)):
        for cells in part_rows:
            row = nodes.row()
            for cell in cells:
                entry = nodes.entry()
                entry += nodes.paragraph(text=cell)
                row += entry
            part.append(row)
    return table


def setup(app: object) -> dict[str, object]:
    add = app.add_directive  # type: ignore[attr-defined]
    add("tipc-help", TipcHelp)
    add("tipc-pytest-help", TipcPytestHelp)
    add("tipc-fields", TipcFields)
    add("tipc-exit-statuses", TipcExitStatuses)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
