"""The layering the code promises, checked: two fronts (``tipc.cli``, ``tipc.plugin``) over one core.

``tipc`` must work where pytest is not importable, and pytest loads
``tipc.plugin.hooks`` in every run, of every project, so that module must stay
cheap. Import checks run in a fresh interpreter: this one has pytest loaded.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from graphlib import CycleError, TopologicalSorter
from importlib.metadata import version
from pathlib import Path

import pytest

from tests.support.fake_target import CPU_CONFIG, copy_fake_target
from tests.support.imports import loaded_after
from tipc.version import VERSION

ROOT = Path(__file__).resolve().parents[1]
FRONTS = ("tipc.cli", "tipc.plugin")

# Every cheap path of the command line: the parser, `tipc plan --help`, a real plan, `tipc run`'s
# options and a dry run (the session layer both fronts share, without a stage).
CLI_WITHOUT_RUNNING_ANYTHING = """
import contextlib, io, sys
from tipc.cli import main
parser = main.build_parser()
with contextlib.redirect_stdout(io.StringIO()):
    with contextlib.suppress(SystemExit):
        main.main(["plan", "--help"])
    assert main.main(["plan", "--config", "PP-OCRv3_mobile_rec/train_infer_python.txt",
                      "--mode", "lite_train_lite_infer", "--python", "py"]) == 0
    run = ["run", "--config", sys.argv[1], "--mode", "lite_train_lite_infer", "--python", sys.executable]
    assert parser.parse_args([*run, "--timeout", "train=5", "--dry-run"]).command == "run"
    assert main.main([*run, "--dry-run"]) == 5
