"""Every hook, faulty every way a plugin can be (raising, hanging, answering junk or what JSON cannot hold), on
both fronts (``pytest tipc`` in a process of its own, one fault a hook), over the fake target's chain with a failing stage (so the cause rules are asked too): every stage
that ran keeps its record and its legacy line, the report is written, and each hook's fault is named."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import tipc
from tests.suites.faulty_plugin import tipc_faulty_plugin as faulty
from tests.support.fake_target import CPU_CONFIG, copy_fake_target
from tests.support.hang import without_hanging
from tipc.cli.main import main
from tipc.suites import registry
from tipc.suites.guard import PluginWarning

MODE = "lite_train_lite_infer"
FAULTS = ("raise", "hang", "junk", "hostile")
TIPC_DIR = str(Path(tipc.__file__).resolve().parent)
STAGES = ["train", "eval", "export", "infer", "infer"]


@pytest.fixture
def fault(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The fault of the faulty plugin's hooks; a hang is given up on after 0.3 s."""
    monkeypatch.setenv("TIPC_TEST_FAULT", request.param)
    monkeypatch.setenv("TIPC_HOOK_TIMEOUT", "0.3")
    monkeypatch.setenv("TIPC_FAKE", "eval:fail")  # a failed stage: its cause is judged with the plugin's rules
    registered = set(registry.manager().get_plugins())
    faulty.RELEASE.clear()
    yield request.param
    faulty.RELEASE.set()
    for plugin in set(registry.manager().get_plugins()) - registered:
        registry.manager().unregister(plugin)


def kept_every_stage(folder: Path) -> list[dict[str, object]]:
    """The records (strict JSON), after checking each stage has one and its legacy line."""
    text = (folder / "results.jsonl").read_text()
    records = [
        json.loads(line, parse_constant=lambda token: pytest.fail(f"{token} in results.jsonl"))
        for line in text.splitlines()
    ]
    assert [str(r["id"]).rpartition("::")[2].partition("[")[0] for r in records] == STAGES
    legacy = (folder / "results_python.log").read_text().splitlines()
    assert len(legacy) == len(STAGES), legacy
    assert sum("Run failed" in line for line in legacy) == 1
    return records


@pytest.mark.parametrize("fault", FAULTS, indirect=True)
def test_the_cli_keeps_every_record_whatever_a_plugins_hooks_do(
    fault: str, fake_repo: Path, tmp_path: Path, capsys
) -> None:
    name = f"faulty-{fault}"  # a name of its own: each (plugin, hook) is warned once a process
    registry.manager().register(faulty, name)
    argv = ["run", "--config", str(fake_repo / CPU_CONFIG), "--mode", MODE, "--python", sys.executable]
    with pytest.warns(PluginWarning) as warned:
        code = without_hanging(lambda: main([*argv, "--report-dir", str(tmp_path / "reports")]), 60)
    assert code == 1, capsys.readouterr()
    records = kept_every_stage(fake_repo / "test_tipc" / "output" / "fake_rec" / MODE)
    assert records[1]["status"] == "failed" and records[1]["cause_kind"]
    said = [str(w.message) for w in warned]
    for hook in faulty.HOOKS:
        assert sum(f"plugin {name}: its {hook} " in text for text in said) == 1, (hook, said)
    assert list((tmp_path / "reports").rglob("index.html"))


@pytest.mark.parametrize("fault", ["mixed"], indirect=True)  # one process (seconds), each fault on some hook
def test_pytest_tipc_keeps_every_record_whatever_a_plugins_hooks_do(fault: str, pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    plugin = "faulty_plugin"
    pytester.makepyfile(**{plugin: f"from {faulty.__name__} import *  # every hook"})
    repo = copy_fake_target(pytester.path / "fake_target")
    args = [f"--config={repo / CPU_CONFIG}", "--mode", MODE, "--tipc-python", sys.executable]
    result = without_hanging(
        lambda: pytester.runpytest_subprocess(
            TIPC_DIR,
            "-p",
            plugin,
            "-W",
            f"always::{PluginWarning.__module__}.PluginWarning",
            *args,
            "--tipc-report-dir",
            "reports",
        ),
        60,
    )
    result.assert_outcomes(passed=4, failed=1)
    kept_every_stage(repo / "test_tipc" / "output" / "fake_rec" / MODE)
    said = result.stdout.str() + result.stderr.str()  # the warnings summary; stderr where pytest shows none
    for hook in faulty.HOOKS:
        assert f"plugin {plugin}: its {hook} " in said, hook
    assert list((pytester.path / "reports").rglob("index.html"))
