"""``pytest tipc`` over a matrix of configs (pytester, fake target): a directory, --tipc-tags, configs that
cannot run here (each its own error or skip, the others run), and the matrix report."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.plugin.conftest import AMP, CPU, MODE, Tipc
from tests.support.htmlq import parse

DCU = "train_linux_dcu_normal_normal_infer_python_dcu.txt"  # empty, as PaddleOCR ships it
FLEET = "train_linux_cpu_fleet_normal_infer_python_linux_cpu.txt"
BAD_KEY = "train_pact_infer_python.txt"


def configs(tipc_run: Tipc) -> Path:
    return tipc_run.pytester.path / "test_configs" / "fake_rec"


def add_zoo(tipc_run: Tipc) -> None:
    """An empty config, one with a key out of place, and a two-node fleet config beside the good two."""
    folder = configs(tipc_run)
    text = (folder / CPU).read_text()
    (folder / DCU).write_text("")
    (folder / BAD_KEY).write_text(text.replace("pact_train:null", "pact_trian:null"))
    fleet = text.replace("gpu_list:-1", "gpu_list:192.168.0.1,192.168.0.2;0,1")
    (folder / FLEET).write_text(fleet.replace("model_name:fake_rec\n", "model_name:fake_rec_fleet\n"))


def run(tipc_run: Tipc, *extra: str) -> pytest.RunResult:
    return tipc_run.pytester.runpytest(
        tipc_run.tipc_dir,
        "-c",
        str(tipc_run.pytester.path / "tox.ini"),
        "--mode",
        MODE,
        "--tipc-python",
        sys.executable,
        *extra,
    )


def test_a_directory_stands_for_every_config_in_it(tipc_run):
    result = run(tipc_run, "--config", "fake_rec", "--collect-only", "-q")
    assert result.ret == 0
    ids = [line for line in result.outlines if "::" in line]
    assert len(ids) == 15
    assert {i.split("::")[0] for i in ids} == {f"fake_rec/{AMP}", f"fake_rec/{CPU}"}
    result.stdout.fnmatch_lines(["tipc: 2 configs: 2 planned"])


def test_tags_pick_configs_before_anything_reads_them(tipc_run):
    add_zoo(tipc_run)
    result = run(tipc_run, "--config", "fake_rec", "--tipc-tags", "linux_cpu,normal", "--collect-only", "-q")
    assert result.ret == 0  # the empty DCU config and the bad PACT one are never read
    assert {line.split("::")[0] for line in result.outlines if "::" in line} == {f"fake_rec/{CPU}"}


def test_a_bad_tag_is_a_usage_error(tipc_run):
    result = run(tipc_run, "--config", "fake_rec", "--tipc-tags", "linux_gpu", "--collect-only")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--tipc-tags linux_gpu: no config has the tag linux_gpu (of the 2 configs selected)*"]
    )


def test_configs_that_cannot_run_are_each_their_own_story_and_the_others_run(tipc_run):
    add_zoo(tipc_run)
    xml = tipc_run.pytester.path / "junit.xml"
    result = run(tipc_run, "--config", "fake_rec", f"--junitxml={xml}", "-rs")
    result.assert_outcomes(passed=15, skipped=1, errors=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    out = result.stdout.str()
    assert "Interrupted" not in out
    result.stdout.fnmatch_lines(
        [
            f"*ERROR collecting fake_rec/{DCU}*",
            f"*/fake_rec/{DCU}: empty file: expected a TIPC config starting with the 'train_params' header",
            f"*ERROR collecting fake_rec/{BAD_KEY}*",
            f"*/fake_rec/{BAD_KEY}:17: expected key 'pact_train' (role pact_train), found 'pact_trian'",
        ],
        consecutive=False,
    )
    result.stdout.fnmatch_lines(
        [
            "tipc: 5 configs: 2 planned, 2 could not be planned, 1 not applicable here",
            f"SKIPPED [[]1[]] *{FLEET}:1: not applicable on a single node: it trains on 2 nodes "
            "(192.168.0.1,192.168.0.2, its gpu_list)*--tipc-ips 192.168.0.1,192.168.0.2 --tipc-host <that node's address>",
        ],
        consecutive=False,
    )
    errors = {
        case.get("name"): case.find("error").text
        for case in ET.parse(xml).getroot().iter("testcase")
        if case.find("error") is not None
    }
    assert errors.keys() == {f"fake_rec.{BAD_KEY}", f"fake_rec.{DCU}"}
    assert errors[f"fake_rec.{DCU}"].endswith(
        f"/fake_rec/{DCU}: empty file: expected a TIPC config starting with the 'train_params' header"
    )
    assert "--tipc-ips 192.168.0.1,192.168.0.2" in ET.parse(xml).getroot().find(".//skipped").get("message")

    (line,) = [line for line in result.outlines if line.startswith("tipc: matrix report: ")]
    page = Path(line.removeprefix("tipc: matrix report: "))
    assert page.parent.parent == tipc_run.pytester.path / "reports" / "matrix"
    rows = {tr.attrs["data-config"]: tr for tr in parse(page.read_text()).find("tbody").find_all("tr")}
    assert {c: tr.attrs["data-verdict"] for c, tr in rows.items()} == {
        f"fake_rec/{BAD_KEY}": "error",
        f"fake_rec/{FLEET}": "not applicable",
        f"fake_rec/{AMP}": "passed",
        f"fake_rec/{CPU}": "passed",
        f"fake_rec/{DCU}": "error",
    }
    assert "expected key 'pact_train'" in rows[f"fake_rec/{BAD_KEY}"].find("td", cls="problem").text
    link = rows[f"fake_rec/{CPU}"].find("a").attrs["href"]
    assert (page.parent / link).resolve() == (
        tipc_run.pytester.path / "reports/fake_rec" / MODE / page.parent.name / "index.html"
    )


def test_with_xdist_the_other_configs_still_run(tipc_run):
    pytest.importorskip("xdist")
    add_zoo(tipc_run)
    result = run(
        tipc_run, "--config", f"fake_rec/{DCU}", "--config", f"fake_rec/{CPU}", "-n", "2", "--dist", "loadscope"
    )
    result.assert_outcomes(passed=5, errors=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