"""


def test_the_command_line_never_imports_pytest_nor_the_plugin(tmp_path):
    """Also at run time: ``main`` imports its commands by name, which no source scan sees."""
    config = copy_fake_target(tmp_path / "fake_target") / CPU_CONFIG
    assert loaded_after(CLI_WITHOUT_RUNNING_ANYTHING, "pytest", "_pytest", "tipc.plugin", args=(str(config),)) == []


@pytest.mark.parametrize("command", ["run", "history"])
def test_a_command_imports_no_other_commands_module(command):
    """``tipc run`` pays for its own options only: the dispatch imports the module of the command it runs."""
    code = (
        "import contextlib, io\nfrom tipc.cli import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n    main.main([{command!r}, '--help'])"
    )
    assert loaded_after(code, "tipc.cli") == sorted(["tipc.cli", "tipc.cli.main", f"tipc.cli.{command}_cmd"])


def test_the_pytest_entry_point_alone_stays_cheap():
    """What pytest imports in every run: no template engine, no report, runner or results code, no
    plan or cluster model (declaring the options needs none of them)."""
    heavy = ("jinja2", "tipc.report", "tipc.run", "tipc.results", "tipc.plan", "tipc.cluster.node")
    assert loaded_after("import tipc.plugin.hooks", *heavy) == []


def test_the_version_is_written_once_and_read_without_a_metadata_search():
    """``tipc/version.py`` holds it; the installed metadata is built from it (pyproject's dynamic field)."""
    assert version("tipc") == VERSION
    assert loaded_after("import tipc.version", "importlib.metadata") == []


def imports_of(path: Path, at_import: bool = False) -> set[str]:
    """Every module a source file imports, at the top or inside a function, relative ones resolved;
    ``at_import``: only what importing it runs (not in a function, nor under ``TYPE_CHECKING``)."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = ast.walk(tree) if not at_import else _at_import(tree.body)
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(filter(None, (base, node.module)))
            found.update(f"{module}.{alias.name}" for alias in node.names)  # `from pkg import mod` names a module
    return found


def _at_import(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    for node in body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from _at_import(node.orelse)
        elif isinstance(node, (ast.If, ast.Try)):
            for part in (
                node.body,
                node.orelse,
                getattr(node, "finalbody", []),
                *(h.body for h in getattr(node, "handlers", [])),
            ):
                yield from _at_import(part)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node


def test_importing_tipc_runs_no_import_cycle():
    """Module by module, what importing it imports; imports inside functions (the entry points'
    laziness: the pytest11 module, the CLI's dispatch) are left out."""
    modules = {
        ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): p
        for p in (ROOT / "tipc").rglob("*.py")
    }
    graph = {
        name: {m if m in modules else m.rpartition(".")[0] for m in imports_of(path, at_import=True)} & modules.keys()
        for name, path in modules.items()
    }
    try:
        tuple(TopologicalSorter(graph).static_order())
    except CycleError as cycle:
        pytest.fail(f"import cycle: {' -> '.join(cycle.args[1])}")


@pytest.mark.parametrize(("front", "other"), [FRONTS, FRONTS[::-1]], ids=["cli", "plugin"])
def test_no_front_imports_the_other(front, other):
    sources = sorted((ROOT / front.replace(".", "/")).rglob("*.py"))
    assert sources
    edges = {
        f"{path.relative_to(ROOT)} -> {name}"
        for path in sources
        for name in imports_of(path)
        if name == other or name.startswith(other + ".")
    }
    assert edges == set()


def test_the_public_api_is_tipc_itself_and_costs_nothing_until_asked():
    """``import tipc`` (pytest's entry point imports it in every run) loads none of the API's modules; each
    name of ``__all__`` is there when asked, and the example plugin needs no other."""
    assert loaded_after("import tipc", "tipc.plan", "tipc.suites", "tipc.metrics", "tipc.results") == []
    import tipc

    assert all(getattr(tipc, name) is not None for name in tipc.__all__)
    example = ROOT / "tests" / "suites" / "example_plugin" / "tipc_example_suite.py"
    assert {name for name in imports_of(example) if name.startswith("tipc")} <= {f"tipc.{n}" for n in tipc.__all__}
    assert (ROOT / "tipc" / "py.typed").is_file()


# Suites whose dialect is written as a plugin package of its own would be: from what tipc publishes only.
PUBLIC_API_DIALECTS = ("paddlevideo", "paddlerec", "paddlegan", "paddlespeech")


@pytest.mark.parametrize("dialect", PUBLIC_API_DIALECTS)
def test_a_dialect_package_needs_only_the_public_api(dialect):
    """``tipc`` and ``tipc.layout`` (the common bash layout's readers and builders) are all it imports from tipc,
    and every name it takes from them is published there."""
    import tipc
    import tipc.layout

    package = ROOT / "tipc" / "dialects" / dialect
    published = {f"tipc.{name}" for name in tipc.__all__} | {f"tipc.layout.{name}" for name in tipc.layout.__all__}
    taken = {
        f"{path.name}: {name}"
        for path in sorted(package.rglob("*.py"))
        for name in imports_of(path)
        if name.startswith("tipc.") and not name.startswith(f"tipc.dialects.{dialect}") and name not in published
    }
    assert taken == set()


# Packages that import each other today, each pair with why it is not yet undone: an exception, not a rule.
KNOWN_PACKAGE_CYCLES = {
    # results.records checks a record's shard with schedule.policy's parser, and the scheduler reads the
    # records' durations: the shard's vocabulary belongs to neither; moving it moves the shard parser's tests.
    ("tipc.results", "tipc.schedule"),
}


def package_of(module: str) -> str:
    """``tipc.run.plan_run`` -> ``tipc.run``; a top-level module (``tipc.errors``) is its own package."""
    return ".".join(module.split(".")[:2])


def test_no_two_packages_import_each_other():
    """At package level, imports inside functions and under ``TYPE_CHECKING`` counted: two packages that each
    import the other are one package in two folders (neither can be understood, tested or moved alone)."""
    edges: dict[tuple[str, str], str] = {}
    for path in sorted((ROOT / "tipc").rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        if module == "tipc" or "auto_log" in path.parts:  # the public API names every package; vendored code
            continue
        for name in imports_of(path):
            edge = (package_of(module), package_of(name))
            if name.startswith("tipc.") and edge[0] != edge[1]:
                edges.setdefault(edge, f"{module} -> {name}")
    cycles = {tuple(sorted(edge)) for edge in edges if edge[::-1] in edges}
    found = {f"{a} <-> {b}: {edges[(a, b)]}, {edges[(b, a)]}" for a, b in cycles - KNOWN_PACKAGE_CYCLES}
    assert found == set()
    assert cycles >= KNOWN_PACKAGE_CYCLES, "a known cycle is gone: take it off KNOWN_PACKAGE_CYCLES"
