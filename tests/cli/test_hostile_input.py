"""Hostile or broken input files at the commands that read them (``tipc merge``, ``tipc report``,
``tipc golden update``): a clear message and exit 2, never a traceback, a hang or a write outside
the folder the user named. Each case was a traceback, a hang or a leak on the main of 2026-12-01."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest
from PIL import Image

from tests.support.fake_target import CPU_CONFIG
from tests.support.hang import without_hanging
from tests.support.recorded_runs import ResultsWriter
from tipc.cli.main import main
from tipc.history.legacy import TREND_FILE
from tipc.history.store import HISTORY_FILE, History
from tipc.results.records import Status

MODE = "lite_train_lite_infer"


@pytest.fixture
def command(capsys):
    """``command(name)(*argv) -> (exit code, stdout, stderr)``, in process, every command registered."""

    def named(name: str):
        def run(*argv: str) -> tuple[int, str, str]:
            code = main([name, *argv])
            out, err = capsys.readouterr()
            return code, out, err

        return run

    return named


PREFIX = "[2026/12/01 01:52:42] ppocr INFO: "


def shard_dirs(tmp_path: Path, *shards: str) -> list[str]:
    """Two shards of one split, claiming ``shards`` (1/2 and 2/2 unless told)."""
    dirs = []
    for k, label in enumerate(shards or ("1/2", "2/2"), 1):
        writer = ResultsWriter(tmp_path / "mode" / f"shard{k}", run_id=f"r{k}")
        writer.add(f"c{k}", "train", Status.PASSED)  # each shard runs chains of its own
        writer.write(shard=label, partition="p")
        (writer.root / "results_python.log").write_text("ok\n")
        dirs.append(str(writer.root))
    return dirs


@pytest.mark.parametrize("shard", ["x/y", "1/1000000000", "-5/2", "3/2", "²/3"])
def test_merge_refuses_a_shard_that_is_no_k_of_n(command, tmp_path, shard):
    """The first shard claims it: a merge counted the missing parts from the first (1/1000000000: 4.6 GB)."""
    dirs = shard_dirs(tmp_path, shard, "2/2")
    code, _, err = without_hanging(lambda: command("merge")(*dirs, "--out", str(tmp_path / "m")))
    assert code == 2 and "run.json: not a tipc run.json (field 'shard' is" in err and "Traceback" not in err


def test_merge_and_report_refuse_deeply_nested_json(command, tmp_path):
    dirs = shard_dirs(tmp_path)
    Path(dirs[1], "results.jsonl").write_text("[" * 100_000 + "]" * 100_000 + "\n")
    code, _, err = command("merge")(*dirs, "--out", str(tmp_path / "m"))
    assert code == 2 and "results.jsonl:1: not a stage record (JSON nested too deeply)" in err
    Path(dirs[1], "run.json").write_text('{"a": ' * 100_000)
    code, _, err = command("report")(dirs[1], "--out", str(tmp_path / "reports"))
    assert code == 2 and "run.json: not a tipc run.json (JSON nested too deeply)" in err


@pytest.mark.parametrize("name", ["merge", "report"])
def test_an_out_that_is_a_file_is_a_clear_error(command, tmp_path, name):
    dirs = shard_dirs(tmp_path)
    (tmp_path / "taken").write_text("mine\n")
    code, _, err = command(name)(*dirs, "--out", str(tmp_path / "taken"))
    assert (code, err) == (2, f"tipc: error: --out {tmp_path / 'taken'}: is a file; " + err.partition("is a file; ")[2])
    assert "expected" in err and (tmp_path / "taken").read_text() == "mine\n"


def _fifo(path: Path) -> None:
    path.unlink(missing_ok=True)
    os.mkfifo(path)


def _dev_zero(path: Path) -> None:
    path.unlink(missing_ok=True)
    path.symlink_to("/dev/zero")


@pytest.mark.parametrize("make", [_fifo, _dev_zero], ids=["fifo", "dev-zero"])
@pytest.mark.parametrize("name", ["run.json", "results.jsonl", "results_python.log"])
def test_a_results_file_that_never_ends_is_refused_at_once(command, tmp_path, make, name):
    dirs = shard_dirs(tmp_path)
    make(Path(dirs[1], name))
    code, _, err = without_hanging(lambda: command("merge")(*dirs, "--out", str(tmp_path / "m")))
    assert code == 2 and f"{name}: cannot be read (is a " in err


@pytest.mark.parametrize("make", [_fifo, _dev_zero], ids=["fifo", "dev-zero"])
def test_a_trend_history_that_never_ends_is_left_alone(command, tmp_path, make):
    writer = ResultsWriter(tmp_path / "results")
    writer.add("c", "train", Status.PASSED, metrics={"loss": 1.0})
    writer.write()
    history = tmp_path / "reports" / "PP-OCRv3_mobile_rec" / MODE / TREND_FILE
    history.parent.mkdir(parents=True)
    make(history)
    code, out, err = without_hanging(lambda: command("report")(str(writer.root), "--out", str(tmp_path / "reports")))
    assert code == 0 and out.strip().endswith("index.html") and f"trend history {history} not read (is a" in err


def failed_stage_with_log(tmp_path: Path, log: str) -> Path:
    """A run whose failed stage names ``log``: its report's badge, and so ``tipc report``'s exit status, is 1."""
    writer = ResultsWriter(tmp_path / "repo" / "test_tipc" / "output" / "m" / MODE)
    record = writer.add("c", "train", Status.FAILED)
    writer.records[-1] = record.__class__(**{**record.__dict__, "log": log, "cwd": str(tmp_path / "repo")})
    return writer.write()


def test_a_record_naming_a_system_file_as_its_log_does_not_embed_it(command, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("the-secret-line\n")
    results = failed_stage_with_log(tmp_path, str(secret))
    code, out, _ = command("report")(str(results), "--out", str(tmp_path / "reports"))
    page = Path(out.strip()).read_text()
    assert code == 1 and "the-secret-line" not in page and "outside the run" in page


def test_a_log_inside_the_repo_is_shown(command, tmp_path):
    results = failed_stage_with_log(tmp_path, str(tmp_path / "repo" / "train.log"))
    (tmp_path / "repo" / "train.log").write_text("the-own-line\n")
    code, out, _ = command("report")(str(results), "--out", str(tmp_path / "reports"))
    assert code == 1 and "the-own-line" in Path(out.strip()).read_text()


@pytest.mark.parametrize("make", [_fifo, _dev_zero], ids=["fifo", "dev-zero"])
def test_a_record_whose_log_never_ends_is_reported_at_once(command, tmp_path, make):
    log = tmp_path / "repo" / "train.log"
    results = failed_stage_with_log(tmp_path, str(log))
    make(log)
    code, out, _ = without_hanging(lambda: command("report")(str(results), "--out", str(tmp_path / "reports")))
    assert code == 1 and Path(out.strip()).is_file()


def test_a_stage_that_turns_its_log_into_dev_zero_keeps_its_record_and_the_run_ends(command, fake_repo, monkeypatch):
    """Train's and eval's logs (their stdout's and train's own train.log) made links to /dev/zero as
    they exit: the harness read them until memory ran out (under a 4 GB limit: eval's record said
    "metrics not parsed (MemoryError)"). Now they are refused unread: every record as it would be, saying why it has no figures."""
    monkeypatch.setenv("TIPC_FAKE", "train:zero-log,eval:zero-log")
    argv = ("--config", str(fake_repo / CPU_CONFIG), "--mode", MODE, "--python", sys.executable)
    code, _, err = without_hanging(lambda: command("run")(*argv), 60)
    folder = fake_repo / "test_tipc" / "output" / "fake_rec" / MODE
    records = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    assert code == 0, err
    assert [r["id"].rpartition("::")[2][:5] for r in records] == ["train", "eval", "expor", "infer", "infer"]
    assert {r["status"] for r in records} == {"passed"} and json.loads((folder / "run.json").read_text())["ended"]
    # No figures from a log that is a device, and the records say why.
    assert [r["reason"].partition(": ")[0] for r in records[:2]] == ["metrics not read"] * 2
    assert "is a character device" in records[0]["reason"] and [r["reason"] for r in records[2:]] == [""] * 3
    assert os.readlink(folder / records[0]["log"]) == "/dev/zero"


def infer_run(tmp_path: Path, image: str) -> Path:
    writer = ResultsWriter(tmp_path / "repo" / "out")
    writer.add(
        "c",
        "infer[cpu]",
        Status.PASSED,
        log_text=f"{PREFIX}Predicts of {image}:('text', 0.9)\n",
        argv=("python3", "tools/infer/predict_rec.py", "--image_dir=imgs"),
    )
    return writer.write()


def thumbnails(page: str) -> int:
    return page.count("data:image/jpeg;base64,")


@pytest.mark.parametrize("where", ["absolute", "dotdot", "symlink"])
def test_images_outside_the_repo_are_not_embedded(command, tmp_path, where):
    outside = tmp_path / "elsewhere" / "private.png"
    outside.parent.mkdir()
    Image.new("RGB", (40, 20), "red").save(outside)
    (tmp_path / "repo" / "out").mkdir(parents=True)
    named = {"absolute": str(outside), "dotdot": "../../elsewhere/private.png", "symlink": "link.png"}[where]
    (tmp_path / "repo" / "out" / "link.png").symlink_to(outside)
    results = infer_run(tmp_path, named)
    code, out, _ = command("report")(str(results), "--out", str(tmp_path / "reports"))
    page = Path(out.strip()).read_text()
    assert (
        code == 0
        and thumbnails(page) == 0
        and "image not shown: it lies outside the results folder and the repo" in page
    )
    Image.new("RGB", (40, 20), "red").save(tmp_path / "repo" / "out" / "own.png")
    results = infer_run(tmp_path, "own.png")
    code, out, _ = command("report")(str(results), "--out", str(tmp_path / "reports2"))
    assert code == 0 and thumbnails(Path(out.strip()).read_text()) == 1


@pytest.mark.filterwarnings("default::PIL.Image.DecompressionBombWarning")  # as outside pytest: a warning only
def test_a_decompression_bomb_is_refused_quickly(command, tmp_path):
    """A 12000 × 12000 PNG of one colour is 20 KB; Pillow only warns below twice its own limit, and
    decoded it was 1.35 GB and 15 s."""
    (tmp_path / "repo" / "out").mkdir(parents=True)
    Image.new("1", (12000, 12000)).save(tmp_path / "repo" / "out" / "bomb.png", optimize=True)
    results = infer_run(tmp_path, "bomb.png")
    started = time.monotonic()
    code, out, _ = command("report")(str(results), "--out", str(tmp_path / "reports"))
    page = Path(out.strip()).read_text()
    assert code == 0 and thumbnails(page) == 0 and time.monotonic() - started < 10
    assert "image not shown: it has more pixels than the 25 Mpixel limit" in page


def test_models_whose_names_reduce_alike_get_report_folders_and_histories_of_their_own(command, tmp_path):
    folders = set()
    for k, model in enumerate([".", "..", "模型", "模式", "a b", "a_b"]):
        writer = ResultsWriter(tmp_path / f"r{k}", run_id=f"run{k}")
        writer.add("c", "train", Status.PASSED, metrics={"ips": 10.0})  # a figure: a history line
        writer.write(model=model)
        code, out, _ = command("report")(str(writer.root), "--out", str(tmp_path / "reports"))
        folders.add(Path(out.strip()).parent.parent)
        assert code == 0 and Path(out.strip()).is_relative_to(tmp_path / "reports")
    # Results kept outside an output root: each report's mode folder holds its model's history.
    assert len(folders) == 6 and all((f / HISTORY_FILE).is_file() for f in folders)
    assert all(len({e.run for e in History(f / HISTORY_FILE).series(f.parent.name, MODE)}) <= 1 for f in folders)


def test_golden_update_never_writes_outside_the_golden_folder(command, tmp_path):
    """A crafted results folder's precision (a config's --precision: value) of ``../../x``."""
    writer = ResultsWriter(tmp_path / "results")
    writer.add(
        "c",
        "infer[cpu]",
        Status.PASSED,
        log_text=f"{PREFIX}Predicts of a.png:('text', 0.9)\n",
        infer={"precision": "../../../escaped"},
    )
    writer.write()
    code, out, err = command("golden")("update", "--from", str(writer.root), "--golden-dir", str(tmp_path / "g"))
    written = Path(out.strip())
    assert code == 0, err
    assert written.parent.parent == tmp_path / "g" and written.is_file()
    assert not list(tmp_path.glob("escaped*")) and not list((tmp_path / "g").glob("escaped*"))


def test_an_output_root_that_is_a_file_is_named_without_a_traceback(command, fake_repo, tmp_path):
    (tmp_path / "taken").write_text("mine\n")
    argv = ("--config", str(fake_repo / CPU_CONFIG), "--mode", MODE, "--python", sys.executable, "--no-report")
    code, _, err = command("run")(*argv, "--output-root", str(tmp_path / "taken"))
    assert code != 0 and "Traceback" not in err
    assert f"{tmp_path / 'taken'} is a file, not a folder" in err and (tmp_path / "taken").read_text() == "mine\n"


def test_a_model_names_escapes_and_bells_are_shown_not_obeyed(command, fake_repo):
    config = fake_repo / CPU_CONFIG
    config.write_text(
        config.read_text().replace("model_name:fake_rec", "model_name:fake\x1b]0;pwned\x07\x1b[2J\x07_rec")
    )
    _, out, _ = command("plan")("--config", str(config), "--mode", MODE, "--python", sys.executable)
    assert "model fake\\x07_rec" in out  # the sequences removed, a lone bell shown
    for named in (config, config.parent):  # one config: its plan; a folder: a summary line per config
        _, out, err = command("plan")("--config", str(named), "--mode", MODE, "--python", sys.executable)
        assert "\x1b" not in out + err and "\x07" not in out + err
    _, out, err = command("run")("--config", str(config), "--mode", MODE, "--python", sys.executable, "--no-report")
    assert "\x1b" not in out + err and "\x07" not in out + err and "\\x07" in out + err


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
def test_a_history_figure_that_is_no_number_is_skipped_with_a_warning_never_drawn(command, tmp_path, value):
    writer = ResultsWriter(tmp_path / "results", run_id="r2")
    writer.add("c", "train", Status.PASSED, metrics={"loss": 1.0})
    writer.write()
    history = tmp_path / "reports" / "PP-OCRv3_mobile_rec" / MODE / TREND_FILE
    history.parent.mkdir(parents=True)
    line = {"schema": 1, "run": "r1", "config": writer.config, "stages": [{"id": "c::train", "node": 0, "figures": {}}]}
    history.write_text(json.dumps(line).replace('"figures": {}', f'"figures": {{"loss": {value}}}') + "\n")
    code, out, err = command("report")(str(writer.root), "--out", str(tmp_path / "reports"))
    assert code == 0 and f"skipped trend history line {history}:1: figure" in err and "finite number" in err
    assert value not in Path(out.strip()).read_text() and value.lower() not in Path(out.strip()).read_text()
