"""``pytest tipc`` end to end on a copy of the fake target, inside ``pytester``.

The copy is laid out as a user's checkout would be: ``test_configs/fake_rec/``
holds the configs and a ``target.yaml`` naming the fake target as the repo, so
``--config fake_rec/<file>`` resolves the way ``PP-OCRv3_mobile_rec/<file>``
does in tipc's own checkout.
"""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import tipc
from tests.support.fake_target import FAKE_TARGET, copy_fake_target

TIPC_DIR = str(Path(tipc.__file__).resolve().parent)
CPU = "train_linux_cpu_normal_normal_infer_python_linux_cpu.txt"
AMP = "train_linux_cpu_normal_amp_infer_python_linux_cpu.txt"
MODE = "lite_train_lite_infer"


@dataclass
class Tipc:
    pytester: pytest.Pytester
    tipc_dir: str = TIPC_DIR

    @property
    def repo(self) -> Path:
        return self.pytester.path / "fake_target"

    def out(self, model: str = "fake_rec") -> Path:
        return self.repo / "test_tipc" / "output" / model / MODE

    def args(self, *extra: str, config: str = CPU) -> list[str]:
        return [
            TIPC_DIR,
            "-c",
            str(self.pytester.path / "tox.ini"),
            "--config",
            f"fake_rec/{config}",
            "--mode",
            MODE,
            "--tipc-python",
            sys.executable,
            *extra,
        ]

    def run(self, *extra: str, config: str = CPU) -> pytest.RunResult:
        return self.pytester.runpytest(*self.args(*extra, config=config))

    def records(self, model: str = "fake_rec") -> list[dict]:
        return [json.loads(line) for line in (self.out(model) / "results.jsonl").read_text().splitlines()]


@pytest.fixture
def tipc_run(pytester: pytest.Pytester) -> Tipc:
    pytester.makeini("[pytest]\n")
    copy_fake_target(pytester.path / "fake_target")
    configs = pytester.path / "test_configs" / "fake_rec"
    configs.mkdir(parents=True)
    for name in (CPU, AMP):
        shutil.copy(FAKE_TARGET / "configs" / "fake_rec" / name, configs / name)
    (configs / "target.yaml").write_text("repo: ../../fake_target\n")
    return Tipc(pytester)
