"""``tipc <command>`` through the real ``tipc.cli.main`` dispatch, in process."""

from __future__ import annotations

import pytest

from tipc.cli import main


@pytest.fixture
def command(monkeypatch, capsys):
    """``command(name)`` registers only that command, so no other command's imports or state matter,
    and returns ``run(*argv) -> (exit code, stdout, stderr)``."""

    def only(name: str):
        monkeypatch.setattr(main, "COMMANDS", {name: main.COMMANDS[name]})

        def run(*argv: str) -> tuple[int, str, str]:
            code = main.main([name, *argv])
            out, err = capsys.readouterr()
            return code, out, err

        return run

    return only
