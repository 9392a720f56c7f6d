"""Two configs with one ``model_name`` plan the same save dirs and logs: side by side (``--jobs``,
pytest-xdist) they are refused naming both configs; one after the other they run as the bash ran them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import tipc
from tests.support.fake_target import CPU_CONFIG
from tipc.cli.main import main
from tipc.dialects.paddleocr.config import load_config
from tipc.dialects.paddleocr.plan import build_plan
from tipc.plan import PlanOptions
from tipc.schedule.folders import shared_folders

MODE = "lite_train_lite_infer"
TWIN = (
    "configs/fake_rec/train_linux_cpu_twin_normal_infer_python_linux_cpu.txt"  # another config of the same model_name
)
TIPC_DIR = str(Path(tipc.__file__).resolve().parent)


@pytest.fixture(autouse=True)
def twin(fake_repo, request):
    if "pytester_repo" in request.fixturenames:
        return
    (fake_repo / TWIN).write_text((fake_repo / CPU_CONFIG).read_text())


def stages_of(repo: Path, *configs: str):
    for name in configs:
        plan = build_plan(load_config(repo / name), PlanOptions(mode=MODE, repo=str(repo), python="python"))
        yield from ((plan.config_path, s) for s in plan.stages())


def test_configs_of_one_model_write_the_same_folders(fake_repo):
    clashes = shared_folders(stages_of(fake_repo, CPU_CONFIG, TWIN))
    assert clashes and {clashes[0][0][0], clashes[0][1][0]} == {
        str(fake_repo / CPU_CONFIG),
        str(fake_repo / TWIN),
    }


def test_a_config_alone_or_beside_another_model_writes_folders_of_its_own(fake_repo):
    other = fake_repo / "configs" / "fake_rec" / "other.txt"
    other.write_text((fake_repo / CPU_CONFIG).read_text().replace("model_name:fake_rec", "model_name:other_rec"))
    assert shared_folders(stages_of(fake_repo, CPU_CONFIG)) == []
    assert shared_folders(stages_of(fake_repo, CPU_CONFIG, "configs/fake_rec/other.txt")) == []


def test_jobs_refuses_two_configs_that_write_one_folder(fake_repo, capsys):
    code = main(["run", "--config", str(fake_repo / "configs" / "fake_rec"), "--mode", MODE, "--python",
                 sys.executable, "--no-report", "--jobs", "2"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert "--jobs: configs" in err and CPU_CONFIG.rpartition("/")[2] in err and TWIN.rpartition("/")[2] in err
    assert (
        not (fake_repo / "test_tipc" / "output" / "fake_rec" / MODE / "results.jsonl").exists()
        or not (fake_repo / "test_tipc" / "output" / "fake_rec" / MODE / "results.jsonl").read_text()
    )


def test_xdist_refuses_two_configs_that_write_one_folder(pytester, pytester_repo):
    (pytester_repo / TWIN).write_text((pytester_repo / CPU_CONFIG).read_text())
    result = pytester.runpytest(
        TIPC_DIR, "-c", str(pytester.path / "tox.ini"), "--config", str(pytester_repo / "configs" / "fake_rec"),
        "--mode", MODE, "--tipc-python", sys.executable, "--tipc-no-report", "-p", "no:cacheprovider",
        "-n", "2", "--dist", "loadscope",
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*pytest-xdist (2 workers): configs *twin* both write *"])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
