"""--config files and directories, --tags: which configs a run covers, or why none."""

from __future__ import annotations

from pathlib import Path

import pytest

from tipc.errors import SettingsError
from tipc.session.selection import select_configs

CPU = "train_linux_cpu_normal_normal_infer_python_linux_cpu.txt"
AMP = "train_linux_gpu_normal_amp_infer_python_linux_gpu_cpu.txt"
FLEET = "train_linux_gpu_fleet_normal_infer_python_linux_gpu_cpu.txt"
SHORT = "train_infer_python.txt"


@pytest.fixture
def configs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """test_configs/{a,b}/… in the current directory, as the fronts see it."""
    monkeypatch.chdir(tmp_path)
    for name in (f"a/{CPU}", f"a/{AMP}", f"b/{FLEET}", f"b/{SHORT}", "b/model_linux_gpu_cpp.txt"):
        path = tmp_path / "test_configs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
    return tmp_path


def names(selected, root: Path) -> list[str]:
    return [s.path.resolve().relative_to(root.resolve() / "test_configs").as_posix() for s in selected]


@pytest.mark.parametrize(
    ("args", "tags", "expected"),
    [
        (("a",), (), [f"a/{CPU}", f"a/{AMP}"]),
        (("b", "a"), (), [f"b/{SHORT}", f"b/{FLEET}", f"a/{CPU}", f"a/{AMP}"]),
        ((f"a/{AMP}", "a"), (), [f"a/{AMP}", f"a/{CPU}"]),
        (("test_configs",), ("linux_gpu",), [f"a/{AMP}", f"b/{SHORT}", f"b/{FLEET}"]),
        (("a", "b"), ("linux_gpu,normal",), [f"b/{SHORT}"]),
        (("a", "b"), ("linux_cpu", "fleet"), [f"a/{CPU}", f"b/{FLEET}"]),
    ],
    ids=[
        "directory-sorted",
        "in-the-order-given",
        "each-once-first-mention-wins",
        "tags-over-the-whole-tree",
        "all-tags-of-a-group",
        "any-group",
    ],
)
def test_selection(configs, args, tags, expected):
    assert names(select_configs(args, tags, configs), configs) == expected


def test_configs_from_a_directory_know_it(configs):
    (first, *_) = select_configs(["a"], [], configs)
    assert first.within is not None and first.within.resolve() == configs.resolve() / "test_configs" / "a"
    (single,) = select_configs([f"a/{CPU}"], [], configs)
    assert single.within is None


@pytest.mark.parametrize(
    ("args", "tags", "message"),
    [
        (("nope",), (), "--config nope: config not found: tried 'nope'"),
        (("empty",), (), "--config empty: no train_*.txt config in"),
        (("a",), ("linux_cup",), "--tags linux_cup: no config has the tag linux_cup (of the 2 configs selected); "),
        (("a",), ("linux_cpu,amp",), "--tags amp,linux_cpu: no config has all these tags"),
        (("a",), ("cpu,,amp",), "--tags 'cpu,,amp': empty tag"),
        (("b",), ("normal", "pact"), "no config has the tag pact"),
    ],
    ids=["not-found", "empty-directory", "unknown-tag", "no-config-has-all", "empty-tag", "typo-in-one-group"],
)
def test_a_selection_of_nothing_is_the_runs_error(configs, args, tags, message):
    (configs / "empty").mkdir()
    with pytest.raises(SettingsError) as caught:
        select_configs(args, tags, configs)
    assert message in str(caught.value)


def test_unknown_tag_lists_the_tags_there_are(configs):
    with pytest.raises(SettingsError, match=r"their tags: amp, linux_cpu, linux_gpu, normal$"):
        select_configs(["a"], ["gpu"], configs)
