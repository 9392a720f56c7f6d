"""pytest entry point (``pytest11``) for tipc: ``pytest tipc --config … --mode …``.

pytest imports this module in every run on a machine with tipc installed, so it
holds only what every run needs: the options and the ``tipc`` argument. Every
option but ``--config`` and ``--mode`` is spelt ``--tipc-<name>`` (no other
plugin's option can collide); those two are added once every plugin and initial
conftest has declared its own, and only where none took them. Without
``--config`` tipc stays inert and nothing else of it is imported; with it,
``pytest_configure`` resolves the options once into frozen ``Settings`` and
registers a ``TipcPlugin`` (``run_plugin``), which owns collection and the run.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tipc.session.layers import INI_KEYS
from tipc.session.options import add_kept_options, add_pytest_options, old_spelling, prefixed

TIPC_DIR = Path(__file__).resolve().parents[1]
GROUP = "tipc"
TAKEN = pytest.StashKey[dict[str, str]]()  # --config/--mode another plugin owns here → its option group


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup(GROUP, "tipc: run a TIPC config as tests (pytest tipc --config … --mode …)")
    add_pytest_options(group.addoption)
    for key, setting in INI_KEYS:  # tipc.session.layers: below the command line and the environment
        help_text = f"tipc: the default of {prefixed(setting.flag)}"
        if setting.kind == "list":
            parser.addini(key, help_text, type="args")
        else:
            _add_scalar(parser, key, help_text)


def _add_scalar(parser: pytest.Parser, key: str, help_text: str) -> None:
    """A native TOML ini (``[tool.pytest]``) gives numbers and booleans as such (``tipc_jobs = 2``,
    ``tipc_no_report = true``): tipc takes them as the environment's words. A pytest that knows no
    union of ini types reads TOML values as strings already."""
    try:
        parser.addini(key, help_text, type=str | int | float | bool, default="")
    except (AssertionError, TypeError, ValueError):
        parser.addini(key, help_text, type="string")


def _declared(parser: pytest.Parser) -> dict[str, str]:
    """Every option name declared so far → the name of its group (pytest has no public list of them)."""
    groups = [parser._anonymous, *parser._groups]
    return {name: group.name for group in groups for option in group.options for name in option.names()}


@pytest.hookimpl(wrapper=True)
def pytest_load_initial_conftests(
    early_config: pytest.Config, parser: pytest.Parser, args: list[str]
) -> Iterator[None]:
    """``pytest tipc`` from any directory: a ``tipc`` argument that is not a path here names the
    installed package (in tipc's own checkout it is that directory anyway). Once the initial
    conftests declared their options: ``--config``/``--mode`` where free, and an old spelling of a
    tipc option that nothing else owns is an error that names the new one."""
    for index, arg in enumerate(args):
        name, sep, rest = arg.partition("::")
        if name == "tipc" and not Path(name).exists():
            args[index] = f"{TIPC_DIR}{sep}{rest}"
    try:
        yield
    except KeyboardInterrupt:
        if not any(arg.partition("=")[0] in ("--config", "--tipc-config") for arg in args):
            raise  # not a tipc run: pytest's own way
        # Before pytest's session catches it: Python would print a traceback of conftest imports.
        print("\ntipc: interrupted while pytest was starting (Ctrl-C); nothing was run", file=sys.stderr)
        raise SystemExit(pytest.ExitCode.INTERRUPTED) from None
    declared = _declared(parser)
    taken = add_kept_options(parser.getgroup(GROUP).addoption, declared)
    early_config.stash[TAKEN] = {flag: declared[flag] for flag in taken}
    for arg in args:
        if arg == "--":
            break
        new = old_spelling(arg)
        if new is not None and arg.partition("=")[0] not in declared:
            flag = arg.partition("=")[0]
            raise pytest.UsageError(f"{flag}: tipc's pytest option is now {new} (the tipc command keeps {flag})")


def pytest_report_header(config: pytest.Config) -> str | None:
    taken = config.stash.get(TAKEN, {})
    if not taken:
        return None
    owners = ", ".join(f"{flag} (options {group!r})" for flag, group in taken.items())
    return f"tipc: another plugin owns {owners}; tipc's: {', '.join(prefixed(flag) for flag in taken)}"


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """tipc's extension points (``tipc.suites.hookspecs``): a pytest plugin may implement them."""
    from tipc.suites import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_configure(config: pytest.Config) -> None:
    if not config.getoption("tipc_config"):
        return
    from tipc.plugin.run_plugin import activate
    from tipc.suites.registry import adopt

    for plugin in config.pluginmanager.get_plugins():  # the plugins and conftests that implement a tipc hook
        adopt(plugin, config.pluginmanager.get_name(plugin))
    activate(config)
