"""A zoo where several configs fail for one cause and one for another: two groups, in the console and
the matrix, each with the run it first appeared in."""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

from tests.support.fake_target import CPU_CONFIG
from tests.support.htmlq import parse
from tipc.cli.main import main

MODE = "lite_train_lite_infer"
MISSING = "ModuleNotFoundError: No module named 'planted_missing_module'"
# Two planted causes: a training that imports what is not installed, one that rejects its input.
SCRIPTS = {
    "tools/needs_module.py": "import planted_missing_module\n",
    "tools/bad_value.py": "raise ValueError('planted: batch size 7 is not a multiple of 4')\n",
}
ZOO = {"model_a": "needs_module", "model_b": "needs_module", "model_c": "needs_module", "model_d": "bad_value"}


def _zoo(repo: Path) -> Path:
    for path, text in SCRIPTS.items():
        (repo / path).write_text(text)
    text = (repo / CPU_CONFIG).read_text()
    zoo = repo / "configs" / "zoo"
    for model, script in ZOO.items():
        (zoo / model).mkdir(parents=True)
        config = text.replace("model_name:fake_rec\n", f"model_name:{model}\n")
        config = config.replace("norm_train:tools/train.py", f"norm_train:tools/{script}.py")
        (zoo / model / Path(CPU_CONFIG).name).write_text(config)
        (zoo / model / "target.yaml").write_text("repo: ../../..\n")  # the stages run in the fake target
    return zoo


def _run(zoo: Path, reports: Path, capsys) -> tuple[list[str], Path]:
    argv = ["run", "--config", str(zoo), "--mode", MODE, "--python", sys.executable, "--report-dir", str(reports)]
    assert main([*argv, "-q"]) == 1
    out = capsys.readouterr().out.splitlines()
    (matrix,) = [Path(line.removeprefix("tipc: matrix report: ")) for line in out if line.startswith("tipc: matrix")]
    return out, matrix


def _causes(out: list[str]) -> list[str]:
    start = out.index("tipc: failures by cause:")
    return [line.strip() for line in out[start + 1 :] if line.startswith("  ")]


def _matrix_groups(matrix: Path) -> list[tuple[str, str, str]]:
    items = parse(matrix.read_text()).find(id="causes").find_all("li")
    return [(li.attrs["data-kind"], li.attrs["data-configs"], li.attrs["data-since"]) for li in items]


def test_failures_of_one_cause_are_one_group_and_the_next_run_says_since_when(fake_repo, capsys):
    zoo = _zoo(fake_repo)
    reports = fake_repo / "reports"
    out, matrix = _run(zoo, reports, capsys)
    first = matrix.parent.name
    assert _causes(out) == [
        f"3 configs: {MISSING} (missing-module)",  # no earlier run: neither new nor recurring can be told
        f"model_d/{Path(CPU_CONFIG).name}: ValueError: planted: batch size N is not a multiple of N (python-exception)",
    ]
    assert _matrix_groups(matrix) == [("missing-module", "3", ""), ("python-exception", "1", "")]

    time.sleep(1.1)  # run ids sort by their start's second: the next night starts in a later one
    shutil.rmtree(reports / "matrix")  # old pages deleted: the history store remembers the causes
    out, matrix = _run(zoo, reports, capsys)
    assert [line.rpartition("; ")[2] for line in _causes(out)] == [f"since {first})", f"since {first})"]
    assert _matrix_groups(matrix) == [("missing-module", "3", first), ("python-exception", "1", first)]
    record = (fake_repo / "test_tipc/output/model_a" / MODE / "results.jsonl").read_text()
    assert f'"cause": "{MISSING}"' in record and '"cause_kind": "missing-module"' in record
    pages = "".join(p.read_text() for p in (reports / "model_a" / MODE).rglob("*.html"))
    causes = [dd.text for dd in parse(pages).find_all("dd") if "data-cause" in dd.attrs]
    assert causes and set(causes) == {f"missing-module: {MISSING}"}  # the report's stage details
