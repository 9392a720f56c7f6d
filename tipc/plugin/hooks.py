"""pytest entry point (``pytest11``) for tipc: ``pytest tipc --config … --mode …``.

pytest imports this module in every run on a machine with tipc installed, so it
holds only what every run needs: the options and the ``tipc`` argument. Without
``--config`` tipc stays inert and nothing else of it is imported; with it,
``pytest_configure`` resolves the options once into frozen ``Settings`` and
registers a ``TipcPlugin`` (``run_plugin``), which owns collection and the run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tipc.session.options import add_options

TIPC_DIR = Path(__file__).resolve().parents[1]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tipc", "tipc: run a TIPC config as tests (pytest tipc --config … --mode …)")
    add_options(group.addoption)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    """``pytest tipc`` from any directory: a ``tipc`` argument that is not a path here names the
    installed package (in tipc's own checkout it is that directory anyway)."""
    for index, arg in enumerate(args):
        name, sep, rest = arg.partition("::")
        if name == "tipc" and not Path(name).exists():
            args[index] = f"{TIPC_DIR}{sep}{rest}"


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
