"""Two real nights of the reference target (``make demo`` twice): the second report shows every
benchmark figure's trend over both runs, and judges none of them yet (issue 14's "done when")."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.support.htmlq import parse
from tests.support.tinyrec import CPU_CONFIG, LITE, pytest_tipc_argv
from tipc.history.store import HISTORY_FILE, History

pytestmark = pytest.mark.slow

CHAIN = "norm_train-gpus_-1-fp32"


def test_the_second_run_shows_trends_and_says_judging_waits(tinyrec, tmp_path):
    repo = tmp_path / "tinyrec"
    shutil.copytree(tinyrec, repo, ignore=shutil.ignore_patterns("test_tipc"))
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    argv = pytest_tipc_argv(tmp_path, "--config", CPU_CONFIG, "--mode", LITE, "--tipc-repo", str(repo), "--tipc-device", "cpu",
                            "--tipc-fail-on", "regression")  # fmt: skip
    for _ in range(2):
        done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout[-3000:]
    doc = parse((tmp_path / "reports" / "tinyrec" / LITE / "latest" / "index.html").read_text(encoding="utf-8"))
    rows = {
        (tr.attrs["data-stage"], tr.attrs["data-figure"]): tr
        for tr in doc.find(id="trend-table").find("tbody").find_all("tr")
    }
    cases = [f"{CHAIN}::infer[cpu-mkldnn_False-threads_2-fp32-bs{bs}]" for bs in (1, 6)]
    assert set(rows) == {(f"{CHAIN}::train", "train ips"), (f"{CHAIN}::train", "training peak RSS")} | {
        (case, figure) for case in cases for figure in ("inference time", "throughput", "CPU peak RSS")
    }
    for tr in rows.values():
        assert tr.attrs["data-verdict"] == "learning"
        assert len(tr.find("polyline").attrs["points"].split()) == 2  # both nights, this one last
    assert "this config has 1 so far, so nothing is judged yet" in doc.find(id="trend-rule").text
    assert not doc.find_all(id="regressions")
    store = repo / "test_tipc" / "output" / HISTORY_FILE  # the output root's history, not the report's
    assert len({e.run for e in History(store).series("tinyrec", LITE)}) == 2
    assert float(rows[(f"{CHAIN}::train", "train ips")].find_all("td")[3].text.split()[0]) > 0
